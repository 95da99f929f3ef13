/* Depthwise convolution with column stride 1 or 2, vectorised along output
 * rows: 16 outputs of a row per vector start at the bias and take every tap
 * in (kh, kw) order as one masked load (stride 2: two, and a permute keeping
 * the even elements) and a masked fused multiply-add, so a tap in the padding
 * neither reads memory nor changes the sum, as in depthwise.h's row loop;
 * then the residual and the activation. Four blocks (of one row or of
 * consecutive rows) go through the taps together: independent chains of
 * multiply-adds. The masks and row
 * windows depend only on the geometry, so they are computed once per call
 * and reused for every plane. Taken for planes depthwise_flat.h does not
 * handle (strided, or OW != W); results are deterministic, as there.
 * Internal to runtime/kernels: an AOT bundle copies it beside the kernels. */
#ifndef KILN_KERNELS_DEPTHWISE_ROWS_H_
#define KILN_KERNELS_DEPTHWISE_ROWS_H_

#include <stdint.h>

#include "activation.h"
#include "depthwise.h"
#include "depthwise_flat.h"
#include "simd.h"
#include "vec.h"
#include "window.h"

#define KILN_DWR_BLOCKS 64  /* output blocks of 16 per row (mask tables) */
#define KILN_DWR_ROWS 1024  /* output rows (row window tables) */
#define KILN_DWR_MAX_K 16   /* kernel rows and columns */
#define KILN_DWR_GROUP 4    /* blocks summed together */

#ifdef KILN_HAVE_AVX512

static inline int kiln_dwr_fits(const kiln_dw_geom* g) {
  return (g->SW == 1 || g->SW == 2) && g->KW <= KILN_DWR_MAX_K && g->KH <= KILN_DWR_MAX_K &&
         (g->OW + 15) / 16 <= KILN_DWR_BLOCKS && g->OH <= KILN_DWR_ROWS;
}

/* Planes x[begin..end) (channel p % C) into y; returns 0, having done
 * nothing, when the geometry is not one this path handles. */
