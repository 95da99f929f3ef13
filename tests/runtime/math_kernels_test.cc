// Float math kernels (unary math and activations, the extra binary_f32 ops,
// reductions, normalisations, hardmax) against PyTorch/NumPy references
// written by tests/runtime/make_reference_math.py, and their checkers.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "kernel_case.h"

namespace {

using kiln_test::With;

constexpr int64_t kBig = int64_t{1} << 40;

KILN_REFERENCE_SUITE(UnaryMathReference, "unary_f32.abs", "unary_f32.acos", "unary_f32.acosh",
                     "unary_f32.asin", "unary_f32.asinh", "unary_f32.atan", "unary_f32.atanh",
                     "unary_f32.ceil", "unary_f32.celu", "unary_f32.cos", "unary_f32.cosh",
                     "unary_f32.elu", "unary_f32.erf", "unary_f32.exp", "unary_f32.floor",
                     "unary_f32.gelu", "unary_f32.gelu_tanh",
                     "unary_f32.hard_sigmoid", "unary_f32.hard_swish", "unary_f32.leaky_relu",
                     "unary_f32.log", "unary_f32.mish", "unary_f32.neg", "unary_f32.reciprocal",
                     "unary_f32.round", "unary_f32.selu", "unary_f32.sign", "unary_f32.sin",
                     "unary_f32.silu", "unary_f32.sinh", "unary_f32.softplus", "unary_f32.softsign",
                     "unary_f32.sqrt", "unary_f32.tan", "unary_f32.thresholded_relu");

KILN_REFERENCE_SUITE(BinaryMathReference, "binary_f32.fmod_mixed_sign",
                     "binary_f32.max_nan_broadcast", "binary_f32.min_nan_broadcast",
                     "binary_f32.pow_broadcast", "binary_f32.pow_int_exponents",
                     "binary_f32.prelu_channel");

KILN_REFERENCE_SUITE(ReduceReference, "reduce_f32.l1_two", "reduce_f32.l2_last_two",
                     "reduce_f32.log_sum_exp_large", "reduce_f32.log_sum_middle",
                     "reduce_f32.max_outer_inner", "reduce_f32.mean_long_row",
                     "reduce_f32.mean_middle", "reduce_f32.min_all", "reduce_f32.prod_first",
                     "reduce_f32.sum_last", "reduce_f32.sum_none",
                     "reduce_f32.sum_square_first_last", "arg_reduce_f32.max_middle",
                     "arg_reduce_f32.max_middle_last", "arg_reduce_f32.min_first",
                     "arg_reduce_f32.min_last_axis_last");

KILN_REFERENCE_SUITE(NormalizeReference, "hardmax_f32.middle_ties", "instance_norm_f32.basic",
                     "layer_norm_f32.bias_stats", "layer_norm_f32.no_bias",
                     "layer_norm_f32.stats_only_one_row", "lp_norm_f32.p1_middle",
                     "lp_norm_f32.p2_middle", "lrn_f32.size3", "lrn_f32.size4");

TEST(UnaryMathCheck, RejectsUnknownKind) {
  KILN_LOAD_CASE("unary_f32.mish", c);
  EXPECT_EQ(c.Check(With(c.iparams, {{0, KILN_ACT_GELU_TANH + 1}}), c.binding_bytes()),
            KILN_ERR_INVALID_ARGUMENT);
}

TEST(BinaryMathCheck, RejectsUnknownOp) {
  KILN_LOAD_CASE("binary_f32.prelu_channel", c);
  EXPECT_EQ(c.Check(With(c.iparams, {{0, KILN_BINARY_PRELU + 1}}), c.binding_bytes()),
            KILN_ERR_INVALID_ARGUMENT);
}

TEST(ReduceCheck, RejectsBadKindRankAndOverflow) {
  KILN_LOAD_CASE("reduce_f32.max_outer_inner", c);  // out [4], reduced [3, 5]
  const std::vector<uint64_t> bytes = c.binding_bytes();
  EXPECT_EQ(c.Check(With(c.iparams, {{0, KILN_REDUCE_SUM_SQUARE + 1}}), bytes),
            KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(c.Check(With(c.iparams, {{1, KILN_MAX_RANK + 1}}), bytes), KILN_ERR_INVALID_ARGUMENT);
  // A huge stride on a kept dim reaches far past X.
  const size_t ro = static_cast<size_t>(c.iparams[1]);
  EXPECT_EQ(c.Check(With(c.iparams, {{3 + ro, kBig}}), bytes), KILN_ERR_OUT_OF_RANGE);
  // Overflowing dims, even with an empty reduced dim.
  EXPECT_EQ(c.Check(With(c.iparams, {{3, kBig}, {3 + ro, kBig}}), bytes), KILN_ERR_OUT_OF_RANGE);
}

TEST(ReduceKernel, EmptyReductionGivesIdentity) {
  // Reducing a length-0 axis: the identity of each kind, X never read.
  const int64_t kinds[] = {KILN_REDUCE_SUM, KILN_REDUCE_PROD, KILN_REDUCE_MAX, KILN_REDUCE_MIN};
  const float want[] = {0.0f, 1.0f, -INFINITY, INFINITY};
  for (int k = 0; k < 4; ++k) {
    const int64_t ip[7] = {kinds[k], 1, 1, 3, 0, 0, 1};  // out [3], red [0]
    float y[3] = {7, 7, 7};
    void* ptrs[2] = {nullptr, y};
    const uint64_t bytes[2] = {0, sizeof(y)};
    ASSERT_EQ(kiln_reduce_f32_check(ip, 7, nullptr, 0, bytes), KILN_OK);
    ASSERT_EQ(kiln_reduce_f32(ip, nullptr, ptrs, nullptr), KILN_OK);
    for (float v : y) EXPECT_EQ(v, want[k]) << "kind " << kinds[k];
  }
}

TEST(ArgReduceCheck, RejectsEmptyAxisAndBadFlags) {
  KILN_LOAD_CASE("arg_reduce_f32.max_middle", c);
  const std::vector<uint64_t> bytes = c.binding_bytes();
  EXPECT_EQ(c.Check(With(c.iparams, {{1, 0}}), bytes), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(c.Check(With(c.iparams, {{3, 2}}), bytes), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(c.Check(With(c.iparams, {{4, 2}}), bytes), KILN_ERR_INVALID_ARGUMENT);
}

TEST(LayerNormCheck, StatsBindingsCheckedOnlyWhenWritten) {
  KILN_LOAD_CASE("layer_norm_f32.bias_stats", c);
  std::vector<uint64_t> bytes = c.binding_bytes();
  bytes[4] = bytes[5] = 0;
  EXPECT_EQ(c.Check(c.iparams, bytes), KILN_ERR_OUT_OF_RANGE);
  EXPECT_EQ(c.Check(With(c.iparams, {{3, 0}}), bytes), KILN_OK);
  EXPECT_EQ(c.Check(With(c.iparams, {{3, 2}}), c.binding_bytes()), KILN_ERR_INVALID_ARGUMENT);
}

TEST(LpNormCheck, RejectsUnsupportedP) {
  KILN_LOAD_CASE("lp_norm_f32.p2_middle", c);
  EXPECT_EQ(c.Check(With(c.iparams, {{3, 3}}), c.binding_bytes()), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(c.Check(With(c.iparams, {{3, 0}}), c.binding_bytes()), KILN_ERR_INVALID_ARGUMENT);
}

TEST(LrnCheck, RejectsZeroSizeAndOverflow) {
  KILN_LOAD_CASE("lrn_f32.size3", c);
  EXPECT_EQ(c.Check(With(c.iparams, {{3, 0}}), c.binding_bytes()), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(c.Check(With(c.iparams, {{1, kBig}, {2, kBig}}), c.binding_bytes()),
            KILN_ERR_OUT_OF_RANGE);
}

}  // namespace
