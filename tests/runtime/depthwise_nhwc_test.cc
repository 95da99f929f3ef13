// conv2d_dw_nhwc_f32 (depthwise, channels last) against a direct
// double-precision loop over the ONNX Conv definition with the weights in
// ONNX's [C,1,KH,KW] layout, written here because conv_reference.h's loop is
// NCHW with symmetric pads and ReLU only. Tolerance per element: 1e-5 *
// (1 + |bias| + sum |products|). Also: serial and threaded runs (uneven
// chunks in reverse order) agree bit for bit, and the checker refuses what
// the kernel cannot take.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "kiln/kernels.h"
#include "partition_test_util.h"

namespace {

using kiln::testing::Random;

struct DwCase {
  const char* name;
  int64_t n, c, h, w, kh, kw, sh, sw, pt, pl, pb, pr, dh, dw, act, has_bias;
  float alpha = 0, beta = 0;
  int64_t oh() const { return (h + pt + pb - dh * (kh - 1) - 1) / sh + 1; }
  int64_t ow() const { return (w + pl + pr - dw * (kw - 1) - 1) / sw + 1; }
};

void PrintTo(const DwCase& s, std::ostream* os) { *os << s.name; }

double Activate(const DwCase& s, double v) {
  switch (s.act) {
    case KILN_ACT_RELU: return std::max(0.0, v);
    case KILN_ACT_CLIP: return std::min(double(s.beta), std::max(double(s.alpha), v));
    case KILN_ACT_SIGMOID: return 1.0 / (1.0 + std::exp(-v));
    default: return v;
  }
}

// x [N,H,W,C]; onnx_w [C,1,KH,KW] (ONNX's layout, not the kernel's).
void Reference(const DwCase& s, const std::vector<float>& x, const std::vector<float>& onnx_w,
               const std::vector<float>& bias, std::vector<double>* y,
               std::vector<double>* mag) {
  const int64_t oh = s.oh(), ow = s.ow();
  y->assign(s.n * oh * ow * s.c, 0.0);
  mag->assign(y->size(), 0.0);
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t c = 0; c < s.c; ++c)
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j) {
          double acc = s.has_bias ? bias[c] : 0.0, m = 1.0 + std::fabs(acc);
          for (int64_t a = 0; a < s.kh; ++a)
            for (int64_t b = 0; b < s.kw; ++b) {
              const int64_t ih = i * s.sh - s.pt + a * s.dh, iw = j * s.sw - s.pl + b * s.dw;
              if (ih < 0 || ih >= s.h || iw < 0 || iw >= s.w) continue;
              const double p = double(x[((n * s.h + ih) * s.w + iw) * s.c + c]) *
                               onnx_w[(c * s.kh + a) * s.kw + b];
              acc += p;
              m += std::fabs(p);
            }
          const int64_t at = ((n * oh + i) * ow + j) * s.c + c;
          (*y)[at] = Activate(s, acc);
          (*mag)[at] = m;
        }
}

// The kernel's tap-major layout: w[(kh*KW + kw)*C + c] = W[c,0,kh,kw].
std::vector<float> TapMajor(const DwCase& s, const std::vector<float>& onnx_w) {
  std::vector<float> w(onnx_w.size());
  for (int64_t c = 0; c < s.c; ++c)
    for (int64_t t = 0; t < s.kh * s.kw; ++t) w[t * s.c + c] = onnx_w[c * s.kh * s.kw + t];
  return w;
}

std::vector<int64_t> Params(const DwCase& s) {
  return {s.n,  s.c,  s.h,  s.w,  s.c,  s.oh(), s.ow(), s.kh, s.kw,
          s.sh, s.sw, s.pt, s.pl, s.dh, s.dw,   s.c,    s.act, s.has_bias};
}

// kReverseHost's partition, counting the calls in *user.
void CountedReverseChunks(void* user, int64_t n, void (*body)(void*, int64_t, int64_t),
                          void* ctx) {
  ++*static_cast<int*>(user);
  kiln::testing::ReverseChunks(nullptr, n, body, ctx);
}