static int kiln_dwr_planes_avx512(const kiln_dw_geom* g, const float* x,
                                                    const float* w, const float* bias,
                                                    const float* res, float* y, int64_t C,
                                                    int64_t begin, int64_t end) {
  if (!kiln_dwr_fits(g)) return 0;
  const int64_t W = g->W, OW = g->OW, KH = g->KH, KW = g->KW, SW = g->SW, DW = g->DW;
  const int64_t blocks = (OW + 15) / 16, in_plane = g->H * W, out_plane = g->OH * OW;
  const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
  /* Per block and tap column: the lanes whose tap is inside the row and
   * (stride 2) the input elements they read; per output row: the taps rows
   * inside the plane. */
  __mmask16 lanes[KILN_DWR_BLOCKS][KILN_DWR_MAX_K];
  uint32_t in[KILN_DWR_BLOCKS][KILN_DWR_MAX_K];
  uint8_t kh_lo[KILN_DWR_ROWS], kh_hi[KILN_DWR_ROWS];
  for (int64_t kw = 0; kw < KW; ++kw) {
    int64_t c0, c1;
    kiln_window_range(kw * DW - g->PL, SW, OW, 0, W, &c0, &c1);
    for (int64_t b = 0; b < blocks; ++b) {
      const int64_t ow0 = b * 16, n = OW - ow0 < 16 ? OW - ow0 : 16;
      const int64_t lo = c0 > ow0 ? c0 - ow0 : 0, hi = c1 - ow0 < n ? c1 - ow0 : n;
      lanes[b][kw] = (__mmask16)(lo < hi ? ((1u << hi) - 1u) & ~((1u << lo) - 1u) : 0u);
      in[b][kw] = lo < hi ? (uint32_t)((((uint64_t)1 << (2 * hi)) - 1u) &
                                       ~(((uint64_t)1 << (2 * lo)) - 1u)) & 0x55555555u
                          : 0u;
    }
  }
  for (int64_t oh = 0; oh < g->OH; ++oh) {
    int64_t kh0, kh1;
    kiln_window_range(oh * g->SH - g->PT, g->DH, KH, 0, g->H, &kh0, &kh1);
    kh_lo[oh] = (uint8_t)kh0, kh_hi[oh] = (uint8_t)kh1;
  }
  const int simple_act = g->act == KILN_ACT_NONE || g->act == KILN_ACT_RELU || g->act == KILN_ACT_CLIP;
  const __m512 lo_v = _mm512_set1_ps(g->act_alpha), hi_v = _mm512_set1_ps(g->act_beta);
  for (int64_t p = begin; p < end; ++p) {
    const int64_t c = p % C;
    const float* xp = x + p * in_plane;
    const float* wk = w + c * KH * KW;
    const float* rp = res ? res + p * out_plane : NULL;
    float* yp = y + p * out_plane;
    const float b0v = bias ? bias[c] : 0.0f;
    /* Items are (output row, block) pairs in row-major order; four go
     * through the taps together, so small planes (one block per row) get
     * independent chains too. */
    const int64_t items = g->OH * blocks;
    for (int64_t it = 0; it < items; it += KILN_DWR_GROUP) {
      const int64_t nb = items - it < KILN_DWR_GROUP ? items - it : KILN_DWR_GROUP;
      int64_t oh[KILN_DWR_GROUP], blk[KILN_DWR_GROUP];
      for (int64_t q = 0; q < KILN_DWR_GROUP; ++q) {
        const int64_t i = it + (q < nb ? q : 0);
        oh[q] = i / blocks, blk[q] = i % blocks;
      }
      /* Named accumulators (not an array) so they stay in registers. */
      __m512 a0 = _mm512_set1_ps(b0v), a1 = a0, a2 = a0, a3 = a0;
      for (int64_t kh = 0; kh < KH; ++kh) {
        const float* xr[KILN_DWR_GROUP];
        for (int64_t q = 0; q < KILN_DWR_GROUP; ++q)
          xr[q] = q < nb && kh >= kh_lo[oh[q]] && kh < kh_hi[oh[q]]
                      ? xp + (oh[q] * g->SH - g->PT + kh * g->DH) * W
                      : NULL;
        for (int64_t kw = 0; kw < KW; ++kw) {
          const __m512 wv = _mm512_set1_ps(wk[kh * KW + kw]);
#define KILN_DWR_TAP(q)                                                                        \
  if (xr[q] && lanes[blk[q]][kw]) {                                                            \
    const __mmask16 m = lanes[blk[q]][kw];                                                     \
    const int64_t base = blk[q] * 16 * SW + kw * DW - g->PL; /* input column of lane 0 */      \
    __m512 v;                                                                                  \
    if (SW == 1) {                                                                             \
      v = _mm512_maskz_loadu_ps(m, kiln_simd_at(xr[q], base));                                 \
    } else {                                                                                   \
      const uint32_t e = in[blk[q]][kw];                                                       \
      const __m512 l = _mm512_maskz_loadu_ps((__mmask16)(e & 0xFFFFu), kiln_simd_at(xr[q], base)); \
      const __m512 h = _mm512_maskz_loadu_ps((__mmask16)(e >> 16), kiln_simd_at(xr[q], base + 16)); \
      v = _mm512_permutex2var_ps(l, even, h);                                                  \
    }                                                                                          \
    a##q = _mm512_mask3_fmadd_ps(v, wv, a##q, m);                                              \
  }
          KILN_DWR_TAP(0) KILN_DWR_TAP(1) KILN_DWR_TAP(2) KILN_DWR_TAP(3)
#undef KILN_DWR_TAP
        }
      }
      /* max/min return their second operand when either is NaN: NaN stays,
       * as in activation.h's loops. */
#define KILN_DWR_STORE(q)                                                                      \
  if (nb > q) {                                                                                \
    const int64_t ow0 = blk[q] * 16, n = OW - ow0 < 16 ? OW - ow0 : 16;                        \
    const __mmask16 out = (__mmask16)((1u << n) - 1u);                                         \
    float* yq = yp + oh[q] * OW + ow0;                                                         \
    __m512 v = a##q;                                                                           \
    if (rp) v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(out, rp + oh[q] * OW + ow0));           \
    if (g->act == KILN_ACT_RELU) v = _mm512_max_ps(_mm512_setzero_ps(), v);                    \
    if (g->act == KILN_ACT_CLIP) v = _mm512_min_ps(hi_v, _mm512_max_ps(lo_v, v));              \
    _mm512_mask_storeu_ps(yq, out, v);                                                         \
  }
      KILN_DWR_STORE(0) KILN_DWR_STORE(1) KILN_DWR_STORE(2) KILN_DWR_STORE(3)
#undef KILN_DWR_STORE
    }
    if (!simple_act) kiln_activation_inplace(yp, out_plane, g->act, g->act_alpha, g->act_beta);
  }
  return 1;
}

