/* conv2d_f32: direct convolution that accumulates into whole output rows, so
 * the innermost loop runs over contiguous output columns (and over
 * contiguous input columns when stride_w is 1). Depthwise convolution is the
 * same loop nest with one input channel per group; a 1x1/stride-1/unpadded
 * convolution treats each output plane as one long row. */
#include <stdint.h>

#include "activation.h"
#include "check_util.h"
#include "kiln/kernels.h"
#include "window.h"

enum {
  P_N, P_C, P_H, P_W, P_OC, P_OH, P_OW, P_KH, P_KW, P_SH, P_SW, P_PT, P_PL,
  P_DH, P_DW, P_GROUPS, P_ACT, P_HAS_BIAS, P_COUNT
};

/* y_plane[i] += wv * x_plane[i] over a whole plane (the 1x1 fast path). */
static void conv_1x1_plane(const float* xg, const float* wo, int64_t cpg,
                           int64_t plane, float* yp) {
  for (int64_t ic = 0; ic < cpg; ++ic) {
    const float wv = wo[ic];
    const float* xc = xg + ic * plane;
    for (int64_t i = 0; i < plane; ++i) yp[i] += wv * xc[i];
  }
}

int kiln_conv2d_f32(const int64_t* ip, const float* fp, void* const* bindings,
                    const kiln_host* host) {
  (void)host;
  const int64_t N = ip[P_N], C = ip[P_C], H = ip[P_H], W = ip[P_W];
  const int64_t OC = ip[P_OC], OH = ip[P_OH], OW = ip[P_OW];
  const int64_t KH = ip[P_KH], KW = ip[P_KW], SH = ip[P_SH], SW = ip[P_SW];
  const int64_t PT = ip[P_PT], PL = ip[P_PL], DH = ip[P_DH], DW = ip[P_DW];
  const int64_t G = ip[P_GROUPS], act = ip[P_ACT];
  const float act_alpha = fp[0], act_beta = fp[1];
  const float* x = (const float*)bindings[0];
  const float* w = (const float*)bindings[1];
  const float* bias = ip[P_HAS_BIAS] ? (const float*)bindings[2] : NULL;
  float* y = (float*)bindings[3];

  const int64_t cpg = C / G, ocpg = OC / G;
  const int64_t in_plane = H * W, out_plane = OH * OW, wsize = cpg * KH * KW;
  const int pointwise = KH == 1 && KW == 1 && SH == 1 && SW == 1 && PT == 0 &&
                        PL == 0 && OH == H && OW == W;

  for (int64_t n = 0; n < N; ++n) {
    for (int64_t oc = 0; oc < OC; ++oc) {
      const int64_t g = oc / ocpg;
      const float* xg = x + (n * C + g * cpg) * in_plane;
      const float* wo = w + oc * wsize;
      float* yp = y + (n * OC + oc) * out_plane;
      const float bv = bias ? bias[oc] : 0.0f;

      if (pointwise) {
        for (int64_t i = 0; i < out_plane; ++i) yp[i] = bv;
        conv_1x1_plane(xg, wo, cpg, in_plane, yp);
        kiln_activation_inplace(yp, out_plane, act, act_alpha, act_beta);
        continue;
      }
      for (int64_t oh = 0; oh < OH; ++oh) {
        float* yr = yp + oh * OW;
        for (int64_t ow = 0; ow < OW; ++ow) yr[ow] = bv;
        const int64_t ih0 = oh * SH - PT;
        int64_t kh0, kh1;
        kiln_window_range(ih0, DH, KH, 0, H, &kh0, &kh1);
        for (int64_t ic = 0; ic < cpg; ++ic) {
          const float* xc = xg + ic * in_plane;
          const float* wc = wo + ic * KH * KW;
          for (int64_t kh = kh0; kh < kh1; ++kh) {
            const float* xr = xc + (ih0 + kh * DH) * W;
            const float* wr = wc + kh * KW;
            for (int64_t kw = 0; kw < KW; ++kw) {
              const float wv = wr[kw];
              const int64_t off = kw * DW - PL; /* iw = ow*SW + off */
              int64_t o0, o1;
              kiln_window_range(off, SW, OW, 0, W, &o0, &o1);
              if (SW == 1) {
                for (int64_t ow = o0; ow < o1; ++ow) yr[ow] += wv * xr[ow + off];
              } else {
                for (int64_t ow = o0; ow < o1; ++ow) yr[ow] += wv * xr[ow * SW + off];
              }
            }
          }
        }
        kiln_activation_inplace(yr, OW, act, act_alpha, act_beta);
      }
    }
  }
  return KILN_OK;
}

/* One spatial axis: the bottom/right pad is implied by `out`, so `out` is
 * consistent when it is at least the count an unpadded end gives. Also keeps
 * every index the kernel forms (out*stride + taps*dilation + pads) in int64. */
static int conv_axis_check(int64_t in, int64_t k, int64_t stride, int64_t pad,
                           int64_t dil, int64_t out) {
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
  return KILN_OK;
}

int kiln_conv2d_f32_check(const int64_t* ip, uint32_t iparam_count,
                          const float* fp, uint32_t fparam_count,
                          const uint64_t* binding_bytes) {
  KILN_TRY(kiln_check_counts(ip, iparam_count, P_COUNT, fp, fparam_count, 2));
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
  KILN_TRY(conv_axis_check(H, KH, ip[P_SH], ip[P_PT], ip[P_DH], OH));
  KILN_TRY(conv_axis_check(W, KW, ip[P_SW], ip[P_PL], ip[P_DW], OW));

  const int64_t x_dims[4] = {N, C, H, W};
  const int64_t w_dims[4] = {OC, C / G, KH, KW};
  const int64_t y_dims[4] = {N, OC, OH, OW};
  int64_t count;
  KILN_TRY(kiln_checked_product(x_dims, 4, &count));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[0], count));
  KILN_TRY(kiln_checked_product(w_dims, 4, &count));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[1], count));
  if (ip[P_HAS_BIAS]) KILN_TRY(kiln_check_f32_binding(binding_bytes[2], OC));
  KILN_TRY(kiln_checked_product(y_dims, 4, &count));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[3], count));
  return KILN_OK;
}
