// binary_f32 and unary_f32 against NumPy references, and their checkers.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "kernel_case.h"
#include "partition_test_util.h"

namespace {

using kiln_test::With;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kBig = int64_t{1} << 40;

KILN_REFERENCE_SUITE(BinaryReference, "binary_f32.add_same", "binary_f32.sub_row",
                     "binary_f32.mul_channel", "binary_f32.div_both_broadcast",
                     "binary_f32.add_scalars", "binary_f32.sub_outer",
                     "binary_f32.mul_scalar_lhs", "binary_f32.div_rank5",
                     "binary_f32.add_transposed_lhs");

KILN_REFERENCE_SUITE(UnaryReference, "unary_f32.identity", "unary_f32.relu", "unary_f32.clip",
                     "unary_f32.sigmoid", "unary_f32.tanh");

TEST(BinaryCheck, RejectsOpAndRankOutOfRange) {
  KILN_LOAD_CASE("binary_f32.add_same", c);  // R = 3
  const std::vector<uint64_t> bytes = c.binding_bytes();
  EXPECT_EQ(c.Check(With(c.iparams, {{0, KILN_BINARY_PRELU + 1}}), bytes), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(c.Check(With(c.iparams, {{1, 2}}), bytes), KILN_ERR_INVALID_ARGUMENT);
  std::vector<int64_t> rank9(2 + 3 * 9, 1);
  rank9[0] = KILN_BINARY_ADD;
  rank9[1] = 9;
  EXPECT_EQ(c.Check(rank9, bytes), KILN_ERR_INVALID_ARGUMENT);
}

TEST(BinaryCheck, RejectsOverflowingShapesAndStrides) {
  KILN_LOAD_CASE("binary_f32.add_same", c);  // dims at 2..4, a strides 5..7, b strides 8..10
  const std::vector<uint64_t> bytes = c.binding_bytes();
  EXPECT_EQ(c.Check(With(c.iparams, {{2, kBig}, {3, kBig}}), bytes), KILN_ERR_OUT_OF_RANGE);
  EXPECT_EQ(c.Check(With(c.iparams, {{5, kMax / 2}}), bytes), KILN_ERR_OUT_OF_RANGE);
  EXPECT_EQ(c.Check(With(c.iparams, {{10, kMax}}), bytes), KILN_ERR_OUT_OF_RANGE);
  // An empty dim does not excuse an overflow among the others.
  EXPECT_EQ(c.Check(With(c.iparams, {{2, 0}, {3, kBig}, {4, kBig}}), bytes),
            KILN_ERR_OUT_OF_RANGE);
}

TEST(BinaryCheck, BroadcastOperandNeedsOnlyItsView) {
  KILN_LOAD_CASE("binary_f32.sub_row", c);  // B [4] against out [2,3,4]
  const std::vector<uint64_t> bytes = c.binding_bytes();
  EXPECT_EQ(bytes[1], 4u * 4u);
  // Stepping B along dim 1 instead of broadcasting reaches past its end.
  EXPECT_EQ(c.Check(With(c.iparams, {{9, 4}}), bytes), KILN_ERR_OUT_OF_RANGE);
}

TEST(BinaryKernel, EmptyOutputTouchesNothing) {
  KILN_LOAD_CASE("binary_f32.add_same", c);
  const std::vector<int64_t> ip = With(c.iparams, {{3, 0}});
  const std::vector<uint64_t> zero(3, 0);
  ASSERT_EQ(c.Check(ip, zero), KILN_OK);
  void* ptrs[3] = {nullptr, nullptr, nullptr};
  EXPECT_EQ(kiln_binary_f32(ip.data(), nullptr, ptrs, nullptr), KILN_OK);
}

TEST(BinaryKernel, DivisionByZeroFollowsIeee) {
  // Checked by hand: 1/0 = +inf, -1/0 = -inf, 0/0 = NaN.
  const int64_t ip[] = {KILN_BINARY_DIV, 1, 3, 1, 0};
  float a[3] = {1.0f, -1.0f, 0.0f}, b[1] = {0.0f}, y[3];
  void* ptrs[3] = {a, b, y};
  const uint64_t bytes[3] = {sizeof a, sizeof b, sizeof y};
  ASSERT_EQ(kiln_binary_f32_check(ip, 5, nullptr, 0, bytes), KILN_OK);
  ASSERT_EQ(kiln_binary_f32(ip, nullptr, ptrs, nullptr), KILN_OK);
  EXPECT_EQ(y[0], std::numeric_limits<float>::infinity());
  EXPECT_EQ(y[1], -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(y[2]));
}

TEST(UnaryCheck, RejectsActivationOutOfRangeAndOverflow) {
  KILN_LOAD_CASE("unary_f32.relu", c);
  const std::vector<uint64_t> bytes = c.binding_bytes();
  EXPECT_EQ(c.Check(With(c.iparams, {{0, KILN_ACT_GELU_TANH + 1}}), bytes), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(c.Check(With(c.iparams, {{1, kMax / 2}}), bytes), KILN_ERR_OUT_OF_RANGE);
}

TEST(UnaryKernel, ActivationsKeepNaNAndSaturate) {
  // Hand-checked limits: relu/clip pass NaN through, sigmoid saturates to
  // exactly 0 and 1 without overflow trouble, tanh to +-1.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  float x[4] = {nan, -200.0f, 200.0f, 0.0f}, y[4];
  void* ptrs[2] = {x, y};
  const float fp[2] = {-1.0f, 1.0f};
  int64_t ip[2] = {KILN_ACT_RELU, 4};
  ASSERT_EQ(kiln_unary_f32(ip, fp, ptrs, nullptr), KILN_OK);
  EXPECT_TRUE(std::isnan(y[0]));
  EXPECT_EQ(y[1], 0.0f);
  EXPECT_EQ(y[2], 200.0f);
  ip[0] = KILN_ACT_CLIP;
  ASSERT_EQ(kiln_unary_f32(ip, fp, ptrs, nullptr), KILN_OK);
  EXPECT_TRUE(std::isnan(y[0]));
  EXPECT_EQ(y[1], -1.0f);
  EXPECT_EQ(y[2], 1.0f);
  ip[0] = KILN_ACT_SIGMOID;
  ASSERT_EQ(kiln_unary_f32(ip, fp, ptrs, nullptr), KILN_OK);
  EXPECT_EQ(y[1], 0.0f);
  EXPECT_EQ(y[2], 1.0f);
  EXPECT_EQ(y[3], 0.5f);
  ip[0] = KILN_ACT_TANH;
  ASSERT_EQ(kiln_unary_f32(ip, fp, ptrs, nullptr), KILN_OK);
  EXPECT_EQ(y[1], -1.0f);
  EXPECT_EQ(y[2], 1.0f);
}

// HardSigmoid, HardSwish and LeakyReLU run on whole vectors: NaN passes
// through all three, as numpy's clip and torch.clamp (the references) give,
// and the limits are hand-checked. 19 elements: whole vectors and a partial
// one on every path, each value of the pattern in every lane position.
TEST(UnaryKernel, VectorActivationsKeepNaNAndSaturate) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float pattern[4] = {nan, -200.0f, 200.0f, 0.0f};
  float x[19], y[19];
  for (int i = 0; i < 19; ++i) x[i] = pattern[i % 4];
  void* ptrs[2] = {x, y};
  // Runs `act` and checks y against the outputs for -200, 200 and 0 (NaN
  // for NaN) wherever the pattern put them.
  auto expect = [&](int64_t act, const float* fp, float at_minus, float at_plus, float at_zero) {
    const int64_t ip[2] = {act, 19};
    ASSERT_EQ(kiln_unary_f32(ip, fp, ptrs, nullptr), KILN_OK);
    const float want[4] = {nan, at_minus, at_plus, at_zero};
    for (int i = 0; i < 19; ++i) {
      if (i % 4 == 0) {
        EXPECT_TRUE(std::isnan(y[i])) << "act " << act << " at " << i;
      } else {
        EXPECT_EQ(y[i], want[i % 4]) << "act " << act << " at " << i;
      }
    }
  };
  const float sigmoid_fp[2] = {0.2f, 0.5f};  // max(0, min(1, 0.2x + 0.5))
  expect(KILN_ACT_HARD_SIGMOID, sigmoid_fp, 0.0f, 1.0f, 0.5f);
  expect(KILN_ACT_HARD_SWISH, sigmoid_fp, 0.0f, 200.0f, 0.0f);  // x * max(0, min(1, x/6 + 1/2))
  const float leaky_fp[2] = {0.01f, 0.0f};
  expect(KILN_ACT_LEAKY_RELU, leaky_fp, 0.01f * -200.0f, 200.0f, 0.0f);
}

// Outputs large enough that binary_f32 splits them over a host's threads:
// an SE block's per-channel scale (rows of Y), a broadcast in the middle
// dim (rows counted over two dims), and one long row (split in blocks);
// on every partition the same bits as a direct loop in this file (IEEE
// operations round alike wherever they run).
TEST(BinaryKernel, ThreadedRowsMatchDirectLoop) {
  struct Case {
    int64_t op;
    std::vector<int64_t> dims, a_strides, b_strides;
    int64_t a_size, b_size;
  };
  const std::vector<Case> cases = {
      {KILN_BINARY_MUL, {1, 56, 56, 40}, {0, 0, 0, 1}, {0, 2240, 40, 1}, 40, 56 * 56 * 40},
      {KILN_BINARY_SUB, {3, 200, 150}, {150, 0, 1}, {30000, 150, 1}, 450, 90000},
      {KILN_BINARY_ADD, {70001}, {1}, {1}, 70001, 70001}};
  for (const Case& k : cases) {
    const int64_t R = static_cast<int64_t>(k.dims.size());
    std::vector<int64_t> ip = {k.op, R};
    ip.insert(ip.end(), k.dims.begin(), k.dims.end());
    ip.insert(ip.end(), k.a_strides.begin(), k.a_strides.end());
    ip.insert(ip.end(), k.b_strides.begin(), k.b_strides.end());
    const std::vector<float> a = kiln::testing::Random(k.a_size, 3),
                             b = kiln::testing::Random(k.b_size, 4);
    int64_t count = 1;
    for (int64_t d : k.dims) count *= d;
    std::vector<float> want(count);
    std::vector<int64_t> idx(R, 0);
    for (int64_t o = 0; o < count; ++o) {
      int64_t ao = 0, bo = 0;
      for (int64_t d = 0; d < R; ++d) ao += idx[d] * k.a_strides[d], bo += idx[d] * k.b_strides[d];
      want[o] = k.op == KILN_BINARY_MUL ? a[ao] * b[bo]
                : k.op == KILN_BINARY_SUB ? a[ao] - b[bo]
                                          : a[ao] + b[bo];
      for (int64_t d = R - 1; d >= 0 && ++idx[d] == k.dims[d]; --d) idx[d] = 0;
    }
    const uint64_t bytes[3] = {4 * a.size(), 4 * b.size(), 4 * want.size()};
    ASSERT_EQ(kiln_binary_f32_check(ip.data(), static_cast<uint32_t>(ip.size()), nullptr, 0, bytes),
              KILN_OK);
    for (const kiln_host* host :
         {static_cast<const kiln_host*>(nullptr), &kiln::testing::kReverseHost,
          &kiln::testing::kConcurrentHost}) {
      std::vector<float> got(count, -7.0f);
      void* bind[3] = {const_cast<float*>(a.data()), const_cast<float*>(b.data()), got.data()};
      ASSERT_EQ(kiln_binary_f32(ip.data(), nullptr, bind, host), KILN_OK);
      for (int64_t o = 0; o < count; ++o)
        ASSERT_EQ(got[o], want[o]) << "op " << k.op << " rank " << R << " at " << o;
    }
  }
}

}  // namespace
