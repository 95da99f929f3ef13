// strided_copy and copy against NumPy-made layouts (bit-exact), and checkers.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "kernel_case.h"

namespace {

using kiln_test::With;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kBig = int64_t{1} << 40;

KILN_REFERENCE_SUITE(StridedCopyReference, "strided_copy.transpose_201",
                     "strided_copy.concat_part", "strided_copy.concat_first_part",
                     "strided_copy.slice_step", "strided_copy.expand",
                     "strided_copy.scalar_offsets", "strided_copy.transpose_i64",
                     "strided_copy.gather_u16", "strided_copy.rows_u8");

KILN_REFERENCE_SUITE(CopyReference, "copy.odd_bytes");

TEST(StridedCopyCheck, RejectsZeroElementSizeAndBadRank) {
  KILN_LOAD_CASE("strided_copy.transpose_201", c);  // R = 3
  const std::vector<uint64_t> bytes = c.binding_bytes();
  EXPECT_EQ(c.Check(With(c.iparams, {{0, 0}}), bytes), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(c.Check(With(c.iparams, {{1, 2}}), bytes), KILN_ERR_INVALID_ARGUMENT);
  std::vector<int64_t> rank9(4 + 3 * 9, 1);
  rank9[1] = 9;
  EXPECT_EQ(c.Check(rank9, bytes), KILN_ERR_INVALID_ARGUMENT);
}

TEST(StridedCopyCheck, OffsetsAndStridesMustStayInside) {
  KILN_LOAD_CASE("strided_copy.concat_part", c);
  // eb R src_off dst_off | dims 4,5 | src strides 6,7 | dst strides 8,9
  const std::vector<uint64_t> bytes = c.binding_bytes();
  EXPECT_EQ(c.Check(With(c.iparams, {{3, 3}}), bytes), KILN_ERR_OUT_OF_RANGE);
  EXPECT_EQ(c.Check(With(c.iparams, {{2, 1}}), bytes), KILN_ERR_OUT_OF_RANGE);
  EXPECT_EQ(c.Check(With(c.iparams, {{2, kMax}}), bytes), KILN_ERR_OUT_OF_RANGE);
  EXPECT_EQ(c.Check(With(c.iparams, {{8, kMax / 2}}), bytes), KILN_ERR_OUT_OF_RANGE);
  EXPECT_EQ(c.Check(With(c.iparams, {{0, kMax / 4}}), bytes), KILN_ERR_OUT_OF_RANGE);
  EXPECT_EQ(c.Check(With(c.iparams, {{4, kBig}, {5, kBig}}), bytes), KILN_ERR_OUT_OF_RANGE);
  // Element size 8 doubles every byte the kernel touches.
  EXPECT_EQ(c.Check(With(c.iparams, {{0, 8}}), bytes), KILN_ERR_OUT_OF_RANGE);
}

TEST(StridedCopyKernel, EmptyBlockTouchesNothing) {
  // Zero rows at an offset far past both (empty) buffers: nothing is read.
  const int64_t ip[] = {4, 2, 1000, 1000, 0, 3, 3, 1, 3, 1};
  const uint64_t bytes[2] = {0, 0};
  ASSERT_EQ(kiln_strided_copy_check(ip, 10, nullptr, 0, bytes), KILN_OK);
  void* ptrs[2] = {nullptr, nullptr};
  EXPECT_EQ(kiln_strided_copy(ip, nullptr, ptrs, nullptr), KILN_OK);
}

TEST(CopyCheck, RejectsShortBindings) {
  KILN_LOAD_CASE("copy.odd_bytes", c);
  std::vector<uint64_t> bytes = c.binding_bytes();
  EXPECT_EQ(c.Check(With(c.iparams, {{0, 38}}), bytes), KILN_ERR_OUT_OF_RANGE);
  EXPECT_EQ(c.Check(With(c.iparams, {{0, 0}}), {0, 0}), KILN_OK);
}

}  // namespace

namespace {

TEST(StridedCopyCheck, RefusesRewritingAFewBytesForLong) {
  // 2^30 float copies into one destination element (dst stride 0) from a
  // broadcast source: bounded by no buffer, so refused; the same count into
  // distinct destinations would need (and check) a 4 GiB binding.
  const int64_t ip[] = {4, 1, 0, 0, int64_t{1} << 30, 0, 0};
  const uint64_t bytes[2] = {4, 4};
  EXPECT_EQ(kiln_strided_copy_check(ip, 7, nullptr, 0, bytes), KILN_ERR_OUT_OF_RANGE);
  // A modest repeat (a broadcast-style reuse of 16 writes) stays allowed.
  const int64_t small[] = {4, 1, 0, 0, 16, 0, 0};
  EXPECT_EQ(kiln_strided_copy_check(small, 7, nullptr, 0, bytes), KILN_OK);
}

}  // namespace
