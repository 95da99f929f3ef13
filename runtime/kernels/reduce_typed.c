/* reduce_typed: every ONNX Reduce* on float64 and float16 data, computed in
 * double (float16 rounds once, at the store), and ReduceMax/ReduceMin on bool. Same layout as reduce_f32 with
 * the dtype after the kind; a plain odometer walk, no fast paths. */
#include <math.h>
#include <stdint.h>

#include "check_util.h"
#include "kiln/kernel_params.h"
#include "kiln/kernels.h"
#include "typed_util.h"

enum {
  RT_KIND = KILN_IP_REDUCE_TYPED_KIND,
  RT_DTYPE = KILN_IP_REDUCE_TYPED_DTYPE,
  RT_RO = KILN_IP_REDUCE_TYPED_RO,
  RT_RR = KILN_IP_REDUCE_TYPED_RR,
  RT_HEAD = KILN_IP_REDUCE_TYPED_OUT_DIMS
};

/* Next multi-index of dims[0..n) in row-major order; 0 after the last one. */
static int odometer_next(int64_t* idx, const int64_t* dims, int64_t n) {
  for (int64_t d = n - 1; d >= 0; --d) {
    if (++idx[d] < dims[d]) return 1;
    idx[d] = 0;
  }
  return 0;
}

/* Max (or min) over the reduced space; NaN wins. */
static double extreme(const void* x, int64_t t, int64_t base, int64_t rr, const int64_t* rd,
                      const int64_t* rs, int is_min) {
  int64_t idx[KILN_MAX_RANK] = {0};
  double acc = is_min ? INFINITY : -INFINITY;
  do {
    int64_t off = base;
    for (int64_t d = 0; d < rr; ++d) off += idx[d] * rs[d];
    const double v = kiln_load_f(x, t, off);
    if (v != v || (is_min ? v < acc : v > acc)) acc = v;
  } while (odometer_next(idx, rd, rr));
  return acc;
}

int kiln_reduce_typed(const int64_t* ip, const float* fp, void* const* bindings,
                      const kiln_host* host) {
  (void)fp;
  (void)host;
  const int64_t kind = ip[RT_KIND], t = ip[RT_DTYPE], ro = ip[RT_RO], rr = ip[RT_RR];
  const int64_t* od = ip + RT_HEAD;
  const int64_t* os = od + ro;
  const int64_t* rd = os + ro;
  const int64_t* rs = rd + rr;
  const void* X = bindings[0];
  void* Y = bindings[1];
  int64_t out_count = 1, red_count = 1;
  for (int64_t d = 0; d < ro; ++d) out_count *= od[d];
  for (int64_t d = 0; d < rr; ++d) red_count *= rd[d];
  int64_t oidx[KILN_MAX_RANK] = {0};
  for (int64_t o = 0; o < out_count; ++o, odometer_next(oidx, od, ro)) {
    int64_t base = 0;
    for (int64_t d = 0; d < ro; ++d) base += oidx[d] * os[d];
    double r;
    if (kind == KILN_REDUCE_MAX || kind == KILN_REDUCE_MIN) {
      const int is_min = kind == KILN_REDUCE_MIN;
      r = red_count > 0 ? extreme(X, t, base, rr, rd, rs, is_min) : (is_min ? INFINITY : -INFINITY);
      if (t == KILN_DTYPE_BOOL) {
        kiln_store_bits(Y, t, o, red_count > 0 ? r != 0 : (uint64_t)is_min);
      } else {
        kiln_store_f(Y, t, o, r);
      }
      continue;
    }
    double shift = 0;
    if (kind == KILN_REDUCE_LOG_SUM_EXP && red_count > 0) {
      shift = extreme(X, t, base, rr, rd, rs, 0);
      if (isinf(shift)) shift = 0; /* all -inf (or an inf): no shift helps */
    }
    double acc = kind == KILN_REDUCE_PROD ? 1.0 : 0.0;
    int64_t idx[KILN_MAX_RANK] = {0};
    if (red_count > 0) {
      do {
        int64_t off = base;
        for (int64_t d = 0; d < rr; ++d) off += idx[d] * rs[d];
        const double v = kiln_load_f(X, t, off);
        switch (kind) {
          case KILN_REDUCE_PROD: acc *= v; break;
          case KILN_REDUCE_L1: acc += fabs(v); break;
          case KILN_REDUCE_L2:
          case KILN_REDUCE_SUM_SQUARE: acc += v * v; break;
          case KILN_REDUCE_LOG_SUM_EXP: acc += exp(v - shift); break;
          default: acc += v; break; /* SUM, MEAN, LOG_SUM */
        }
      } while (odometer_next(idx, rd, rr));
    }
    switch (kind) {
      case KILN_REDUCE_MEAN: r = acc / (double)red_count; break;
      case KILN_REDUCE_L2: r = sqrt(acc); break;
      case KILN_REDUCE_LOG_SUM: r = log(acc); break;
      case KILN_REDUCE_LOG_SUM_EXP: r = log(acc) + shift; break;
      default: r = acc; break;
    }
    kiln_store_f(Y, t, o, r);
  }
  return KILN_OK;
}

