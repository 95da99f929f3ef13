// exp, sigmoid, SiLU, tanh and erf of runtime/kernels/vec_math.h, run through
// unary_f32 of this binary's path, against double-precision libm: a stride
// through all 2^32 float bit patterns, every float near the points where a
// function changes form or range, and the special values (NaN, +-inf, +-0,
// subnormals). KILN_VEC_MATH_EXHAUSTIVE=1 checks every float instead of the
// stride (minutes per function and path).
//
// Error is counted in ulps of the exact result: the spacing of floats at it,
// 2^-149 for subnormal results. The bounds are vec_math.h's documented ones.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "kiln/kernels.h"

namespace {

struct Fn {
  const char* name;
  int64_t act;
  double max_ulp;
  double (*ref)(double);
  // Below tail_x the result is held to an absolute bound instead (SiLU: where
  // e^-x overflows it returns -0, the exact result being above -tail_abs).
  double tail_x = -std::numeric_limits<double>::infinity();
  double tail_abs = 0.0;
};

double Sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double Exp(double x) { return std::exp(x); }
double Tanh(double x) { return std::tanh(x); }
double Erf(double x) { return std::erf(x); }
// x * sigmoid(x); -inf * 0 is NaN, as the exported graph gives.
double Silu(double x) { return std::isinf(x) ? (x > 0 ? x : std::numeric_limits<double>::quiet_NaN()) : x / (1.0 + std::exp(-x)); }

const Fn kFns[] = {
    {"exp", KILN_ACT_EXP, 2.0, Exp},
    {"sigmoid", KILN_ACT_SIGMOID, 3.0, Sigmoid},
    {"tanh", KILN_ACT_TANH, 2.0, Tanh},
    {"erf", KILN_ACT_ERF, 3.0, Erf},
    {"silu", KILN_ACT_SILU, 3.0, Silu, -88.72, 2.7e-37},
};

float FromBits(uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}
uint32_t Bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

double UlpAt(double r) {
  const double a = std::fabs(r);
  if (a < 0x1p-126) return 0x1p-149;
  int e;
  std::frexp(a, &e);
  return std::ldexp(1.0, e - 24);
}

// unary_f32 over x; a guard element past the end must survive.
std::vector<float> Apply(const Fn& f, const std::vector<float>& x) {
  std::vector<float> y(x.size() + 1, 12345.0f);
  const int64_t ip[2] = {f.act, static_cast<int64_t>(x.size())};
  const float fp[2] = {0.0f, 0.0f};
  void* ptrs[2] = {const_cast<float*>(x.data()), y.data()};
  EXPECT_EQ(kiln_unary_f32(ip, fp, ptrs, nullptr), KILN_OK);
  EXPECT_EQ(y.back(), 12345.0f) << f.name << " wrote past its " << x.size() << " elements";
  y.pop_back();
  return y;
}

struct Worst {
  double ulp = 0.0;
  float x = 0.0f, got = 0.0f;
  int64_t bad = 0;  // NaN or infinity mismatches
};

// Checks f on every float in x, folding the largest error into *w.
void Measure(const Fn& f, const std::vector<float>& x, Worst* w) {
  const std::vector<float> y = Apply(f, x);
  for (size_t i = 0; i < x.size(); ++i) {
    const double r = f.ref(static_cast<double>(x[i]));
    const float rf = static_cast<float>(r);
    if (std::isnan(r) || std::isinf(rf)) {
      const bool ok = std::isnan(r) ? std::isnan(y[i]) : y[i] == rf;
      if (!ok && w->bad++ < 5) {
        ADD_FAILURE() << f.name << "(" << x[i] << ") = " << y[i] << ", want " << rf;
      }
      continue;
    }
    if (x[i] < f.tail_x) {
      if (!(std::fabs(static_cast<double>(y[i]) - r) <= f.tail_abs) && w->bad++ < 5) {
        ADD_FAILURE() << f.name << "(" << x[i] << ") = " << y[i] << ", want " << r << " within "
                      << f.tail_abs;
      }
      continue;
    }
    const double err = std::fabs(static_cast<double>(y[i]) - r) / UlpAt(r);
    if (!(err <= w->ulp)) {  // NaN results count as worst
      w->ulp = std::isnan(err) ? 1e30 : err;
      w->x = x[i], w->got = y[i];
    }
  }
}

// Every float with bits in [lo, hi] (inclusive), in batches.
void MeasureBits(const Fn& f, uint64_t lo, uint64_t hi, uint64_t step, Worst* w) {
  std::vector<float> x;
  x.reserve(1 << 16);
  for (uint64_t b = lo; b <= hi; b += step) {
    x.push_back(FromBits(static_cast<uint32_t>(b)));
    if (x.size() == (1 << 16) - 3) {  // not a multiple of any vector width
      Measure(f, x, w);
      x.clear();
    }
  }
  if (!x.empty()) Measure(f, x, w);
}

// Every float within 2^15 ulps of v, on both sides of zero.
void MeasureAround(const Fn& f, float v, Worst* w) {
  const uint32_t b = Bits(std::fabs(v));
  const uint32_t lo = b > (1u << 15) ? b - (1u << 15) : 0u;
  MeasureBits(f, lo, b + (1u << 15), 1, w);
  MeasureBits(f, lo | 0x80000000u, (b + (1u << 15)) | 0x80000000u, 1, w);
}

class VecMath : public ::testing::TestWithParam<Fn> {};

TEST_P(VecMath, WithinItsUlpBoundOverAllFloats) {
  const Fn& f = GetParam();
  const char* env = std::getenv("KILN_VEC_MATH_EXHAUSTIVE");
  const bool all = env != nullptr && std::string(env) == "1";
  Worst w;
  MeasureBits(f, 0, 0xFFFFFFFFu, all ? 1 : 1021, &w);
  // Where the forms switch (tanh 0.625, erf 1, erf's clamp 3.93, exp's
  // scaling by exponent bits up to 86), where exp leaves the normal range,
  // overflows and underflows to 0, and near 0.
  for (float v : {0.625f, 1.0f, 3.93f, 9.0f, 86.0f, 88.7228f, 87.3365f, 103.97f, 1e-3f, 0.5f,
                  2.0f})
    MeasureAround(f, v, &w);
  MeasureBits(f, 0, 1u << 16, 1, &w);  // subnormals and +0
  MeasureBits(f, 0x80000000u, 0x80000000u + (1u << 16), 1, &w);
  EXPECT_EQ(w.bad, 0);
  EXPECT_LE(w.ulp, f.max_ulp) << f.name << "(" << w.x << ") = " << w.got << ", exact "
                              << f.ref(w.x);
  std::printf("[ %s: max %.3f ulp at x = %.9g ]\n", f.name, w.ulp, w.x);
}

TEST_P(VecMath, SpecialValues) {
  const Fn& f = GetParam();
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> x = {nan, -nan, inf, -inf, 0.0f, -0.0f,
                                std::numeric_limits<float>::max(),
                                -std::numeric_limits<float>::max(),
                                std::numeric_limits<float>::denorm_min(),
                                -std::numeric_limits<float>::denorm_min()};
  const std::vector<float> y = Apply(f, x);
  EXPECT_TRUE(std::isnan(y[0])) << f.name;
  EXPECT_TRUE(std::isnan(y[1])) << f.name;
  if (f.act == KILN_ACT_SILU) {  // x * sigmoid(x)
    EXPECT_EQ(y[2], inf);
    EXPECT_TRUE(std::isnan(y[3])) << "-inf * 0";
    EXPECT_EQ(Bits(y[4]), Bits(0.0f));
    EXPECT_EQ(Bits(y[5]), Bits(-0.0f));
    EXPECT_EQ(y[6], std::numeric_limits<float>::max());
    EXPECT_EQ(Bits(y[7]), Bits(-0.0f));
    return;
  }
  // Limits, from the definitions.
  const float at_inf = f.act == KILN_ACT_EXP ? inf : 1.0f;
  const float at_minus_inf = f.act == KILN_ACT_EXP || f.act == KILN_ACT_SIGMOID ? 0.0f : -1.0f;
  EXPECT_EQ(y[2], at_inf) << f.name;
  EXPECT_EQ(y[3], at_minus_inf) << f.name;
  EXPECT_EQ(y[6], at_inf) << f.name;
  EXPECT_EQ(y[7], at_minus_inf) << f.name;
  if (f.act == KILN_ACT_TANH || f.act == KILN_ACT_ERF) {  // odd: the sign of zero stays
    EXPECT_EQ(Bits(y[4]), Bits(0.0f)) << f.name;
    EXPECT_EQ(Bits(y[5]), Bits(-0.0f)) << f.name;
  } else {
    EXPECT_EQ(y[4], f.act == KILN_ACT_EXP ? 1.0f : 0.5f) << f.name;
    EXPECT_EQ(y[5], f.act == KILN_ACT_EXP ? 1.0f : 0.5f) << f.name;
  }
}

class OddVecMath : public ::testing::TestWithParam<Fn> {};

TEST_P(OddVecMath, ExactlyOdd) {
  const Fn& f = GetParam();
  std::vector<float> pos, neg;
  for (uint64_t b = 0; b < 0x7F800000u; b += 4099) {
    pos.push_back(FromBits(static_cast<uint32_t>(b)));
    neg.push_back(-pos.back());
  }
  const std::vector<float> yp = Apply(f, pos), yn = Apply(f, neg);
  int64_t differ = 0;
  for (size_t i = 0; i < pos.size(); ++i) differ += Bits(yn[i]) != (Bits(yp[i]) ^ 0x80000000u);
  EXPECT_EQ(differ, 0) << f.name;
}

std::string FnName(const ::testing::TestParamInfo<Fn>& i) { return i.param.name; }

INSTANTIATE_TEST_SUITE_P(Functions, VecMath, ::testing::ValuesIn(kFns), FnName);
INSTANTIATE_TEST_SUITE_P(Functions, OddVecMath, ::testing::Values(kFns[2], kFns[3]), FnName);

}  // namespace
