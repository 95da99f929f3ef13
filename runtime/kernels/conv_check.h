/* The parameter layout of the 2-D convolution kernels (conv2d.c,
 * conv2d_packed.c) and the checks the verifier runs on it.
 * Internal to runtime/kernels: an AOT bundle copies it beside the kernels. */
#ifndef KILN_KERNELS_CONV_CHECK_H_
#define KILN_KERNELS_CONV_CHECK_H_

#include <stdint.h>

#include "activation.h"
#include "check_util.h"
#include "kiln/kernel_params.h"
#include "kiln/kernels.h"
#include "sgemm.h"

/* Every 2-D convolution kernel's parameters begin with conv2d_f32's
 * (kiln/kernel_table.def); the short names below are those positions. */
enum {
  P_N = KILN_IP_CONV2D_F32_N, P_C = KILN_IP_CONV2D_F32_C, P_H = KILN_IP_CONV2D_F32_H,
  P_W = KILN_IP_CONV2D_F32_W, P_OC = KILN_IP_CONV2D_F32_OC, P_OH = KILN_IP_CONV2D_F32_OH,
  P_OW = KILN_IP_CONV2D_F32_OW, P_KH = KILN_IP_CONV2D_F32_KH, P_KW = KILN_IP_CONV2D_F32_KW,
  P_SH = KILN_IP_CONV2D_F32_STRIDE_H, P_SW = KILN_IP_CONV2D_F32_STRIDE_W,
  P_PT = KILN_IP_CONV2D_F32_PAD_TOP, P_PL = KILN_IP_CONV2D_F32_PAD_LEFT,
  P_DH = KILN_IP_CONV2D_F32_DILATION_H, P_DW = KILN_IP_CONV2D_F32_DILATION_W,
  P_GROUPS = KILN_IP_CONV2D_F32_GROUPS, P_ACT = KILN_IP_CONV2D_F32_ACTIVATION,
  P_HAS_BIAS = KILN_IP_CONV2D_F32_HAS_BIAS, P_COUNT = KILN_CONV2D_F32_IPARAMS
};

/* 1 when kernel K (its name in kiln/kernel_params.h) has conv2d_f32's
 * parameters at conv2d_f32's positions; each kernel that reads them by the
 * names above asserts it. */
