/* Depthwise convolution of stride-1 planes whose output rows are as wide as
 * the input rows (OW == W: "same" width padding), vectorised over the
 * flattened plane: one AVX-512 vector holds 16 consecutive outputs of one
 * channel, across row ends. Small planes (DS-CNN: 25 x 5) would otherwise
 * waste most lanes on 5-wide rows.
 *
 * With OW == W, output q = oh*W + ow reads input q + off(kh, kw) for every
 * tap, so each tap of a 16-output block is one contiguous masked load. The
 * mask drops lanes whose tap falls in the padding (row or column outside
 * the plane): a dropped lane neither reads memory (AVX-512 masked loads do
 * not touch masked-out elements) nor accumulates, exactly as the row path
 * skips out-of-range taps. The masks depend only on the geometry, so they
 * are computed once per tile of output blocks and reused for every channel.
 *
 * Per output: bias, the taps in (kh, kw) order (fused multiply-add, as the
 * GEMM's SIMD paths), the residual, the activation. No other path or thread
 * count changes that order, so results are deterministic.
 * Internal to runtime/kernels: an AOT bundle copies it beside the kernels. */
#ifndef KILN_KERNELS_DEPTHWISE_FLAT_H_
#define KILN_KERNELS_DEPTHWISE_FLAT_H_

#include <stdint.h>

#include "activation.h"
#include "depthwise.h"
#include "sgemm.h"

/* Planes x[begin..end) (channel p % C) into y; returns 0, having done
 * nothing, when the geometry is not one this path handles. */
typedef int (*kiln_dwf_fn)(const kiln_dw_geom* g, const float* x, const float* w,
                           const float* bias, const float* res, float* y, int64_t C,
                           int64_t begin, int64_t end);

#define KILN_DWF_MAX_K 8     /* kernel rows and columns */
#define KILN_DWF_TILE 16     /* output blocks of 16 per mask tile */
#define KILN_DWF_MAX_DIM 4096 /* keeps every lane index and offset in int32 */

static inline int kiln_dwf_fits(const kiln_dw_geom* g) {
  const int64_t M = KILN_DWF_MAX_DIM;
  return g->SH == 1 && g->SW == 1 && g->OW == g->W && g->W > 0 && g->H > 0 && g->OH > 0 &&
         g->W <= M && g->H <= M && g->OH <= M && g->KH <= KILN_DWF_MAX_K &&
         g->KW <= KILN_DWF_MAX_K && g->DH <= M && g->DW <= M && g->PT <= M && g->PL <= M;
}

#ifdef KILN_HAVE_AVX512

/* Blocks [b0, b1) of one plane. m holds T masks per block; T is a constant
 * in the specialised calls so the weights stay in registers. */
static KILN_ALWAYS_INLINE void kiln_dwf_tile512(
    const float* xp, const float* wk, float bias, const float* rp, float* yp,
    const int64_t* off, const __mmask16* m, int64_t b0, int64_t b1, int64_t n_out,
    int64_t act, float alpha, float beta, const int64_t T) {
  __m512 wv[KILN_DWF_MAX_K * KILN_DWF_MAX_K];
  for (int64_t t = 0; t < T; ++t) wv[t] = _mm512_set1_ps(wk[t]);
  const __m512 bv = _mm512_set1_ps(bias), zero = _mm512_setzero_ps();
  const __m512 lo = _mm512_set1_ps(alpha), hi = _mm512_set1_ps(beta);
  for (int64_t b = b0; b < b1; ++b) {
    const int64_t q = b * 16;
    const __mmask16* mb = m + (b - b0) * T;
    __m512 acc = bv;
    for (int64_t t = 0; t < T; ++t) {
      const __m512 v = _mm512_maskz_loadu_ps(mb[t], kiln_simd_at(xp, q + off[t]));
      acc = _mm512_mask3_fmadd_ps(v, wv[t], acc, mb[t]);
    }
    const __mmask16 sm =
        n_out - q >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (n_out - q)) - 1u);
    if (rp) acc = _mm512_add_ps(acc, _mm512_maskz_loadu_ps(sm, rp + q));
    /* max/min return their second operand when either is NaN: NaN stays,
     * as in activation.h's loops. */
    if (act == KILN_ACT_RELU) acc = _mm512_max_ps(zero, acc);
    if (act == KILN_ACT_CLIP) acc = _mm512_min_ps(hi, _mm512_max_ps(lo, acc));
    _mm512_mask_storeu_ps(yp + q, sm, acc);
  }
}

