/* The fused activation epilogue, applied as its own tight pass over a row of
 * finished outputs so the switch on the kind stays out of the inner loops.
 * ReLU, Clip, Sigmoid, Tanh, Exp, Erf, both GELUs, SiLU, HardSigmoid, HardSwish
 * and LeakyReLU run on whole vectors of this path (vec.h; vec_math.h states
 * the accuracy of exp, sigmoid, tanh and erf); the rest are per-element C
 * (libm), which compilers vectorize where it is plain arithmetic (Abs, Neg).
 * Internal to runtime/kernels: an AOT bundle copies it beside the kernels. */
#ifndef KILN_KERNELS_ACTIVATION_H_
#define KILN_KERNELS_ACTIVATION_H_

#include <math.h>
#include <stdint.h>

#include "kiln/kernels.h"
#include "vec_math.h"

#define KILN_ACT_LAST KILN_ACT_GELU_TANH

/* log(1 + exp(v)) without overflow for large v. */
static inline float kiln_softplus(float v) {
  return v > 0.0f ? v + log1pf(expf(-v)) : log1pf(expf(v));
}

/* One loop per kind: the switch below picks a loop, never runs inside one. */
#define KILN_ACT_LOOP(EXPR)            \
  for (i = 0; i < n; ++i) {            \
    const float v = x[i];              \
    y[i] = (EXPR);                     \
  }                                    \
  break;

/* The same, a vector at a time: V(v) maps a kv to a kv; the last partial
 * vector reads and writes only its n - i lanes. Two vectors per step: the
 * exp-based expressions are long dependency chains (SiLU, BM_Unary, AMD EPYC
 * Zen 4: avx2 0.87-0.98 of the time with two in flight, avx512 and
 * portable within the noise). Both are computed before either is stored,
 * so x may equal y. */
#define KILN_ACT_VLOOP(V)                                           \
  for (i = 0; i + 2 * KV_LANES <= n; i += 2 * KV_LANES) {           \
    kv r0, r1;                                                      \
    {                                                               \
      const kv v = kv_load(x + i);                                  \
      r0 = (V);                                                     \
    }                                                               \
    {                                                               \
      const kv v = kv_load(x + i + KV_LANES);                       \
      r1 = (V);                                                     \
    }                                                               \
    kv_store(y + i, r0);                                            \
    kv_store(y + i + KV_LANES, r1);                                 \
  }                                                                 \
  for (; i + KV_LANES <= n; i += KV_LANES) {                        \
    const kv v = kv_load(x + i);                                    \
    kv_store(y + i, (V));                                           \
  }                                                                 \
  if (i < n) {                                                      \
    const kv v = kv_load_n(x + i, n - i);                           \
    kv_store_n(y + i, (V), n - i);                                  \
  }                                                                 \
  break;

