/* conv2d_f32 and conv2d_res_f32. A convolution group is one GEMM
 * (sgemm.h): Y[oc, oh*OW+ow] = W[oc, (ic,kh,kw)] * im2col(X)[(ic,kh,kw), oh*OW+ow]
 * with the weights read in place as A. A 1x1/stride-1/unpadded group reads
 * X itself as B; any other window packs im2col columns one K-block of 32
 * columns at a time, so the whole matrix never exists; a one-group layer
 * over at most 4 input channels (an image stem) runs direct instead
 * (conv_small_c.h). Depthwise groups
 * (one channel in, one out) use depthwise_flat.h (AVX-512, stride-1 planes
 * with OW == W), else depthwise_rows.h (AVX-512, column strides 1 and 2),
 * else depthwise.h. Bias, residual and activation
 * are applied in the GEMM epilogue. */
#include <stdint.h>

#include "activation.h"
#include "check_util.h"
#include "conv_check.h"
#include "conv_small_c.h"
#include "depthwise.h"
#include "depthwise_flat.h"
#include "depthwise_rows.h"
#include "host_tasks.h"
#include "kiln/kernels.h"
#include "sgemm.h"
#include "window.h"

_Static_assert(KILN_CONV2D_LAYOUT_OF(CONV2D_RES_F32) &&
                   KILN_CONV2D_RES_F32_IPARAMS == KILN_CONV2D_F32_IPARAMS,
               "conv2d_res_f32 has conv2d_f32's parameters");

typedef struct dw_job {
  kiln_dw_geom g;
  kiln_dwf_fn flat; /* whole planes vectorised flat, or NULL */
  kiln_dwf_fn rows; /* planes vectorised along rows, or NULL */
  const float *x, *w, *bias, *res;
  float* y;
  int64_t C;
} dw_job;

static void dw_planes(void* ctx, int64_t begin, int64_t end) {
  const dw_job* j = (const dw_job*)ctx;
  const int64_t in_plane = j->g.H * j->g.W, out_plane = j->g.OH * j->g.OW;
  const int64_t taps = j->g.KH * j->g.KW;
  if (j->flat && j->flat(&j->g, j->x, j->w, j->bias, j->res, j->y, j->C, begin, end)) return;
  if (j->rows && j->rows(&j->g, j->x, j->w, j->bias, j->res, j->y, j->C, begin, end)) return;
  for (int64_t p = begin; p < end; ++p) {
    const int64_t c = p % j->C;
    kiln_dw_plane(&j->g, j->x + p * in_plane, j->w + c * taps, j->bias ? j->bias[c] : 0.0f,
                  j->res ? j->res + p * out_plane : NULL, j->y + p * out_plane);
  }
}