#endif /* KILN_HAVE_AVX512 */

#ifndef KILN_HAVE_AVX512
/* The other paths, written once against vec.h, for column strides 1 and 2:
 * the input rows a band of output rows reads are copied zero-padded into a
 * stack buffer, stride-2 rows split into their even and odd columns, so
 * every tap of KILN_DWB_NV * KV_LANES consecutive outputs is one contiguous
 * vector load and no tap needs a bounds test. Per output: the bias, every
 * tap in (kh, kw) order (a tap in the padding adds its weight times 0, the
 * zero padding ONNX defines), the residual, the activation. */
#define KILN_DWB_FLOATS 4096 /* the band buffer: 16 KiB of stack */
#define KILN_DWB_NV 4        /* output vectors per block */

typedef struct kiln_dwb_geom {
  int64_t wp;      /* padded columns the row's outputs read */
  int64_t stride;  /* floats per band row (each parity half for stride 2) */
  int64_t half;    /* offset of the odd columns in a band row (stride 2) */
  int64_t rows;    /* output rows per band */
} kiln_dwb_geom;

/* The band layout, or rows = 0 when one output row's band does not fit. */
static inline kiln_dwb_geom kiln_dwb_plan(const kiln_dw_geom* g) {
  kiln_dwb_geom b;
  b.wp = (g->OW - 1) * g->SW + (g->KW - 1) * g->DW + 1;
  /* A row's last vector (blocks of one vector cover the tail) reads up to
   * KV_LANES - 1 columns past its outputs: that slack stays inside the row. */
  const int64_t slack = KV_LANES;
  b.half = g->SW == 2 ? (b.wp + 1) / 2 + slack : 0;
  b.stride = g->SW == 2 ? 2 * b.half : b.wp + slack;
  const int64_t span = (g->KH - 1) * g->DH + 1; /* band rows of one output row */
  b.rows = 0;
  if (b.stride <= KILN_DWB_FLOATS && span <= KILN_DWB_FLOATS / b.stride) {
    b.rows = (KILN_DWB_FLOATS / b.stride - span) / g->SH + 1;
    if (b.rows > g->OH) b.rows = g->OH;
  }
  return b;
}

/* Band row r holds padded input row ih0 + r (zeros outside the image);
 * padded column q is input column q - PL; stride 2 stores q at q/2 of its
 * parity half. Only the padding is zeroed: the image part is overwritten. */
static inline void kiln_dwb_fill(const kiln_dw_geom* g, const kiln_dwb_geom* b,
                                 const float* xp, int64_t ih0, int64_t n_rows, float* band) {
  int64_t q0, q1; /* padded columns inside the image */
  kiln_window_range(-g->PL, 1, b->wp, 0, g->W, &q0, &q1);
  for (int64_t r = 0; r < n_rows; ++r) {
    float* row = band + r * b->stride;
    const int64_t ih = ih0 + r;
    if (ih < 0 || ih >= g->H) {
      for (int64_t q = 0; q < b->stride; ++q) row[q] = 0.0f;
      continue;
    }
    const float* xr = xp + ih * g->W;
    if (g->SW == 2) {
      /* Two strided copies (even, then odd padded columns) that compilers
       * vectorize, rather than one scatter. */
      float* even = row;
      float* odd = row + b->half;
      const int64_t e0 = (q0 + 1) / 2, e1 = (q1 + 1) / 2, o0 = q0 / 2, o1 = q1 / 2;
      for (int64_t i = 0; i < e0; ++i) even[i] = 0.0f;
      for (int64_t i = e0; i < e1; ++i) even[i] = xr[2 * i - g->PL];
      for (int64_t i = e1; i < b->half; ++i) even[i] = 0.0f;
      for (int64_t i = 0; i < o0; ++i) odd[i] = 0.0f;
      for (int64_t i = o0; i < o1; ++i) odd[i] = xr[2 * i + 1 - g->PL];
      for (int64_t i = o1; i < b->half; ++i) odd[i] = 0.0f;
    } else {
      for (int64_t q = 0; q < q0; ++q) row[q] = 0.0f;
      for (int64_t q = q0; q < q1; ++q) row[q] = xr[q - g->PL];
      for (int64_t q = q1; q < b->stride; ++q) row[q] = 0.0f;
    }
  }
}

