// iteration_slice_read / iteration_slice_write (Scan and Loop slices): the
// slice an iteration number selects, forward and reversed, against direct
// indexing of a [outer, count, inner] array; and every checker or run-time
// refusal (short bindings, bad flags, an iteration outside the count).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "kiln/kernels.h"

namespace {

constexpr int64_t kOuter = 2, kCount = 3, kInner = 4;  // floats per slice row

float Element(int64_t o, int64_t k, int64_t e) { return static_cast<float>(100 * o + 10 * k + e); }

std::vector<float> Whole() {
  std::vector<float> w;
  for (int64_t o = 0; o < kOuter; ++o)
    for (int64_t k = 0; k < kCount; ++k)
      for (int64_t e = 0; e < kInner; ++e) w.push_back(Element(o, k, e));
  return w;
}

TEST(IterationSlice, ReadsTheSliceOfEachIterationInBothDirections) {
  std::vector<float> whole = Whole();
  for (int64_t reverse : {0, 1}) {
    const int64_t ip[] = {kOuter, kCount, kInner * 4, reverse};
    const uint64_t bytes[] = {8, whole.size() * 4, kOuter * kInner * 4};
    ASSERT_EQ(kiln_iteration_slice_read_check(ip, 4, nullptr, 0, bytes), KILN_OK);
    for (int64_t i = 0; i < kCount; ++i) {
      std::vector<float> slice(kOuter * kInner, -1);
      void* b[] = {&i, whole.data(), slice.data()};
      ASSERT_EQ(kiln_iteration_slice_read(ip, nullptr, b, nullptr), KILN_OK);
      const int64_t k = reverse ? kCount - 1 - i : i;
      for (int64_t o = 0; o < kOuter; ++o)
        for (int64_t e = 0; e < kInner; ++e)
          EXPECT_EQ(slice[o * kInner + e], Element(o, k, e)) << "i=" << i << " reverse=" << reverse;
    }
  }
}

TEST(IterationSlice, WritesEachIterationsSliceAndNothingElse) {
  for (int64_t reverse : {0, 1}) {
    const int64_t ip[] = {kOuter, kCount, kInner * 4, reverse};
    const uint64_t bytes[] = {8, kOuter * kInner * 4, kOuter * kCount * kInner * 4};
    ASSERT_EQ(kiln_iteration_slice_write_check(ip, 4, nullptr, 0, bytes), KILN_OK);
    std::vector<float> whole(kOuter * kCount * kInner, -1);
    for (int64_t i = 0; i < kCount; ++i) {
      const int64_t k = reverse ? kCount - 1 - i : i;
      std::vector<float> slice;
      for (int64_t o = 0; o < kOuter; ++o)
        for (int64_t e = 0; e < kInner; ++e) slice.push_back(Element(o, k, e));
      void* b[] = {&i, slice.data(), whole.data()};
      ASSERT_EQ(kiln_iteration_slice_write(ip, nullptr, b, nullptr), KILN_OK);
    }
    EXPECT_EQ(whole, Whole()) << "reverse=" << reverse;
  }
}

TEST(IterationSlice, RefusesAnIterationOutsideTheCount) {
  std::vector<float> whole = Whole(), slice(kOuter * kInner, -1);
  const std::vector<float> before = slice;
  const int64_t ip[] = {kOuter, kCount, kInner * 4, 0};
  for (int64_t i : {int64_t{-1}, kCount, INT64_MAX}) {
    void* read[] = {&i, whole.data(), slice.data()};
    EXPECT_EQ(kiln_iteration_slice_read(ip, nullptr, read, nullptr), KILN_ERR_SHAPE_MISMATCH);
    void* write[] = {&i, slice.data(), whole.data()};
    EXPECT_EQ(kiln_iteration_slice_write(ip, nullptr, write, nullptr), KILN_ERR_SHAPE_MISMATCH);
  }
  EXPECT_EQ(slice, before);
  EXPECT_EQ(whole, Whole());
}

TEST(IterationSlice, CheckerRefusesShortBindingsAndBadParameters) {
  const int64_t ip[] = {kOuter, kCount, kInner * 4, 0};
  const uint64_t whole = kOuter * kCount * kInner * 4, slice = kOuter * kInner * 4;
  const uint64_t good[] = {8, whole, slice};
  EXPECT_EQ(kiln_iteration_slice_read_check(ip, 4, nullptr, 0, good), KILN_OK);
  const uint64_t short_counter[] = {4, whole, slice};
  EXPECT_EQ(kiln_iteration_slice_read_check(ip, 4, nullptr, 0, short_counter), KILN_ERR_OUT_OF_RANGE);
  const uint64_t short_whole[] = {8, whole - 1, slice};
  EXPECT_EQ(kiln_iteration_slice_read_check(ip, 4, nullptr, 0, short_whole), KILN_ERR_OUT_OF_RANGE);
  const uint64_t short_slice[] = {8, whole, slice - 1};
  EXPECT_EQ(kiln_iteration_slice_read_check(ip, 4, nullptr, 0, short_slice), KILN_ERR_OUT_OF_RANGE);
  // The write direction binds the slice first and the whole second.
  const uint64_t write_good[] = {8, slice, whole};
  EXPECT_EQ(kiln_iteration_slice_write_check(ip, 4, nullptr, 0, write_good), KILN_OK);
  EXPECT_EQ(kiln_iteration_slice_write_check(ip, 4, nullptr, 0, good), KILN_ERR_OUT_OF_RANGE);
  const int64_t bad_reverse[] = {kOuter, kCount, kInner * 4, 2};
  EXPECT_EQ(kiln_iteration_slice_read_check(bad_reverse, 4, nullptr, 0, good), KILN_ERR_INVALID_ARGUMENT);
  const int64_t negative[] = {kOuter, -1, kInner * 4, 0};
  EXPECT_EQ(kiln_iteration_slice_read_check(negative, 4, nullptr, 0, good), KILN_ERR_INVALID_ARGUMENT);
  const int64_t huge[] = {INT64_MAX, 2, 2, 0};
  EXPECT_EQ(kiln_iteration_slice_read_check(huge, 4, nullptr, 0, good), KILN_ERR_OUT_OF_RANGE);
  EXPECT_EQ(kiln_iteration_slice_read_check(ip, 3, nullptr, 0, good), KILN_ERR_INVALID_ARGUMENT);
}

}  // namespace
