// conv2d_packed_cl_f32 on an NCHW image of 2 to KILN_CONVP_SMALL_C channels
// into NHWC (horizontal stride 1 or 2, no horizontal dilation): the route of
// conv_stem_nhwc.h. The shapes cover every path's tile tails (positions past
// the last whole tile of 8, 6 or 3; channel chunks of 32 or 16 cut short,
// fewer channels than one vector), rectangular windows, unequal strides and
// pads, vertical dilation, rows split into several buffered blocks, and
// padding wider than the window. Each output is checked against a direct
// double-precision loop with its activation applied in double: within
// 1e-5 * (1 + |bias| + sum |products|). Results do not depend on how the host
// splits the rows (bit for bit).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "kiln/kernels.h"
#include "partition_test_util.h"

namespace {

using kiln::testing::kReverseHost;
using kiln::testing::Random;

struct StemShape {
  int64_t n, c, h, w, oc, kh, kw, sh, sw, pt, pl, pb, pr, dh;
  int64_t oh() const { return (h + pt + pb - dh * (kh - 1) - 1) / sh + 1; }
  int64_t ow() const { return (w + pl + pr - (kw - 1) - 1) / sw + 1; }
};

struct StemCase {
  StemShape s;
  int64_t act;
  bool bias;
};

double ApplyActivation(double v, int64_t act, double alpha, double beta) {
  switch (act) {
    case KILN_ACT_RELU: return std::max(v, 0.0);
    case KILN_ACT_CLIP: return std::min(std::max(v, alpha), beta);
    case KILN_ACT_SIGMOID: return 1.0 / (1.0 + std::exp(-v));
    case KILN_ACT_SILU: return v / (1.0 + std::exp(-v));
    default: return v;
  }
}

// ONNX weights [OC, C, KH, KW] into the 16-channel panels the kernel reads:
// w[(oc/16)*16K + ((kh*KW + kw)*C + c)*16 + oc%16], zero past OC.
std::vector<float> Panels(const StemShape& s, const std::vector<float>& w) {
  const int64_t K = s.kh * s.kw * s.c, panels = (s.oc + 15) / 16;
  std::vector<float> p(panels * 16 * K, 0.0f);
  for (int64_t oc = 0; oc < s.oc; ++oc)
    for (int64_t c = 0; c < s.c; ++c)
      for (int64_t kh = 0; kh < s.kh; ++kh)
        for (int64_t kw = 0; kw < s.kw; ++kw)
          p[(oc / 16) * 16 * K + ((kh * s.kw + kw) * s.c + c) * 16 + oc % 16] =
              w[((oc * s.c + c) * s.kh + kh) * s.kw + kw];
  return p;
}

constexpr float kAlpha = -0.15f, kBeta = 0.2f;  // Clip's bounds

std::vector<float> RunStem(const StemCase& t, const std::vector<float>& x,
                           const std::vector<float>& panels, const std::vector<float>& bias,
                           const kiln_host* host) {
  const StemShape& s = t.s;
  std::vector<float> y(s.n * s.oh() * s.ow() * s.oc);
  const int64_t ip[20] = {s.n,  s.c,  s.h,  s.w, s.oc, s.oh(), s.ow(), s.kh, s.kw, s.sh,
                          s.sw, s.pt, s.pl, s.dh, 1,   1,      t.act,  t.bias, 0,    1};
  const float fp[2] = {kAlpha, kBeta};
  const uint64_t bytes[4] = {4 * x.size(), 4 * panels.size(), t.bias ? 4 * bias.size() : 0,
                             4 * y.size()};
  EXPECT_EQ(kiln_conv2d_packed_cl_f32_check(ip, 20, fp, 2, bytes), KILN_OK);
  void* b[4] = {const_cast<float*>(x.data()), const_cast<float*>(panels.data()),
                t.bias ? const_cast<float*>(bias.data()) : nullptr, y.data()};
  EXPECT_EQ(kiln_conv2d_packed_cl_f32(ip, fp, b, host), KILN_OK);
  return y;
}

class StemIntoChannelsLast : public ::testing::TestWithParam<StemCase> {};

TEST_P(StemIntoChannelsLast, MatchesDirectLoopOnAnyPartition) {
  const StemCase& t = GetParam();
  const StemShape& s = t.s;
  const int64_t OH = s.oh(), OW = s.ow();
  const std::vector<float> x = Random(s.n * s.c * s.h * s.w, 31);
  const std::vector<float> w = Random(s.oc * s.c * s.kh * s.kw, 32);
  const std::vector<float> bias = Random(s.oc, 33);
  const std::vector<float> panels = Panels(s, w);
  const std::vector<float> y = RunStem(t, x, panels, bias, nullptr);
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t oh = 0; oh < OH; ++oh)
      for (int64_t ow = 0; ow < OW; ++ow)
        for (int64_t oc = 0; oc < s.oc; ++oc) {
          double sum = t.bias ? bias[oc] : 0.0, mag = 1.0 + (t.bias ? std::fabs(bias[oc]) : 0.0);
          for (int64_t c = 0; c < s.c; ++c)
            for (int64_t kh = 0; kh < s.kh; ++kh)
              for (int64_t kw = 0; kw < s.kw; ++kw) {
                const int64_t ih = oh * s.sh - s.pt + kh * s.dh, iw = ow * s.sw - s.pl + kw;
                if (ih < 0 || ih >= s.h || iw < 0 || iw >= s.w) continue;
                const double p = static_cast<double>(x[((n * s.c + c) * s.h + ih) * s.w + iw]) *
                                 w[((oc * s.c + c) * s.kh + kh) * s.kw + kw];
                sum += p;
                mag += std::fabs(p);
              }
          const int64_t at = ((n * OH + oh) * OW + ow) * s.oc + oc;
          ASSERT_NEAR(y[at], ApplyActivation(sum, t.act, kAlpha, kBeta), 1e-5 * mag)
              << "n " << n << " oh " << oh << " ow " << ow << " oc " << oc;
        }
  const std::vector<float> y_split = RunStem(t, x, panels, bias, &kReverseHost);
  for (size_t at = 0; at < y.size(); ++at) ASSERT_EQ(y[at], y_split[at]) << "at " << at;
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, StemIntoChannelsLast,
    ::testing::Values(
        // n c  h   w    oc kh kw sh sw pt pl pb pr dh
        StemCase{{1, 3, 33, 35, 32, 3, 3, 2, 2, 1, 1, 1, 1, 1}, KILN_ACT_CLIP, true},  // 17 wide
        StemCase{{2, 3, 20, 27, 64, 7, 7, 2, 2, 3, 3, 3, 3, 1}, KILN_ACT_RELU, true},  // 2 chunks
        StemCase{{1, 3, 9, 31, 40, 3, 3, 1, 1, 1, 1, 1, 1, 1}, KILN_ACT_NONE, true},   // 40 ch
        StemCase{{1, 2, 8, 13, 8, 3, 5, 1, 2, 0, 2, 2, 1, 1}, KILN_ACT_SIGMOID, false},
        StemCase{{1, 4, 11, 19, 17, 5, 3, 3, 1, 2, 0, 1, 2, 2}, KILN_ACT_SILU, true},
        StemCase{{1, 3, 6, 10, 5, 2, 2, 1, 2, 0, 0, 0, 0, 1}, KILN_ACT_RELU, true},    // 5 ch
        StemCase{{1, 4, 5, 300, 24, 7, 7, 1, 1, 3, 3, 3, 3, 1}, KILN_ACT_CLIP, true},  // blocks
        StemCase{{1, 3, 7, 9, 48, 3, 3, 2, 2, 4, 4, 4, 4, 1}, KILN_ACT_NONE, false},   // wide pads
        StemCase{{1, 3, 4, 1, 33, 1, 3, 1, 1, 0, 1, 0, 1, 1}, KILN_ACT_RELU, true}));  // one column

}  // namespace
