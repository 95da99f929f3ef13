// shape_resolve (shape_check.c): the dims a run-time Reshape shape or
// Squeeze/Unsqueeze axes give, for a model that declares no output shape.
// Expected dims from NumPy (/usr/bin/python3):
//   np.zeros((2,3,4)).reshape(4,-1,2).shape      = (4, 3, 2)
//   np.zeros((2,3,4)).reshape(2,3,2,2).shape     = (2, 3, 2, 2)
//   np.squeeze(np.zeros((1,3,1,5)), axis=(0,-2)).shape = (3, 5)
//   np.expand_dims(np.zeros((3,4,5)), axis=(-1,1)).shape = (3, 1, 4, 5, 1)
// Split's sizes are the values themselves when they add up to the axis.
// ONNX Reshape's 0 (copy the input dim) is np's dim itself: [0,-1] of
// [2,3,4] is (2, 12). Then values the op refuses, dims beyond the
// capacities, and the checker's refusals. ConstantOfShape, Expand, Tile and
// Resize's scales (no cap: -1) below.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kiln/kernels.h"

namespace {

using Ints = std::vector<int64_t>;

// Resolves `value` (int64) for mode over in_dims with capacities `cap`;
// returns the kernel's code and the dims it wrote in *got.
int Resolve(int64_t mode, const Ints& value, const Ints& in, const Ints& cap, Ints* got,
            int64_t allowzero = 0) {
  Ints ip = {mode, KILN_DTYPE_I64, static_cast<int64_t>(value.size()), allowzero,
             static_cast<int64_t>(in.size()), static_cast<int64_t>(cap.size())};
  ip.insert(ip.end(), in.begin(), in.end());
  ip.insert(ip.end(), cap.begin(), cap.end());
  const uint64_t bytes[] = {value.size() * 8, (cap.empty() ? 1 : cap.size()) * 8};
  EXPECT_EQ(kiln_shape_resolve_check(ip.data(), static_cast<uint32_t>(ip.size()), nullptr, 0,
                                     bytes),
            KILN_OK);
  got->assign(cap.size(), -7);
  void* b[] = {const_cast<int64_t*>(value.data()), got->data()};
  return kiln_shape_resolve(ip.data(), nullptr, b, nullptr);
}

TEST(ShapeResolve, ReshapeGivesNumpysDims) {
  Ints got;
  ASSERT_EQ(Resolve(KILN_SHAPE_CHECK_RESHAPE, {4, -1, 2}, {2, 3, 4}, {24, 24, 24}, &got), KILN_OK);
  EXPECT_EQ(got, (Ints{4, 3, 2}));
  ASSERT_EQ(Resolve(KILN_SHAPE_CHECK_RESHAPE, {2, 3, 2, 2}, {2, 3, 4}, Ints(4, 24), &got),
            KILN_OK);
  EXPECT_EQ(got, (Ints{2, 3, 2, 2}));
  ASSERT_EQ(Resolve(KILN_SHAPE_CHECK_RESHAPE, {0, -1}, {2, 3, 4}, {24, 24}, &got), KILN_OK);
  EXPECT_EQ(got, (Ints{2, 12}));
}

TEST(ShapeResolve, SqueezeAndUnsqueezeGiveNumpysDims) {
  Ints got;
  ASSERT_EQ(Resolve(KILN_SHAPE_CHECK_SQUEEZE, {0, -2}, {1, 3, 1, 5}, {5, 5}, &got), KILN_OK);
  EXPECT_EQ(got, (Ints{3, 5}));
  ASSERT_EQ(Resolve(KILN_SHAPE_CHECK_UNSQUEEZE, {-1, 1}, {3, 4, 5}, Ints(5, 5), &got), KILN_OK);
  EXPECT_EQ(got, (Ints{3, 1, 4, 5, 1}));
}

TEST(ShapeResolve, RefusesValuesTheOpRefusesOrThatExceedTheCapacity) {
  Ints got;
  const int64_t reshape = KILN_SHAPE_CHECK_RESHAPE;
  EXPECT_EQ(Resolve(reshape, {5, -1}, {2, 3, 4}, {24, 24}, &got), KILN_ERR_SHAPE_MISMATCH);
  EXPECT_EQ(Resolve(reshape, {-1, -1}, {2, 3, 4}, {24, 24}, &got), KILN_ERR_SHAPE_MISMATCH);
  EXPECT_EQ(Resolve(reshape, {-2, -12}, {2, 3, 4}, {24, 24}, &got), KILN_ERR_SHAPE_MISMATCH);
  EXPECT_EQ(Resolve(reshape, {4, 6}, {2, 3, 4}, {24, 24}, &got), KILN_OK);
  EXPECT_EQ(Resolve(reshape, {4, 6}, {2, 3, 4}, {24, 5}, &got), KILN_ERR_SHAPE_MISMATCH);
  EXPECT_EQ(got, Ints(2, -7));  // nothing written
  // allowzero: a 0 stays 0, which cannot hold 24 elements.
  EXPECT_EQ(Resolve(reshape, {0, 24}, {2, 3, 4}, {24, 24}, &got, 1), KILN_ERR_SHAPE_MISMATCH);
  const int64_t squeeze = KILN_SHAPE_CHECK_SQUEEZE;
  EXPECT_EQ(Resolve(squeeze, {1}, {1, 3, 1, 5}, {5, 5, 5}, &got), KILN_ERR_SHAPE_MISMATCH);
  EXPECT_EQ(Resolve(squeeze, {0, 0}, {1, 3, 1, 5}, {5, 5}, &got), KILN_ERR_SHAPE_MISMATCH);
  EXPECT_EQ(Resolve(squeeze, {0, 4}, {1, 3, 1, 5}, {5, 5}, &got), KILN_ERR_SHAPE_MISMATCH);
  const int64_t unsqueeze = KILN_SHAPE_CHECK_UNSQUEEZE;
  EXPECT_EQ(Resolve(unsqueeze, {5}, {3, 4, 5}, Ints(4, 5), &got), KILN_ERR_SHAPE_MISMATCH);
  EXPECT_EQ(Resolve(unsqueeze, {1, -4}, {3, 4, 5}, Ints(5, 5), &got), KILN_ERR_SHAPE_MISMATCH);
}

// Split sizes (SPLIT mode, IR = 1: the axis length): the values, each
// within its capacity, adding up to the axis.
TEST(ShapeResolve, SplitReportsSizesThatAddUpToTheAxis) {
  Ints got;
  const int64_t split = KILN_SHAPE_CHECK_SPLIT;
  ASSERT_EQ(Resolve(split, {2, 0, 4}, {6}, {6, 6, 6}, &got), KILN_OK);
  EXPECT_EQ(got, (Ints{2, 0, 4}));
  EXPECT_EQ(Resolve(split, {2, 3}, {6}, {6, 6}, &got), KILN_ERR_SHAPE_MISMATCH);   // 5, not 6
  EXPECT_EQ(Resolve(split, {7, -1}, {6}, {7, 6}, &got), KILN_ERR_SHAPE_MISMATCH);  // negative
  EXPECT_EQ(Resolve(split, {6, 0}, {6}, {5, 6}, &got), KILN_ERR_SHAPE_MISMATCH);   // capacity
}

// ConstantOfShape (EXACT), Expand and Tile without a declared output shape:
// caps of -1 (no bound). NumPy: np.broadcast_shapes((3, 1), (2, 1, 4)) =
// (2, 3, 4); np.tile(np.zeros((2, 3)), (3, 0)).shape = (6, 0).
TEST(ShapeResolve, ExactExpandAndTileWithoutCaps) {
  Ints got;
  ASSERT_EQ(Resolve(KILN_SHAPE_CHECK_EXACT, {4, 0, 70000}, {}, {-1, -1, -1}, &got), KILN_OK);
  EXPECT_EQ(got, (Ints{4, 0, 70000}));
  EXPECT_EQ(Resolve(KILN_SHAPE_CHECK_EXACT, {4, -3}, {}, {-1, -1}, &got), KILN_ERR_SHAPE_MISMATCH);
  ASSERT_EQ(Resolve(KILN_SHAPE_CHECK_EXPAND, {2, 1, 4}, {3, 1}, {-1, 3, -1}, &got), KILN_OK);
  EXPECT_EQ(got, (Ints{2, 3, 4}));
  EXPECT_EQ(Resolve(KILN_SHAPE_CHECK_EXPAND, {2, 2, 4}, {3, 1}, {-1, 3, -1}, &got),
            KILN_ERR_SHAPE_MISMATCH);  // 3 against 2
  ASSERT_EQ(Resolve(KILN_SHAPE_CHECK_TILE, {3, 0}, {2, 3}, {-1, -1}, &got), KILN_OK);
  EXPECT_EQ(got, (Ints{6, 0}));
  // A cap still holds where there is one; dims whose product leaves int64 fail.
  EXPECT_EQ(Resolve(KILN_SHAPE_CHECK_EXACT, {4, 9}, {}, {-1, 8}, &got), KILN_ERR_SHAPE_MISMATCH);
  EXPECT_EQ(Resolve(KILN_SHAPE_CHECK_EXACT, {int64_t{1} << 40, int64_t{1} << 40}, {}, {-1, -1}, &got),
            KILN_ERR_SHAPE_MISMATCH);
  EXPECT_EQ(got, Ints(2, -7));  // nothing written
}

// Resize's scales (float32): floor(in * scale) as the ONNX reference computes
// it, e.g. np.floor(np.array([1, 1, 4, 4]) * np.float32([1, 1, 0.6, 0.6]))
// = [1, 1, 2, 2] and np.floor(4 * np.float32(1.7)) = 6.
TEST(ShapeResolve, ResizeScalesGiveTheReferenceLengths) {
  auto resolve = [](const std::vector<float>& scales, const Ints& in, Ints* got) {
    Ints ip = {KILN_SHAPE_CHECK_RESIZE_SCALES, KILN_DTYPE_F32, static_cast<int64_t>(scales.size()),
               0, static_cast<int64_t>(in.size()), static_cast<int64_t>(in.size())};
    ip.insert(ip.end(), in.begin(), in.end());
    ip.insert(ip.end(), in.size(), -1);
    const uint64_t bytes[] = {scales.size() * 4, in.size() * 8};
    EXPECT_EQ(kiln_shape_resolve_check(ip.data(), static_cast<uint32_t>(ip.size()), nullptr, 0,
                                       bytes),
              KILN_OK);
    got->assign(in.size(), -7);
    void* b[] = {const_cast<float*>(scales.data()), got->data()};
    return kiln_shape_resolve(ip.data(), nullptr, b, nullptr);
  };
  Ints got;
  ASSERT_EQ(resolve({1.0f, 1.0f, 0.6f, 0.6f}, {1, 1, 4, 4}, &got), KILN_OK);
  EXPECT_EQ(got, (Ints{1, 1, 2, 2}));
  ASSERT_EQ(resolve({1.0f, 1.7f}, {2, 4}, &got), KILN_OK);
  EXPECT_EQ(got, (Ints{2, 6}));
  EXPECT_EQ(resolve({1.0f, 0.0f}, {2, 4}, &got), KILN_ERR_SHAPE_MISMATCH);
  EXPECT_EQ(resolve({1.0f, -2.0f}, {2, 4}, &got), KILN_ERR_SHAPE_MISMATCH);
}

TEST(ShapeResolve, CheckerRefusesBadCapsWrongDtypesAndAShortDimsBinding) {
  Ints ip = {KILN_SHAPE_CHECK_EXPAND, KILN_DTYPE_I64, 2, 0, 2, 2, 3, 4, 3, 4};
  uint64_t bytes[] = {16, 16};
  EXPECT_EQ(kiln_shape_resolve_check(ip.data(), 10, nullptr, 0, bytes), KILN_OK);
  ip[8] = -2;  // caps are dims or -1
  EXPECT_EQ(kiln_shape_resolve_check(ip.data(), 10, nullptr, 0, bytes), KILN_ERR_OUT_OF_RANGE);
  ip[8] = -1;
  ip[0] = KILN_SHAPE_CHECK_RESIZE_SCALES;  // float32 scales only
  EXPECT_EQ(kiln_shape_resolve_check(ip.data(), 10, nullptr, 0, bytes), KILN_ERR_INVALID_ARGUMENT);
  ip[0] = 8;
  EXPECT_EQ(kiln_shape_resolve_check(ip.data(), 10, nullptr, 0, bytes), KILN_ERR_INVALID_ARGUMENT);
  ip[0] = KILN_SHAPE_CHECK_RESHAPE;
  EXPECT_EQ(kiln_shape_resolve_check(ip.data(), 10, nullptr, 0, bytes), KILN_OK);
  bytes[1] = 8;
  EXPECT_EQ(kiln_shape_resolve_check(ip.data(), 10, nullptr, 0, bytes), KILN_ERR_OUT_OF_RANGE);
}

}  // namespace
