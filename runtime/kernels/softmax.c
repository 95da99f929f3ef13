/* softmax_f32 over the middle axis of [outer, axis, inner]. Stable form:
 * exp(x - max) / sum. With inner > 1 the reduction runs over a block of up to
 * SOFTMAX_BLOCK inner columns at once (stack scratch, no heap), so every
 * inner loop is contiguous. */
#include <math.h>
#include <stdint.h>

#include "check_util.h"
#include "kiln/kernels.h"

#define SOFTMAX_BLOCK 64

/* One contiguous vector (inner == 1). */
static void softmax_vector(const float* x, float* y, int64_t n, int64_t log_form) {
  if (n == 0) return;
  float mx = x[0];
  for (int64_t i = 1; i < n; ++i) mx = x[i] > mx ? x[i] : mx;
  float sum = 0.0f;
  if (log_form) {
    for (int64_t i = 0; i < n; ++i) sum += expf(x[i] - mx);
    const float shift = mx + logf(sum);
    for (int64_t i = 0; i < n; ++i) y[i] = x[i] - shift;
  } else {
    for (int64_t i = 0; i < n; ++i) {
      y[i] = expf(x[i] - mx);
      sum += y[i];
    }
    const float inv = 1.0f / sum;
    for (int64_t i = 0; i < n; ++i) y[i] *= inv;
  }
}

/* Columns [0, w) of a [n, inner] slab, w <= SOFTMAX_BLOCK. */
static void softmax_block(const float* x, float* y, int64_t n, int64_t inner,
                          int64_t w, int64_t log_form) {
  float mx[SOFTMAX_BLOCK], sum[SOFTMAX_BLOCK];
  int64_t j;
  for (j = 0; j < w; ++j) mx[j] = x[j], sum[j] = 0.0f;
  for (int64_t a = 1; a < n; ++a) {
    const float* xr = x + a * inner;
    for (j = 0; j < w; ++j) mx[j] = xr[j] > mx[j] ? xr[j] : mx[j];
  }
  for (int64_t a = 0; a < n; ++a) {
    const float* xr = x + a * inner;
    float* yr = y + a * inner;
    for (j = 0; j < w; ++j) {
      yr[j] = expf(xr[j] - mx[j]);
      sum[j] += yr[j];
    }
  }
  if (log_form) {
    for (j = 0; j < w; ++j) sum[j] = mx[j] + logf(sum[j]);
    for (int64_t a = 0; a < n; ++a) {
      const float* xr = x + a * inner;
      float* yr = y + a * inner;
      for (j = 0; j < w; ++j) yr[j] = xr[j] - sum[j];
    }
  } else {
    for (j = 0; j < w; ++j) sum[j] = 1.0f / sum[j];
    for (int64_t a = 0; a < n; ++a) {
      float* yr = y + a * inner;
      for (j = 0; j < w; ++j) yr[j] *= sum[j];
    }
  }
}

int kiln_softmax_f32(const int64_t* ip, const float* fp, void* const* bindings,
                     const kiln_host* host) {
  (void)fp;
  (void)host;
  const int64_t outer = ip[0], n = ip[1], inner = ip[2], log_form = ip[3];
  const float* x = (const float*)bindings[0];
  float* y = (float*)bindings[1];
  if (outer == 0 || n == 0 || inner == 0) return KILN_OK;
  const int64_t slab = n * inner;
  for (int64_t o = 0; o < outer; ++o) {
    const float* xs = x + o * slab;
    float* ys = y + o * slab;
    if (inner == 1) {
      softmax_vector(xs, ys, n, log_form);
      continue;
    }
    for (int64_t j0 = 0; j0 < inner; j0 += SOFTMAX_BLOCK) {
      const int64_t w = inner - j0 < SOFTMAX_BLOCK ? inner - j0 : SOFTMAX_BLOCK;
      softmax_block(xs + j0, ys + j0, n, inner, w, log_form);
    }
  }
  return KILN_OK;
}

int kiln_softmax_f32_check(const int64_t* ip, uint32_t iparam_count,
                           const float* fp, uint32_t fparam_count,
                           const uint64_t* binding_bytes) {
  KILN_TRY(kiln_check_counts(ip, iparam_count, 4, fp, fparam_count, 0));
  KILN_TRY(kiln_check_nonneg(ip, 4));
  KILN_TRY(kiln_check_enum(ip[3], 0, 1));
  /* Work is bounded by X: any zero extent returns before the loops. */
  int64_t count;
  KILN_TRY(kiln_checked_product(ip, 3, &count));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[0], count));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[1], count));
  return KILN_OK;
}
