/* exp, sigmoid, tanh and erf on whole kv vectors (vec.h), written once for
 * every path: AVX-512, AVX2, NEON, the portable 4-lane vector and scalar C.
 *
 * Accuracy over all float inputs against double-precision libm, the bound
 * tests/runtime/vec_math_test.cc holds every path to (ulp = spacing of floats
 * at the exact result; subnormal results count in units of 2^-149), and the
 * largest error found by checking every float (portable / FMA paths):
 *
 *   kv_exp       <= 2 ulp (1.03 / 1.03); overflows to +inf above ln(FLT_MAX),
 *                gradual underflow to subnormals and 0 below -87.3
 *   kv_sigmoid   <= 3 ulp (2.18 / 2.18): 1 / (1 + e^-x), as e^x / (1 + e^x)
 *                for x < 0 so that tiny results keep their relative accuracy
 *   kv_silu      <= 3 ulp (2.40 / 2.40) for x >= -88.72: x / (1 + e^-x), one division and
 *                no select, a sixth faster than x * kv_sigmoid(x); below, where
 *                e^-x overflows, -0 (the exact result there is above -2.7e-37)
 *   kv_tanh      <= 2 ulp (1.31 / 1.31); odd, tanh(-0) = -0, saturates to +-1
 *   kv_erf       <= 3 ulp (2.73 / 2.40); odd, saturates to +-1
 *
 * The FMA paths (AVX2, AVX-512, NEON) and the portable path (multiply then
 * add) round differently, so the paths agree to within these bounds, not
 * bit for bit. NaN in gives NaN out; +-inf gives the limits. Round to
 * nearest (the C default) is assumed.
 *
 * Method (coefficients: Chebyshev fits of the smooth remainders below, in
 * double, rounded to float):
 *   exp(x)  = 2^n e^r, n = round(x / ln 2), r = x - n ln 2 in two parts (Cody
 *             and Waite), e^r = 1 + r + r^2 q(r), q of degree 4. 2^n is added
 *             to the exponent bits when every lane has |x| <= 86 (a normal
 *             result); otherwise built as 2^h 2^(n-h), h = round(n/2), so that
 *             n = 128 and subnormal results come out right (the same value
 *             where both apply: each scaling is exact).
 *   tanh(x) = |x| + |x|^3 p(x^2) (p of degree 5) for |x| < 0.625, else
 *             1 - 2 / (e^(2|x|) + 1); the sign of x put back.
 *   erf(x)  = |x| p(x^2) (p of degree 7) for |x| < 1, else
 *             1 - e^(-x^2) R(1/|x|) with R(t) ~ erfc(1/t) e^(1/t^2) of degree 8
 *             (|x| >= 3.93 evaluates R at 3.93, where the product is already
 *             below half an ulp of 1); the sign of x put back.
 * Internal to runtime/kernels: an AOT bundle copies it beside the kernels. */
#ifndef KILN_KERNELS_VEC_MATH_H_
#define KILN_KERNELS_VEC_MATH_H_

#include "vec.h"

/* 1.5 * 2^23: adding it rounds |v| < 2^22 to an integer, which then sits in
 * the low mantissa bits of the sum. */
#define KILN_VM_SHIFTER 12582912.0f

/* Horner steps with this path's kv_fma. */
#define KILN_VM_HORNER2(v, c1, c0) kv_fma(v, kv_set1(c1), kv_set1(c0))
#define KILN_VM_STEP(p, v, c) kv_fma(p, v, kv_set1(c))

/* 2^k for integral k in [-126, 127], from k's bits after the shifter. */
static KILN_ALWAYS_INLINE kv kv_pow2_integral(kv k) {
  const kvi shifted = kv_as_bits(kv_add(k, kv_set1(KILN_VM_SHIFTER)));
  /* bits(shifter + k) = 0x4B400000 + k; << 23 drops everything but k + 127. */
  return kv_from_bits(kvi_shl(kvi_add(shifted, kvi_set1(127u)), 23));
}

