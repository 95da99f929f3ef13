/* softmax_f32 over the middle axis of [outer, axis, inner]. Stable form:
 * exp(x - max) / sum, exp a vector at a time (vec_math.h). With inner > 1
 * the reduction runs over a block of up to SOFTMAX_BLOCK inner columns at
 * once (stack scratch, no heap), so every inner loop is contiguous. Large
 * tensors split their outer slices over the host's threads; each slice is
 * computed the same way whichever thread runs it. */
#include <math.h>
#include <stdint.h>

#include "check_util.h"
#include "host_tasks.h"
#include "kiln/kernel_params.h"
#include "kiln/kernels.h"
#include "vec.h"
#include "vec_math.h"

#define SOFTMAX_BLOCK 64

/* y[j] = exp(x[j] - m[j]) for j < n. */
static void exp_shifted(const float* x, const float* m, float* y, int64_t n) {
  int64_t j = 0;
  for (; j + KV_LANES <= n; j += KV_LANES)
    kv_store(y + j, kv_exp(kv_sub(kv_load(x + j), kv_load(m + j))));
  if (j < n) kv_store_n(y + j, kv_exp(kv_sub(kv_load_n(x + j, n - j), kv_load_n(m + j, n - j))), n - j);
}

/* One contiguous vector (inner == 1). */
static void softmax_vector(const float* x, float* y, int64_t n, int64_t log_form) {
  if (n == 0) return;
  float mx = x[0];
  int64_t i = 0;
  if (n >= KV_LANES) { /* new > max ? new : max per lane, as the scalar tail */
    kv m = kv_load(x);
    for (i = KV_LANES; i + KV_LANES <= n; i += KV_LANES) m = kv_max(kv_load(x + i), m);
    mx = kv_reduce_max(m);
  }
  for (; i < n; ++i) mx = x[i] > mx ? x[i] : mx;
  /* y = exp(x - max), summed as it is stored: lanes, then the tail. */
  const kv mv = kv_set1(mx);
  kv acc = kv_zero();
  for (i = 0; i + KV_LANES <= n; i += KV_LANES) {
    const kv e = kv_exp(kv_sub(kv_load(x + i), mv));
    kv_store(y + i, e);
    acc = kv_add(acc, e);
  }
  float sum = kv_reduce_add(acc);
  if (i < n) {
    kv_store_n(y + i, kv_exp(kv_sub(kv_load_n(x + i, n - i), mv)), n - i);
    for (int64_t j = i; j < n; ++j) sum += y[j];
  }
  if (log_form) {
    const kv shift = kv_set1(mx + logf(sum));
    for (i = 0; i + KV_LANES <= n; i += KV_LANES) kv_store(y + i, kv_sub(kv_load(x + i), shift));
    if (i < n) kv_store_n(y + i, kv_sub(kv_load_n(x + i, n - i), shift), n - i);
  } else {
    const kv inv = kv_set1(1.0f / sum);
    for (i = 0; i + KV_LANES <= n; i += KV_LANES) kv_store(y + i, kv_mul(kv_load(y + i), inv));
    if (i < n) kv_store_n(y + i, kv_mul(kv_load_n(y + i, n - i), inv), n - i);
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
    exp_shifted(xr, mx, yr, w);
    for (j = 0; j < w; ++j) sum[j] += yr[j];
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

typedef struct softmax_job {
  const float* x;
  float* y;
  int64_t n, inner, log_form;
} softmax_job;

/* Outer slices [begin, end). */
static void softmax_slices(void* ctx, int64_t begin, int64_t end) {
  const softmax_job* jb = (const softmax_job*)ctx;
  const int64_t n = jb->n, inner = jb->inner, slab = n * inner;
  for (int64_t o = begin; o < end; ++o) {
    const float* xs = jb->x + o * slab;
    float* ys = jb->y + o * slab;
    if (inner == 1) {
      softmax_vector(xs, ys, n, jb->log_form);
      continue;
    }
    for (int64_t j0 = 0; j0 < inner; j0 += SOFTMAX_BLOCK) {
      const int64_t w = inner - j0 < SOFTMAX_BLOCK ? inner - j0 : SOFTMAX_BLOCK;
      softmax_block(xs + j0, ys + j0, n, inner, w, jb->log_form);
    }
  }
}

int kiln_softmax_f32(const int64_t* ip, const float* fp, void* const* bindings,
                     const kiln_host* host) {
  (void)fp;
  const int64_t outer = ip[KILN_IP_SOFTMAX_F32_OUTER], n = ip[KILN_IP_SOFTMAX_F32_AXIS_LEN],
                inner = ip[KILN_IP_SOFTMAX_F32_INNER];
  if (outer == 0 || n == 0 || inner == 0) return KILN_OK;
  softmax_job jb = {(const float*)bindings[0], (float*)bindings[1], n, inner,
                    ip[KILN_IP_SOFTMAX_F32_LOG]};
  /* Below ~2^16 elements a hand-off to other threads costs more than it saves. */
  kiln_run_tasks(host, outer, (double)outer * (double)n * (double)inner, (double)(1 << 16),
                 softmax_slices, &jb);
  return KILN_OK;
}

_Static_assert(KILN_IP_SOFTMAX_F32_AXIS_LEN == KILN_IP_SOFTMAX_F32_OUTER + 1 &&
                   KILN_IP_SOFTMAX_F32_INNER == KILN_IP_SOFTMAX_F32_OUTER + 2,
               "outer, axis_len and inner are consecutive (the checker's product)");

int kiln_softmax_f32_check(const int64_t* ip, uint32_t iparam_count,
                           const float* fp, uint32_t fparam_count,
                           const uint64_t* binding_bytes) {
  KILN_TRY(kiln_check_counts(ip, iparam_count, KILN_SOFTMAX_F32_IPARAMS, fp, fparam_count, 0));
  KILN_TRY(kiln_check_nonneg(ip, KILN_SOFTMAX_F32_IPARAMS));
  KILN_TRY(kiln_check_enum(ip[KILN_IP_SOFTMAX_F32_LOG], 0, 1));
  /* Work is bounded by X: any zero extent returns before the loops. */
  int64_t count;
  KILN_TRY(kiln_checked_product(ip + KILN_IP_SOFTMAX_F32_OUTER, 3, &count));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[0], count));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[1], count));
  return KILN_OK;
}
