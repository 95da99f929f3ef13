/* conv_transpose_f32 (2-D, groups, dilations).
 * ConvTranspose scatters each input pixel through the kernel: output
 * oh = ih*stride - pad + kh*dilation, kept when it lands inside [0, OH). */
#include <stdint.h>

#include "check_util.h"
#include "kiln/kernel_params.h"
#include "kiln/kernels.h"

enum {
  CT_N = KILN_IP_CONV_TRANSPOSE_F32_N,
  CT_C = KILN_IP_CONV_TRANSPOSE_F32_C,
  CT_H = KILN_IP_CONV_TRANSPOSE_F32_H,
  CT_W = KILN_IP_CONV_TRANSPOSE_F32_W,
  CT_OC = KILN_IP_CONV_TRANSPOSE_F32_OC,
  CT_OH = KILN_IP_CONV_TRANSPOSE_F32_OH,
  CT_OW = KILN_IP_CONV_TRANSPOSE_F32_OW,
  CT_KH = KILN_IP_CONV_TRANSPOSE_F32_KH,
  CT_KW = KILN_IP_CONV_TRANSPOSE_F32_KW,
  CT_SH = KILN_IP_CONV_TRANSPOSE_F32_STRIDE_H,
  CT_SW = KILN_IP_CONV_TRANSPOSE_F32_STRIDE_W,
  CT_PT = KILN_IP_CONV_TRANSPOSE_F32_PAD_TOP,
  CT_PL = KILN_IP_CONV_TRANSPOSE_F32_PAD_LEFT,
  CT_DH = KILN_IP_CONV_TRANSPOSE_F32_DILATION_H,
  CT_DW = KILN_IP_CONV_TRANSPOSE_F32_DILATION_W,
  CT_GROUPS = KILN_IP_CONV_TRANSPOSE_F32_GROUPS,
  CT_HAS_BIAS = KILN_IP_CONV_TRANSPOSE_F32_HAS_BIAS,
  CT_COUNT = KILN_CONV_TRANSPOSE_F32_IPARAMS
};

int kiln_conv_transpose_f32(const int64_t* ip, const float* fp, void* const* bindings,
                            const kiln_host* host) {
  (void)fp;
  (void)host;
  const int64_t N = ip[CT_N], C = ip[CT_C], H = ip[CT_H], W = ip[CT_W];
  const int64_t OC = ip[CT_OC], OH = ip[CT_OH], OW = ip[CT_OW];
  const int64_t KH = ip[CT_KH], KW = ip[CT_KW], SH = ip[CT_SH], SW = ip[CT_SW];
  const int64_t PT = ip[CT_PT], PL = ip[CT_PL], DH = ip[CT_DH], DW = ip[CT_DW];
  const int64_t G = ip[CT_GROUPS];
  const int64_t cg = C / G, ocg = OC / G;
  const float* x = (const float*)bindings[0];
  const float* w = (const float*)bindings[1];
  const float* b = ip[CT_HAS_BIAS] ? (const float*)bindings[2] : NULL;
  float* y = (float*)bindings[3];
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t oc = 0; oc < OC; ++oc) {
      float* yp = y + (n * OC + oc) * OH * OW;
      const float v = b ? b[oc] : 0.0f;
      for (int64_t k = 0; k < OH * OW; ++k) yp[k] = v;
    }
    for (int64_t g = 0; g < G; ++g) {
      for (int64_t ci = 0; ci < cg; ++ci) {
        const int64_t c = g * cg + ci;
        const float* xp = x + (n * C + c) * H * W;
        for (int64_t o = 0; o < ocg; ++o) {
          const int64_t oc = g * ocg + o;
          const float* wk = w + (c * ocg + o) * KH * KW;
          float* yp = y + (n * OC + oc) * OH * OW;
          for (int64_t ih = 0; ih < H; ++ih) {
            for (int64_t kh = 0; kh < KH; ++kh) {
              const int64_t oh = ih * SH - PT + kh * DH;
              if (oh < 0 || oh >= OH) continue;
              for (int64_t iw = 0; iw < W; ++iw) {
                const float xv = xp[ih * W + iw];
                for (int64_t kw = 0; kw < KW; ++kw) {
                  const int64_t ow = iw * SW - PL + kw * DW;
                  if (ow >= 0 && ow < OW) yp[oh * OW + ow] += xv * wk[kh * KW + kw];
                }
              }
            }
          }
        }
      }
    }
  }
  return KILN_OK;
}

