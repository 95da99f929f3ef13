// shape_check (runtime/kernels/shape_check.c): run-time shape-like inputs
// resolved with each op's ONNX semantics (Reshape 0/-1/allowzero, Squeeze and
// Unsqueeze axes with negatives, Expand broadcasting, Tile repeats, Split
// sizes, ConstantOfShape dims, OneHot depth) against the shape the compiler
// assumed. Expected verdicts are worked out by hand from the ONNX operator
// specs; the run-time path is covered end to end by tests/e2e.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "kiln/kernels.h"

namespace {

using Dims = std::vector<int64_t>;

Dims Params(int64_t mode, int64_t dtype, int64_t count, int64_t flag, const Dims& in,
            const Dims& out) {
  Dims ip = {mode, dtype, count, flag, static_cast<int64_t>(in.size()),
             static_cast<int64_t>(out.size())};
  ip.insert(ip.end(), in.begin(), in.end());
  ip.insert(ip.end(), out.begin(), out.end());
  return ip;
}

int CheckParams(const Dims& ip, uint64_t bytes) {
  return kiln_shape_check_check(ip.data(), static_cast<uint32_t>(ip.size()), nullptr, 0, &bytes);
}

// Verifies the module-time checker accepts the parameters, then runs.
template <typename T>
int RunCheck(int64_t mode, int64_t dtype, const std::vector<T>& v, const Dims& in, const Dims& out,
        int64_t flag = 0) {
  const Dims ip = Params(mode, dtype, static_cast<int64_t>(v.size()), flag, in, out);
  const int c = CheckParams(ip, v.size() * sizeof(T));
  if (c != KILN_OK) return 100 + c;  // distinguishable from the kernel's verdict
  void* b[] = {const_cast<T*>(v.data())};
  return kiln_shape_check(ip.data(), nullptr, b, nullptr);
}

int Reshape(const Dims& spec, const Dims& in, const Dims& out, int64_t allowzero = 0) {
  return RunCheck(KILN_SHAPE_CHECK_RESHAPE, KILN_DTYPE_I64, spec, in, out, allowzero);
}

TEST(ShapeCheckKernel, ReshapeResolvesZeroAndMinusOne) {
  const Dims in = {2, 3, 4}, out = {2, 6, 2};
  for (const Dims& ok : {Dims{2, 6, 2}, Dims{2, -1, 2}, Dims{0, -1, 2}, Dims{-1, 6, 2},
                         Dims{0, 6, 2}}) {
    EXPECT_EQ(Reshape(ok, in, out), KILN_OK) << ::testing::PrintToString(ok);
  }
  // Two -1, a wrong dim, another negative, a 0 copying 4, the wrong length.
  for (const Dims& bad : {Dims{2, -1, -1}, Dims{2, 6, 3}, Dims{2, -2, 2}, Dims{2, 6, 0},
                          Dims{2, 12}, Dims{2, 6, 2, 1}, Dims{3, -1, 2}}) {
    EXPECT_EQ(Reshape(bad, in, out), KILN_ERR_SHAPE_MISMATCH) << ::testing::PrintToString(bad);
  }
  // 0 past the input's rank has nothing to copy.
  EXPECT_EQ(Reshape({2, 3, 4, 0}, in, {2, 3, 4, 1}), KILN_ERR_SHAPE_MISMATCH);
  EXPECT_EQ(Reshape({2, 0, 4, 1}, in, {2, 3, 4, 1}), KILN_OK);
  // int32 shapes too.
  EXPECT_EQ(RunCheck(KILN_SHAPE_CHECK_RESHAPE, KILN_DTYPE_I32, std::vector<int32_t>{4, -1}, in, {4, 6}),
            KILN_OK);
  EXPECT_EQ(RunCheck(KILN_SHAPE_CHECK_RESHAPE, KILN_DTYPE_I32, std::vector<int32_t>{6, -1}, in, {4, 6}),
            KILN_ERR_SHAPE_MISMATCH);
}

TEST(ShapeCheckKernel, ReshapeAllowZeroKeepsZeroAndRefusesAmbiguousMinusOne) {
  const Dims in = {0, 3, 4};
  EXPECT_EQ(Reshape({3, 4, 0}, in, {3, 4, 0}, 1), KILN_OK);
  // Without allowzero the 0 copies input dim 2 (4).
  EXPECT_EQ(Reshape({3, 4, 0}, in, {3, 4, 0}, 0), KILN_ERR_SHAPE_MISMATCH);
  // Copying a zero dim works either way; with allowzero the 0s stay 0.
  EXPECT_EQ(Reshape({0, 0, 4}, {2, 0, 4}, {2, 0, 4}, 0), KILN_OK);
  EXPECT_EQ(Reshape({0, 0, 4}, {2, 0, 4}, {2, 0, 4}, 1), KILN_ERR_SHAPE_MISMATCH);
  // -1 beside a zero dim could be anything: ONNX calls that invalid.
  EXPECT_EQ(Reshape({0, -1}, in, {0, 12}, 1), KILN_ERR_SHAPE_MISMATCH);
}

TEST(ShapeCheckKernel, SqueezeAxesGiveTheAssumedShape) {
  const Dims in = {1, 3, 1, 5}, out = {1, 3, 5};
  auto sq = [&](const Dims& axes, const Dims& o) {
    return RunCheck(KILN_SHAPE_CHECK_SQUEEZE, KILN_DTYPE_I64, axes, in, o);
  };
  EXPECT_EQ(sq({2}, out), KILN_OK);
  EXPECT_EQ(sq({-2}, out), KILN_OK);
  EXPECT_EQ(sq({0}, out), KILN_ERR_SHAPE_MISMATCH);  // gives [3, 1, 5]: same count, wrong shape
  EXPECT_EQ(sq({0}, {3, 1, 5}), KILN_OK);
  EXPECT_EQ(sq({1}, out), KILN_ERR_SHAPE_MISMATCH);  // size 3 is not a unit axis
  EXPECT_EQ(sq({4}, out), KILN_ERR_SHAPE_MISMATCH);  // out of range
  EXPECT_EQ(sq({-5}, out), KILN_ERR_SHAPE_MISMATCH);
  EXPECT_EQ(sq({2, -2}, {1, 3, 5}), KILN_ERR_SHAPE_MISMATCH);  // repeated
  EXPECT_EQ(sq({0, 2}, {3, 5}), KILN_OK);
  EXPECT_EQ(sq({}, {3, 5}), KILN_OK);  // empty axes: every unit axis
  EXPECT_EQ(sq({}, out), KILN_ERR_SHAPE_MISMATCH);
}

TEST(ShapeCheckKernel, UnsqueezeAxesAreOutputPositions) {
  const Dims in = {3, 4, 5}, out = {3, 4, 1, 5, 1, 1};
  auto un = [&](const Dims& axes) {
    return RunCheck(KILN_SHAPE_CHECK_UNSQUEEZE, KILN_DTYPE_I64, axes, in, out);
  };
  EXPECT_EQ(un({2, 4, 5}), KILN_OK);
  EXPECT_EQ(un({5, 4, 2}), KILN_OK);
  EXPECT_EQ(un({-4, -2, -1}), KILN_OK);
  EXPECT_EQ(un({2, 3, 5}), KILN_ERR_SHAPE_MISMATCH);  // gives [3, 4, 1, 1, 5, 1]
  EXPECT_EQ(un({2, 4}), KILN_ERR_SHAPE_MISMATCH);
  EXPECT_EQ(un({2, 4, 4}), KILN_ERR_SHAPE_MISMATCH);  // repeated
  EXPECT_EQ(un({2, 4, 6}), KILN_ERR_SHAPE_MISMATCH);  // out of range
  // Unit dims in the input make several axis sets right; all are accepted.
  EXPECT_EQ(RunCheck(KILN_SHAPE_CHECK_UNSQUEEZE, KILN_DTYPE_I64, Dims{-2}, {1, 3, 1, 5},
                {1, 3, 1, 1, 5}),
            KILN_OK);
  EXPECT_EQ(RunCheck(KILN_SHAPE_CHECK_UNSQUEEZE, KILN_DTYPE_I64, Dims{2}, {1, 3, 1, 5},
                {1, 3, 1, 1, 5}),
            KILN_OK);
}

TEST(ShapeCheckKernel, ExpandBroadcastsLikeNumpy) {
  const Dims in = {3, 1}, out = {2, 3, 6};
  auto ex = [&](const Dims& shape) {
    return RunCheck(KILN_SHAPE_CHECK_EXPAND, KILN_DTYPE_I64, shape, in, out);
  };
  EXPECT_EQ(ex({2, 1, 6}), KILN_OK);
  EXPECT_EQ(ex({2, 3, 6}), KILN_OK);
  EXPECT_EQ(ex({2, 3, 5}), KILN_ERR_SHAPE_MISMATCH);
  EXPECT_EQ(ex({2, 2, 6}), KILN_ERR_SHAPE_MISMATCH);  // 3 vs 2 do not broadcast
  EXPECT_EQ(ex({-1, 1, 6}), KILN_ERR_SHAPE_MISMATCH);
  EXPECT_EQ(ex({1, 6}), KILN_ERR_SHAPE_MISMATCH);  // rank 2 result
  // A shorter shape than the input keeps the input's leading dims.
  EXPECT_EQ(RunCheck(KILN_SHAPE_CHECK_EXPAND, KILN_DTYPE_I64, Dims{4}, in, {3, 4}), KILN_OK);
}

TEST(ShapeCheckKernel, TileRepeatsMultiplyDims) {
  auto tile = [](const Dims& rep, const Dims& in, const Dims& out) {
    return RunCheck(KILN_SHAPE_CHECK_TILE, KILN_DTYPE_I64, rep, in, out);
  };
  EXPECT_EQ(tile({2, 2}, {2, 2}, {4, 4}), KILN_OK);
  EXPECT_EQ(tile({2, 3}, {2, 2}, {4, 4}), KILN_ERR_SHAPE_MISMATCH);
  EXPECT_EQ(tile({-2, 2}, {2, 2}, {4, 4}), KILN_ERR_SHAPE_MISMATCH);
  EXPECT_EQ(tile({2}, {2, 2}, {4, 4}), KILN_ERR_SHAPE_MISMATCH);
  EXPECT_EQ(tile({5, 2}, {0, 2}, {0, 4}), KILN_OK);  // any repeat of an empty dim
  // in * repeat overflowing int64 is a mismatch, not a wrap-around.
  EXPECT_EQ(tile({int64_t{1} << 62, 1}, {4, 1}, {0, 1}), KILN_ERR_SHAPE_MISMATCH);
}

TEST(ShapeCheckKernel, ExactValuesForSplitConstantOfShapeAndOneHotDepth) {
  auto exact = [](auto v, int64_t dtype, const Dims& out) {
    return RunCheck(KILN_SHAPE_CHECK_EXACT, dtype, v, {}, out);
  };
  EXPECT_EQ(exact(Dims{2, 4}, KILN_DTYPE_I64, {2, 4}), KILN_OK);
  EXPECT_EQ(exact(Dims{4, 2}, KILN_DTYPE_I64, {2, 4}), KILN_ERR_SHAPE_MISMATCH);
  EXPECT_EQ(exact(Dims{2, 4, 0}, KILN_DTYPE_I64, {2, 4}), KILN_ERR_SHAPE_MISMATCH);
  EXPECT_EQ(exact(Dims{}, KILN_DTYPE_I64, {}), KILN_OK);  // ConstantOfShape of a scalar
  // OneHot depth: float depth is cast to int64 (truncated); negative and NaN
  // depths are never a valid size.
  EXPECT_EQ(exact(std::vector<float>{10.0f}, KILN_DTYPE_F32, {10}), KILN_OK);
  EXPECT_EQ(exact(std::vector<float>{10.7f}, KILN_DTYPE_F32, {10}), KILN_OK);
  EXPECT_EQ(exact(std::vector<float>{11.0f}, KILN_DTYPE_F32, {10}), KILN_ERR_SHAPE_MISMATCH);
  EXPECT_EQ(exact(std::vector<float>{-10.0f}, KILN_DTYPE_F32, {10}), KILN_ERR_SHAPE_MISMATCH);
  EXPECT_EQ(exact(std::vector<float>{std::nanf("")}, KILN_DTYPE_F32, {10}),
            KILN_ERR_SHAPE_MISMATCH);
  EXPECT_EQ(exact(std::vector<double>{1e300}, KILN_DTYPE_F64, {10}), KILN_ERR_SHAPE_MISMATCH);
  EXPECT_EQ(exact(std::vector<int32_t>{12}, KILN_DTYPE_I32, {12}), KILN_OK);
  EXPECT_EQ(exact(std::vector<uint64_t>{std::numeric_limits<uint64_t>::max()}, KILN_DTYPE_U64,
                  {0}),
            KILN_ERR_SHAPE_MISMATCH);
  EXPECT_EQ(exact(std::vector<uint8_t>{7}, KILN_DTYPE_U8, {7}), KILN_OK);
}

TEST(ShapeCheckKernel, CheckerBoundsParamsAndBinding) {
  const Dims good = Params(KILN_SHAPE_CHECK_RESHAPE, KILN_DTYPE_I64, 3, 0, {2, 3, 4}, {2, 6, 2});
  EXPECT_EQ(CheckParams(good, 24), KILN_OK);
  EXPECT_EQ(CheckParams(good, 23), KILN_ERR_OUT_OF_RANGE);  // 3 int64 need 24 bytes
  // The count of iparams must match the ranks.
  Dims longer = good;
  longer.push_back(1);
  EXPECT_EQ(CheckParams(longer, 24), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(CheckParams(Dims(good.begin(), good.begin() + 5), 24), KILN_ERR_INVALID_ARGUMENT);
  // Unknown mode, flag, negative dims, non-integer shapes outside EXACT.
  EXPECT_EQ(CheckParams(Params(8, KILN_DTYPE_I64, 3, 0, {}, {1, 2, 3}), 24),
            KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(CheckParams(Params(0, KILN_DTYPE_I64, 3, 2, {}, {1, 2, 3}), 24),
            KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(CheckParams(Params(0, KILN_DTYPE_I64, 3, 0, {6}, {1, -2, 3}), 24),
            KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(CheckParams(Params(0, KILN_DTYPE_F32, 3, 0, {6}, {1, 2, 3}), 12),
            KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(CheckParams(Params(KILN_SHAPE_CHECK_EXACT, KILN_DTYPE_BOOL, 1, 0, {}, {1}), 1),
            KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(CheckParams(Params(KILN_SHAPE_CHECK_EXACT, 99, 1, 0, {}, {1}), 8),
            KILN_ERR_INVALID_ARGUMENT);
  // Dims whose product overflows int64, and lengths past the limit.
  const int64_t big = int64_t{1} << 40;
  EXPECT_EQ(CheckParams(Params(0, KILN_DTYPE_I64, 2, 0, {big, big}, {1, 1}), 16),
            KILN_ERR_OUT_OF_RANGE);
  EXPECT_EQ(CheckParams(Params(0, KILN_DTYPE_I64, KILN_SHAPE_CHECK_MAX_LEN + 1, 0, {}, {}),
                        uint64_t{1} << 20),
            KILN_ERR_OUT_OF_RANGE);
  const Dims ones(KILN_SHAPE_CHECK_MAX_LEN + 1, 1);
  EXPECT_EQ(CheckParams(Params(0, KILN_DTYPE_I64, 1, 0, ones, {1}), 8), KILN_ERR_OUT_OF_RANGE);
  // fparams are refused.
  const float f = 0;
  uint64_t bytes = 24;
  EXPECT_EQ(kiln_shape_check_check(good.data(), static_cast<uint32_t>(good.size()), &f, 1, &bytes),
            KILN_ERR_INVALID_ARGUMENT);
}

}  // namespace
