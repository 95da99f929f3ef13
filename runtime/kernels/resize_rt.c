/* resize_rt_f32: ONNX Resize whose scales (or, for tf_crop_and_resize, roi)
 * arrive as run-time tensors. The scales shape the sampling, not only the
 * output shape, so no tap table can be built ahead: this kernel computes
 * each axis's taps per output coordinate with resize_core.h (the math that
 * builds resize_f32's tables) and sums an element the same way. The
 * compiler fixed the output shape from the model's declaration; with
 * check_scales the kernel first verifies floor(in[d] * scales[d]) ==
 * out[d] on every axis and otherwise fails with KILN_ERR_SHAPE_MISMATCH,
 * writing nothing. */
#include <math.h>
#include <stdint.h>

#include "check_util.h"
#include "kiln/kernel_params.h"
#include "kiln/kernels.h"
#include "kiln/resize_core.h"

enum {
  RR_R = KILN_IP_RESIZE_RT_F32_R,
  RR_MODE = KILN_IP_RESIZE_RT_F32_MODE,
  RR_NEAREST = KILN_IP_RESIZE_RT_F32_NEAREST_MODE,
  RR_CTM = KILN_IP_RESIZE_RT_F32_COORDINATE_TRANSFORMATION_MODE,
  RR_EXCLUDE = KILN_IP_RESIZE_RT_F32_EXCLUDE_OUTSIDE,
  RR_CHECK = KILN_IP_RESIZE_RT_F32_CHECK_SCALES,
  RR_ROI_T = KILN_IP_RESIZE_RT_F32_ROI_DTYPE,
  RR_HEAD = KILN_IP_RESIZE_RT_F32_IN_DIMS
};
enum {
  RR_CUBIC_A = KILN_FP_RESIZE_RT_F32_CUBIC_COEFF_A,
  RR_EXTRAPOLATION = KILN_FP_RESIZE_RT_F32_EXTRAPOLATION_VALUE,
  RR_FPARAMS = KILN_RESIZE_RT_F32_FPARAMS
};

typedef struct {
  int64_t index[KILN_MAX_RANK][KILN_RESIZE_MAX_TAPS];
  float weight[KILN_MAX_RANK][KILN_RESIZE_MAX_TAPS];
  int64_t count[KILN_MAX_RANK];
} rr_taps;

/* Axis d's taps for output coordinate o. */
static void rr_axis(const kiln_resize_method* m, const int64_t* in, const int64_t* out,
                    const double* scale, const double* roi, int64_t R, int64_t d, int64_t o,
                    rr_taps* taps) {
  double w[KILN_RESIZE_MAX_TAPS];
  const int n = kiln_resize_axis_taps(m, in[d], out[d], scale[d], o, roi[d], roi[R + d],
                                      taps->index[d], w);
  for (int t = 0; t < n; ++t) taps->weight[d][t] = (float)w[t];
  taps->count[d] = n;
}

int kiln_resize_rt_f32(const int64_t* ip, const float* fp, void* const* bindings,
                       const kiln_host* host) {
  (void)host;
  const int64_t R = ip[RR_R];
  const int64_t* in = ip + RR_HEAD;
  const int64_t* out = in + R;
  const float* scales_in = (const float*)bindings[2];
  double scale[KILN_MAX_RANK], roi[2 * KILN_MAX_RANK];
  int64_t n = 1;
  for (int64_t d = 0; d < R; ++d) {
    /* KILN_RESIZE_SCALES_FROM_SIZES: sizes known only during the run (a
     * symbolic H resized to 224, or to another tensor's H): out / in in
     * float, as the compiler derives them from constant sizes. */
    scale[d] = ip[RR_CHECK] != KILN_RESIZE_SCALES_FROM_SIZES ? (double)scales_in[d]
               : in[d] > 0 ? (double)((float)out[d] / (float)in[d])
                           : 1.0;
    /* ONNX: the output length is floor(in * scale), in double as the
     * reference computes it; NaN and non-positive scales fail too. */
    int64_t len;
    if (ip[RR_CHECK] == KILN_RESIZE_SCALES_CHECKED &&
        (!kiln_resize_scaled_length(in[d], scale[d], &len) || len != out[d]))
      return KILN_ERR_SHAPE_MISMATCH;
    n *= out[d];
  }
  for (int64_t k = 0; k < 2 * R; ++k) {
    roi[k] = ip[RR_ROI_T] == KILN_DTYPE_F64 ? ((const double*)bindings[1])[k]
                                            : (double)((const float*)bindings[1])[k];
  }
  if (n == 0) return KILN_OK;
  const kiln_resize_method m = {ip[RR_MODE], ip[RR_NEAREST], ip[RR_CTM], ip[RR_EXCLUDE],
                                (double)fp[RR_CUBIC_A]};
  const float extrapolation = fp[RR_EXTRAPOLATION];
  int64_t istr[KILN_MAX_RANK], pos[KILN_MAX_RANK] = {0};
  const int64_t* row_idx[KILN_MAX_RANK];
  const float* row_w[KILN_MAX_RANK];
  rr_taps taps;
  int64_t s = 1;
  for (int64_t d = R - 1; d >= 0; --d) istr[d] = s, s *= in[d];
  for (int64_t d = 0; d < R; ++d) {
    rr_axis(&m, in, out, scale, roi, R, d, 0, &taps);
    row_idx[d] = taps.index[d];
    row_w[d] = taps.weight[d];
  }
  const float* x = (const float*)bindings[0];
  float* y = (float*)bindings[3];
  for (int64_t k = 0; k < n; ++k) {
    y[k] = kiln_resize_element(R, row_idx, row_w, taps.count, istr, x, extrapolation);
    /* Step the output odometer; recompute the taps of every axis it moved. */
    int64_t d = R - 1;
    for (; d >= 0; --d) {
      if (++pos[d] < out[d]) break;
      pos[d] = 0;
    }
    if (d < 0) break;
    for (int64_t e = d; e < R; ++e) rr_axis(&m, in, out, scale, roi, R, e, pos[e], &taps);
  }
  return KILN_OK;
}

