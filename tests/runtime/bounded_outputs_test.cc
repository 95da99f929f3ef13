// Kernels of outputs shaped after the run: nonzero_bounded writes the
// indices compactly as [R, n] and reports n, checked against numpy.nonzero
// of the same data (from /usr/bin/python3: np.nonzero([[0,1.5,0],[-2,0,0.25]])
// = ([0,1,1],[1,0,2])); compress_bounded writes [outer, n, inner] and
// reports n (np.compress([1,0,1], [[1,2,3],[4,5,6]], axis=1) = [[1,3],[4,6]]);
// checker and run-time refusals of both.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kiln/kernels.h"

namespace {

constexpr int64_t kF32 = KILN_DTYPE_F32;

TEST(NonZeroBounded, WritesTheIndicesCompactlyAndReportsTheCount) {
  const float x[6] = {0, 1.5f, 0, -2, 0, 0.25f};
  const int64_t ip[] = {kF32, 2, 6, 2, 3};  // capacity 6 = elements of X
  const uint64_t bytes[] = {24, 2 * 6 * 8, 8};
  ASSERT_EQ(kiln_nonzero_bounded_check(ip, 5, nullptr, 0, bytes), KILN_OK);
  std::vector<int64_t> y(12, -1);
  int64_t n = -1;
  void* b[] = {const_cast<float*>(x), y.data(), &n};
  ASSERT_EQ(kiln_nonzero_bounded(ip, nullptr, b, nullptr), KILN_OK);
  EXPECT_EQ(n, 3);
  const std::vector<int64_t> want = {0, 1, 1, 1, 0, 2};  // rows of [2, 3]
  EXPECT_EQ(std::vector<int64_t>(y.begin(), y.begin() + 6), want);
  EXPECT_EQ(y[6], -1);  // nothing past the compact result
}

TEST(NonZeroBounded, RefusesASmallCapacityOrCountSlot) {
  const float x[6] = {1, 1, 1, 1, 0, 0};
  const int64_t small[] = {kF32, 2, 3, 2, 3};  // capacity 3 < 4 non-zeros
  const uint64_t bytes[] = {24, 2 * 3 * 8, 8};
  ASSERT_EQ(kiln_nonzero_bounded_check(small, 5, nullptr, 0, bytes), KILN_OK);
  std::vector<int64_t> y(6, -1);
  int64_t n = -1;
  void* b[] = {const_cast<float*>(x), y.data(), &n};
  EXPECT_EQ(kiln_nonzero_bounded(small, nullptr, b, nullptr), KILN_ERR_SHAPE_MISMATCH);
  EXPECT_EQ(n, -1);
  const int64_t ip[] = {kF32, 2, 6, 2, 3};
  const uint64_t short_count[] = {24, 96, 4};
  EXPECT_EQ(kiln_nonzero_bounded_check(ip, 5, nullptr, 0, short_count), KILN_ERR_OUT_OF_RANGE);
  const uint64_t short_y[] = {24, 95, 8};
  EXPECT_EQ(kiln_nonzero_bounded_check(ip, 5, nullptr, 0, short_y), KILN_ERR_OUT_OF_RANGE);
  // A capacity beyond X's elements: X sized by a length found during the run
  // is planned at its bound. The plain kernel's exact count may not exceed them.
  const int64_t past[] = {kF32, 2, 7, 2, 3};
  const uint64_t past_bytes[] = {24, 2 * 7 * 8, 8};
  EXPECT_EQ(kiln_nonzero_bounded_check(past, 5, nullptr, 0, past_bytes), KILN_OK);
  EXPECT_EQ(kiln_nonzero_check(past, 5, nullptr, 0, past_bytes), KILN_ERR_INVALID_ARGUMENT);
}

TEST(CompressBounded, WritesTheSelectedSlicesCompactlyAndReportsTheCount) {
  const float x[6] = {1, 2, 3, 4, 5, 6};  // [2, 3], compressed along axis 1
  const bool cond[3] = {true, false, true};
  const int64_t ip[] = {4, 2, 3, 1, 3, 3};  // eb outer axis_len inner cond_len capacity
  const uint64_t bytes[] = {24, 3, 24, 8};
  ASSERT_EQ(kiln_compress_bounded_check(ip, 6, nullptr, 0, bytes), KILN_OK);
  std::vector<float> y(6, -1);
  int64_t n = -1;
  void* b[] = {const_cast<float*>(x), const_cast<bool*>(cond), y.data(), &n};
  ASSERT_EQ(kiln_compress_bounded(ip, nullptr, b, nullptr), KILN_OK);
  EXPECT_EQ(n, 2);
  EXPECT_EQ(std::vector<float>(y.begin(), y.begin() + 4), (std::vector<float>{1, 3, 4, 6}));
  EXPECT_EQ(y[4], -1);
}

TEST(CompressBounded, RefusesATrueEntryPastTheAxisAndAShortCountSlot) {
  const float x[2] = {1, 2};
  const bool cond[3] = {false, false, true};  // entry 2 is past the axis of 2
  const int64_t ip[] = {4, 1, 2, 1, 3, 2};
  const uint64_t bytes[] = {8, 3, 8, 8};
  ASSERT_EQ(kiln_compress_bounded_check(ip, 6, nullptr, 0, bytes), KILN_OK);
  float y[2] = {-1, -1};
  int64_t n = -1;
  void* b[] = {const_cast<float*>(x), const_cast<bool*>(cond), y, &n};
  EXPECT_EQ(kiln_compress_bounded(ip, nullptr, b, nullptr), KILN_ERR_INDEX_OUT_OF_RANGE);
  EXPECT_EQ(n, -1);
  EXPECT_EQ(y[0], -1);
  const uint64_t short_count[] = {8, 3, 8, 7};
  EXPECT_EQ(kiln_compress_bounded_check(ip, 6, nullptr, 0, short_count), KILN_ERR_OUT_OF_RANGE);
}

}  // namespace
