// conv2d_winograd_f32 / _res_f32 against a direct double-precision loop over
// the ONNX Conv definition (a different algorithm: no transforms), in every
// layout pair, over paddings (asymmetric too), planes whose tiles cross the
// edges, channel counts that are not multiples of 16, batches, epilogues,
// and host partitions (bitwise equal to the serial run).
//
// Tolerance. Winograd rounds more than a direct sum: its transforms scale
// and add terms before the channel sums. Per output, two bounds must hold:
//  - the first-order worst case of F(4x4, 3x3) in float32,
//      |y - ref| <= 2^-23 (C + 24) Wmag + 2^-22 (|bias| + |r| + |sum|) + 2^-21 |y|,
//    Wmag = sum_c sum_{u,v,r,s} K(a,u,r) K(b,v,s) |w[c,u,v]| |x[c,r,s]| over
//    the output's tile window, K(a,u,r) = sum_f |AT[a,f]| |G[f,u]| |BT[f,r]|:
//    each transformed value carries at most a few roundings relative to the
//    magnitudes it sums (U one when the compiler transforms the weights,
//    up to 8 when the kernel does), the channel sum C more (one per step,
//    two without FMA: hence 2^-23 = 2u), the final adds one each, the
//    activation a few ulp of its result;
//  - 2e-5 (1 + |bias| + |r| + sum |products|), twice the direct kernels'
//    tolerance: benchmarks/winograd_choice.py measures F(4x4, 3x3)'s error in
//    float32 at most 2.1e-6 of sum |products| (RMS 1.2e-7) for C up to 512,
//    post-ReLU or signed inputs (the worst-case bound above is about 1000x
//    looser than what happens).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "conv_reference.h"
#include "kiln/conv_winograd.h"
#include "kiln/kernels.h"
#include "partition_test_util.h"