/* The sign bit of s on the non-negative v. */
static KILN_ALWAYS_INLINE kv kv_with_sign_of(kv v, kv s) {
  return kv_from_bits(kvi_or(kv_as_bits(v), kvi_and(kv_as_bits(s), kvi_set1(0x80000000u))));
}

/* e^r for x = n ln 2 + r: returns e^r (in [0.7, 1.42]) and sets *n and
 * *shifted = x log2(e) + KILN_VM_SHIFTER, whose low bits hold n. */
static KILN_ALWAYS_INLINE kv kv_exp_reduced(kv x, kv* n_out, kv* shifted_out) {
  const kv shifter = kv_set1(KILN_VM_SHIFTER);
  const kv shifted = kv_fma(x, kv_set1(1.44269504f), shifter);
  const kv n = kv_sub(shifted, shifter);
  kv r = kv_fma(n, kv_set1(-0.693359375f), x); /* exact: 9 significant bits */
  r = kv_fma(n, kv_set1(2.12194440e-4f), r);
  kv q = KILN_VM_HORNER2(r, 1.392692661e-03f, 8.363773874e-03f);
  q = KILN_VM_STEP(q, r, 4.166655011e-02f);
  q = KILN_VM_STEP(q, r, 1.666657338e-01f);
  q = KILN_VM_STEP(q, r, 5.000000000e-01f);
  *n_out = n, *shifted_out = shifted;
  return kv_add(kv_fma(q, kv_mul(r, r), r), kv_set1(1.0f));
}

/* e^x anywhere: scaled by 2^h 2^(n-h), two exact multiplications, so that
 * n = 128 and subnormal results come out right. */
static KILN_ALWAYS_INLINE kv kv_exp_general(kv x) {
  /* Beyond [-104, 89] the result is 0 or +inf anyway; NaN passes (kv_min and
   * kv_max return their second operand on NaN). */
  x = kv_max(kv_set1(-104.0f), kv_min(kv_set1(89.0f), x));
  kv n, shifted;
  const kv y = kv_exp_reduced(x, &n, &shifted);
  /* n in [-150, 128]: h and n - h both in [-75, 64]. */
  const kv shifter = kv_set1(KILN_VM_SHIFTER);
  const kv h = kv_sub(kv_fma(n, kv_set1(0.5f), shifter), shifter);
  return kv_mul(kv_mul(y, kv_pow2_integral(h)), kv_pow2_integral(kv_sub(n, h)));
}

/* e^x for |x| <= 86, where it is a normal number: 2^n goes into y's
 * exponent bits by one integer add, the value kv_exp_general's scalings
 * give, in a quarter fewer operations. */
static KILN_ALWAYS_INLINE kv kv_exp_normal(kv x) {
  kv n, shifted;
  const kv y = kv_exp_reduced(x, &n, &shifted);
  /* bits(shifted) = 0x4B400000 + n: << 23 leaves n << 23 (two's complement). */
  return kv_from_bits(kvi_add(kv_as_bits(y), kvi_shl(kv_as_bits(shifted), 23)));
}

/* A vector with a lane beyond +-86 or NaN takes the general path; the two
 * agree bit for bit where both apply (sigmoid on avx512, BM_Unary: 1.6x
 * faster than with the general path alone). */
static KILN_ALWAYS_INLINE kv kv_exp(kv x) {
  return kv_all(kv_le(kv_abs(x), kv_set1(86.0f))) ? kv_exp_normal(x) : kv_exp_general(x);
}

static KILN_ALWAYS_INLINE kv kv_sigmoid(kv x) {
  const kv e = kv_exp(kv_sub(kv_zero(), kv_abs(x))); /* e^-|x| in [0, 1] */
  const kv num = kv_select(kv_lt(x, kv_zero()), e, kv_set1(1.0f));
  return kv_div(num, kv_add(kv_set1(1.0f), e));
}