/* Outputs [ow0, ow0 + NV*KV_LANES) of output row `orow` of the band. */
static KILN_ALWAYS_INLINE void kiln_dwb_block(const kiln_dw_geom* g, const kiln_dwb_geom* b,
                                              const float* band, int64_t orow, int64_t ow0,
                                              const float* wk, float bias, const float* rr,
                                              float* yr, int64_t n_out, const int NV) {
  kv acc[KILN_DWB_NV];
#pragma GCC unroll 4
  for (int v = 0; v < NV; ++v) acc[v] = kv_set1(bias);
  for (int64_t kh = 0; kh < g->KH; ++kh) {
    const float* row = band + (orow * g->SH + kh * g->DH) * b->stride;
    for (int64_t kw = 0; kw < g->KW; ++kw) {
      const int64_t q = kw * g->DW; /* padded column of output 0's tap */
      const float* src =
          g->SW == 2 ? row + (q & 1) * b->half + (q >> 1) + ow0 : row + q + ow0;
      const kv w = kv_set1(wk[kh * g->KW + kw]);
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) acc[v] = kv_fma(kv_load(src + v * KV_LANES), w, acc[v]);
    }
  }
  const int in_reg = g->act == KILN_ACT_RELU || g->act == KILN_ACT_CLIP;
  const kv lo = kv_set1(g->act == KILN_ACT_RELU ? 0.0f : g->act_alpha), hi = kv_set1(g->act_beta);
#pragma GCC unroll 4
  for (int v = 0; v < NV; ++v) {
    const int64_t at = ow0 + v * KV_LANES, n = n_out - at;
    if (n <= 0) break;
    kv a = acc[v];
    if (rr) a = kv_add(a, n >= KV_LANES ? kv_load(rr + at) : kv_load_n(rr + at, n));
    if (in_reg) a = kv_max(lo, a);
    if (g->act == KILN_ACT_CLIP) a = kv_min(hi, a);
    if (n >= KV_LANES) {
      kv_store(yr + at, a);
    } else {
      kv_store_n(yr + at, a, n);
    }
  }
}

static inline int kiln_dwb_planes_vec(const kiln_dw_geom* g, const float* x, const float* w,
                                      const float* bias, const float* res, float* y, int64_t C,
                                      int64_t begin, int64_t end) {
  if (g->SW != 1 && g->SW != 2) return 0;
  const kiln_dwb_geom b = kiln_dwb_plan(g);
  if (b.rows == 0) return 0;
  const int64_t in_plane = g->H * g->W, out_plane = g->OH * g->OW, block = KILN_DWB_NV * KV_LANES;
  const int in_reg = g->act == KILN_ACT_NONE || g->act == KILN_ACT_RELU || g->act == KILN_ACT_CLIP;
  float band[KILN_DWB_FLOATS];
  for (int64_t p = begin; p < end; ++p) {
    const int64_t c = p % C;
    const float* xp = x + p * in_plane;
    const float* wk = w + c * g->KH * g->KW;
    const float bc = bias ? bias[c] : 0.0f;
    for (int64_t oh0 = 0; oh0 < g->OH; oh0 += b.rows) {
      const int64_t rows = g->OH - oh0 < b.rows ? g->OH - oh0 : b.rows;
      kiln_dwb_fill(g, &b, xp, oh0 * g->SH - g->PT, (rows - 1) * g->SH + (g->KH - 1) * g->DH + 1,
                    band);
      for (int64_t r = 0; r < rows; ++r) {
        const int64_t oh = oh0 + r;
        float* yr = y + p * out_plane + oh * g->OW;
        const float* rr = res ? res + p * out_plane + oh * g->OW : NULL;
        int64_t ow0 = 0;
        for (; ow0 + block <= g->OW; ow0 += block)
          kiln_dwb_block(g, &b, band, r, ow0, wk, bc, rr, yr, g->OW, KILN_DWB_NV);
        for (; ow0 < g->OW; ow0 += KV_LANES)
          kiln_dwb_block(g, &b, band, r, ow0, wk, bc, rr, yr, g->OW, 1);
        if (!in_reg) kiln_activation_inplace(yr, g->OW, g->act, g->act_alpha, g->act_beta);
      }
    }
  }
  return 1;
}
#endif /* !KILN_HAVE_AVX512 */

/* The row-vector path of this copy's flags. */
static inline kiln_dwf_fn kiln_dwr_select(void) {
#ifdef KILN_HAVE_AVX512
  return kiln_dwr_planes_avx512;
#else
  return kiln_dwb_planes_vec;
#endif
}

#endif /* KILN_KERNELS_DEPTHWISE_ROWS_H_ */
