/* reduce_f32 (every ONNX Reduce* over any axes; the loop is in reduce_core.h,
 * shared with reduce_rt_f32) and arg_reduce_f32. */
#include <math.h>
#include <stdint.h>

#include "check_util.h"
#include "kiln/kernel_params.h"
#include "kiln/kernels.h"
#include "reduce_core.h"

enum {
  R_KIND = KILN_IP_REDUCE_F32_KIND,
  R_RO = KILN_IP_REDUCE_F32_RO,
  R_RR = KILN_IP_REDUCE_F32_RR,
  R_HEAD = KILN_IP_REDUCE_F32_OUT_DIMS
};

int kiln_reduce_f32(const int64_t* ip, const float* fp, void* const* bindings,
                    const kiln_host* host) {
  (void)fp;
  (void)host;
  const int64_t kind = ip[R_KIND], ro = ip[R_RO], rr = ip[R_RR];
  const int64_t* od = ip + R_HEAD;
  const int64_t* os = od + ro;
  const int64_t* rd = os + ro;
  const int64_t* rs = rd + rr;
  kiln_reduce_f32_run(kind, ro, od, os, rr, rd, rs, (const float*)bindings[0],
                      (float*)bindings[1]);
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
  const int64_t outer = ip[KILN_IP_ARG_REDUCE_F32_OUTER], n = ip[KILN_IP_ARG_REDUCE_F32_N],
                inner = ip[KILN_IP_ARG_REDUCE_F32_INNER],
                is_min = ip[KILN_IP_ARG_REDUCE_F32_IS_MIN],
                last = ip[KILN_IP_ARG_REDUCE_F32_SELECT_LAST];
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

_Static_assert(KILN_IP_ARG_REDUCE_F32_N == KILN_IP_ARG_REDUCE_F32_OUTER + 1 &&
                   KILN_IP_ARG_REDUCE_F32_INNER == KILN_IP_ARG_REDUCE_F32_OUTER + 2,
               "outer, n and inner are consecutive (the checker's product)");

int kiln_arg_reduce_f32_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                              uint32_t fparam_count, const uint64_t* binding_bytes) {
  KILN_TRY(kiln_check_counts(ip, iparam_count, KILN_ARG_REDUCE_F32_IPARAMS, fp, fparam_count, 0));
  KILN_TRY(kiln_check_nonneg(ip, KILN_ARG_REDUCE_F32_IPARAMS));
  KILN_TRY(kiln_check_enum(ip[KILN_IP_ARG_REDUCE_F32_IS_MIN], 0, 1));
  KILN_TRY(kiln_check_enum(ip[KILN_IP_ARG_REDUCE_F32_SELECT_LAST], 0, 1));
  if (ip[KILN_IP_ARG_REDUCE_F32_N] < 1) return KILN_ERR_INVALID_ARGUMENT;
  /* inner == 0 leaves the outer loop bounded by no binding. */
  KILN_TRY(kiln_check_work(ip + KILN_IP_ARG_REDUCE_F32_OUTER, 3));
  int64_t count, out_dims[2] = {ip[KILN_IP_ARG_REDUCE_F32_OUTER], ip[KILN_IP_ARG_REDUCE_F32_INNER]},
                 out_count, bytes;
  KILN_TRY(kiln_checked_product(ip + KILN_IP_ARG_REDUCE_F32_OUTER, 3, &count));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[0], count));
  KILN_TRY(kiln_checked_product(out_dims, 2, &out_count));
  KILN_TRY(kiln_dense_bytes(out_count, 8, &bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[1], bytes));
  return KILN_OK;
}
