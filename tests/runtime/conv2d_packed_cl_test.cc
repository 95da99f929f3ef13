// conv2d_packed_cl_f32 / _res_f32 (conv2d_packed_f32 with x and y each NCHW
// or NHWC) against the direct double-precision loop of conv_reference.h, in
// every layout pair, over the shapes that take its four routes: the tiles,
// the pointwise GEMM (1x1 into NHWC), for one input channel into NHWC the
// rows in registers (rows of at most 8, whole panels) or the im2col GEMM, and
// for 2 to KILN_CONVP_SMALL_C channels from NCHW into NHWC conv_stem_nhwc.h's
// tiles (stride 1 or 2, no dilation; else the general tiles; its edge cases
// are conv_stem_nhwc_test.cc's). Grouped convs (groups of whole 16-channel
// panels) take the tiles whatever their window or layouts.
// Tolerance: 1e-5 * (1 + |bias| + sum |products|) per element.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <tuple>
#include <vector>

#include "conv_reference.h"
#include "kiln/kernels.h"

namespace {

using kiln::testing::ConvLayouts;
using kiln::testing::ConvShape;
using kiln::testing::ExpectResidualConvMatches;
using kiln::testing::PackOcPanels;
using kiln::testing::Random;
using kiln::testing::Relayout;

ConvLayouts Layouts(int pair) { return {true, (pair & 1) != 0, (pair & 2) != 0}; }

class ChannelsLastConv : public ::testing::TestWithParam<std::tuple<ConvShape, int>> {};

TEST_P(ChannelsLastConv, ResidualConvMatchesDirectLoop) {
  const auto& [s, pair] = GetParam();
  ExpectResidualConvMatches(s, kiln_conv2d_packed_cl_res_f32, kiln_conv2d_packed_cl_res_f32_check,
                            [&](const std::vector<float>& w) { return PackOcPanels(s, w); },
                            Layouts(pair));
}

// conv2d_packed_cl_f32 (no residual: the NHWC store applies bias and
// activation itself) on x [N,C,H,W], w [OC,C,k,k] and bias, in the kernel's
// layouts; y in the kernel's output layout.
std::vector<float> PlainConv(const ConvShape& s, const ConvLayouts& lay, const std::vector<float>& x,
                             const std::vector<float>& w, const std::vector<float>& bias,
                             int64_t act) {
  const int64_t oh = s.oh(), ow = s.ow();
  const std::vector<float> packed = PackOcPanels(s, w);
  const std::vector<float> xk = lay.x_channels_last ? Relayout(x, s.n, s.c, s.h, s.w, true) : x;
  std::vector<float> y(s.n * s.oc * oh * ow);
  const int64_t ip[20] = {s.n, s.c, s.h, s.w, s.oc, oh, ow, s.k, s.k, s.stride, s.stride,
                          s.pad, s.pad, s.dil, s.dil, s.groups, act, 1,
                          lay.x_channels_last, lay.y_channels_last};
  const float fp[2] = {0, 0};
  const uint64_t bytes[4] = {4 * x.size(), 4 * packed.size(), 4 * bias.size(), 4 * y.size()};
  EXPECT_EQ(kiln_conv2d_packed_cl_f32_check(ip, 20, fp, 2, bytes), KILN_OK);
  void* b[4] = {const_cast<float*>(xk.data()), const_cast<float*>(packed.data()),
                const_cast<float*>(bias.data()), y.data()};
  EXPECT_EQ(kiln_conv2d_packed_cl_f32(ip, fp, b, nullptr), KILN_OK);
  return y;
}

TEST_P(ChannelsLastConv, PlainConvMatchesDirectLoop) {
  const auto& [s, pair] = GetParam();
  const ConvLayouts lay = Layouts(pair);
  const int64_t oh = s.oh(), ow = s.ow();
  const std::vector<float> x = Random(s.n * s.c * s.h * s.w, 14);
  const std::vector<float> w = Random(s.oc * (s.c / s.groups) * s.k * s.k, 15);
  const std::vector<float> bias = Random(s.oc, 16), zero(s.n * s.oc * oh * ow, 0.0f);
  std::vector<float> y = PlainConv(s, lay, x, w, bias, KILN_ACT_RELU);
  if (lay.y_channels_last) y = Relayout(y, s.n, s.oc, oh, ow, false);
  const kiln::testing::ConvReference ref = kiln::testing::ReferenceConvRelu(s, x, w, bias, zero);
  for (size_t at = 0; at < y.size(); ++at) {
    ASSERT_NEAR(y[at], ref.y[at], 1e-5 * ref.mag[at]) << "at " << at;
  }
}

// SiLU, which the AVX-512 micro-kernels apply in their registers and the
// other paths in a pass over the finished rows: within 1e-5 * (1 + |bias| +
// sum |products|) of silu of the double-precision conv, and bit for bit what
// the conv without activation then unary_f32's SiLU give (fusing changes no
// result).
TEST_P(ChannelsLastConv, SiluIsTheUnaryKernelBitForBit) {
  const auto& [s, pair] = GetParam();
  const ConvLayouts lay = Layouts(pair);
  const int64_t oh = s.oh(), ow = s.ow();
  const std::vector<float> x = Random(s.n * s.c * s.h * s.w, 24);
  const std::vector<float> w = Random(s.oc * (s.c / s.groups) * s.k * s.k, 25);
  const std::vector<float> bias = Random(s.oc, 26), zero(s.n * s.oc * oh * ow, 0.0f);
  const std::vector<float> fused = PlainConv(s, lay, x, w, bias, KILN_ACT_SILU);
  std::vector<float> plain = PlainConv(s, lay, x, w, bias, KILN_ACT_NONE);
  const int64_t uip[2] = {KILN_ACT_SILU, static_cast<int64_t>(plain.size())};
  const float ufp[2] = {0, 0};
  void* u[2] = {plain.data(), plain.data()};
  ASSERT_EQ(kiln_unary_f32(uip, ufp, u, nullptr), KILN_OK);
  for (size_t at = 0; at < fused.size(); ++at) {
    ASSERT_EQ(fused[at], plain[at]) << "at " << at;
  }
  std::vector<float> y = lay.y_channels_last ? Relayout(fused, s.n, s.oc, oh, ow, false) : fused;
  const kiln::testing::ConvReference ref =
      kiln::testing::ReferenceConvRelu(s, x, w, bias, zero, /*relu=*/false);
  for (size_t at = 0; at < y.size(); ++at) {
    const double v = ref.y[at], silu = v / (1.0 + std::exp(-v));
    ASSERT_NEAR(y[at], silu, 1e-5 * ref.mag[at]) << "at " << at;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, ChannelsLastConv,
    ::testing::Combine(
        ::testing::Values(ConvShape{1, 64, 25, 5, 64, 1, 1, 0, 1, 1},   // DS-CNN pointwise
                          ConvShape{2, 24, 7, 7, 40, 1, 1, 0, 1, 1},    // pointwise, 2 images
                          ConvShape{1, 24, 9, 9, 17, 1, 2, 0, 1, 1},    // pointwise, stride 2
                          ConvShape{1, 20, 7, 9, 33, 3, 1, 1, 1, 1},    // 3x3 tiles
                          ConvShape{1, 1, 21, 10, 64, 4, 2, 2, 1, 1},   // one-channel stem
                          ConvShape{2, 1, 9, 12, 20, 5, 1, 2, 2, 1},    // one channel, dilated
                          ConvShape{2, 1, 9, 6, 32, 3, 1, 2, 2, 1},     // short rows, dilated
                          ConvShape{1, 1, 15, 15, 48, 3, 2, 1, 1, 1},   // rows of 8, 3 panels
                          ConvShape{1, 3, 11, 13, 16, 3, 2, 1, 1, 1},   // three channels
                          // NCHW images of 2..KILN_CONVP_SMALL_C channels into NHWC:
                          // conv_stem_nhwc.h where it fits
                          ConvShape{2, 3, 30, 30, 32, 3, 2, 1, 1, 1},   // MobileNet-like stem
                          ConvShape{1, 3, 37, 41, 24, 7, 2, 3, 1, 1},   // ResNet-like 7x7 stem
                          ConvShape{1, 3, 9, 150, 19, 3, 1, 1, 1, 1},   // wide rows, 19 channels
                          ConvShape{1, 4, 12, 70, 33, 5, 2, 2, 1, 1},   // four channels, 33 out
                          ConvShape{1, 2, 13, 11, 17, 3, 1, 2, 2, 1},   // dilated: the tiles
                          ConvShape{1, 4, 9, 20, 33, 5, 3, 1, 1, 1},    // stride 3: the tiles
                          ConvShape{1, 20, 6, 7, 33, 3, 1, 12, 12, 1},  // atrous past the plane
                          // Groups of whole panels: the tiles, in each layout
                          ConvShape{1, 32, 9, 9, 32, 3, 1, 1, 1, 2},    // RegNet-like 3x3
                          ConvShape{2, 64, 8, 7, 64, 3, 2, 1, 1, 2},    // 32 out per group
                          ConvShape{1, 48, 5, 6, 48, 1, 1, 0, 1, 3},    // grouped 1x1
                          ConvShape{1, 2, 10, 9, 32, 3, 1, 1, 1, 2},    // one in per group
                          ConvShape{1, 4, 11, 12, 64, 3, 2, 1, 1, 4}),  // NCHW image, groups
        ::testing::Values(1, 2, 3)));  // x NHWC; y NHWC; both

TEST(ChannelsLastConvCheck, RefusesBadLayoutsAndCounts) {
  int64_t ip[20] = {1, 4, 6, 6, 20, 6, 6, 3, 3, 1, 1, 1, 1, 1, 1, 1, KILN_ACT_NONE, 1, 1, 1};
  const float fp[2] = {0, 0};
  const uint64_t bytes[4] = {4 * 4 * 36, 4 * 32 * 9 * 4, 4 * 20, 4 * 20 * 36};
  EXPECT_EQ(kiln_conv2d_packed_cl_f32_check(ip, 20, fp, 2, bytes), KILN_OK);
  EXPECT_EQ(kiln_conv2d_packed_cl_f32_check(ip, 18, fp, 2, bytes), KILN_ERR_INVALID_ARGUMENT);
  ip[19] = 2;  // not a layout
  EXPECT_EQ(kiln_conv2d_packed_cl_f32_check(ip, 20, fp, 2, bytes), KILN_ERR_INVALID_ARGUMENT);
  ip[19] = 1;
  ip[18] = -1;
  EXPECT_EQ(kiln_conv2d_packed_cl_f32_check(ip, 20, fp, 2, bytes), KILN_ERR_INVALID_ARGUMENT);
}

}  // namespace
