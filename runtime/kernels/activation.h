/* The fused activation epilogue, applied as its own tight pass over a row of
 * finished outputs so the switch on the kind stays out of the inner loops.
 * Internal to runtime/kernels: an AOT bundle copies it beside the kernels. */
#ifndef KILN_KERNELS_ACTIVATION_H_
#define KILN_KERNELS_ACTIVATION_H_

#include <math.h>
#include <stdint.h>

#include "kiln/kernels.h"

#define KILN_ACT_LAST KILN_ACT_TANH

/* y[i] = act(x[i]) for i in [0, n); x may equal y. */
static inline void kiln_activation_apply(const float* x, float* y, int64_t n,
                                         int64_t act, float alpha, float beta) {
  int64_t i;
  switch (act) {
    case KILN_ACT_RELU:
      for (i = 0; i < n; ++i) y[i] = x[i] < 0.0f ? 0.0f : x[i]; /* keeps NaN */
      break;
    case KILN_ACT_CLIP:
      for (i = 0; i < n; ++i) {
        float v = x[i] < alpha ? alpha : x[i];
        y[i] = v > beta ? beta : v;
      }
      break;
    case KILN_ACT_SIGMOID:
      for (i = 0; i < n; ++i) y[i] = 1.0f / (1.0f + expf(-x[i]));
      break;
    case KILN_ACT_TANH:
      for (i = 0; i < n; ++i) y[i] = tanhf(x[i]);
      break;
    default: /* KILN_ACT_NONE */
      if (x != y)
        for (i = 0; i < n; ++i) y[i] = x[i];
      break;
  }
}

/* In-place form for epilogues. */
static inline void kiln_activation_inplace(float* y, int64_t n, int64_t act,
                                           float alpha, float beta) {
  if (act != KILN_ACT_NONE) kiln_activation_apply(y, y, n, act, alpha, beta);
}

#endif /* KILN_KERNELS_ACTIVATION_H_ */
