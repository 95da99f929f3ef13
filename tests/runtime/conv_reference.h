// The independent reference for the convolution kernel tests: a direct
// double-precision loop over the ONNX Conv definition (a different algorithm
// from the kernels'), with each output's sum of |products| for a tolerance.
#ifndef KILN_TESTS_RUNTIME_CONV_REFERENCE_H_
#define KILN_TESTS_RUNTIME_CONV_REFERENCE_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace kiln::testing {

struct ConvShape {
  int64_t n, c, h, w, oc, k, stride, pad, dil, groups;
  int64_t oh() const { return (h + 2 * pad - dil * (k - 1) - 1) / stride + 1; }
  int64_t ow() const { return (w + 2 * pad - dil * (k - 1) - 1) / stride + 1; }
};

struct ConvReference {
  std::vector<double> y;    // relu(conv + bias + residual)
  std::vector<double> mag;  // 1 + |bias| + sum |products|, per output
};

// x [N,C,H,W], w [OC,C/groups,k,k], bias [OC], residual r [N,OC,OH,OW]; ReLU.
inline ConvReference ReferenceConvRelu(const ConvShape& s, const std::vector<float>& x,
                                       const std::vector<float>& w,
                                       const std::vector<float>& bias,
                                       const std::vector<float>& r) {
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
          ref.y[at] = std::max(0.0, acc + r[at]);
          ref.mag[at] = 1 + mag;
        }
  return ref;
}

}  // namespace kiln::testing

#endif  // KILN_TESTS_RUNTIME_CONV_REFERENCE_H_
