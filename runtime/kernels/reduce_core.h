/* The float32 reduction loop shared by reduce_f32 (reduce.c, axes fixed by
 * the compiler) and reduce_rt_f32 (reduce_rt.c, axes read at run time). It
 * walks the output in order and reduces each element's index space row by
 * row: the innermost reduced dim is one row, and the switch on the kind
 * picks a tight loop per row. Sums accumulate in double. Internal to
 * runtime/kernels: an AOT bundle copies it beside the kernels. Callers bound
 * every view first. */
#ifndef KILN_KERNELS_REDUCE_CORE_H_
#define KILN_KERNELS_REDUCE_CORE_H_

#include <math.h>
#include <stdint.h>

#include "kiln/kernels.h"

#define KILN_REDUCE_LAST KILN_REDUCE_SUM_SQUARE

/* acc combined with the row x[0], x[s], ..., x[(n-1)*s]. `shift` is the
 * maximum subtracted before exp for LogSumExp. */
static inline double reduce_row(int64_t kind, const float* x, int64_t s, int64_t n,
                                double acc, float shift) {
  int64_t i;
  switch (kind) {
    case KILN_REDUCE_MAX:
      for (i = 0; i < n; ++i) {
        const double v = x[i * s];
        acc = (v != v || v > acc) ? v : acc;
      }
      break;
    case KILN_REDUCE_MIN:
      for (i = 0; i < n; ++i) {
        const double v = x[i * s];
        acc = (v != v || v < acc) ? v : acc;
      }
      break;
    case KILN_REDUCE_PROD:
      for (i = 0; i < n; ++i) acc *= x[i * s];
      break;
    case KILN_REDUCE_L1:
      for (i = 0; i < n; ++i) acc += fabs((double)x[i * s]);
      break;
    case KILN_REDUCE_L2:
    case KILN_REDUCE_SUM_SQUARE:
      for (i = 0; i < n; ++i) acc += (double)x[i * s] * x[i * s];
      break;
    case KILN_REDUCE_LOG_SUM_EXP:
      for (i = 0; i < n; ++i) acc += exp((double)x[i * s] - shift);
      break;
    default: /* SUM, MEAN, LOG_SUM */
      for (i = 0; i < n; ++i) acc += x[i * s];
      break;
  }
  return acc;
}

static inline double reduce_identity(int64_t kind) {
  switch (kind) {
    case KILN_REDUCE_MAX: return -INFINITY;
    case KILN_REDUCE_MIN: return INFINITY;
    case KILN_REDUCE_PROD: return 1.0;
    default: return 0.0;
  }
}

static inline float reduce_finish(int64_t kind, double acc, int64_t count, float shift) {
  switch (kind) {
    case KILN_REDUCE_MEAN: return (float)(acc / (double)count);
    case KILN_REDUCE_L2: return (float)sqrt(acc);
    case KILN_REDUCE_LOG_SUM: return (float)log(acc);
    case KILN_REDUCE_LOG_SUM_EXP: return (float)(log(acc) + shift);
    default: return (float)acc;
  }
}

/* Folds `kind` over the reduced space starting at x: rows along the last
 * reduced dim, the other reduced dims stepped by an odometer. */
static inline double reduce_space(int64_t kind, const float* x, int64_t rr,
                                  const int64_t* rd, const int64_t* rs, double acc,
                                  float shift) {
  const int64_t len = rr > 0 ? rd[rr - 1] : 1, step = rr > 0 ? rs[rr - 1] : 0;
  int64_t idx[KILN_MAX_RANK] = {0};
  for (;;) {
    int64_t off = 0;
    for (int64_t d = 0; d + 1 < rr; ++d) off += idx[d] * rs[d];
    acc = reduce_row(kind, x + off, step, len, acc, shift);
    int64_t d = rr - 2;
    for (; d >= 0; --d) {
      if (++idx[d] < rd[d]) break;
      idx[d] = 0;
    }
    if (d < 0) return acc;
  }
}

/* Y [od] from X viewed as the output dims od (strides os) followed by the
 * reduced dims rd (strides rs); ro, rr <= KILN_MAX_RANK. */
static inline void kiln_reduce_f32_run(int64_t kind, int64_t ro, const int64_t* od,
                                       const int64_t* os, int64_t rr, const int64_t* rd,
                                       const int64_t* rs, const float* X, float* Y) {
  int64_t out_count = 1, red_count = 1;
  for (int64_t d = 0; d < ro; ++d) out_count *= od[d];
  for (int64_t d = 0; d < rr; ++d) red_count *= rd[d];
  int64_t idx[KILN_MAX_RANK] = {0};
  for (int64_t o = 0; o < out_count; ++o) {
    int64_t off = 0;
    for (int64_t d = 0; d < ro; ++d) off += idx[d] * os[d];
    float shift = 0.0f;
    if (kind == KILN_REDUCE_LOG_SUM_EXP && red_count > 0) {
      shift = (float)reduce_space(KILN_REDUCE_MAX, X + off, rr, rd, rs, -INFINITY, 0.0f);
      if (isinf(shift)) shift = 0.0f; /* all -inf (or an inf): no shift helps */
    }
    double acc = red_count > 0
                     ? reduce_space(kind, X + off, rr, rd, rs, reduce_identity(kind), shift)
                     : reduce_identity(kind);
    Y[o] = reduce_finish(kind, acc, red_count, shift);
    for (int64_t d = ro - 1; d >= 0; --d) {
      if (++idx[d] < od[d]) break;
      idx[d] = 0;
    }
  }
}

#endif /* KILN_KERNELS_REDUCE_CORE_H_ */