class DepthwiseNhwc : public ::testing::TestWithParam<DwCase> {};

TEST_P(DepthwiseNhwc, MatchesDirectLoopAndIgnoresPartition) {
  const DwCase s = GetParam();
  const std::vector<float> x = Random(s.n * s.h * s.w * s.c, 11);
  const std::vector<float> onnx_w = Random(s.c * s.kh * s.kw, 12);
  const std::vector<float> w = TapMajor(s, onnx_w);
  // Without bias, binding 2 is empty: the kernel must not read it.
  const std::vector<float> bias = s.has_bias ? Random(s.c, 13) : std::vector<float>();
  const size_t out = s.n * s.oh() * s.ow() * s.c;
  // NaN-filled outputs: every element must be written.
  std::vector<float> y(out, NAN), y_thr(out, NAN);
  const std::vector<int64_t> ip = Params(s);
  const float fp[2] = {s.alpha, s.beta};
  const uint64_t bytes[4] = {4 * x.size(), 4 * w.size(), 4 * bias.size(), 4 * out};
  ASSERT_EQ(kiln_conv2d_dw_nhwc_f32_check(ip.data(), 18, fp, 2, bytes), KILN_OK);
  void* b[4] = {const_cast<float*>(x.data()), const_cast<float*>(w.data()),
                const_cast<float*>(bias.data()), y.data()};
  ASSERT_EQ(kiln_conv2d_dw_nhwc_f32(ip.data(), fp, b, nullptr), KILN_OK);
  b[3] = y_thr.data();
  int splits = 0;
  const kiln_host host = {CountedReverseChunks, &splits, nullptr, nullptr};
  ASSERT_EQ(kiln_conv2d_dw_nhwc_f32(ip.data(), fp, b, &host), KILN_OK);
  // The large cases must really go through the host's split (the kernel
  // splits from 2^19 multiply-adds), or the comparison below proves nothing.
  if (s.n * s.oh() * s.ow() * s.c * s.kh * s.kw >= (int64_t{1} << 19)) {
    EXPECT_EQ(splits, 1) << s.name;
  }
  std::vector<double> ref, mag;
  Reference(s, x, onnx_w, bias, &ref, &mag);
  for (size_t at = 0; at < out; ++at) {
    ASSERT_NEAR(y[at], ref[at], 1e-5 * mag[at]) << s.name << " at " << at;
    ASSERT_EQ(y_thr[at], y[at]) << s.name << ": threaded differs at " << at;
  }
}

