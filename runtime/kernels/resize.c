/* resize_f32: separable resampling. The compiler turns every mode (nearest
 * with its rounding rule, linear, cubic) and coordinate transformation into
 * per-axis tap tables: output coordinate o of axis d reads input positions
 * index[d][o][t] with weights weight[d][o][t], t < taps[d]. An index of -1
 * marks a position outside the input (tf_crop_and_resize), where the output
 * element takes the extrapolation value. Axes that are not resized use one
 * tap of weight 1, so an element costs the product of the tap counts. The
 * tables come from resize_core.h's math, as do resize_rt_f32's taps, and
 * both sum an element with kiln_resize_element. */
#include <stdint.h>

#include "check_util.h"
#include "kiln/kernel_params.h"
#include "kiln/kernels.h"
#include "kiln/resize_core.h"

enum { RS_R = KILN_IP_RESIZE_F32_R, RS_HEAD = KILN_IP_RESIZE_F32_IN_DIMS };

int kiln_resize_f32(const int64_t* ip, const float* fp, void* const* bindings,
                    const kiln_host* host) {
  (void)host;
  const int64_t R = ip[RS_R];
  const int64_t* in = ip + RS_HEAD;
  const int64_t* out = in + R;
  const int64_t* taps = out + R;
  const int64_t* idx_base[KILN_MAX_RANK];
  const float* w_base[KILN_MAX_RANK];
  int64_t istr[KILN_MAX_RANK + 1], pos[KILN_MAX_RANK] = {0}, n = 1, table = 0;
  for (int64_t d = 0; d < R; ++d) {
    idx_base[d] = taps + R + table;
    w_base[d] = fp + KILN_FP_RESIZE_F32_WEIGHT + table;
    table += out[d] * taps[d];
    n *= out[d];
  }
  const float extrapolation = fp[KILN_FP_RESIZE_F32_WEIGHT + table]; /* after the weights */
  istr[R] = 1;
  for (int64_t d = R; d > 0; --d) istr[d - 1] = istr[d] * in[d - 1];
  const float* x = (const float*)bindings[0];
  float* y = (float*)bindings[1];
  const int64_t* row_idx[KILN_MAX_RANK];
  const float* row_w[KILN_MAX_RANK];
  for (int64_t k = 0; k < n; ++k) {
    for (int64_t d = 0; d < R; ++d) {
      row_idx[d] = idx_base[d] + pos[d] * taps[d];
      row_w[d] = w_base[d] + pos[d] * taps[d];
    }
    y[k] = kiln_resize_element(R, row_idx, row_w, taps, istr + 1, x, extrapolation);
    for (int64_t d = R - 1; d >= 0; --d) {
      if (++pos[d] < out[d]) break;
      pos[d] = 0;
    }
  }
  return KILN_OK;
}

/* iparams: R  in_dims[R]  out_dims[R]  taps[R]  indices[sum out*taps]
 * fparams: weights[sum out*taps]  extrapolation_value */
int kiln_resize_f32_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                          uint32_t fparam_count, const uint64_t* binding_bytes) {
  if (ip == NULL || iparam_count < RS_HEAD) return KILN_ERR_INVALID_ARGUMENT;
  const int64_t R = ip[RS_R];
  if (R < 0 || R > KILN_MAX_RANK || iparam_count < KILN_IP_RESIZE_F32_INDEX(R))
    return KILN_ERR_INVALID_ARGUMENT;
  KILN_TRY(kiln_check_nonneg(ip, KILN_IP_RESIZE_F32_INDEX(R)));
  const int64_t* in = ip + RS_HEAD;
  const int64_t* out = in + R;
  const int64_t* taps = out + R;
  int64_t table = 0, in_n, out_n, bytes;
  for (int64_t d = 0; d < R; ++d) {
    int64_t part;
    if (taps[d] < 1 || taps[d] > 64) return KILN_ERR_INVALID_ARGUMENT;
    KILN_TRY(kiln_checked_mul(out[d], taps[d], &part));
    KILN_TRY(kiln_checked_add(table, part, &table));
  }
  if (table > (int64_t)UINT32_MAX) return KILN_ERR_OUT_OF_RANGE;
  KILN_TRY(kiln_check_counts(ip, iparam_count, (uint32_t)(KILN_IP_RESIZE_F32_INDEX(R) + table), fp,
                             fparam_count, (uint32_t)(table + 1)));
  const int64_t* idx = taps + R;
  for (int64_t d = 0, e = 0; d < R; ++d) {
    for (int64_t k = 0; k < out[d] * taps[d]; ++k, ++e) {
      if (idx[e] < -1 || idx[e] >= in[d]) return KILN_ERR_OUT_OF_RANGE;
    }
  }
  KILN_TRY(kiln_checked_product(in, R, &in_n));
  KILN_TRY(kiln_checked_product(out, R, &out_n));
  /* Each output element walks every tap combination: out x taps per axis,
   * which no binding bounds (an empty output runs nothing). */
  if (out_n > 0) KILN_TRY(kiln_check_work(out, 2 * R));
  KILN_TRY(kiln_dense_bytes(in_n, 4, &bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[0], bytes));
  KILN_TRY(kiln_dense_bytes(out_n, 4, &bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[1], bytes));
  return KILN_OK;
}