/* iparams: R mode nearest ctm exclude_outside check_scales roi_dtype in[R] out[R]
 * fparams: cubic_coeff_a extrapolation_value */
int kiln_resize_rt_f32_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                             uint32_t fparam_count, const uint64_t* binding_bytes) {
  if (ip == NULL || iparam_count < RR_HEAD) return KILN_ERR_INVALID_ARGUMENT;
  const int64_t R = ip[RR_R];
  if (R < 0 || R > KILN_MAX_RANK) return KILN_ERR_INVALID_ARGUMENT;
  KILN_TRY(kiln_check_counts(ip, iparam_count, (uint32_t)KILN_RESIZE_RT_F32_IPARAMS(R), fp, fparam_count,
                             RR_FPARAMS));
  KILN_TRY(kiln_check_enum(ip[RR_MODE], KILN_RESIZE_NEAREST, KILN_RESIZE_CUBIC));
  KILN_TRY(kiln_check_enum(ip[RR_NEAREST], KILN_RESIZE_ROUND_PREFER_FLOOR, KILN_RESIZE_CEIL));
  KILN_TRY(kiln_check_enum(ip[RR_CTM], KILN_RESIZE_HALF_PIXEL, KILN_RESIZE_HALF_PIXEL_SYMMETRIC));
  KILN_TRY(kiln_check_enum(ip[RR_EXCLUDE], 0, 1));
  KILN_TRY(kiln_check_enum(ip[RR_CHECK], KILN_RESIZE_SCALES_GIVEN, KILN_RESIZE_SCALES_FROM_SIZES));
  const int64_t roi_t = ip[RR_ROI_T];
  if (roi_t != KILN_DTYPE_F32 && roi_t != KILN_DTYPE_F64) return KILN_ERR_INVALID_ARGUMENT;
  KILN_TRY(kiln_check_nonneg(ip + RR_HEAD, 2 * R));
  const int64_t* in = ip + RR_HEAD;
  const int64_t* out = in + R;
  int64_t in_n, out_n, bytes, extents[2 * KILN_MAX_RANK];
  KILN_TRY(kiln_checked_product(in, R, &in_n));
  KILN_TRY(kiln_checked_product(out, R, &out_n));
  for (int64_t d = 0; d < R; ++d) {
    /* Every tap clamps into [0, in): a non-empty Y needs input elements. */
    if (out_n > 0 && in[d] < 1) return KILN_ERR_INVALID_ARGUMENT;
    extents[d] = out[d];
    extents[R + d] = ip[RR_MODE] == KILN_RESIZE_CUBIC ? 4 : 2;
  }
  /* Each output element walks every tap combination of its axes. */
  if (out_n > 0) KILN_TRY(kiln_check_work(extents, 2 * R));
  KILN_TRY(kiln_dense_bytes(in_n, 4, &bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[0], bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[1], 2 * R * (roi_t == KILN_DTYPE_F64 ? 8 : 4)));
  KILN_TRY(kiln_check_binding(binding_bytes[2], 4 * R));
  KILN_TRY(kiln_dense_bytes(out_n, 4, &bytes));
  return kiln_check_binding(binding_bytes[3], bytes);
}
