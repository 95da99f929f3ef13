// The independent reference for the convolution kernel tests: a direct
// double-precision loop over the ONNX Conv definition (a different algorithm
// from the kernels'), with each output's sum of |products| for a tolerance;
// and the driver that runs a kernel against it.
#ifndef KILN_TESTS_RUNTIME_CONV_REFERENCE_H_
#define KILN_TESTS_RUNTIME_CONV_REFERENCE_H_

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

#include "kiln/kernels.h"
#include "partition_test_util.h"

namespace kiln::testing {

struct ConvShape {
  int64_t n, c, h, w, oc, k, stride, pad, dil, groups;
  int64_t oh() const { return (h + 2 * pad - dil * (k - 1) - 1) / stride + 1; }
  int64_t ow() const { return (w + 2 * pad - dil * (k - 1) - 1) / stride + 1; }
};

struct ConvReference {
  std::vector<double> y;    // relu(conv + bias + residual), or without relu
  std::vector<double> mag;  // 1 + |bias| + sum |products|, per output
};

// x [N,C,H,W], w [OC,C/groups,k,k], bias [OC], residual r [N,OC,OH,OW]; ReLU
// unless `relu` is false.
inline ConvReference ReferenceConvRelu(const ConvShape& s, const std::vector<float>& x,
                                       const std::vector<float>& w,
                                       const std::vector<float>& bias,
                                       const std::vector<float>& r, bool relu = true) {
  const int64_t oh = s.oh(), ow = s.ow(), cpg = s.c / s.groups, ocpg = s.oc / s.groups;
  ConvReference ref;
  ref.y.resize(r.size());
  ref.mag.resize(r.size());
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t o = 0; o < s.oc; ++o)
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j) {
          const int64_t g = o / ocpg;
          double acc = bias[o], mag = std::fabs(bias[o]);
          for (int64_t ic = 0; ic < cpg; ++ic)
            for (int64_t kh = 0; kh < s.k; ++kh)
              for (int64_t kw = 0; kw < s.k; ++kw) {
                const int64_t ih = i * s.stride - s.pad + kh * s.dil;
                const int64_t iw = j * s.stride - s.pad + kw * s.dil;
                if (ih < 0 || ih >= s.h || iw < 0 || iw >= s.w) continue;
                const double p = double(x[((n * s.c + g * cpg + ic) * s.h + ih) * s.w + iw]) *
                                 w[((o * cpg + ic) * s.k + kh) * s.k + kw];
                acc += p;
                mag += std::fabs(p);
              }
          const int64_t at = ((n * s.oc + o) * oh + i) * ow + j;
          ref.y[at] = relu ? std::max(0.0, acc + r[at]) : acc + r[at];
          ref.mag[at] = 1 + mag;
        }
  return ref;
}

// conv2d_packed_f32's documented weight layout: w[oc, ic, kh, kw] (ic within
// oc's group) at (oc/16)*K*16 + (tap*Cg + ic)*16 + oc%16, Cg = C/groups,
// K = taps*Cg, zero past OC.
inline std::vector<float> PackOcPanels(const ConvShape& s, const std::vector<float>& w) {
  const int64_t taps = s.k * s.k, cg = s.c / s.groups, K = taps * cg, panels = (s.oc + 15) / 16;
  std::vector<float> packed(panels * 16 * K, 0.0f);
  for (int64_t oc = 0; oc < s.oc; ++oc)
    for (int64_t ic = 0; ic < cg; ++ic)
      for (int64_t tap = 0; tap < taps; ++tap)
        packed[(oc / 16) * K * 16 + (tap * cg + ic) * 16 + oc % 16] =
            w[(oc * cg + ic) * taps + tap];
  return packed;
}

// [N,C,H,W] as [N,H,W,C] (to_nhwc) or back.
inline std::vector<float> Relayout(const std::vector<float>& v, int64_t n, int64_t c, int64_t h,
                                   int64_t w, bool to_nhwc) {
  std::vector<float> out(v.size());
  for (int64_t i = 0; i < n; ++i)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t p = 0; p < h * w; ++p) {
        const int64_t nchw = (i * c + ch) * h * w + p, nhwc = (i * h * w + p) * c + ch;
        if (to_nhwc) {
          out[nhwc] = v[nchw];
        } else {
          out[nchw] = v[nhwc];
        }
      }
  return out;
}

