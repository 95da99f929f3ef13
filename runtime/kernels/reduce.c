/* reduce_f32 (every ONNX Reduce* over any axes) and arg_reduce_f32.
 * reduce_f32 walks the output in order and reduces each element's index
 * space row by row: the innermost reduced dim is one row, and the switch on
 * the kind picks a tight loop per row. Sums accumulate in double. */
#include <math.h>
#include <stdint.h>

#include "check_util.h"
#include "kiln/kernels.h"

#define KILN_REDUCE_LAST KILN_REDUCE_SUM_SQUARE

/* acc combined with the row x[0], x[s], ..., x[(n-1)*s]. `shift` is the
 * maximum subtracted before exp for LogSumExp. */
static double reduce_row(int64_t kind, const float* x, int64_t s, int64_t n,
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

static double reduce_identity(int64_t kind) {
  switch (kind) {
    case KILN_REDUCE_MAX: return -INFINITY;
    case KILN_REDUCE_MIN: return INFINITY;
    case KILN_REDUCE_PROD: return 1.0;
    default: return 0.0;
  }
}

static float reduce_finish(int64_t kind, double acc, int64_t count, float shift) {
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
static double reduce_space(int64_t kind, const float* x, int64_t rr, const int64_t* rd,
                           const int64_t* rs, double acc, float shift) {
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

enum { R_KIND, R_RO, R_RR, R_HEAD };

int kiln_reduce_f32(const int64_t* ip, const float* fp, void* const* bindings,
                    const kiln_host* host) {
  (void)fp;
  (void)host;
  const int64_t kind = ip[R_KIND], ro = ip[R_RO], rr = ip[R_RR];
  const int64_t* od = ip + R_HEAD;
  const int64_t* os = od + ro;
  const int64_t* rd = os + ro;
  const int64_t* rs = rd + rr;
  const float* X = (const float*)bindings[0];
  float* Y = (float*)bindings[1];
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
  return KILN_OK;
}

int kiln_reduce_f32_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                          uint32_t fparam_count, const uint64_t* binding_bytes) {
  if (ip == NULL || iparam_count < R_HEAD) return KILN_ERR_INVALID_ARGUMENT;
  const int64_t ro = ip[R_RO], rr = ip[R_RR];
  if (ro < 0 || ro > KILN_MAX_RANK || rr < 0 || rr > KILN_MAX_RANK)
    return KILN_ERR_INVALID_ARGUMENT;
  const uint32_t want = (uint32_t)(R_HEAD + 2 * ro + 2 * rr);
  KILN_TRY(kiln_check_counts(ip, iparam_count, want, fp, fparam_count, 0));
  KILN_TRY(kiln_check_nonneg(ip, want));
  KILN_TRY(kiln_check_enum(ip[R_KIND], KILN_REDUCE_SUM, KILN_REDUCE_LAST));
  /* The X view is the output dims followed by the reduced dims. */
  int64_t dims[2 * KILN_MAX_RANK], strides[2 * KILN_MAX_RANK];
  for (int64_t d = 0; d < ro; ++d) dims[d] = ip[R_HEAD + d], strides[d] = ip[R_HEAD + ro + d];
  for (int64_t d = 0; d < rr; ++d) {
    dims[ro + d] = ip[R_HEAD + 2 * ro + d];
    strides[ro + d] = ip[R_HEAD + 2 * ro + rr + d];
  }
  int64_t out_count, red_count, bytes;
  KILN_TRY(kiln_checked_product(dims, ro, &out_count));
  KILN_TRY(kiln_checked_product(dims + ro, rr, &red_count));
  /* Zero strides let the reduced space outgrow X, so the walk is bounded
   * directly: every output element (none when Y is empty) folds the whole
   * reduced space, which is skipped when empty. */
  if (out_count > 0) KILN_TRY(kiln_check_work(dims, red_count > 0 ? ro + rr : ro));
  /* Offsets are formed for every output element even when the reduction
   * is empty, so the output part of the view must not overflow either. */
  KILN_TRY(kiln_view_bytes(ro, dims, strides, 0, 4, &bytes));
  KILN_TRY(kiln_view_bytes(ro + rr, dims, strides, 0, 4, &bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[0], bytes));
  if (out_count > 0 && red_count > 0) KILN_TRY(kiln_check_reuse(out_count * red_count, bytes / 4));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[1], out_count));
  return KILN_OK;
}

int kiln_arg_reduce_f32(const int64_t* ip, const float* fp, void* const* bindings,
                        const kiln_host* host) {
  (void)fp;
  (void)host;
  const int64_t outer = ip[0], n = ip[1], inner = ip[2], is_min = ip[3], last = ip[4];
  const float* X = (const float*)bindings[0];
  int64_t* Y = (int64_t*)bindings[1];
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t j = 0; j < inner; ++j) {
      const float* x = X + o * n * inner + j;
      float best = x[0];
      int64_t at = 0;
      /* One loop per variant; the flags never change inside it. */
      if (!is_min && !last) {
        for (int64_t a = 1; a < n; ++a)
          if (x[a * inner] > best) best = x[a * inner], at = a;
      } else if (!is_min) {
        for (int64_t a = 1; a < n; ++a)
          if (x[a * inner] >= best) best = x[a * inner], at = a;
      } else if (!last) {
        for (int64_t a = 1; a < n; ++a)
          if (x[a * inner] < best) best = x[a * inner], at = a;
      } else {
        for (int64_t a = 1; a < n; ++a)
          if (x[a * inner] <= best) best = x[a * inner], at = a;
      }
      Y[o * inner + j] = at;
    }
  }
  return KILN_OK;
}

int kiln_arg_reduce_f32_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                              uint32_t fparam_count, const uint64_t* binding_bytes) {
  KILN_TRY(kiln_check_counts(ip, iparam_count, 5, fp, fparam_count, 0));
  KILN_TRY(kiln_check_nonneg(ip, 5));
  KILN_TRY(kiln_check_enum(ip[3], 0, 1));
  KILN_TRY(kiln_check_enum(ip[4], 0, 1));
  if (ip[1] < 1) return KILN_ERR_INVALID_ARGUMENT;
  /* inner == 0 leaves the outer loop bounded by no binding. */
  KILN_TRY(kiln_check_work(ip, 3));
  int64_t count, out_dims[2] = {ip[0], ip[2]}, out_count, bytes;
  KILN_TRY(kiln_checked_product(ip, 3, &count));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[0], count));
  KILN_TRY(kiln_checked_product(out_dims, 2, &out_count));
  KILN_TRY(kiln_dense_bytes(out_count, 8, &bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[1], bytes));
  return KILN_OK;
}