static int conv_run(const int64_t* ip, const float* fp, void* const* bindings,
                    const float* res, float* y, const kiln_host* host) {
  const int64_t N = ip[P_N], C = ip[P_C], H = ip[P_H], W = ip[P_W];
  const int64_t OC = ip[P_OC], OH = ip[P_OH], OW = ip[P_OW];
  const int64_t KH = ip[P_KH], KW = ip[P_KW], SH = ip[P_SH], SW = ip[P_SW];
  const int64_t PT = ip[P_PT], PL = ip[P_PL], DH = ip[P_DH], DW = ip[P_DW];
  const int64_t G = ip[P_GROUPS];
  const float* x = (const float*)bindings[0];
  const float* w = (const float*)bindings[1];
  const float* bias = ip[P_HAS_BIAS] ? (const float*)bindings[2] : NULL;

  const int64_t cpg = C / G, ocpg = OC / G;
  const int64_t in_plane = H * W, out_plane = OH * OW, wsize = cpg * KH * KW;

  if (cpg == 1 && ocpg == 1) {
    dw_job j;
    j.g.H = H, j.g.W = W, j.g.OH = OH, j.g.OW = OW, j.g.KH = KH, j.g.KW = KW;
    j.g.SH = SH, j.g.SW = SW, j.g.PT = PT, j.g.PL = PL, j.g.DH = DH, j.g.DW = DW;
    j.g.act = ip[P_ACT], j.g.act_alpha = fp[KILN_FP_CONV2D_F32_ACT_ALPHA],
    j.g.act_beta = fp[KILN_FP_CONV2D_F32_ACT_BETA];
    j.flat = kiln_dwf_select();
    j.rows = kiln_dwr_select();
    j.x = x, j.w = w, j.bias = bias, j.res = res, j.y = y, j.C = C;
    /* Small layers stay on one thread: the hand-off would cost more. */
    kiln_run_tasks(host, N * C, (double)N * C * out_plane * KH * KW, (double)(1 << 17),
                   dw_planes, &j);
    return KILN_OK;
  }

  smallc_job sj;
  if (smallc_fits(ip, &sj)) {
    smallc_run(&sj, ip, fp, bindings, res, y, host);
    return KILN_OK;
  }

  const int pointwise = KH == 1 && KW == 1 && SH == 1 && SW == 1 && PT == 0 &&
                        PL == 0 && OH == H && OW == W;
  kiln_im2col col;
  col.H = H, col.W = W, col.OW = OW, col.KH = KH, col.KW = KW, col.SH = SH, col.SW = SW;
  col.PT = PT, col.PL = PL, col.DH = DH, col.DW = DW;
  col.KD = 0, col.D = 0, col.ID0 = 0, col.DD = 0; /* a 2-D window */
  kiln_gemm_desc d = {0};
  d.M = ocpg, d.N = out_plane, d.K = wsize;
  d.a_rs = wsize, d.a_cs = 1;
  d.y_rs = out_plane;
  d.ep.alpha = 1.0f, d.ep.beta = 1.0f;
  d.ep.c_rs = 1, d.ep.c_cs = 0;
  d.ep.r_rs = out_plane;
  d.ep.act = ip[P_ACT], d.ep.act_alpha = fp[KILN_FP_CONV2D_F32_ACT_ALPHA],
  d.ep.act_beta = fp[KILN_FP_CONV2D_F32_ACT_BETA];
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t g = 0; g < G; ++g) {
      const float* xg = x + (n * C + g * cpg) * in_plane;
      const int64_t y_off = (n * OC + g * ocpg) * out_plane;
      d.a = w + g * ocpg * wsize;
      if (pointwise) {
        d.b = xg, d.b_rs = in_plane, d.b_cs = 1, d.im2col = NULL;
      } else {
        col.x = xg;
        d.im2col = &col;
      }
      d.y = y + y_off;
      d.ep.c = bias ? bias + g * ocpg : NULL;
      d.ep.r = res ? res + y_off : NULL;
      kiln_sgemm(&d, host);
    }
  }
  return KILN_OK;
}

int kiln_conv2d_f32(const int64_t* ip, const float* fp, void* const* bindings,
                    const kiln_host* host) {
  return conv_run(ip, fp, bindings, NULL, (float*)bindings[3], host);
}

int kiln_conv2d_res_f32(const int64_t* ip, const float* fp, void* const* bindings,
                        const kiln_host* host) {
  return conv_run(ip, fp, bindings, (const float*)bindings[3], (float*)bindings[4], host);
}

int kiln_conv2d_f32_check(const int64_t* ip, uint32_t iparam_count,
                          const float* fp, uint32_t fparam_count,
                          const uint64_t* binding_bytes) {
  return kiln_conv_check(ip, iparam_count, fp, fparam_count, binding_bytes, 3, 0);
}

int kiln_conv2d_res_f32_check(const int64_t* ip, uint32_t iparam_count,
                              const float* fp, uint32_t fparam_count,
                              const uint64_t* binding_bytes) {
  return kiln_conv_res_check(ip, iparam_count, fp, fparam_count, binding_bytes, 0);
}