/* SiLU(-inf) = -inf / inf = NaN, as the exported x * Sigmoid(x) gives. */
static KILN_ALWAYS_INLINE kv kv_silu(kv x) {
  return kv_div(x, kv_add(kv_set1(1.0f), kv_exp(kv_sub(kv_zero(), x))));
}

/* HardSwish, x * max(0, min(1, x/6 + 1/2)) (ONNX's alpha 1/6 and beta 1/2),
 * multiply then add as the operator's definition reads, on every path. */
static KILN_ALWAYS_INLINE kv kv_hard_swish(kv x) {
  const kv t = kv_add(kv_mul(x, kv_set1(1.0f / 6.0f)), kv_set1(0.5f));
  return kv_mul(x, kv_max(kv_zero(), kv_min(kv_set1(1.0f), t)));
}

static KILN_ALWAYS_INLINE kv kv_tanh(kv x) {
  const kv a = kv_abs(x);
  const kv s = kv_mul(a, a);
  kv p = KILN_VM_HORNER2(s, 2.292744816e-03f, -8.343945516e-03f);
  p = KILN_VM_STEP(p, s, 2.176891865e-02f);
  p = KILN_VM_STEP(p, s, -5.395925958e-02f);
  p = KILN_VM_STEP(p, s, 1.333330356e-01f);
  p = KILN_VM_STEP(p, s, -3.333333317e-01f);
  const kv small = kv_fma(kv_mul(a, s), p, a);
  const kv e = kv_exp(kv_add(a, a));
  const kv large = kv_sub(kv_set1(1.0f), kv_div(kv_set1(2.0f), kv_add(e, kv_set1(1.0f))));
  return kv_with_sign_of(kv_select(kv_lt(a, kv_set1(0.625f)), small, large), x);
}

static KILN_ALWAYS_INLINE kv kv_erf(kv x) {
  const kv a = kv_abs(x);
  const kv s = kv_mul(a, a);
  kv p = KILN_VM_HORNER2(s, -9.667044571e-06f, 1.126595903e-04f);
  p = KILN_VM_STEP(p, s, -8.484080406e-04f);
  p = KILN_VM_STEP(p, s, 5.221031808e-03f);
  p = KILN_VM_STEP(p, s, -2.686543073e-02f);
  p = KILN_VM_STEP(p, s, 1.128378250e-01f);
  p = KILN_VM_STEP(p, s, -3.761263847e-01f);
  p = KILN_VM_STEP(p, s, 1.128379167e+00f);
  const kv small = kv_mul(a, p);
  /* t = 1/|x| at most 1 on the lanes that use it, at least 1/3.93. */
  const kv t = kv_max(kv_div(kv_set1(1.0f), a), kv_set1(0.254452926f));
  kv rt = KILN_VM_HORNER2(t, -5.297743841e-03f, 7.612378025e-03f);
  rt = KILN_VM_STEP(rt, t, 6.882690743e-02f);
  rt = KILN_VM_STEP(rt, t, -2.958871657e-01f);
  rt = KILN_VM_STEP(rt, t, 5.362009312e-01f);
  rt = KILN_VM_STEP(rt, t, -4.893250161e-01f);
  rt = KILN_VM_STEP(rt, t, 4.681356621e-02f);
  rt = KILN_VM_STEP(rt, t, 5.583241624e-01f);
  rt = KILN_VM_STEP(rt, t, 3.155485907e-04f);
  const kv large = kv_sub(kv_set1(1.0f), kv_mul(kv_exp(kv_sub(kv_zero(), s)), rt));
  return kv_with_sign_of(kv_select(kv_lt(a, kv_set1(1.0f)), small, large), x);
}

#undef KILN_VM_HORNER2
#undef KILN_VM_STEP

#endif /* KILN_KERNELS_VEC_MATH_H_ */
