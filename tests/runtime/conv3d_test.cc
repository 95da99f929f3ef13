// conv3d_f32 and conv_transpose3d_f32 against PyTorch references
// (tests/runtime/make_reference_conv3d.py), and their checkers' verdicts.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "kernel_case.h"

namespace {

using kiln_test::With;

// Shared leading layout of both kernels.
enum { N, C, D, H, W, OC, OD, OH, OW, KD, KH, KW, SD, SH, SW, PD, PH, PW, DD, DH, DW, G };
enum { ACT = G + 1, HAS_BIAS = G + 2, HAS_RES = G + 3 };  // conv3d_f32
enum { T_HAS_BIAS = G + 1 };                               // conv_transpose3d_f32
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

KILN_REFERENCE_SUITE(Conv3dReference, "conv3d_f32.basic", "conv3d_f32.strided_asym_pads_relu",
                     "conv3d_f32.dilated_grouped_nobias", "conv3d_f32.depthwise_clip",
                     "conv3d_f32.residual_sigmoid", "conv3d_f32.pad_beyond_kernel",
                     "conv3d_f32.unit_leading_dims", "conv3d_f32.wide_rows_deep_k_residual_relu",
                     "conv3d_f32.stride2_wide_dilated_depth",
                     "conv3d_f32.pointwise_grouped_residual_relu", "conv3d_f32.pointwise_deep");

KILN_REFERENCE_SUITE(ConvTranspose3dReference, "conv_transpose3d_f32.basic",
                     "conv_transpose3d_f32.strided_padded_dilated",
                     "conv_transpose3d_f32.grouped_nobias");

const char* const kCases[] = {"conv3d_f32.basic", "conv_transpose3d_f32.basic"};

TEST(Conv3dCheck, RejectsZeroKernelStrideDilationOrGroups) {
  for (const char* name : kCases) {
    KILN_LOAD_CASE(name, c);
    for (size_t i : {KD, KH, KW, SD, SH, SW, DD, DH, DW, G}) {
      EXPECT_EQ(c.Check(With(c.iparams, {{i, 0}}), c.binding_bytes()), KILN_ERR_INVALID_ARGUMENT)
          << name << " iparam " << i;
    }
  }
}

TEST(Conv3dCheck, RejectsGroupsThatDoNotDivideChannels) {
  KILN_LOAD_CASE("conv3d_f32.dilated_grouped_nobias", c);  // C=4, OC=6, groups=2
  EXPECT_EQ(c.Check(With(c.iparams, {{G, 4}}), c.binding_bytes()), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(c.Check(With(c.iparams, {{G, 3}}), c.binding_bytes()), KILN_ERR_INVALID_ARGUMENT);
  KILN_LOAD_CASE("conv_transpose3d_f32.grouped_nobias", t);  // C=4, OC=6, groups=2
  EXPECT_EQ(t.Check(With(t.iparams, {{G, 4}}), t.binding_bytes()), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(t.Check(With(t.iparams, {{G, 3}}), t.binding_bytes()), KILN_ERR_INVALID_ARGUMENT);
}

TEST(Conv3dCheck, RejectsEnumsOutOfRange) {
  KILN_LOAD_CASE("conv3d_f32.basic", c);
  EXPECT_EQ(c.Check(With(c.iparams, {{ACT, KILN_ACT_GELU_TANH + 1}}), c.binding_bytes()),
            KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(c.Check(With(c.iparams, {{HAS_BIAS, 2}}), c.binding_bytes()),
            KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(c.Check(With(c.iparams, {{HAS_RES, 2}}), c.binding_bytes()),
            KILN_ERR_INVALID_ARGUMENT);
  KILN_LOAD_CASE("conv_transpose3d_f32.basic", t);
  EXPECT_EQ(t.Check(With(t.iparams, {{T_HAS_BIAS, 2}}), t.binding_bytes()),
            KILN_ERR_INVALID_ARGUMENT);
}

TEST(Conv3dCheck, OptionalBindingsNeedBytesOnlyWhenRead) {
  KILN_LOAD_CASE("conv3d_f32.basic", c);  // bias, no residual
  std::vector<uint64_t> bytes = c.binding_bytes();
  ASSERT_EQ(bytes[3], 0u);
  // Claiming a residual that is not there.
  EXPECT_EQ(c.Check(With(c.iparams, {{HAS_RES, 1}}), bytes), KILN_ERR_OUT_OF_RANGE);
  bytes[3] = bytes[4];  // a residual is y-sized
  EXPECT_EQ(c.Check(With(c.iparams, {{HAS_RES, 1}}), bytes), KILN_OK);
  bytes[3] -= 1;
  EXPECT_EQ(c.Check(With(c.iparams, {{HAS_RES, 1}}), bytes), KILN_ERR_OUT_OF_RANGE);
  bytes[2] = 0;
  EXPECT_EQ(c.Check(c.iparams, bytes), KILN_ERR_OUT_OF_RANGE);
  EXPECT_EQ(c.Check(With(c.iparams, {{HAS_BIAS, 0}}), bytes), KILN_OK);
}

TEST(Conv3dCheck, OutputBindingGrowsWithTheOutputSize) {
  for (const char* name : kCases) {
    KILN_LOAD_CASE(name, c);
    std::vector<uint64_t> bytes = c.binding_bytes();
    const size_t y = bytes.size() - 1;
    const std::vector<int64_t> deeper = With(c.iparams, {{OD, c.iparams[OD] + 1}});
    EXPECT_EQ(c.Check(deeper, bytes), KILN_ERR_OUT_OF_RANGE) << name;
    bytes[y] += static_cast<uint64_t>(c.iparams[N] * c.iparams[OC] * c.iparams[OH] *
                                      c.iparams[OW]) * 4;
    EXPECT_EQ(c.Check(deeper, bytes), KILN_OK) << name;
  }
}

TEST(Conv3dCheck, RejectsOverflowingProducts) {
  for (const char* name : kCases) {
    KILN_LOAD_CASE(name, c);
    const std::vector<uint64_t> bytes = c.binding_bytes();
    const int64_t big = int64_t{1} << 22;
    EXPECT_EQ(c.Check(With(c.iparams, {{N, kMax / 4}}), bytes), KILN_ERR_OUT_OF_RANGE) << name;
    EXPECT_EQ(c.Check(With(c.iparams, {{OC, int64_t{1} << 62}}), bytes), KILN_ERR_OUT_OF_RANGE)
        << name;
    EXPECT_EQ(c.Check(With(c.iparams, {{D, big}, {H, big}, {W, big}, {OD, big}, {OH, big},
                                       {OW, big}}),
                      bytes),
              KILN_ERR_OUT_OF_RANGE)
        << name;
    EXPECT_EQ(c.Check(With(c.iparams, {{PH, kMax - 1}}), bytes), KILN_ERR_OUT_OF_RANGE) << name;
    EXPECT_EQ(c.Check(With(c.iparams, {{SD, kMax / 2}}), bytes), KILN_ERR_OUT_OF_RANGE) << name;
    EXPECT_EQ(c.Check(With(c.iparams, {{DW, kMax / 2}}), bytes), KILN_ERR_OUT_OF_RANGE) << name;
    // An empty batch does not excuse an overflow among the other dims.
    EXPECT_EQ(c.Check(With(c.iparams, {{N, 0}, {D, big}, {H, big}, {W, big}, {OD, big},
                                       {OH, big}, {OW, big}}),
                      bytes),
              KILN_ERR_OUT_OF_RANGE)
        << name;
  }
}

// Loops that index no memory are bounded too: an empty batch with huge
// kernel taps would otherwise spin over nothing.
TEST(Conv3dCheck, BoundsTheLoopNestWhenSomeExtentIsEmpty) {
  for (const char* name : kCases) {
    KILN_LOAD_CASE(name, c);
    std::vector<uint64_t> bytes = c.binding_bytes();
    const int64_t k = int64_t{1} << 10;
    // An empty width along the walked positions (output for conv, input for
    // the transpose): that tensor needs no bytes, but taps x planes still loop.
    const size_t empty = c.kernel == "conv3d_f32" ? OW : W;
    std::vector<int64_t> ip = With(c.iparams, {{empty, 0}, {KD, k}, {KH, k}, {KW, 1}});
    bytes[1] = static_cast<uint64_t>(c.iparams[c.kernel == "conv3d_f32" ? OC : C]) * 4 *
               static_cast<uint64_t>(k * k) * 64;
    EXPECT_EQ(c.Check(ip, bytes), KILN_ERR_OUT_OF_RANGE) << name;
    // The same shape with small taps passes: the loop bound refused it.
    EXPECT_EQ(c.Check(With(ip, {{KD, 2}, {KH, 2}}), bytes), KILN_OK) << name;
  }
}

TEST(Conv3dKernel, EmptyBatchTouchesNoActivations) {
  for (const char* name : kCases) {
    KILN_LOAD_CASE(name, c);
    const std::vector<int64_t> ip = With(c.iparams, {{N, 0}});
    std::vector<uint64_t> bytes = c.binding_bytes();
    bytes[0] = bytes.back() = 0;
    ASSERT_EQ(c.Check(ip, bytes), KILN_OK) << name;
    std::vector<unsigned char> w = c.bindings[1].initial, b = c.bindings[2].initial;
    std::vector<void*> ptrs(c.bindings.size(), nullptr);
    ptrs[1] = w.data();
    ptrs[2] = b.data();
    EXPECT_EQ(kiln_test::FindKernel(c.kernel)->fn(ip.data(), c.fp(), ptrs.data(), nullptr),
              KILN_OK)
        << name;
  }
}

// An empty input plane leaves the bias alone in every output.
TEST(Conv3dKernel, EmptyInputPlaneGivesTheBias) {
  KILN_LOAD_CASE("conv3d_f32.pad_beyond_kernel", c);  // pads 3, kernel 2, stride 2
  const std::vector<int64_t> ip = With(c.iparams, {{W, 0}});
  std::vector<uint64_t> bytes = c.binding_bytes();
  bytes[0] = 0;
  ASSERT_EQ(c.Check(ip, bytes), KILN_OK);
  std::vector<unsigned char> w = c.bindings[1].initial, b = c.bindings[2].initial;
  std::vector<float> y(bytes[4] / 4, -7.0f);
  void* ptrs[5] = {nullptr, w.data(), b.data(), nullptr, y.data()};
  ASSERT_EQ(kiln_conv3d_f32(ip.data(), c.fp(), ptrs, nullptr), KILN_OK);
  const float* bias = reinterpret_cast<const float*>(b.data());
  const int64_t plane = c.iparams[OD] * c.iparams[OH] * c.iparams[OW];
  for (size_t i = 0; i < y.size(); ++i) {
    EXPECT_EQ(y[i], bias[(static_cast<int64_t>(i) / plane) % c.iparams[OC]]) << i;
  }
}

}  // namespace