namespace {

using kiln::testing::kConcurrentHost;
using kiln::testing::kReverseHost;
using kiln::testing::Random;
using kiln::testing::Relayout;

// The transforms, as kiln/conv_winograd.h documents them.
constexpr double kBT[6][6] = {{4, 0, -5, 0, 1, 0},  {0, -4, -4, 1, 1, 0}, {0, 4, -4, -1, 1, 0},
                              {0, -2, -1, 2, 1, 0}, {0, 2, -1, -2, 1, 0}, {0, 4, 0, -5, 0, 1}};
constexpr double kG[6][3] = {{1.0 / 4, 0, 0},
                             {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                             {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                             {1.0 / 24, 1.0 / 12, 1.0 / 6},
                             {1.0 / 24, -1.0 / 12, 1.0 / 6},
                             {0, 0, 1}};
constexpr double kAT[4][6] = {
    {1, 1, 1, 1, 1, 0}, {0, 1, -1, 2, -2, 0}, {0, 1, 1, 4, 4, 0}, {0, 1, -1, 8, -8, 1}};

struct WinoShape {
  int64_t n, c, h, w, oc, pt, pl, pb, pr;
  int64_t oh() const { return h + pt + pb - 2; }
  int64_t ow() const { return w + pl + pr - 2; }
};

struct Epilogue {
  int64_t act = KILN_ACT_RELU;
  float alpha = 0, beta = 0;
  bool bias = true, residual = true;
};

double Activate(double v, const Epilogue& e) {
  switch (e.act) {
    case KILN_ACT_RELU: return std::max(0.0, v);
    case KILN_ACT_CLIP: return std::min<double>(e.beta, std::max<double>(e.alpha, v));
    case KILN_ACT_LEAKY_RELU: return v < 0 ? e.alpha * v : v;
    case KILN_ACT_SIGMOID: return 1 / (1 + std::exp(-v));
    default: return v;
  }
}

// The plain weights as kernels.h documents them (transformed_weights 0):
// (oc/16)*9*C*16 + (c*9 + tap)*16 + oc%16, or (tap*C + c) in place of
// (c*9 + tap) for an output plane under 8x8.
std::vector<float> PlainWeights(const WinoShape& s, const std::vector<float>& w) {
  const int64_t panels = (s.oc + 15) / 16;
  const bool tap_major = s.oh() < 8 || s.ow() < 8;
  std::vector<float> p(panels * 16 * 9 * s.c, 0.0f);
  for (int64_t o = 0; o < s.oc; ++o)
    for (int64_t c = 0; c < s.c; ++c)
      for (int tap = 0; tap < 9; ++tap)
        p[(o / 16) * 9 * s.c * 16 + (tap_major ? tap * s.c + c : c * 9 + tap) * 16 + o % 16] =
            w[(o * s.c + c) * 9 + tap];
  return p;
}

// U as kernels.h documents it (transformed_weights 1):
// (oc/16)*36*C*16 + (f*C + c)*16 + oc%16.
std::vector<float> TransformWeights(const WinoShape& s, const std::vector<float>& w) {
  const int64_t panels = (s.oc + 15) / 16;
  std::vector<float> u(panels * 16 * 36 * s.c, 0.0f);
  for (int64_t o = 0; o < s.oc; ++o)
    for (int64_t c = 0; c < s.c; ++c)
      for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 6; ++j) {
          double acc = 0;
          for (int a = 0; a < 3; ++a)
            for (int b = 0; b < 3; ++b) acc += kG[i][a] * w[((o * s.c + c) * 3 + a) * 3 + b] * kG[j][b];
          u[(o / 16) * 36 * s.c * 16 + ((i * 6 + j) * s.c + c) * 16 + o % 16] = static_cast<float>(acc);
        }
  return u;
}

struct Reference {
  std::vector<double> y, tol_worst, tol_measured;
};

// Direct double loop, NCHW in and out, and both tolerances per output.
Reference Direct(const WinoShape& s, const std::vector<float>& x, const std::vector<float>& w,
                 const std::vector<float>& bias, const std::vector<float>& r, const Epilogue& e) {
  double k1[4][3][6];  // K(a, u, r)
  for (int a = 0; a < 4; ++a)
    for (int u = 0; u < 3; ++u)
      for (int q = 0; q < 6; ++q) {
        k1[a][u][q] = 0;
        for (int f = 0; f < 6; ++f) k1[a][u][q] += std::fabs(kAT[a][f] * kG[f][u] * kBT[f][q]);
      }
  const int64_t oh = s.oh(), ow = s.ow();
  Reference ref;
  ref.y.resize(s.n * s.oc * oh * ow);
  ref.tol_worst.resize(ref.y.size());
  ref.tol_measured.resize(ref.y.size());
  auto xat = [&](int64_t n, int64_t c, int64_t ih, int64_t iw) -> double {
    if (ih < 0 || ih >= s.h || iw < 0 || iw >= s.w) return 0.0;
    return x[((n * s.c + c) * s.h + ih) * s.w + iw];
  };
  // Per output place (i, j): the window sums sum_{q,t} K(a,u,q) K(b,v,t)
  // |x[c, q, t]| over its tile's 6 x 6 inputs, per channel and tap (u, v),
  // shared by every output channel.
  std::vector<double> xk(s.c * 9);
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j) {
        // The tile holding (i, j) and the output's place in it.
        const int64_t ti = i / 4 * 4, tj = j / 4 * 4, a = i % 4, b = j % 4;
        for (int64_t c = 0; c < s.c; ++c)
          for (int u = 0; u < 3; ++u)
            for (int v = 0; v < 3; ++v) {
              double sum = 0;
              for (int q = 0; q < 6; ++q)
                for (int t = 0; t < 6; ++t)
                  sum += k1[a][u][q] * k1[b][v][t] *
                         std::fabs(xat(n, c, ti - s.pt + q, tj - s.pl + t));
              xk[c * 9 + u * 3 + v] = sum;
            }
        for (int64_t o = 0; o < s.oc; ++o) {
          double acc = 0, mag = 0, wmag = 0;
          for (int64_t c = 0; c < s.c; ++c) {
            const float* wc = &w[(o * s.c + c) * 9];
            for (int u = 0; u < 3; ++u)
              for (int v = 0; v < 3; ++v) {
                const double p = xat(n, c, i - s.pt + u, j - s.pl + v) * wc[u * 3 + v];
                acc += p;
                mag += std::fabs(p);
                wmag += std::fabs(wc[u * 3 + v]) * xk[c * 9 + u * 3 + v];
              }
          }
          const int64_t at = ((n * s.oc + o) * oh + i) * ow + j;
          const double bv = e.bias ? bias[o] : 0.0, rv = e.residual ? r[at] : 0.0;
          const double sum = acc + bv + rv;
          ref.y[at] = Activate(sum, e);
          const double ends = std::fabs(bv) + std::fabs(rv) + std::fabs(sum);
          // ... and 8 ulp of the result for the activation's own rounding
          // (sigmoid's expf and division; ReLU and Clip are exact).
          ref.tol_worst[at] = std::ldexp(1.0, -23) * (s.c + 24) * wmag +
                              std::ldexp(1.0, -22) * ends + std::ldexp(1.0, -21) * std::fabs(ref.y[at]);
          // The activations tested change values by at most the change of
          // their argument (slope <= 1), so the error of the sum carries over.
          ref.tol_measured[at] = 2e-5 * (1 + std::fabs(bv) + std::fabs(rv) + mag);
        }
      }
  return ref;
}

std::vector<int64_t> IParams(const WinoShape& s, const Epilogue& e, bool x_cl, bool y_cl,
                             bool transformed) {
  return {s.n, s.c, s.h, s.w, s.oc, s.oh(), s.ow(), 3, 3, 1, 1, s.pt, s.pl, 1, 1, 1,
          e.act, e.bias ? 1 : 0, x_cl, y_cl, transformed};
}

// Runs the kernel (serially, then through kReverseHost) in the layouts and
// with the weights given and checks it against Direct with both tolerances.
void ExpectMatchesDirect(const WinoShape& s, const Epilogue& e, bool x_cl, bool y_cl,
                         bool transformed) {
  const int64_t oh = s.oh(), ow = s.ow();
  const std::vector<float> x = Random(s.n * s.c * s.h * s.w, 21);
  const std::vector<float> w = Random(s.oc * s.c * 9, 22);
  const std::vector<float> bias = Random(s.oc, 23), r = Random(s.n * s.oc * oh * ow, 24);
  const std::vector<float> u = transformed ? TransformWeights(s, w) : PlainWeights(s, w);
  const std::vector<float> xk = x_cl ? Relayout(x, s.n, s.c, s.h, s.w, true) : x;
  const std::vector<float> rk = y_cl ? Relayout(r, s.n, s.oc, oh, ow, true) : r;
  const size_t scratch_floats =
      static_cast<size_t>(kiln_winograd_scratch_floats(s.n, s.c, s.oc, oh, ow, transformed));
  // NaN everywhere the kernel writes: every output must be written, and
  // nothing may be read from the scratch before it is.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> y(r.size(), nan), y_thr(r.size(), nan), scratch(scratch_floats, nan);
  const std::vector<int64_t> ip = IParams(s, e, x_cl, y_cl, transformed);
  const float fp[2] = {e.alpha, e.beta};
  std::vector<uint64_t> bytes = {4 * x.size(), 4 * u.size(), 4 * bias.size()};
  std::vector<void*> b = {const_cast<float*>(xk.data()), const_cast<float*>(u.data()),
                          const_cast<float*>(bias.data())};
  if (e.residual) {
    bytes.push_back(4 * r.size());
    b.push_back(const_cast<float*>(rk.data()));
  }
  bytes.push_back(4 * y.size());
  b.push_back(y.data());
  bytes.push_back(4 * scratch.size());
  b.push_back(scratch.data());
  auto run = e.residual ? kiln_conv2d_winograd_res_f32 : kiln_conv2d_winograd_f32;
  auto check = e.residual ? kiln_conv2d_winograd_res_f32_check : kiln_conv2d_winograd_f32_check;
  ASSERT_EQ(check(ip.data(), 21, fp, 2, bytes.data()), KILN_OK);
  ASSERT_EQ(run(ip.data(), fp, b.data(), nullptr), KILN_OK);
  std::fill(scratch.begin(), scratch.end(), nan);
  b[e.residual ? 4 : 3] = y_thr.data();
  ASSERT_EQ(run(ip.data(), fp, b.data(), &kReverseHost), KILN_OK);
  // The same partition on threads at once: tasks must not share scratch.
  std::vector<float> y_con(r.size(), nan);
  std::fill(scratch.begin(), scratch.end(), nan);
  b[e.residual ? 4 : 3] = y_con.data();
  ASSERT_EQ(run(ip.data(), fp, b.data(), &kConcurrentHost), KILN_OK);
  if (y_cl) {
    y = Relayout(y, s.n, s.oc, oh, ow, false);
    y_thr = Relayout(y_thr, s.n, s.oc, oh, ow, false);
    y_con = Relayout(y_con, s.n, s.oc, oh, ow, false);
  }
  const Reference ref = Direct(s, x, w, bias, r, e);
  for (size_t at = 0; at < y.size(); ++at) {
    ASSERT_NEAR(y[at], ref.y[at], ref.tol_worst[at]) << "worst-case bound, at " << at;
    ASSERT_NEAR(y[at], ref.y[at], ref.tol_measured[at]) << "at " << at;
    ASSERT_EQ(y_thr[at], y[at]) << "threaded differs at " << at;
    ASSERT_EQ(y_con[at], y[at]) << "concurrent threads differ at " << at;
  }
}

struct Case {
  WinoShape s;
  Epilogue e;
};

// (case, layouts: bit 0 x NHWC, bit 1 y NHWC, weights: U or plain).
class WinogradConv : public ::testing::TestWithParam<std::tuple<Case, int, bool>> {};

TEST_P(WinogradConv, MatchesDirectLoop) {
  const auto& [c, layouts, transformed] = GetParam();
  ExpectMatchesDirect(c.s, c.e, (layouts & 1) != 0, (layouts & 2) != 0, transformed);
}

Epilogue Act(int64_t act, float alpha, float beta, bool bias, bool residual) {
  Epilogue e;
  e.act = act, e.alpha = alpha, e.beta = beta, e.bias = bias, e.residual = residual;
  return e;
}

const Case kCases[] = {
    // ResNet-like: whole tiles, pad 1, residual and ReLU.
    {{1, 16, 8, 8, 16, 1, 1, 1, 1}, {}},
    // Channels not multiples of 16 (nor of 8 or 4), tiles crossing both edges.
    {{1, 5, 7, 9, 7, 1, 1, 1, 1}, {}},
    {{2, 19, 11, 6, 37, 1, 1, 1, 1}, Act(KILN_ACT_CLIP, -0.25f, 0.5f, true, false)},
    // No padding; a wide row (more tiles than one staging strip holds).
    {{1, 3, 6, 45, 33, 0, 0, 0, 0}, Act(KILN_ACT_NONE, 0, 0, false, false)},
    // Asymmetric and large paddings (a whole tile of zeros at an edge).
    {{1, 9, 5, 7, 20, 2, 0, 1, 3}, Act(KILN_ACT_LEAKY_RELU, 0.1f, 0, true, true)},
    {{1, 4, 3, 3, 17, 6, 5, 0, 7}, Act(KILN_ACT_SIGMOID, 0, 0, true, false)},
    // A one-pixel output, and one input channel.
    {{1, 8, 1, 1, 8, 1, 1, 1, 1}, {}},
    {{2, 1, 9, 10, 24, 1, 1, 1, 1}, Act(KILN_ACT_RELU, 0, 0, false, true)},
    // Big enough to split over threads (2^19 multiply-adds and more).
    {{1, 32, 14, 14, 40, 1, 1, 1, 1}, {}},
    {{2, 17, 13, 15, 48, 1, 0, 1, 2}, Act(KILN_ACT_CLIP, 0.0f, 6.0f, true, true)},
    // Two waves of tile rows (kiln_winograd_wave_rows: 20 of the 27), the
    // first spanning all three images; each wave runs in steps of at most 41 tiles
    // (conv_winograd.c's WG_STEP_FLOATS), the last one short.
    {{3, 20, 36, 36, 24, 1, 1, 1, 1}, {}},
    // U past KILN_WINOGRAD_WAVE_MAX_U (36 x 64 x 130 floats): M chunk by
    // chunk of output channels, the last one short; serially the GEMMs run
    // chunk by chunk, on a host in two shares of the chunks.
    {{2, 64, 9, 10, 130, 1, 1, 1, 1}, Act(KILN_ACT_CLIP, 0.0f, 6.0f, true, true)},
    // ResNet-18's layer4 in small: a 7x7 plane (2x2 tiles), residual and
    // ReLU, big enough to split; with plain weights the AVX-512 path runs
    // the direct kernel on it (kernels.h), the others Winograd.
    {{1, 64, 7, 7, 48, 1, 1, 1, 1}, Act(KILN_ACT_RELU, 0, 0, true, true)},
    // A 14x14 layer's 16 tiles: with plain weights on a host, two shares
    // of the output chunks, each with V and U-block regions of its own, and
    // tile groups within a share (on AVX-512 128 channels are 4 pairs of
    // panels: 2 shares of 2 tile groups; on AVX2 8 panels: 2 of 4).
    {{1, 48, 14, 14, 128, 1, 1, 1, 1}, Act(KILN_ACT_RELU, 0, 0, true, true)},
};

INSTANTIATE_TEST_SUITE_P(Shapes, WinogradConv,
                         ::testing::Combine(::testing::ValuesIn(kCases), ::testing::Range(0, 4),
                                            ::testing::Bool()));

// The checker bounds every binding and the parameters the kernel takes.
TEST(WinogradConvCheck, BoundsBindingsAndRefusesOtherWindows) {
  const WinoShape s = {1, 5, 7, 9, 7, 1, 1, 1, 1};
  const Epilogue e;
  std::vector<int64_t> ip = IParams(s, e, false, false, true);
  const float fp[2] = {0, 0};
  const uint64_t u_floats = 16 * 36 * 5;
  const uint64_t scratch = 4 * static_cast<uint64_t>(kiln_winograd_scratch_floats(1, 5, 7, 7, 9, 1));
  uint64_t bytes[6] = {4 * 5 * 7 * 9, 4 * u_floats, 4 * 7, 4 * 7 * 7 * 9, 4 * 7 * 7 * 9, scratch};
  EXPECT_EQ(kiln_conv2d_winograd_res_f32_check(ip.data(), 21, fp, 2, bytes), KILN_OK);
  for (int k = 0; k < 6; ++k) {
    bytes[k] -= 1;
    EXPECT_EQ(kiln_conv2d_winograd_res_f32_check(ip.data(), 21, fp, 2, bytes),
              KILN_ERR_OUT_OF_RANGE)
        << "binding " << k;
    bytes[k] += 1;
  }
  // Without a residual: y at 3, scratch at 4.
  const uint64_t plain[5] = {bytes[0], bytes[1], bytes[2], bytes[4], bytes[5] - 4};
  EXPECT_EQ(kiln_conv2d_winograd_f32_check(ip.data(), 21, fp, 2, plain), KILN_ERR_OUT_OF_RANGE);
  EXPECT_EQ(kiln_conv2d_winograd_f32_check(ip.data(), 20, fp, 2, plain),
            KILN_ERR_INVALID_ARGUMENT);
  // The plain weights take a quarter of U's bytes, and the scratch gains
  // the blocks of U the kernel makes from them.
  std::vector<int64_t> raw = ip;
  raw[20] = 0;
  bytes[1] = 4 * 16 * 9 * 5;
  bytes[5] = 4 * static_cast<uint64_t>(kiln_winograd_scratch_floats(1, 5, 7, 7, 9, 0));
  EXPECT_GT(bytes[5], scratch);
  EXPECT_EQ(kiln_conv2d_winograd_res_f32_check(raw.data(), 21, fp, 2, bytes), KILN_OK);
  for (int k : {1, 5}) {
    bytes[k] -= 1;
    EXPECT_EQ(kiln_conv2d_winograd_res_f32_check(raw.data(), 21, fp, 2, bytes),
              KILN_ERR_OUT_OF_RANGE)
        << "binding " << k;
    bytes[k] += 1;
  }
  EXPECT_EQ(kiln_conv2d_winograd_res_f32_check(ip.data(), 21, fp, 2, bytes),
            KILN_ERR_OUT_OF_RANGE);  // U would not fit where the plain weights do
  bytes[1] = 4 * u_floats;
  bytes[5] = scratch;
  struct Bad {
    int index;
    int64_t value;
    int code;
  };
  const Bad bad[] = {{9, 2, KILN_ERR_UNIMPLEMENTED},     // stride 2
                     {13, 2, KILN_ERR_UNIMPLEMENTED},    // dilation 2
                     {15, 5, KILN_ERR_INVALID_ARGUMENT}, // groups that do not divide OC
                     {18, 2, KILN_ERR_INVALID_ARGUMENT}, // a layout flag other than 0/1
                     {20, 2, KILN_ERR_INVALID_ARGUMENT}, // a weight form other than 0/1
                     {1, -1, KILN_ERR_INVALID_ARGUMENT}};
  for (const Bad& b : bad) {
    std::vector<int64_t> p = ip;
    p[b.index] = b.value;
    EXPECT_EQ(kiln_conv2d_winograd_res_f32_check(p.data(), 21, fp, 2, bytes), b.code)
        << "iparam " << b.index;
  }
  // A 5x5 window (with an output size that fits it) is not this kernel's.
  std::vector<int64_t> k5 = ip;
  k5[7] = k5[8] = 5;
  k5[5] = 5, k5[6] = 7;
  EXPECT_EQ(kiln_conv2d_winograd_res_f32_check(k5.data(), 21, fp, 2, bytes),
            KILN_ERR_UNIMPLEMENTED);
}

}  // namespace