#define KILN_CONV2D_LAYOUT_OF(K)                                                                \
  ((int)KILN_IP_##K##_N == (int)P_N && (int)KILN_IP_##K##_C == (int)P_C &&                      \
   (int)KILN_IP_##K##_H == (int)P_H && (int)KILN_IP_##K##_W == (int)P_W &&                      \
   (int)KILN_IP_##K##_OC == (int)P_OC && (int)KILN_IP_##K##_OH == (int)P_OH &&                  \
   (int)KILN_IP_##K##_OW == (int)P_OW && (int)KILN_IP_##K##_KH == (int)P_KH &&                  \
   (int)KILN_IP_##K##_KW == (int)P_KW && (int)KILN_IP_##K##_STRIDE_H == (int)P_SH &&            \
   (int)KILN_IP_##K##_STRIDE_W == (int)P_SW && (int)KILN_IP_##K##_PAD_TOP == (int)P_PT &&       \
   (int)KILN_IP_##K##_PAD_LEFT == (int)P_PL && (int)KILN_IP_##K##_DILATION_H == (int)P_DH &&    \
   (int)KILN_IP_##K##_DILATION_W == (int)P_DW &&                                                \
   (int)KILN_IP_##K##_GROUPS == (int)P_GROUPS && (int)KILN_IP_##K##_ACTIVATION == (int)P_ACT && \
   (int)KILN_IP_##K##_HAS_BIAS == (int)P_HAS_BIAS &&                                            \
   KILN_FP_##K##_ACT_ALPHA == KILN_FP_CONV2D_F32_ACT_ALPHA &&                                   \
   KILN_FP_##K##_ACT_BETA == KILN_FP_CONV2D_F32_ACT_BETA &&                                     \
   KILN_##K##_FPARAMS == KILN_CONV2D_F32_FPARAMS)

/* conv2d_packed_cl_f32 appends the layouts of x and of y (and r):
 * 0 NCHW, 1 NHWC (channels last). */
enum {
  P_X_CL = KILN_IP_CONV2D_PACKED_CL_F32_X_CHANNELS_LAST,
  P_Y_CL = KILN_IP_CONV2D_PACKED_CL_F32_Y_CHANNELS_LAST,
  P_CL_COUNT = KILN_CONV2D_PACKED_CL_F32_IPARAMS
};
_Static_assert((int)P_X_CL == (int)P_COUNT, "the layouts follow conv2d_f32's parameters");

/* 1 when kernel K also has the two layouts at conv2d_packed_cl_f32's positions. */
#define KILN_CONV2D_CL_LAYOUT_OF(K)                                                 \
  (KILN_CONV2D_LAYOUT_OF(K) && (int)KILN_IP_##K##_X_CHANNELS_LAST == (int)P_X_CL && \
   (int)KILN_IP_##K##_Y_CHANNELS_LAST == (int)P_Y_CL)

/* One spatial axis: the bottom/right pad is implied by `out`, so `out` is
 * consistent when it is at least the count an unpadded end gives. Also keeps
 * every index the kernel forms (out*stride + taps*dilation + pads) in int64:
 * below *span, when span is not NULL. */
static inline int kiln_conv_axis_span(int64_t in, int64_t k, int64_t stride, int64_t pad,
                                      int64_t dil, int64_t out, int64_t* span) {
  int64_t ek, lead, t;
  KILN_TRY(kiln_checked_mul(k - 1, dil, &ek));
  KILN_TRY(kiln_checked_add(ek, 1, &ek));
  KILN_TRY(kiln_checked_add(in, pad, &lead));
  const int64_t min_out = lead >= ek ? (lead - ek) / stride + 1 : 0;
  if (out < min_out) return KILN_ERR_INVALID_ARGUMENT;
  KILN_TRY(kiln_checked_mul(out, stride, &t));
  KILN_TRY(kiln_checked_add(t, ek, &t));
  KILN_TRY(kiln_checked_add(t, lead, &t));
  KILN_TRY(kiln_checked_add(t, stride, &t));
  KILN_TRY(kiln_checked_add(t, dil, &t));
  if (span != NULL) *span = t;
  return KILN_OK;
}

static inline int kiln_conv_axis_check(int64_t in, int64_t k, int64_t stride, int64_t pad,
                                       int64_t dil, int64_t out) {
  return kiln_conv_axis_span(in, k, stride, pad, dil, out, NULL);
}

/* Checks iparams and bindings x, w, bias and (at y_binding) y. With
 * packed_weights, w is conv2d_packed_f32's panel layout (one group, or
 * groups of whole 16-channel panels). */
static inline int kiln_conv_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                                  uint32_t fparam_count, const uint64_t* binding_bytes,
                                  int y_binding, int packed_weights) {
  KILN_TRY(kiln_check_counts(ip, iparam_count, P_COUNT, fp, fparam_count,
                             KILN_CONV2D_F32_FPARAMS));
  KILN_TRY(kiln_check_nonneg(ip, P_COUNT));
  const int64_t N = ip[P_N], C = ip[P_C], H = ip[P_H], W = ip[P_W];
  const int64_t OC = ip[P_OC], OH = ip[P_OH], OW = ip[P_OW];
  const int64_t KH = ip[P_KH], KW = ip[P_KW], G = ip[P_GROUPS];
  if (KH == 0 || KW == 0 || ip[P_SH] == 0 || ip[P_SW] == 0 || ip[P_DH] == 0 ||
      ip[P_DW] == 0 || G == 0)
    return KILN_ERR_INVALID_ARGUMENT;
  if (C % G != 0 || OC % G != 0) return KILN_ERR_INVALID_ARGUMENT;
  KILN_TRY(kiln_check_enum(ip[P_ACT], KILN_ACT_NONE, KILN_ACT_LAST));
  KILN_TRY(kiln_check_enum(ip[P_HAS_BIAS], 0, 1));
  KILN_TRY(kiln_conv_axis_check(H, KH, ip[P_SH], ip[P_PT], ip[P_DH], OH));
  KILN_TRY(kiln_conv_axis_check(W, KW, ip[P_SW], ip[P_PL], ip[P_DW], OW));

  /* The group loop runs even when C and OC are 0 (any G divides them). */
  const int64_t loops[8] = {N, G, OC / G, OH, OW, C / G, KH, KW};
  KILN_TRY(kiln_check_work(loops, 8));
  const int64_t x_dims[4] = {N, C, H, W};
  const int64_t w_dims[4] = {OC, C / G, KH, KW};
  const int64_t y_dims[4] = {N, OC, OH, OW};
  int64_t count, t;
  KILN_TRY(kiln_checked_product(x_dims, 4, &count));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[0], count));
  if (packed_weights) {
    if ((G != 1 && (OC / G) % 16 != 0) || KH * KW > KILN_CONVP_MAX_TAPS)
      return KILN_ERR_UNIMPLEMENTED;
    /* Panels of 16 output channels, zero past OC, each over its group's
     * input channels. */
    int64_t oc_pad;
    KILN_TRY(kiln_checked_add(OC, 15, &oc_pad));
    const int64_t panel_dims[4] = {oc_pad / 16, 16, C / G, KH * KW};
    KILN_TRY(kiln_checked_product(panel_dims, 4, &count));
  } else {
    KILN_TRY(kiln_checked_product(w_dims, 4, &count));
  }
  KILN_TRY(kiln_check_f32_binding(binding_bytes[1], count));
  if (ip[P_HAS_BIAS]) KILN_TRY(kiln_check_f32_binding(binding_bytes[2], OC));
  KILN_TRY(kiln_checked_product(y_dims, 4, &count));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[y_binding], count));
  /* Column and K-block offsets of the blocked GEMM stay in int64. */
  KILN_TRY(kiln_checked_add(count, KILN_GROUP_COLS, &t));
  KILN_TRY(kiln_checked_add(w_dims[1] * KH * KW, KILN_KC, &t));
  return KILN_OK;
}

/* The two layout parameters of conv2d_packed_cl_f32 (the rest follow
 * conv2d_f32's layout: kiln_conv_check over the first P_COUNT). */
static inline int kiln_conv_layout_check(const int64_t* ip, uint32_t iparam_count) {
  if (iparam_count != P_CL_COUNT || ip == NULL) return KILN_ERR_INVALID_ARGUMENT;
  KILN_TRY(kiln_check_enum(ip[P_X_CL], 0, 1));
  return kiln_check_enum(ip[P_Y_CL], 0, 1);
}

/* The residual variants: bindings x, w, bias, r, y, with r of y's shape. */
static inline int kiln_conv_res_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                                      uint32_t fparam_count, const uint64_t* binding_bytes,
                                      int packed_weights) {
  KILN_TRY(kiln_conv_check(ip, iparam_count, fp, fparam_count, binding_bytes, 4, packed_weights));
  const int64_t y_dims[4] = {ip[P_N], ip[P_OC], ip[P_OH], ip[P_OW]};
  int64_t count;
  KILN_TRY(kiln_checked_product(y_dims, 4, &count));
  return kiln_check_f32_binding(binding_bytes[3], count);
}

#endif /* KILN_KERNELS_CONV_CHECK_H_ */
