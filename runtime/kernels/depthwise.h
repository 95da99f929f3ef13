/* Depthwise convolution (one input and one output channel per group) of one
 * plane. Taps are applied one at a time to a whole output row, which keeps
 * the inner loop a contiguous (or stride-2) vector loop; the row stays in L1.
 * Plain C that the compiler vectorizes for the flags of this copy (simd.h).
 * Internal to runtime/kernels: an AOT bundle copies it beside the kernels. */
#ifndef KILN_KERNELS_DEPTHWISE_H_
#define KILN_KERNELS_DEPTHWISE_H_

#include <stdint.h>

#include "activation.h"
#include "sgemm.h"
#include "window.h"

typedef struct kiln_dw_geom {
  int64_t H, W, OH, OW, KH, KW, SH, SW, PT, PL, DH, DW;
  int64_t act;
  float act_alpha, act_beta;
} kiln_dw_geom;

/* The column window of each kw tap is the same for every row: computed once
 * per plane (up to KILN_DW_MAX_KW taps; wider kernels recompute per row). */
#define KILN_DW_MAX_KW 16
/* y[i] += a * x[i] (x[2i] for the stride-2 form). restrict: the output row
 * never overlaps the input, which lets the compiler vectorise. */
#define KILN_DW_AXPY(NAME, ATTR, STEP)                                                  \
  static ATTR void NAME(float* restrict y, const float* restrict x, float a,          \
                               int64_t n) {                                            \
    for (int64_t i = 0; i < n; ++i) y[i] += a * x[STEP * i];                           \
  }
KILN_DW_AXPY(kiln_dw_axpy, KILN_ALWAYS_INLINE, 1)
KILN_DW_AXPY(kiln_dw_axpy2, KILN_ALWAYS_INLINE, 2)

/* Small stride-1 planes, where rows are too short to vectorise: the plane is
 * copied zero-padded (Hp x Wp), and each tap becomes one long axpy over the
 * flat padded rows; outputs landing in pad columns are computed and dropped.
 * Same operations in the same order as the row loop. Returns 0 when the
 * plane is too large for the stack buffers. */
#define KILN_DW_SMALL 4096
static KILN_ALWAYS_INLINE int kiln_dw_small(const kiln_dw_geom* g, const float* xp,
                                            const float* wk, float bias, const float* rp,
                                            float* yp) {
  const int64_t OH = g->OH, OW = g->OW, W = g->W;
  const int64_t Hp = OH + (g->KH - 1) * g->DH, Wp = OW + (g->KW - 1) * g->DW;
  if (Hp > KILN_DW_SMALL || Wp > KILN_DW_SMALL || Hp * Wp > KILN_DW_SMALL) return 0;
  float xpad[KILN_DW_SMALL], acc[KILN_DW_SMALL];
  for (int64_t q = 0; q < Hp * Wp; ++q) xpad[q] = 0.0f;
  const int64_t r0 = g->PT, r1 = g->PT + g->H < Hp ? g->PT + g->H : Hp;
  const int64_t c0 = g->PL < Wp ? g->PL : Wp, c1 = g->PL + W < Wp ? g->PL + W : Wp;
  for (int64_t r = r0; r < r1; ++r) /* rows and columns holding x[r - PT][c - PL] */
    for (int64_t c = c0; c < c1; ++c) xpad[r * Wp + c] = xp[(r - g->PT) * W + c - g->PL];
  const int64_t n = (OH - 1) * Wp + OW;
  for (int64_t q = 0; q < n; ++q) acc[q] = bias;
  for (int64_t kh = 0; kh < g->KH; ++kh)
    for (int64_t kw = 0; kw < g->KW; ++kw)
      kiln_dw_axpy(acc, xpad + kh * g->DH * Wp + kw * g->DW, wk[kh * g->KW + kw], n);
  for (int64_t oh = 0; oh < OH; ++oh)
    for (int64_t ow = 0; ow < OW; ++ow) yp[oh * OW + ow] = acc[oh * Wp + ow];
  if (rp)
    for (int64_t q = 0; q < OH * OW; ++q) yp[q] += rp[q];
  kiln_activation_inplace(yp, OH * OW, g->act, g->act_alpha, g->act_beta);
  return 1;
}

/* yp = act(bias + conv(xp, wk) + rp) over one OH x OW plane; rp may be NULL. */
static inline void kiln_dw_plane(const kiln_dw_geom* g, const float* xp, const float* wk,
                                 float bias, const float* rp, float* yp) {
  const int64_t W = g->W, OW = g->OW, KW = g->KW, SW = g->SW, DW = g->DW;
  int64_t c0[KILN_DW_MAX_KW], c1[KILN_DW_MAX_KW];
  const int cached = KW <= KILN_DW_MAX_KW;
  if (g->SH == 1 && SW == 1 && kiln_dw_small(g, xp, wk, bias, rp, yp)) return;
  for (int64_t kw = 0; cached && kw < KW; ++kw)
    kiln_window_range(kw * DW - g->PL, SW, OW, 0, W, &c0[kw], &c1[kw]);
  for (int64_t oh = 0; oh < g->OH; ++oh) {
    float* yr = yp + oh * OW;
    for (int64_t ow = 0; ow < OW; ++ow) yr[ow] = bias;
    const int64_t ih0 = oh * g->SH - g->PT;
    int64_t kh0, kh1;
    kiln_window_range(ih0, g->DH, g->KH, 0, g->H, &kh0, &kh1);
    for (int64_t kh = kh0; kh < kh1; ++kh) {
      const float* xr = xp + (ih0 + kh * g->DH) * W;
      for (int64_t kw = 0; kw < KW; ++kw) {
        const float wv = wk[kh * KW + kw];
        const int64_t off = kw * DW - g->PL;
        int64_t o0, o1;
        if (cached) o0 = c0[kw], o1 = c1[kw];
        else kiln_window_range(off, SW, OW, 0, W, &o0, &o1);
        /* xr + off may be far outside the row: form in-row pointers only. */
        if (o0 >= o1) continue;
        if (SW == 1) {
          kiln_dw_axpy(yr + o0, xr + (off + o0), wv, o1 - o0);
        } else if (SW == 2) {
          kiln_dw_axpy2(yr + o0, xr + (off + 2 * o0), wv, o1 - o0);
        } else {
          for (int64_t ow = o0; ow < o1; ++ow) yr[ow] += wv * xr[ow * SW + off];
        }
      }
    }
    if (rp)
      for (int64_t ow = 0; ow < OW; ++ow) yr[ow] += rp[oh * OW + ow];
    kiln_activation_inplace(yr, OW, g->act, g->act_alpha, g->act_beta);
  }
}

#endif /* KILN_KERNELS_DEPTHWISE_H_ */