// name, N C H W, KH KW, stride h w, pads top left bottom right, dilation h w,
// activation, has_bias, (alpha beta).
INSTANTIATE_TEST_SUITE_P(
    Shapes, DepthwiseNhwc,
    ::testing::Values(
        DwCase{"dscnn", 1, 64, 25, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, KILN_ACT_RELU, 1},
        DwCase{"dscnn_batch2_clip", 2, 64, 25, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, KILN_ACT_CLIP,
               1, 0.0f, 0.25f},
        DwCase{"c24_clip_nobias", 1, 24, 10, 9, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, KILN_ACT_CLIP, 0,
               -0.1f, 0.2f},
        DwCase{"c5", 1, 5, 7, 6, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, KILN_ACT_NONE, 0},
        DwCase{"c100_groups_and_tail", 2, 100, 7, 7, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1,
               KILN_ACT_RELU, 1},
        DwCase{"stride2", 1, 40, 14, 14, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, KILN_ACT_RELU, 1},
        DwCase{"stride2_odd", 1, 33, 15, 11, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, KILN_ACT_NONE, 1},
        // Stride 2 through the row segments (dwn_reuse_channels): 5x5 on every
        // path, 3x3 where a channel group is 32 wide; a row of at most 8
        // outputs, pads on one side only, channels past the last group.
        DwCase{"k5_stride2", 1, 48, 13, 12, 5, 5, 2, 2, 2, 2, 2, 2, 1, 1, KILN_ACT_CLIP, 1,
               0.0f, 6.0f},
        DwCase{"k5_stride2_short_row_tail", 1, 70, 7, 9, 5, 5, 2, 2, 2, 2, 2, 2, 1, 1,
               KILN_ACT_RELU, 0},
        DwCase{"stride2_pads_one_side", 1, 64, 10, 19, 3, 3, 2, 2, 0, 0, 1, 1, 1, 1,
               KILN_ACT_NONE, 1},
        DwCase{"k5_stride2_pads_one_side", 1, 40, 11, 23, 5, 5, 2, 2, 0, 1, 2, 3, 1, 1,
               KILN_ACT_NONE, 1},
        // Rows long enough for whole segments inside the row (no column
        // tests): 3 taps at stride 1 (12 outputs a segment on AVX2, 8
        // elsewhere) and 2 (where it takes segments), 5 taps at 1 and 2.
        DwCase{"k3_long_rows", 1, 32, 5, 50, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, KILN_ACT_CLIP, 1,
               -0.5f, 0.5f},
        DwCase{"k3_stride2_long_rows", 1, 64, 5, 61, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1,
               KILN_ACT_RELU, 1},
        DwCase{"k5_long_rows", 1, 40, 6, 37, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1, KILN_ACT_RELU, 1},
        DwCase{"k5_stride2_long_rows", 1, 48, 7, 45, 5, 5, 2, 2, 2, 2, 2, 2, 1, 1,
               KILN_ACT_NONE, 0},
        DwCase{"dilation2", 1, 32, 11, 13, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, KILN_ACT_NONE, 1},
        DwCase{"k5", 1, 48, 12, 12, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1, KILN_ACT_CLIP, 0, 0.0f, 6.0f},
        DwCase{"k5x3_rect", 1, 16, 9, 20, 5, 3, 1, 1, 2, 1, 2, 1, 1, 1, KILN_ACT_NONE, 1},
        DwCase{"asymmetric_pads", 1, 20, 9, 8, 3, 3, 1, 2, 0, 2, 1, 0, 1, 1, KILN_ACT_RELU, 1},
        DwCase{"long_row", 1, 17, 1, 40, 1, 3, 1, 1, 0, 1, 0, 1, 1, 1, KILN_ACT_NONE, 1},
        DwCase{"windows_in_padding", 1, 16, 2, 2, 3, 3, 1, 1, 3, 3, 3, 3, 1, 1, KILN_ACT_RELU,
               1},
        DwCase{"kernel_wider_than_image", 1, 8, 3, 3, 5, 5, 1, 1, 1, 1, 1, 1, 1, 1,
               KILN_ACT_NONE, 1},
        DwCase{"empty_width", 1, 16, 4, 0, 1, 1, 1, 1, 0, 1, 0, 1, 1, 1, KILN_ACT_RELU, 1},
        DwCase{"empty_batch", 0, 16, 4, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, KILN_ACT_RELU, 1},
        DwCase{"sigmoid_row_pass", 1, 24, 6, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1,
               KILN_ACT_SIGMOID, 1},
        // Large enough (>= 2^19 MACs) for the threaded split to run.
        DwCase{"mbv2_576_14", 1, 576, 14, 14, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, KILN_ACT_CLIP, 1,
               0.0f, 6.0f},
        DwCase{"mbv2_960_7", 2, 960, 7, 7, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, KILN_ACT_RELU, 1},
        DwCase{"batch2_c96_40_stride2", 2, 96, 40, 40, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1,
               KILN_ACT_RELU, 1},
        DwCase{"batch2_c72_28_sigmoid", 2, 72, 28, 28, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1,
               KILN_ACT_SIGMOID, 0}),
    [](const ::testing::TestParamInfo<DwCase>& info) { return std::string(info.param.name); });

