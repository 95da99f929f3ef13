// nonzero_bounded (NonZero shaped after the run): indices written compactly
// as [R, n] with n reported, checked against numpy.nonzero of the same data
// (values below from /usr/bin/python3: np.nonzero([[0,1.5,0],[-2,0,0.25]])
// = ([0,1,1],[1,0,2])); checker and run-time refusals.
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
  const int64_t past[] = {kF32, 2, 7, 2, 3};  // a capacity beyond the elements
  EXPECT_EQ(kiln_nonzero_bounded_check(past, 5, nullptr, 0, bytes), KILN_ERR_INVALID_ARGUMENT);
}

}  // namespace
