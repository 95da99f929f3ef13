// Depthwise conv2d on small planes (runtime/kernels/depthwise_flat.h, and the
// row path for the shapes it declines): PyTorch references written by
// make_reference_depthwise.py, then a sweep of geometries against a direct
// double-precision loop in this file (tolerance 1e-5 * (1 + sum |products|)),
// with results bitwise identical under an uneven reversed thread partition.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "kernel_case.h"
#include "partition_test_util.h"

namespace {

KILN_REFERENCE_SUITE(DepthwiseSmallReference, "conv2d_f32.dw_dscnn_relu",
                     "conv2d_res_f32.dw_7x7_res_clip", "conv2d_f32.dw_dilated_sigmoid_nobias",
                     "conv2d_f32.dw_k5_asym_tanh", "conv2d_res_f32.dw_two_tiles_res_relu",
                     "conv2d_f32.dw_pad_rows", "conv2d_f32.dw_one_column",
                     "conv2d_f32.dw_wide_rows", "conv2d_f32.dw_kernel_taller_than_plane",
                     "conv2d_f32.dw_1x1", "conv2d_res_f32.dw_s2_res_relu",
                     "conv2d_f32.dw_valid_width", "conv2d_f32.dw_k9_wide");

using kiln::testing::kReverseHost;
using kiln::testing::Random;

struct DwShape {
  int64_t c, h, w, kh, kw, stride, pt, pl, pb, pr, dil;
};

// Runs conv2d_res_f32 (ReLU) on one shape, single-threaded and through
// kReverseHost, and compares with the direct loop.
void ExpectDepthwiseMatches(const DwShape& s, int64_t act) {
  const int64_t oh = (s.h + s.pt + s.pb - s.dil * (s.kh - 1) - 1) / s.stride + 1;
  const int64_t ow = (s.w + s.pl + s.pr - s.dil * (s.kw - 1) - 1) / s.stride + 1;
  ASSERT_GT(oh, 0);
  ASSERT_GT(ow, 0);
  const std::vector<float> x = Random(s.c * s.h * s.w, 11), w = Random(s.c * s.kh * s.kw, 12);
  const std::vector<float> bias = Random(s.c, 13), r = Random(s.c * oh * ow, 14);
  std::vector<float> y(r.size()), y_thr(r.size());
  const int64_t ip[18] = {1, s.c, s.h, s.w, s.c, oh, ow, s.kh, s.kw, s.stride, s.stride,
                          s.pt, s.pl, s.dil, s.dil, s.c, act, 1};
  const float fp[2] = {-0.25f, 0.3f};  // Clip bounds
  const uint64_t bytes[5] = {4 * x.size(), 4 * w.size(), 4 * bias.size(), 4 * r.size(),
                             4 * y.size()};
  ASSERT_EQ(kiln_conv2d_res_f32_check(ip, 18, fp, 2, bytes), KILN_OK);
  void* b[5] = {const_cast<float*>(x.data()), const_cast<float*>(w.data()),
                const_cast<float*>(bias.data()), const_cast<float*>(r.data()), y.data()};
  ASSERT_EQ(kiln_conv2d_res_f32(ip, fp, b, nullptr), KILN_OK);
  b[4] = y_thr.data();
  ASSERT_EQ(kiln_conv2d_res_f32(ip, fp, b, &kReverseHost), KILN_OK);
  for (int64_t c = 0; c < s.c; ++c)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j) {
        double acc = bias[c], mag = std::fabs(bias[c]);
        for (int64_t kh = 0; kh < s.kh; ++kh)
          for (int64_t kw = 0; kw < s.kw; ++kw) {
            const int64_t ih = i * s.stride - s.pt + kh * s.dil;
            const int64_t iw = j * s.stride - s.pl + kw * s.dil;
            if (ih < 0 || ih >= s.h || iw < 0 || iw >= s.w) continue;
            const double p = double(x[(c * s.h + ih) * s.w + iw]) * w[(c * s.kh + kh) * s.kw + kw];
            acc += p;
            mag += std::fabs(p);
          }
        const int64_t at = (c * oh + i) * ow + j;
        double want = acc + r[at];
        if (act == KILN_ACT_RELU) want = std::max(0.0, want);
        if (act == KILN_ACT_CLIP) want = std::min(0.3, std::max(-0.25, want));
        ASSERT_NEAR(y[at], want, 1e-5 * (1 + mag))
            << "c=" << c << " oh=" << i << " ow=" << j << " plane " << s.h << "x" << s.w
            << " k " << s.kh << "x" << s.kw << " dil " << s.dil;
        ASSERT_EQ(y_thr[at], y[at]) << "threaded differs at " << at;
      }
}

// Every plane from 1x1 to 12x20 with 3x3 "same" padding: every way a row end
// can fall inside a 16-lane block, partial last blocks, more rows per block.
TEST(DepthwiseSmall, SamePaddedPlanesOfEverySize) {
  for (int64_t h = 1; h <= 12; ++h)
    for (int64_t w = 1; w <= 20; ++w) {
      ExpectDepthwiseMatches(DwShape{3, h, w, 3, 3, 1, 1, 1, 1, 1, 1}, KILN_ACT_RELU);
      if (HasFatalFailure()) return;
    }
}

TEST(DepthwiseSmall, KernelsPadsAndDilations) {
  const DwShape shapes[] = {
      {4, 9, 7, 5, 5, 1, 2, 2, 2, 2, 1},    // 5x5 same
      {4, 9, 7, 5, 5, 1, 4, 4, 4, 4, 2},    // 5x5 dilated 2, same
      {3, 6, 6, 3, 3, 1, 0, 2, 4, 0, 1},    // pads only on one side per axis
      {3, 5, 6, 2, 2, 1, 1, 0, 0, 1, 1},    // even kernel
      {2, 7, 5, 3, 1, 1, 1, 0, 1, 0, 3},    // 3x1, dilation 3
      {2, 8, 9, 7, 7, 1, 3, 3, 3, 3, 1},    // 7x7 (49 taps)
      {2, 6, 5, 8, 8, 1, 3, 4, 4, 3, 1},    // 8x8: the widest kernel the flat path takes
      {2, 6, 30, 3, 3, 1, 1, 1, 1, 1, 1},   // rows wider than a vector
      {2, 3, 4, 3, 3, 1, 5, 1, 5, 1, 1},    // pads beyond the plane: bias-only rows
      {3, 9, 8, 3, 3, 2, 1, 1, 1, 1, 1},    // stride 2 (row path)
      {3, 9, 8, 3, 3, 1, 1, 0, 1, 0, 1},    // OW < W (row path)
      {3, 40, 40, 3, 3, 1, 1, 1, 1, 1, 1},  // 100 blocks: several mask tiles
  };
  for (const DwShape& s : shapes)
    for (int64_t act : {KILN_ACT_NONE, KILN_ACT_RELU, KILN_ACT_CLIP}) {
      ExpectDepthwiseMatches(s, act);
      if (HasFatalFailure()) return;
    }
}

// DS-CNN's depthwise layer with enough channels to be split across threads.
TEST(DepthwiseSmall, DsCnnShapeSplitAcrossThreads) {
  ExpectDepthwiseMatches(DwShape{128, 25, 5, 3, 3, 1, 1, 1, 1, 1, 1}, KILN_ACT_RELU);
}

}  // namespace