// ReLU and Clip keep NaN, as kiln_activation_apply's selects do: a NaN at
// the centre pixel of a 3x3 image reaches every output of its channel.
TEST(DepthwiseNhwc, ReluAndClipKeepNan) {
  for (const int64_t act : {int64_t{KILN_ACT_RELU}, int64_t{KILN_ACT_CLIP}}) {
    std::vector<float> x = Random(9 * 16, 21), w = Random(9 * 16, 22), bias = Random(16, 23);
    x[4 * 16 + 3] = NAN;
    std::vector<float> y(9 * 16);
    const int64_t ip[18] = {1, 16, 3, 3, 16, 3, 3, 3, 3, 1, 1, 1, 1, 1, 1, 16, act, 1};
    const float fp[2] = {-0.1f, 0.1f};
    void* b[4] = {x.data(), w.data(), bias.data(), y.data()};
    ASSERT_EQ(kiln_conv2d_dw_nhwc_f32(ip, fp, b, nullptr), KILN_OK);
    for (int64_t at = 0; at < 9 * 16; ++at) {
      EXPECT_EQ(std::isnan(y[at]), at % 16 == 3) << "act " << act << " at " << at;
    }
  }
}

// Parameters and bindings of a valid 3x3 depthwise layer: C=24 on 6x5.
struct CheckCase {
  int64_t ip[18] = {1, 24, 6, 5, 24, 6, 5, 3, 3, 1, 1, 1, 1, 1, 1, 24, KILN_ACT_RELU, 1};
  float fp[2] = {0, 0};
  uint64_t bytes[4] = {4 * 24 * 30, 4 * 9 * 24, 4 * 24, 4 * 24 * 30};
  int Check() const { return kiln_conv2d_dw_nhwc_f32_check(ip, 18, fp, 2, bytes); }
};

TEST(DepthwiseNhwcCheck, AcceptsTheBaseCase) { EXPECT_EQ(CheckCase().Check(), KILN_OK); }

TEST(DepthwiseNhwcCheck, RefusesGroupsOtherThanChannels) {
  CheckCase k;
  k.ip[15] = 1;  // an ordinary convolution
  EXPECT_EQ(k.Check(), KILN_ERR_INVALID_ARGUMENT);
  k.ip[15] = 12;  // two channels per group
  EXPECT_EQ(k.Check(), KILN_ERR_INVALID_ARGUMENT);
  k = CheckCase();
  k.ip[4] = 48, k.bytes[3] *= 2;  // channel multiplier 2 (OC != C)
  EXPECT_EQ(k.Check(), KILN_ERR_INVALID_ARGUMENT);
}

TEST(DepthwiseNhwcCheck, RefusesShortBindings) {
  for (int i = 0; i < 4; ++i) {
    CheckCase k;
    k.bytes[i] -= 4;
    EXPECT_EQ(k.Check(), KILN_ERR_OUT_OF_RANGE) << "binding " << i;
  }
  CheckCase k;
  k.ip[17] = 0, k.bytes[2] = 0;  // no bias: binding 2 may be empty
  EXPECT_EQ(k.Check(), KILN_OK);
}

TEST(DepthwiseNhwcCheck, RefusesBadShapesAndCounts) {
  CheckCase k;
  k.ip[5] = 3;  // OH smaller than the unpadded end gives
  EXPECT_EQ(k.Check(), KILN_ERR_INVALID_ARGUMENT);
  k = CheckCase();
  k.ip[9] = 0;  // stride 0
  EXPECT_EQ(k.Check(), KILN_ERR_INVALID_ARGUMENT);
  k = CheckCase();
  k.ip[16] = 999;  // unknown activation
  EXPECT_EQ(k.Check(), KILN_ERR_INVALID_ARGUMENT);
  k = CheckCase();
  k.ip[11] = -1;  // negative pad
  EXPECT_EQ(k.Check(), KILN_ERR_INVALID_ARGUMENT);
  k = CheckCase();
  EXPECT_EQ(kiln_conv2d_dw_nhwc_f32_check(k.ip, 17, k.fp, 2, k.bytes),
            KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(kiln_conv2d_dw_nhwc_f32_check(k.ip, 18, k.fp, 1, k.bytes),
            KILN_ERR_INVALID_ARGUMENT);
  k.ip[0] = int64_t{1} << 40, k.ip[1] = k.ip[4] = k.ip[15] = int64_t{1} << 40;  // overflow
  EXPECT_NE(k.Check(), KILN_OK);
}

}  // namespace