/* bindings: [0] x [N,C,H,W]  [1] w [C, OC/groups, KH, KW]  [2] bias [OC]  [3] y
 * iparams (17): N C H W OC OH OW KH KW stride_h stride_w pad_top pad_left
 *               dilation_h dilation_w groups has_bias */
int kiln_conv_transpose_f32_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                                  uint32_t fparam_count, const uint64_t* binding_bytes) {
  KILN_TRY(kiln_check_counts(ip, iparam_count, CT_COUNT, fp, fparam_count, 0));
  KILN_TRY(kiln_check_nonneg(ip, CT_COUNT));
  KILN_TRY(kiln_check_enum(ip[CT_HAS_BIAS], 0, 1));
  const int64_t G = ip[CT_GROUPS];
  if (G < 1 || ip[CT_C] % G != 0 || ip[CT_OC] % G != 0) return KILN_ERR_INVALID_ARGUMENT;
  if (ip[CT_SH] < 1 || ip[CT_SW] < 1 || ip[CT_DH] < 1 || ip[CT_DW] < 1)
    return KILN_ERR_INVALID_ARGUMENT;
  /* Every index formed stays in int64: ih*SH + kh*DH and the plane sizes. */
  int64_t t, u;
  KILN_TRY(kiln_checked_mul(ip[CT_H], ip[CT_SH], &t));
  KILN_TRY(kiln_checked_mul(ip[CT_KH], ip[CT_DH], &u));
  KILN_TRY(kiln_checked_add(t, u, &t));
  KILN_TRY(kiln_checked_mul(ip[CT_W], ip[CT_SW], &t));
  KILN_TRY(kiln_checked_mul(ip[CT_KW], ip[CT_DW], &u));
  KILN_TRY(kiln_checked_add(t, u, &t));
  /* The bias fill (N x OC x OH*OW) and the scatter (N x G x C/G x OC/G x
   * H x KH x W x KW) are separate nests; the group loop runs even when C and
   * OC are 0 (any G divides them). */
  const int64_t fill[4] = {ip[CT_N], ip[CT_OC], ip[CT_OH], ip[CT_OW]};
  KILN_TRY(kiln_check_work(fill, 4));
  const int64_t loops[8] = {ip[CT_N], G, ip[CT_C] / G, ip[CT_OC] / G, ip[CT_H],
                            ip[CT_KH], ip[CT_W], ip[CT_KW]};
  KILN_TRY(kiln_check_work(loops, 8));
  const int64_t xd[4] = {ip[CT_N], ip[CT_C], ip[CT_H], ip[CT_W]};
  const int64_t wd[4] = {ip[CT_C], ip[CT_OC] / G, ip[CT_KH], ip[CT_KW]};
  const int64_t yd[4] = {ip[CT_N], ip[CT_OC], ip[CT_OH], ip[CT_OW]};
  int64_t n;
  KILN_TRY(kiln_checked_product(xd, 4, &n));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[0], n));
  KILN_TRY(kiln_checked_product(wd, 4, &n));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[1], n));
  if (ip[CT_HAS_BIAS]) KILN_TRY(kiln_check_f32_binding(binding_bytes[2], ip[CT_OC]));
  KILN_TRY(kiln_checked_product(yd, 4, &n));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[3], n));
  return KILN_OK;
}