/* y[i] = act(x[i]) for i in [0, n); x may equal y. */
static inline void kiln_activation_apply(const float* x, float* y, int64_t n,
                                         int64_t act, float alpha, float beta) {
  int64_t i;
  switch (act) {
    /* kv_max(c, v) is c > v ? c : v, so NaN and -0.0 pass as in x < 0 ? 0 : x. */
    case KILN_ACT_RELU: KILN_ACT_VLOOP(kv_max(kv_zero(), v))
    case KILN_ACT_CLIP:
      KILN_ACT_VLOOP(kv_min(kv_set1(beta), kv_max(kv_set1(alpha), v)))
    case KILN_ACT_SIGMOID: KILN_ACT_VLOOP(kv_sigmoid(v))
    case KILN_ACT_TANH: KILN_ACT_VLOOP(kv_tanh(v))
    case KILN_ACT_ABS: KILN_ACT_LOOP(fabsf(v))
    case KILN_ACT_NEG: KILN_ACT_LOOP(-v)
    case KILN_ACT_EXP: KILN_ACT_VLOOP(kv_exp(v))
    case KILN_ACT_LOG: KILN_ACT_LOOP(logf(v))
    case KILN_ACT_SQRT: KILN_ACT_LOOP(sqrtf(v))
    case KILN_ACT_RECIPROCAL: KILN_ACT_LOOP(1.0f / v)
    case KILN_ACT_FLOOR: KILN_ACT_LOOP(floorf(v))
    case KILN_ACT_CEIL: KILN_ACT_LOOP(ceilf(v))
    /* The default rounding mode rounds halves to even, as ONNX Round does. */
    case KILN_ACT_ROUND: KILN_ACT_LOOP(nearbyintf(v))
    case KILN_ACT_SIGN: KILN_ACT_LOOP(v > 0.0f ? 1.0f : (v < 0.0f ? -1.0f : v))
    case KILN_ACT_ERF: KILN_ACT_VLOOP(kv_erf(v))
    case KILN_ACT_SIN: KILN_ACT_LOOP(sinf(v))
    case KILN_ACT_COS: KILN_ACT_LOOP(cosf(v))
    case KILN_ACT_TAN: KILN_ACT_LOOP(tanf(v))
    case KILN_ACT_SINH: KILN_ACT_LOOP(sinhf(v))
    case KILN_ACT_COSH: KILN_ACT_LOOP(coshf(v))
    case KILN_ACT_ASIN: KILN_ACT_LOOP(asinf(v))
    case KILN_ACT_ACOS: KILN_ACT_LOOP(acosf(v))
    case KILN_ACT_ATAN: KILN_ACT_LOOP(atanf(v))
    case KILN_ACT_ASINH: KILN_ACT_LOOP(asinhf(v))
    case KILN_ACT_ACOSH: KILN_ACT_LOOP(acoshf(v))
    case KILN_ACT_ATANH: KILN_ACT_LOOP(atanhf(v))
    /* max(0, min(1, t)) as kv_max(0, kv_min(1, t)): NaN passes (numpy's
     * clip, which the ONNX reference uses), where fmaxf/fminf dropped it. */
    case KILN_ACT_HARD_SIGMOID:
      KILN_ACT_VLOOP(kv_max(kv_zero(), kv_min(kv_set1(1.0f), kv_add(kv_mul(kv_set1(alpha), v),
                                                                     kv_set1(beta)))))
    case KILN_ACT_HARD_SWISH: KILN_ACT_VLOOP(kv_hard_swish(v))
    case KILN_ACT_LEAKY_RELU:
      KILN_ACT_VLOOP(kv_select(kv_lt(v, kv_zero()), kv_mul(kv_set1(alpha), v), v))
    case KILN_ACT_ELU: KILN_ACT_LOOP(v < 0.0f ? alpha * expm1f(v) : v)
    case KILN_ACT_SELU: KILN_ACT_LOOP(v <= 0.0f ? beta * alpha * expm1f(v) : beta * v)
    case KILN_ACT_CELU:
      KILN_ACT_LOOP(fmaxf(0.0f, v) + fminf(0.0f, alpha * expm1f(v / alpha)))
    case KILN_ACT_SOFTPLUS: KILN_ACT_LOOP(kiln_softplus(v))
    case KILN_ACT_SOFTSIGN: KILN_ACT_LOOP(v / (1.0f + fabsf(v)))
    case KILN_ACT_THRESHOLDED_RELU: KILN_ACT_LOOP(v > alpha ? v : 0.0f)
    case KILN_ACT_MISH: KILN_ACT_LOOP(v * tanhf(kiln_softplus(v)))
    case KILN_ACT_SHRINK:
      KILN_ACT_LOOP(v < -alpha ? v + beta : (v > alpha ? v - beta : 0.0f))
    /* (x * (erf(x / sqrt 2) + 1)) * 0.5, the exported graph's order of operations. */
    case KILN_ACT_GELU:
      KILN_ACT_VLOOP(kv_mul(kv_mul(v, kv_add(kv_erf(kv_mul(v, kv_set1(0.707106781f))),
                                               kv_set1(1.0f))),
                            kv_set1(0.5f)))
    /* x * sigmoid(x) (the exported Sigmoid then Mul), as x / (1 + e^-x). */
    case KILN_ACT_SILU: KILN_ACT_VLOOP(kv_silu(v))
    /* (x * (tanh(sqrt(2/pi) * (x + 0.044715 x^3)) + 1)) * 0.5 */
    case KILN_ACT_GELU_TANH:
      KILN_ACT_VLOOP(kv_mul(
          kv_mul(v, kv_add(kv_tanh(kv_mul(kv_set1(0.797884561f),
                                          kv_add(v, kv_mul(kv_set1(0.044715f),
                                                           kv_mul(v, kv_mul(v, v)))))),
                           kv_set1(1.0f))),
          kv_set1(0.5f)))
    default: /* KILN_ACT_NONE */
      if (x != y)
        for (i = 0; i < n; ++i) y[i] = x[i];
      break;
  }
}

#undef KILN_ACT_LOOP
#undef KILN_ACT_VLOOP

/* In-place form for epilogues. */
static inline void kiln_activation_inplace(float* y, int64_t n, int64_t act,
                                           float alpha, float beta) {
  if (act != KILN_ACT_NONE) kiln_activation_apply(y, y, n, act, alpha, beta);
}

#endif /* KILN_KERNELS_ACTIVATION_H_ */