static int kiln_dwf_planes_avx512(const kiln_dw_geom* g, const float* x,
                                                     const float* w, const float* bias,
                                                     const float* res, float* y, int64_t C,
                                                     int64_t begin, int64_t end) {
  if (!kiln_dwf_fits(g)) return 0;
  const int64_t H = g->H, W = g->W, KH = g->KH, KW = g->KW, T = KH * KW;
  const int64_t n_in = H * W, n_out = g->OH * W, nb = (n_out + 15) / 16;
  const int64_t act = g->act;
  /* ReLU and Clip are applied in registers; other kinds after each tile. */
  const int in_reg = act == KILN_ACT_NONE || act == KILN_ACT_RELU || act == KILN_ACT_CLIP;
  int64_t off[KILN_DWF_MAX_K * KILN_DWF_MAX_K];
  for (int64_t kh = 0; kh < KH; ++kh)
    for (int64_t kw = 0; kw < KW; ++kw)
      off[kh * KW + kw] = (kh * g->DH - g->PT) * W + kw * g->DW - g->PL;

  /* Lane coordinates (oh, ow) of the current block, stepped by 16 outputs. */
  int32_t lh[16], lw[16];
  for (int l = 0; l < 16; ++l) lh[l] = (int32_t)(l / W), lw[l] = (int32_t)(l % W);
  __m512i oh = _mm512_loadu_si512(lh), ow = _mm512_loadu_si512(lw);
  const __m512i step_h = _mm512_set1_epi32((int32_t)(16 / W));
  const __m512i step_w = _mm512_set1_epi32((int32_t)(16 % W));
  const __m512i Wv = _mm512_set1_epi32((int32_t)W), Hv = _mm512_set1_epi32((int32_t)H);
  const __m512i one = _mm512_set1_epi32(1);

  __mmask16 m[KILN_DWF_TILE * KILN_DWF_MAX_K * KILN_DWF_MAX_K];
  for (int64_t b0 = 0; b0 < nb; b0 += KILN_DWF_TILE) {
    const int64_t b1 = nb - b0 < KILN_DWF_TILE ? nb : b0 + KILN_DWF_TILE;
    for (int64_t b = b0; b < b1; ++b) {
      __mmask16 rm[KILN_DWF_MAX_K], cm[KILN_DWF_MAX_K];
      /* Unsigned compare: in [0, H) <=> (unsigned)(oh + kh*DH - PT) < H. */
      for (int64_t kh = 0; kh < KH; ++kh)
        rm[kh] = _mm512_cmplt_epu32_mask(
            _mm512_add_epi32(oh, _mm512_set1_epi32((int32_t)(kh * g->DH - g->PT))), Hv);
      for (int64_t kw = 0; kw < KW; ++kw)
        cm[kw] = _mm512_cmplt_epu32_mask(
            _mm512_add_epi32(ow, _mm512_set1_epi32((int32_t)(kw * g->DW - g->PL))), Wv);
      for (int64_t kh = 0; kh < KH; ++kh)
        for (int64_t kw = 0; kw < KW; ++kw)
          m[(b - b0) * T + kh * KW + kw] = (__mmask16)(rm[kh] & cm[kw]);
      oh = _mm512_add_epi32(oh, step_h);
      ow = _mm512_add_epi32(ow, step_w);
      const __mmask16 wrap = _mm512_cmpge_epi32_mask(ow, Wv);
      ow = _mm512_mask_sub_epi32(ow, wrap, ow, Wv);
      oh = _mm512_mask_add_epi32(oh, wrap, oh, one);
    }
    for (int64_t p = begin; p < end; ++p) {
      const int64_t c = p % C;
      const float* xp = x + p * n_in;
      const float* wk = w + c * T;
      const float bc = bias ? bias[c] : 0.0f;
      const float* rp = res ? res + p * n_out : NULL;
      float* yp = y + p * n_out;
      const int64_t ra = in_reg ? act : KILN_ACT_NONE;
      if (T == 9)
        kiln_dwf_tile512(xp, wk, bc, rp, yp, off, m, b0, b1, n_out, ra, g->act_alpha,
                         g->act_beta, 9);
      else
        kiln_dwf_tile512(xp, wk, bc, rp, yp, off, m, b0, b1, n_out, ra, g->act_alpha,
                         g->act_beta, T);
      if (!in_reg) {
        const int64_t q1 = b1 * 16 < n_out ? b1 * 16 : n_out;
        kiln_activation_inplace(yp + b0 * 16, q1 - b0 * 16, act, g->act_alpha, g->act_beta);
      }
    }
  }
  return 1;
}

#endif /* KILN_HAVE_AVX512 */

/* The flat path for this CPU (VM) or these compile flags (AOT), or NULL. */
static inline kiln_dwf_fn kiln_dwf_select(void) {
#if defined(KILN_HAVE_AVX512)
  return kiln_dwf_planes_avx512;
#else
  return NULL;
#endif
}

#endif /* KILN_KERNELS_DEPTHWISE_FLAT_H_ */