// The layouts a channels-last kernel (conv2d_packed_cl_*) is given: its two
// extra parameters. Without them the kernel takes conv2d_f32's 18.
struct ConvLayouts {
  bool given = false;
  bool x_channels_last = false, y_channels_last = false;
};

// Runs a residual convolution kernel (conv2d_res_f32's bindings and
// parameters, ReLU, bias) on random data with its weights given as `kernel_w`
// (the plain w, or a layout the kernel documents), serially and through
// kReverseHost, and checks it against ReferenceConvRelu (tolerance 1e-5 *
// (1 + |bias| + sum |products|)) and the two runs against each other (bitwise).
// With `layouts` given, x and r/y are handed over and read back in them.
using ResidualConvFn = int (*)(const int64_t*, const float*, void* const*, const kiln_host*);
using ResidualConvCheckFn = int (*)(const int64_t*, uint32_t, const float*, uint32_t,
                                    const uint64_t*);
inline void ExpectResidualConvMatches(
    const ConvShape& s, ResidualConvFn run, ResidualConvCheckFn check,
    const std::function<std::vector<float>(const std::vector<float>&)>& kernel_w,
    const ConvLayouts& layouts = {}) {
  const int64_t oh = s.oh(), ow = s.ow(), cpg = s.c / s.groups;
  const std::vector<float> x = Random(s.n * s.c * s.h * s.w, 4);
  const std::vector<float> w = Random(s.oc * cpg * s.k * s.k, 5);
  const std::vector<float> bias = Random(s.oc, 6), r = Random(s.n * s.oc * oh * ow, 7);
  const std::vector<float> kw = kernel_w(w);
  const std::vector<float> xk =
      layouts.x_channels_last ? Relayout(x, s.n, s.c, s.h, s.w, true) : x;
  const std::vector<float> rk =
      layouts.y_channels_last ? Relayout(r, s.n, s.oc, oh, ow, true) : r;
  std::vector<float> y(r.size()), y_thr(r.size());
  std::vector<int64_t> ip = {s.n, s.c, s.h, s.w, s.oc, oh, ow, s.k, s.k, s.stride, s.stride,
                             s.pad, s.pad, s.dil, s.dil, s.groups, KILN_ACT_RELU, 1};
  if (layouts.given) {
    ip.push_back(layouts.x_channels_last);
    ip.push_back(layouts.y_channels_last);
  }
  const uint32_t ip_count = static_cast<uint32_t>(ip.size());
  const float fp[2] = {0, 0};
  const uint64_t bytes[5] = {4 * x.size(), 4 * kw.size(), 4 * bias.size(), 4 * r.size(),
                             4 * y.size()};
  ASSERT_EQ(check(ip.data(), ip_count, fp, 2, bytes), KILN_OK);
  void* b[5] = {const_cast<float*>(xk.data()), const_cast<float*>(kw.data()),
                const_cast<float*>(bias.data()), const_cast<float*>(rk.data()), y.data()};
  ASSERT_EQ(run(ip.data(), fp, b, nullptr), KILN_OK);
  b[4] = y_thr.data();
  ASSERT_EQ(run(ip.data(), fp, b, &kReverseHost), KILN_OK);
  if (layouts.y_channels_last) {
    y = Relayout(y, s.n, s.oc, oh, ow, false);
    y_thr = Relayout(y_thr, s.n, s.oc, oh, ow, false);
  }
  const ConvReference ref = ReferenceConvRelu(s, x, w, bias, r);
  for (size_t at = 0; at < y.size(); ++at) {
    ASSERT_NEAR(y[at], ref.y[at], 1e-5 * ref.mag[at]) << "at " << at;
    ASSERT_EQ(y_thr[at], y[at]) << "threaded differs at " << at;
  }
}

}  // namespace kiln::testing

#endif  // KILN_TESTS_RUNTIME_CONV_REFERENCE_H_