int kiln_reduce_typed_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                            uint32_t fparam_count, const uint64_t* binding_bytes) {
  if (ip == NULL || iparam_count < RT_HEAD) return KILN_ERR_INVALID_ARGUMENT;
  const int64_t ro = ip[RT_RO], rr = ip[RT_RR];
  if (ro < 0 || ro > KILN_MAX_RANK || rr < 0 || rr > KILN_MAX_RANK)
    return KILN_ERR_INVALID_ARGUMENT;
  const uint32_t want = (uint32_t)(RT_HEAD + 2 * ro + 2 * rr);
  KILN_TRY(kiln_check_counts(ip, iparam_count, want, fp, fparam_count, 0));
  KILN_TRY(kiln_check_nonneg(ip, want));
  KILN_TRY(kiln_check_enum(ip[RT_KIND], KILN_REDUCE_SUM, KILN_REDUCE_SUM_SQUARE));
  const int64_t t = ip[RT_DTYPE];
  const int extreme_kind = ip[RT_KIND] == KILN_REDUCE_MAX || ip[RT_KIND] == KILN_REDUCE_MIN;
  if (t != KILN_DTYPE_F64 && t != KILN_DTYPE_F16 && !(t == KILN_DTYPE_BOOL && extreme_kind))
    return KILN_ERR_INVALID_ARGUMENT;
  const int64_t eb = kiln_dtype_size(t);
  int64_t dims[2 * KILN_MAX_RANK], strides[2 * KILN_MAX_RANK];
  for (int64_t d = 0; d < ro; ++d) dims[d] = ip[RT_HEAD + d], strides[d] = ip[RT_HEAD + ro + d];
  for (int64_t d = 0; d < rr; ++d) {
    dims[ro + d] = ip[RT_HEAD + 2 * ro + d];
    strides[ro + d] = ip[RT_HEAD + 2 * ro + rr + d];
  }
  int64_t out_count, red_count, bytes;
  KILN_TRY(kiln_checked_product(dims, ro, &out_count));
  KILN_TRY(kiln_checked_product(dims + ro, rr, &red_count));
  /* As in reduce_f32: zero strides let the walk outgrow X, so bound it. */
  if (out_count > 0) KILN_TRY(kiln_check_work(dims, red_count > 0 ? ro + rr : ro));
  KILN_TRY(kiln_view_bytes(ro, dims, strides, 0, eb, &bytes));
  KILN_TRY(kiln_view_bytes(ro + rr, dims, strides, 0, eb, &bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[0], bytes));
  if (out_count > 0 && red_count > 0) KILN_TRY(kiln_check_reuse(out_count * red_count, bytes / eb));
  KILN_TRY(kiln_dense_bytes(out_count, eb, &bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[1], bytes));
  return KILN_OK;
}
