// gemm_f32 and matmul_f32 against NumPy references, and their checkers.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "kernel_case.h"

namespace {

using kiln_test::With;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kBig = int64_t{1} << 40;

enum { M, N, K, TRANS_A, TRANS_B, HAS_C, CSM, CSN, ACT };

KILN_REFERENCE_SUITE(GemmReference, "gemm_f32.nn_no_c", "gemm_f32.tn_full_c",
                     "gemm_f32.nt_row_c_relu", "gemm_f32.tt_col_c_sigmoid",
                     "gemm_f32.scalar_c_clip", "gemm_f32.nt_larger", "gemm_f32.k_zero");

KILN_REFERENCE_SUITE(MatmulReference, "matmul_f32.single", "matmul_f32.batched",
                     "matmul_f32.broadcast_both", "matmul_f32.rank3_ones",
                     "matmul_f32.b_shared");

TEST(GemmCheck, RejectsEnumsOutOfRange) {
  KILN_LOAD_CASE("gemm_f32.tn_full_c", c);
  for (size_t i : {TRANS_A, TRANS_B, HAS_C}) {
    EXPECT_EQ(c.Check(With(c.iparams, {{i, 2}}), c.binding_bytes()), KILN_ERR_INVALID_ARGUMENT)
        << "iparam " << i;
  }
  EXPECT_EQ(c.Check(With(c.iparams, {{ACT, KILN_ACT_GELU_TANH + 1}}), c.binding_bytes()),
            KILN_ERR_INVALID_ARGUMENT);
}

TEST(GemmCheck, RejectsOverflowingProducts) {
  KILN_LOAD_CASE("gemm_f32.tn_full_c", c);
  const std::vector<uint64_t> bytes = c.binding_bytes();
  EXPECT_EQ(c.Check(With(c.iparams, {{M, kBig}, {K, kBig}}), bytes), KILN_ERR_OUT_OF_RANGE);
  EXPECT_EQ(c.Check(With(c.iparams, {{M, kMax / 2}}), bytes), KILN_ERR_OUT_OF_RANGE);
  EXPECT_EQ(c.Check(With(c.iparams, {{CSM, kMax / 2}}), bytes), KILN_ERR_OUT_OF_RANGE);
  // K = 0 leaves A and B empty, but M * N must still fit.
  EXPECT_EQ(c.Check(With(c.iparams, {{K, 0}, {M, kBig}, {N, kBig}}), bytes),
            KILN_ERR_OUT_OF_RANGE);
}

TEST(GemmCheck, BroadcastCNeedsOnlyItsView) {
  KILN_LOAD_CASE("gemm_f32.nt_row_c_relu", c);  // C is one row of N, c_stride_m 0
  const std::vector<uint64_t> bytes = c.binding_bytes();
  EXPECT_EQ(bytes[2], static_cast<uint64_t>(c.iparams[N]) * 4);
  // Reading a distinct row per m would need M*N elements.
  EXPECT_EQ(c.Check(With(c.iparams, {{CSM, c.iparams[N]}}), bytes), KILN_ERR_OUT_OF_RANGE);
}

TEST(GemmCheck, UnreadCNeedsNoBytes) {
  KILN_LOAD_CASE("gemm_f32.nn_no_c", c);
  EXPECT_EQ(c.binding_bytes()[2], 0u);
  EXPECT_EQ(c.Check(With(c.iparams, {{CSM, kMax}, {CSN, kMax}}), c.binding_bytes()), KILN_OK);
  EXPECT_EQ(c.Check(With(c.iparams, {{HAS_C, 1}}), c.binding_bytes()), KILN_ERR_OUT_OF_RANGE);
}

TEST(MatmulCheck, RejectsRankOutOfRangeOrMismatchedCount) {
  KILN_LOAD_CASE("matmul_f32.single", c);  // R = 0
  const std::vector<uint64_t> bytes = c.binding_bytes();
  EXPECT_EQ(c.Check(With(c.iparams, {{3, 1}}), bytes), KILN_ERR_INVALID_ARGUMENT);
  std::vector<int64_t> rank9(4 + 3 * 9, 1);
  rank9[3] = 9;
  EXPECT_EQ(c.Check(rank9, bytes), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(kiln_matmul_f32_check(c.iparams.data(), 3, nullptr, 0, bytes.data()),
            KILN_ERR_INVALID_ARGUMENT);
}

TEST(MatmulCheck, RejectsOverflowingBatch) {
  KILN_LOAD_CASE("matmul_f32.broadcast_both", c);  // R = 2: dims at 4,5; strides a 6,7; b 8,9
  const std::vector<uint64_t> bytes = c.binding_bytes();
  EXPECT_EQ(c.Check(With(c.iparams, {{4, kBig}, {5, kBig}}), bytes), KILN_ERR_OUT_OF_RANGE);
  EXPECT_EQ(c.Check(With(c.iparams, {{6, kMax / 2}}), bytes), KILN_ERR_OUT_OF_RANGE);
  EXPECT_EQ(c.Check(With(c.iparams, {{9, kMax / 2}}), bytes), KILN_ERR_OUT_OF_RANGE);
  // Un-broadcasting an operand's batch dim needs a bigger buffer.
  EXPECT_EQ(c.iparams[7], 0);
  EXPECT_EQ(c.Check(With(c.iparams, {{7, c.iparams[M] * c.iparams[K]}}), bytes),
            KILN_ERR_OUT_OF_RANGE);
}

}  // namespace
