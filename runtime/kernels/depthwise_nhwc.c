/* conv2d_dw_nhwc_f32: depthwise 2-D convolution on channels-last tensors
 * (kernels.h). Channels sit in the vector lanes, so a narrow plane (the 25 x 5
 * of DS-CNN) wastes no lanes, which the width-in-lanes NCHW depthwise does.
 *
 * A task is one output row of one image. Along the row, positions whose
 * window lies wholly inside the image ("interior") go in blocks of up to 8
 * positions x up to 4 channel vectors of accumulators held in registers; a
 * position whose window crosses the border runs alone over only the taps
 * inside, so no tap needs a bounds check and padding is never read. A short
 * row with a border (DS-CNN's 5 positions) instead runs as one block whose
 * border taps are merge-masked FMAs: fewer, fuller blocks.
 *
 * Per output: taps in (kh, kw) order, skipping those in the padding, then
 * bias, then the activation (kiln_activation_apply's semantics). That order
 * depends on neither the blocking nor the task partition, so results do not
 * depend on threads. */
#include <stdint.h>

#include "activation.h"
#include "conv_check.h"
#include "host_tasks.h"
#include "kiln/kernel_params.h"
#include "kiln/kernels.h"
#include "simd.h"
#include "vec.h"

_Static_assert(KILN_CONV2D_LAYOUT_OF(CONV2D_DW_NHWC_F32) &&
                   KILN_CONV2D_DW_NHWC_F32_IPARAMS == KILN_CONV2D_F32_IPARAMS,
               "conv2d_dw_nhwc_f32 has conv2d_f32's parameters");

typedef struct dwn_job dwn_job;
typedef void (*dwn_row_fn)(const dwn_job* j, int64_t n, int64_t oh);

struct dwn_job {
  const int64_t* ip;
  const float *x, *w, *bias;
  float* y;
  dwn_row_fn row_fn;
  int64_t first, end; /* the interior positions of every output row */
  /* Rows of 2..8 positions with a border, KW <= 8: row_k[ow][kw] is 0xFFFF
   * when tap kw of position ow is inside, else 0 (a lane mask); taps
   * [row_kw_lo, row_kw_hi) are inside for some position. row_off[ow][kw] is
   * the offset in a row of x of the tap's pixel, or for a tap outside, of
   * the position's nearest tap inside (read, never added). row_kw_hi is 0
   * otherwise. */
  uint16_t row_k[8][8];
  int64_t row_off[8][8];
  uint8_t row_all[8]; /* row_all[kw]: tap kw is inside for every position */
  int64_t row_kw_lo, row_kw_hi;
  float act_alpha, act_beta;
  int64_t reused; /* channels [0, reused) go through dwn_reuse_rows */
};

/* The taps k in [*lo, *hi) of one axis whose input index
 * base + k*dil lies in [0, in); empty when *lo >= *hi. */
static void dwn_tap_range(int64_t base, int64_t k, int64_t dil, int64_t in, int64_t* lo,
                          int64_t* hi) {
  /* Divisions cost more than a small row's taps: none when dil is 1. */
  int64_t l = base >= 0 ? 0 : (dil == 1 ? -base : (-base + dil - 1) / dil);
  int64_t h = in - base <= 0 ? 0 : (dil == 1 ? in - base : (in - base + dil - 1) / dil);
  if (h > k) h = k;
  if (l > h) l = h;
  *lo = l, *hi = h;
}

/* The interior positions [*first, *end) of one output row: those whose
 * whole window (KW taps) lies inside [0, W). The set is contiguous because
 * both bounds move one way as ow grows. */
static void dwn_interior(const int64_t* ip, int64_t* first, int64_t* end) {
  const int64_t OW = ip[P_OW], KW = ip[P_KW];
  int64_t f = OW, e = OW;
  for (int64_t ow = 0; ow < OW; ++ow) {
    int64_t lo, hi;
    dwn_tap_range(ow * ip[P_SW] - ip[P_PL], KW, ip[P_DW], ip[P_W], &lo, &hi);
    const int full = lo == 0 && hi == KW;
    if (full && f == OW) f = ow;
    if (!full && f != OW) {
      e = ow;
      break;
    }
  }
  *first = f, *end = e;
}

#ifdef KILN_HAVE_AVX512
/* Fills j's row_k, row_off, row_all, row_kw_lo and row_kw_hi (see dwn_job). */
static void dwn_short_row(const int64_t* ip, dwn_job* j) {
  const int64_t OW = ip[P_OW], KW = ip[P_KW];
  j->row_kw_lo = KW, j->row_kw_hi = 0;
  if (OW < 2 || OW > 8 || KW > 8 || (j->first == 0 && j->end == OW)) {
    j->row_kw_lo = 0;
    return;
  }
  for (int64_t kw = 0; kw < KW; ++kw) j->row_all[kw] = 1;
  for (int64_t ow = 0; ow < OW; ++ow) {
    int64_t lo, hi;
    dwn_tap_range(ow * ip[P_SW] - ip[P_PL], KW, ip[P_DW], ip[P_W], &lo, &hi);
    for (int64_t kw = 0; kw < KW; ++kw) {
      const int64_t in = kw < lo ? lo : (kw >= hi ? hi - 1 : kw);
      j->row_k[ow][kw] = in == kw ? 0xFFFF : 0;
      if (in != kw) j->row_all[kw] = 0;
      j->row_off[ow][kw] = lo < hi ? (ow * ip[P_SW] - ip[P_PL] + in * ip[P_DW]) * ip[P_C] : 0;
    }
    if (lo < hi && lo < j->row_kw_lo) j->row_kw_lo = lo;
    if (lo < hi && hi > j->row_kw_hi) j->row_kw_hi = hi;
  }
  if (j->row_kw_hi == 0) j->row_kw_lo = 0; /* every tap in the padding */
}
#endif

#ifndef KILN_HAVE_AVX512
/* The other paths, written once against vec.h: blocks of MB positions x NV
 * channel vectors in registers (AVX2 6 x 2x8, NEON 6 x 4x4, portable
 * 4 x 2x4); a border position runs alone over exactly its inside taps, and
 * the last channels (fewer than a vector) go through a lane buffer. */
#if KV_LANES == 8
#define DWN_VEC_MB 6
#define DWN_VEC_NV 2
#elif KV_LANES == 4 && defined(KILN_HAVE_NEON)
#define DWN_VEC_MB 6
#define DWN_VEC_NV 4
#else
#define DWN_VEC_MB 4
#define DWN_VEC_NV 2
#endif

typedef struct dwn_vblk {
  const float* x; /* image n, channel c0 */
  const float* w; /* channel c0 */
  const float* bias; /* channel c0, or NULL */
  int64_t C, W, KW, SW, DW, PL, ih0, DH, kh_lo, kh_hi, act, tail;
  float alpha, beta;
} dwn_vblk;

static KILN_ALWAYS_INLINE kv dwn_vload(const float* p, int64_t tail, const int TAIL) {
  return TAIL ? kv_load_n(p, tail) : kv_load(p);
}

/* MB positions from ow0 x NV vectors over taps kw in [kw_lo, kw_hi), inside
 * for every position; TAIL: one vector of b->tail lanes. Per output: taps in
 * (kh, kw) order, then bias, then ReLU / Clip (other kinds: the caller). */
static KILN_ALWAYS_INLINE void dwn_vblock_body(const dwn_vblk* b, float* y, int64_t ow0,
                                               int64_t kw_lo, int64_t kw_hi, const int MB,
                                               const int NV, const int TAIL) {
  kv acc[DWN_VEC_MB][DWN_VEC_NV];
#pragma GCC unroll 8
  for (int p = 0; p < MB; ++p)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[p][v] = kv_zero();
  const int64_t C = b->C, pstep = b->SW * C;
  for (int64_t kh = b->kh_lo; kh < b->kh_hi; ++kh) {
    const int64_t ih = b->ih0 + kh * b->DH;
    const float* wr = b->w + kh * b->KW * C;
    for (int64_t kw = kw_lo; kw < kw_hi; ++kw) {
      /* Offsets in integers: only the taps' own addresses are formed. */
      const float* xk = b->x + (ih * b->W + ow0 * b->SW - b->PL + kw * b->DW) * C;
      kv wv[DWN_VEC_NV];
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) wv[v] = dwn_vload(wr + kw * C + v * KV_LANES, b->tail, TAIL);
#pragma GCC unroll 8
      for (int p = 0; p < MB; ++p)
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v)
          acc[p][v] = kv_fma(dwn_vload(xk + p * pstep + v * KV_LANES, b->tail, TAIL), wv[v],
                             acc[p][v]);
    }
  }
  const kv lo = kv_set1(b->act == KILN_ACT_RELU ? 0.0f : b->alpha), hi = kv_set1(b->beta);
#pragma GCC unroll 4
  for (int v = 0; v < NV; ++v) {
    const kv bv = b->bias ? dwn_vload(b->bias + v * KV_LANES, b->tail, TAIL) : kv_zero();
#pragma GCC unroll 8
    for (int p = 0; p < MB; ++p) {
      kv a = acc[p][v];
      if (b->bias) a = kv_add(a, bv);
      if (b->act == KILN_ACT_RELU || b->act == KILN_ACT_CLIP) a = kv_max(lo, a);
      if (b->act == KILN_ACT_CLIP) a = kv_min(hi, a);
      float* yp = y + p * C + v * KV_LANES;
      if (TAIL) {
        kv_store_n(yp, a, b->tail);
      } else {
        kv_store(yp, a);
      }
    }
  }
}

#define DWN_VCASE(MB, NV, TAIL) \
  case MB: dwn_vblock_body(b, y, ow0, kw_lo, kw_hi, MB, NV, TAIL); break;
#if DWN_VEC_MB > 4
#define DWN_VCASES(NV, TAIL) \
  DWN_VCASE(6, NV, TAIL) DWN_VCASE(5, NV, TAIL) DWN_VCASE(4, NV, TAIL) DWN_VCASE(3, NV, TAIL) \
  DWN_VCASE(2, NV, TAIL)
#else
#define DWN_VCASES(NV, TAIL) DWN_VCASE(4, NV, TAIL) DWN_VCASE(3, NV, TAIL) DWN_VCASE(2, NV, TAIL)
#endif

/* One block of mb positions: nv full vectors, or (tail) one partial one. */
static void dwn_vblock(const dwn_vblk* b, float* y, int64_t ow0, int64_t kw_lo, int64_t kw_hi,
                       int64_t mb, int64_t nv, int tail) {
  if (tail) {
    switch (mb) {
      DWN_VCASES(1, 1)
      default: dwn_vblock_body(b, y, ow0, kw_lo, kw_hi, 1, 1, 1);
    }
  } else if (nv == DWN_VEC_NV) {
    switch (mb) {
      DWN_VCASES(DWN_VEC_NV, 0)
      default: dwn_vblock_body(b, y, ow0, kw_lo, kw_hi, 1, DWN_VEC_NV, 0);
    }
  } else if (nv == 1) {
    switch (mb) {
      DWN_VCASES(1, 0)
      default: dwn_vblock_body(b, y, ow0, kw_lo, kw_hi, 1, 1, 0);
    }
  } else {
    /* Fewer full vectors than a group: one at a time. */
    for (int64_t v = 0; v < nv; ++v) {
      dwn_vblk one = *b;
      one.x += v * KV_LANES, one.w += v * KV_LANES;
      if (one.bias) one.bias += v * KV_LANES;
      dwn_vblock(&one, y + v * KV_LANES, ow0, kw_lo, kw_hi, mb, 1, 0);
    }
  }
}
#undef DWN_VCASES
#undef DWN_VCASE

static void dwn_row_vec(const dwn_job* j, int64_t n, int64_t oh) {
  const int64_t* ip = j->ip;
  const int64_t C = ip[P_C], H = ip[P_H], W = ip[P_W], OH = ip[P_OH], OW = ip[P_OW];
  dwn_vblk b;
  b.C = C, b.W = W, b.KW = ip[P_KW], b.SW = ip[P_SW], b.DW = ip[P_DW], b.PL = ip[P_PL];
  b.DH = ip[P_DH], b.ih0 = oh * ip[P_SH] - ip[P_PT];
  b.act = ip[P_ACT], b.alpha = j->act_alpha, b.beta = j->act_beta, b.tail = C % KV_LANES;
  dwn_tap_range(b.ih0, ip[P_KH], b.DH, H, &b.kh_lo, &b.kh_hi);
  float* yrow = j->y + (n * OH + oh) * OW * C;
  /* Positions outside, channel groups inside: a block's input pixels stay in
   * L1 for all their channels, and each input row is read once, front to
   * back, which the prefetchers follow, not once per group a line of each
   * pixel at a time (kiln_benchmarks BM_DepthwiseNhwc, AMD EPYC Zen 4:
   * MobileNetV2's 96-channel stride-2 layer, input from memory, 0.78-0.85 of
   * the time on avx2, 0.84-0.89 on portable; dwn_row_avx512's wider groups
   * showed no difference that way and keep groups outside). From the first
   * channel the reuse path left. */
  const int64_t full = C / KV_LANES, group = DWN_VEC_NV, v_first = j->reused / KV_LANES;
  for (int64_t ow = 0, mb, kw_lo, kw_hi; ow < OW; ow += mb) {
    if (ow >= j->first && ow < j->end) {
      /* Interior run split into equal blocks: 7 is 4 + 3, not 6 + 1. */
      const int64_t left = j->end - ow, blocks = (left + DWN_VEC_MB - 1) / DWN_VEC_MB;
      mb = (left + blocks - 1) / blocks, kw_lo = 0, kw_hi = b.KW;
    } else {
      mb = 1;
      dwn_tap_range(ow * b.SW - b.PL, b.KW, b.DW, W, &kw_lo, &kw_hi);
    }
    for (int64_t v0 = v_first, nv; v0 < full + (b.tail != 0); v0 += nv) {
      const int tail = v0 >= full;
      nv = tail ? 1 : (full - v0 < group ? full - v0 : group);
      const int64_t c0 = v0 * KV_LANES;
      b.x = j->x + n * H * W * C + c0;
      b.w = j->w + c0;
      b.bias = j->bias ? j->bias + c0 : NULL;
      dwn_vblock(&b, yrow + ow * C + c0, ow, kw_lo, kw_hi, mb, nv, tail);
    }
  }
  if (b.act != KILN_ACT_NONE && b.act != KILN_ACT_RELU && b.act != KILN_ACT_CLIP)
    kiln_activation_inplace(yrow, OW * C, b.act, b.alpha, b.beta);
}
#endif /* !KILN_HAVE_AVX512 */

#ifdef KILN_HAVE_AVX512
#define DWN_MAX_NV 4 /* channel vectors per block */
#define DWN_MAX_MB 8 /* positions per block (6 with 4 vectors: 24 accumulators) */

/* What a block needs besides its position: the image row pointers and the
 * epilogue. x and w already point at the block's first channel. */
typedef struct dwn_blk {
  const float* x;  /* image n, channel c0 */
  const float* w;  /* channel c0 */
  const float* bias; /* channel c0, or NULL */
  int64_t C, W, KW, SW, DW, PL, SH, DH, PT, oh, kh_lo, kh_hi;
  int64_t act;
  float alpha, beta;
  __mmask16 tail; /* lanes of the last vector when TAIL */
  const uint16_t (*k)[8];  /* MASKED: dwn_job's row_k */
  const int64_t (*off)[8]; /* MASKED: dwn_job's row_off */
  const uint8_t* all;      /* MASKED: dwn_job's row_all */
} dwn_blk;

static KILN_ALWAYS_INLINE __m512 dwn_load(const float* p, __mmask16 m,
                                                            const int masked) {
  return masked ? _mm512_maskz_loadu_ps(m, p) : _mm512_loadu_ps(p);
}

/* MB positions from ow0 (stride SW apart) x NV vectors of channels, over
 * the taps kh in [kh_lo, kh_hi) x kw in [kw_lo, kw_hi), which must be inside
 * the image for every position of the block, unless MASKED (a whole short
 * row, ow0 = 0): then a position skips each tap whose b->k mask is 0 with a
 * merge-masked FMA, which leaves the sum exactly as skipping the tap would.
 * TAIL masks the last vector. */
static KILN_ALWAYS_INLINE void dwn_block_body(
    const dwn_blk* b, float* y, int64_t ow0, int64_t kw_lo, int64_t kw_hi, const int MB,
    const int NV, const int TAIL, const int MASKED) {
  __m512 acc[DWN_MAX_MB][DWN_MAX_NV];
#pragma GCC unroll 8
  for (int p = 0; p < MB; ++p)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[p][v] = _mm512_setzero_ps();
  const int64_t C = b->C, pstep = b->SW * C;
  for (int64_t kh = b->kh_lo; kh < b->kh_hi; ++kh) {
    const int64_t ih = b->oh * b->SH - b->PT + kh * b->DH;
    /* Offsets in integers: only the taps' own addresses are formed. */
    const int64_t xr = (ih * b->W + ow0 * b->SW - b->PL) * C;
    const float* wr = b->w + kh * b->KW * C;
    for (int64_t kw = kw_lo; kw < kw_hi; ++kw) {
      /* (A masked block's taps inside for all positions run unmasked.) */
      const float* xk = b->x + (MASKED ? ih * b->W * C + b->off[ow0][kw] : xr + kw * b->DW * C);
      const float* wk = wr + kw * C;
      __m512 wv[DWN_MAX_NV];
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) wv[v] = dwn_load(wk + 16 * v, b->tail, TAIL && v == NV - 1);
      if (MASKED && !b->all[kw]) {
        /* Every address read is inside x (a skipped tap reads a pixel of
         * its own position): masked-out loads outside a buffer can take a
         * slow path on some CPUs. */
        const float* xrow = b->x + ih * b->W * C;
#pragma GCC unroll 8
        for (int p = 0; p < MB; ++p) {
          const __mmask16 k = (__mmask16)b->k[ow0 + p][kw];
          const float* xp = xrow + b->off[ow0 + p][kw];
#pragma GCC unroll 4
          for (int v = 0; v < NV; ++v)
            acc[p][v] = _mm512_mask3_fmadd_ps(
                dwn_load(xp + 16 * v, b->tail, TAIL && v == NV - 1), wv[v], acc[p][v], k);
        }
      } else {
#pragma GCC unroll 8
        for (int p = 0; p < MB; ++p)
#pragma GCC unroll 4
          for (int v = 0; v < NV; ++v)
            acc[p][v] = _mm512_fmadd_ps(
                dwn_load(xk + p * pstep + 16 * v, b->tail, TAIL && v == NV - 1), wv[v],
                acc[p][v]);
      }
    }
  }
  /* Epilogue per vector: bias, then ReLU / Clip exactly as
   * kiln_activation_apply's selects (x < lo ? lo : x, then x > hi ? hi : x):
   * max_ps(lo, a) and min_ps(hi, a) return their second operand a when
   * either is NaN or both are zeros. Other kinds are applied to the
   * finished row by the caller. */
  const __m512 lo = _mm512_set1_ps(b->act == KILN_ACT_RELU ? 0.0f : b->alpha);
  const __m512 hi = _mm512_set1_ps(b->beta);
#pragma GCC unroll 4
  for (int v = 0; v < NV; ++v) {
    const int masked = TAIL && v == NV - 1;
    const __m512 bv = b->bias ? dwn_load(b->bias + 16 * v, b->tail, masked) : _mm512_setzero_ps();
#pragma GCC unroll 8
    for (int p = 0; p < MB; ++p) {
      __m512 a = acc[p][v];
      if (b->bias) a = _mm512_add_ps(a, bv);
      if (b->act == KILN_ACT_RELU || b->act == KILN_ACT_CLIP) a = _mm512_max_ps(lo, a);
      if (b->act == KILN_ACT_CLIP) a = _mm512_min_ps(hi, a);
      float* yp = y + p * C + 16 * v;
      if (masked) {
        _mm512_mask_storeu_ps(yp, b->tail, a);
      } else {
        _mm512_storeu_ps(yp, a);
      }
    }
  }
}

/* A masked block has at least two positions (one alone takes its exact
 * taps instead). */
#define DWN_CASE(MB, NV, TAIL)                                                      \
  case MB:                                                                          \
    if (masked) {                                                                   \
      dwn_block_body(b, y, ow0, kw_lo, kw_hi, MB, NV, TAIL, 1);                     \
    } else {                                                                        \
      dwn_block_body(b, y, ow0, kw_lo, kw_hi, MB, NV, TAIL, 0);                     \
    }                                                                               \
    break;
#define DWN_SWITCH_MB(NV, TAIL)                                                      \
  switch (mb) {                                                                      \
    DWN_CASE(8, NV, TAIL) DWN_CASE(7, NV, TAIL) DWN_CASE(6, NV, TAIL)                \
    DWN_CASE(5, NV, TAIL) DWN_CASE(4, NV, TAIL) DWN_CASE(3, NV, TAIL)                \
    DWN_CASE(2, NV, TAIL)                                                            \
    default: dwn_block_body(b, y, ow0, kw_lo, kw_hi, 1, NV, TAIL, 0);                \
  }

/* One block: nv full vectors, or (tail) one partial vector. mb <= 8, and
 * mb <= 6 when nv == 4 (the caller's limit). */
static void dwn_block_avx512(const dwn_blk* b, float* y, int64_t ow0,
                                                int64_t kw_lo, int64_t kw_hi, int64_t mb,
                                                int64_t nv, int tail, int masked) {
  if (tail) {
    DWN_SWITCH_MB(1, 1)
  } else if (nv == 4) {
    switch (mb) {
      DWN_CASE(6, 4, 0) DWN_CASE(5, 4, 0) DWN_CASE(4, 4, 0) DWN_CASE(3, 4, 0)
      DWN_CASE(2, 4, 0) default: dwn_block_body(b, y, ow0, kw_lo, kw_hi, 1, 4, 0, 0);
    }
  } else if (nv == 3) {
    DWN_SWITCH_MB(3, 0)
  } else if (nv == 2) {
    DWN_SWITCH_MB(2, 0)
  } else {
    DWN_SWITCH_MB(1, 0)
  }
}
#undef DWN_SWITCH_MB
#undef DWN_CASE

static void dwn_row_avx512(const dwn_job* j, int64_t n, int64_t oh) {
  const int64_t* ip = j->ip;
  const int64_t C = ip[P_C], H = ip[P_H], W = ip[P_W], OH = ip[P_OH], OW = ip[P_OW];
  dwn_blk b;
  b.C = C, b.W = W, b.KW = ip[P_KW], b.SW = ip[P_SW], b.DW = ip[P_DW], b.PL = ip[P_PL];
  b.SH = ip[P_SH], b.DH = ip[P_DH], b.PT = ip[P_PT], b.oh = oh;
  b.act = ip[P_ACT], b.alpha = j->act_alpha, b.beta = j->act_beta;
  b.tail = (__mmask16)((1u << (C % 16)) - 1u);
  b.k = j->row_k, b.off = j->row_off, b.all = j->row_all;
  dwn_tap_range(oh * b.SH - b.PT, ip[P_KH], b.DH, H, &b.kh_lo, &b.kh_hi);
  const int64_t first = j->first, end = j->end;
  float* yrow = j->y + (n * OH + oh) * OW * C;
  const int64_t reused = j->reused;
  /* Groups of up to 4 full vectors, then the partial one alone, from the
   * first vector the reuse path left. */
  const int64_t full = C / 16, first_v = reused / 16;
  const int64_t groups = (full - first_v + DWN_MAX_NV - 1) / DWN_MAX_NV;
  for (int64_t g = 0; g < groups + (C % 16 != 0); ++g) {
    const int tail = g == groups;
    const int64_t v0 = first_v + g * DWN_MAX_NV;
    const int64_t nv = tail ? 1 : (full - v0 < DWN_MAX_NV ? full - v0 : DWN_MAX_NV);
    const int64_t c0 = tail ? full * 16 : v0 * 16, max_mb = nv == 4 ? 6 : DWN_MAX_MB;
    b.x = j->x + n * H * W * C + c0;
    b.w = j->w + c0;
    b.bias = j->bias ? j->bias + c0 : NULL;
    if (j->row_kw_hi > 0 && OW <= max_mb) {
      /* A short row with border positions, as one masked block: the
       * taps in the padding cost a masked FMA each, less than blocks of
       * one position do. */
      dwn_block_avx512(&b, yrow + c0, 0, j->row_kw_lo, j->row_kw_hi, OW, nv, tail, 1);
      continue;
    }
    for (int64_t ow = 0; ow < OW;) {
      if (ow >= first && ow < end) {
        /* Interior run split into equal blocks: 7 is 4 + 3, not 6 + 1. */
        const int64_t left = end - ow, blocks = (left + max_mb - 1) / max_mb;
        const int64_t mb = (left + blocks - 1) / blocks;
        dwn_block_avx512(&b, yrow + ow * C + c0, ow, 0, b.KW, mb, nv, tail, 0);
        ow += mb;
      } else {
        int64_t kw_lo, kw_hi;
        dwn_tap_range(ow * b.SW - b.PL, b.KW, b.DW, W, &kw_lo, &kw_hi);
        dwn_block_avx512(&b, yrow + ow * C + c0, ow, kw_lo, kw_hi, 1, nv, tail, 0);
        ++ow;
      }
    }
  }
  if (b.act != KILN_ACT_NONE && b.act != KILN_ACT_RELU && b.act != KILN_ACT_CLIP)
    kiln_activation_inplace(yrow, OW * C, b.act, b.alpha, b.beta);
}
#endif /* KILN_HAVE_AVX512 */

/* Rows of stride 1 or 2 with 3 or 5 taps across, over whole groups of DWN_RG
 * channels (DWN_RV vectors), in segments of up to DWN_SEG_LEN outputs (a
 * DS-CNN row of 5 is one): the segment's outputs stay in registers and each input pixel is
 * loaded once per kernel row to feed every output it reaches (up to KW / SW
 * FMAs per load, where the blocks load once per FMA, and loads bound them;
 * stride 2, 3 taps: 17 loads per kernel row of 8 outputs instead of 24). Per
 * output the taps still run in (kh, kw) order, skipping the padding, with the
 * blocks' epilogue; channels past the last whole group take the blocks.
 * Written once against vec.h; DWN_RV keeps 8 x DWN_RV accumulators and
 * KW x DWN_RV weights in the path's registers (AVX-512 and NEON: 2 vectors,
 * AVX2 and portable: 1). */
#if KV_LANES == 16 || defined(KILN_HAVE_NEON)
#define DWN_RV 2
#else
#define DWN_RV 1
#endif
/* Outputs per segment: 8, or 12 for AVX2's 3-tap rows, whose 8 one-vector
 * chains of 4-cycle FMAs (two issued per cycle) left no slack (12 + 3
 * weights + 1 input fit its 16 registers; 5 taps would spill).
 * BM_DepthwiseNhwc, AMD EPYC Zen 4, 12 / 8: 0.83-0.91 at 112x112, 56x56 and
 * 28x28, 14x14 and 7x7 unchanged; 5x5 stride 2 1.14; portable's SSE2
 * mixed (0.96-1.06), so it keeps 8. */
#define DWN_SEG 12 /* the longest */
#if KV_LANES == 8
#define DWN_SEG_LEN(KW) ((KW) == 3 ? 12 : 8)
#else
#define DWN_SEG_LEN(KW) 8
#endif
#define DWN_RG (DWN_RV * KV_LANES)
/* Bytes of input a segment may span, for all channels, to walk the channel
 * groups segment by segment: well inside a 32 KiB L1 data cache. */
#define DWN_L1_WINDOW (20 * 1024)

typedef struct dwn_seg {
  const float* x;  /* image n, channel c0 */
  const float* w;  /* channel c0 */
  const float* bias; /* channel c0, or NULL */
  float* y;        /* output row, channel c0 */
  int64_t C, W, ih0, kh_lo, kh_hi, DH, PL, act;
  float alpha, beta; /* Clip bounds */
} dwn_seg;

/* Outputs [o0, o0 + SEG) of one row for DWN_RG channels, stride SW. INSIDE:
 * every input column the segment reads lies in the row, so no column is
 * tested and the columns are walked by a pointer step (perf annotate: the
 * tests, a compare against a spilled bound and a branch per column, were
 * about a third of the loop's instructions in AVX2's 8-channel groups,
 * whose FMAs carry half AVX-512's lanes). */
static KILN_ALWAYS_INLINE void dwn_seg_body(const dwn_seg* g, int64_t o0, const int SEG,
                                            const int KW, const int SW, const int INSIDE) {
  const int64_t C = g->C, W = g->W;
  kv acc[DWN_SEG][DWN_RV];
#pragma GCC unroll 12
  for (int p = 0; p < SEG; ++p)
#pragma GCC unroll 2
    for (int v = 0; v < DWN_RV; ++v) acc[p][v] = kv_zero();
  for (int64_t kh = g->kh_lo; kh < g->kh_hi; ++kh) {
    const float* xr = g->x + (g->ih0 + kh * g->DH) * W * C;
    const float* wr = g->w + kh * KW * C;
    kv wv[5][DWN_RV];
#pragma GCC unroll 5
    for (int k = 0; k < KW; ++k)
#pragma GCC unroll 2
      for (int v = 0; v < DWN_RV; ++v) wv[k][v] = kv_load(wr + k * C + v * KV_LANES);
    /* Input column iw = o0*SW + jj - PL feeds output o0 + (jj - k) / SW by
     * tap k when SW divides jj - k; for one output, k rises with jj. */
    int64_t iw = o0 * SW - g->PL;
    const float* xc = INSIDE ? xr + iw * C : xr; /* column iw (INSIDE) */
#pragma GCC unroll 28
    for (int jj = 0; jj < (SEG - 1) * SW + KW; ++jj, ++iw) {
      if (!INSIDE && (uint64_t)iw >= (uint64_t)W) continue;
      const float* xi = INSIDE ? xc : xr + iw * C;
      if (INSIDE) xc += C;
      kv a[DWN_RV];
#pragma GCC unroll 2
      for (int v = 0; v < DWN_RV; ++v) a[v] = kv_load(xi + v * KV_LANES);
#pragma GCC unroll 5
      for (int k = 0; k < KW; ++k) {
        if (jj < k || (jj - k) % SW != 0) continue;
        const int p = (jj - k) / SW;
        if (p >= SEG) continue;
#pragma GCC unroll 2
        for (int v = 0; v < DWN_RV; ++v) acc[p][v] = kv_fma(a[v], wv[k][v], acc[p][v]);
      }
    }
  }
  /* The blocks' epilogue: bias, then ReLU / Clip (other kinds: the caller). */
  const kv lo = kv_set1(g->act == KILN_ACT_RELU ? 0.0f : g->alpha), hi = kv_set1(g->beta);
#pragma GCC unroll 2
  for (int v = 0; v < DWN_RV; ++v) {
    const kv bv = g->bias ? kv_load(g->bias + v * KV_LANES) : kv_zero();
#pragma GCC unroll 12
    for (int p = 0; p < SEG; ++p) {
      kv r = acc[p][v];
      if (g->bias) r = kv_add(r, bv);
      if (g->act == KILN_ACT_RELU || g->act == KILN_ACT_CLIP) r = kv_max(lo, r);
      if (g->act == KILN_ACT_CLIP) r = kv_min(hi, r);
      kv_store(g->y + (o0 + p) * C + v * KV_LANES, r);
    }
  }
}

#define DWN_SEG_CASE(SEG)                                                       \
  case SEG:                                                                     \
    if (KW == 3) {                                                              \
      if (SW == 1) dwn_seg_body(g, o0, SEG, 3, 1, 0);                           \
      else dwn_seg_body(g, o0, SEG, 3, 2, 0);                                   \
    } else {                                                                    \
      /* (5-tap segments stop at 8: no longer body is built) */                \
      if (SW == 1) dwn_seg_body(g, o0, SEG > 8 ? 8 : SEG, 5, 1, 0);             \
      else dwn_seg_body(g, o0, SEG > 8 ? 8 : SEG, 5, 2, 0);                     \
    }                                                                           \
    break;

/* seg <= DWN_SEG_LEN(KW) outputs from o0: a whole segment inside the row
 * runs unchecked. */
static void dwn_segment(const dwn_seg* g, int64_t o0, int64_t seg, int64_t KW, int64_t SW) {
  const int64_t iw0 = o0 * SW - g->PL;
  if (seg == DWN_SEG_LEN(KW) && iw0 >= 0 && iw0 + (seg - 1) * SW + KW <= g->W) {
    if (KW == 3) {
      if (SW == 1) dwn_seg_body(g, o0, DWN_SEG_LEN(3), 3, 1, 1);
      else dwn_seg_body(g, o0, DWN_SEG_LEN(3), 3, 2, 1);
    } else {
      if (SW == 1) dwn_seg_body(g, o0, DWN_SEG_LEN(5), 5, 1, 1);
      else dwn_seg_body(g, o0, DWN_SEG_LEN(5), 5, 2, 1);
    }
    return;
  }
  switch (seg) {
    DWN_SEG_CASE(1) DWN_SEG_CASE(2) DWN_SEG_CASE(3) DWN_SEG_CASE(4)
    DWN_SEG_CASE(5) DWN_SEG_CASE(6) DWN_SEG_CASE(7) DWN_SEG_CASE(8)
#if DWN_SEG_LEN(3) > 8
    DWN_SEG_CASE(9) DWN_SEG_CASE(10) DWN_SEG_CASE(11) DWN_SEG_CASE(12)
#endif
    default: break; /* longer than any segment: never */
  }
}
#undef DWN_SEG_CASE

/* The channels dwn_reuse_rows takes (whole groups of DWN_RG), 0 when the
 * geometry is not its. */
static int64_t dwn_reuse_channels(const int64_t* ip) {
  const int64_t SW = ip[P_SW], KW = ip[P_KW];
  /* Stride 2 saves fewer loads (3x3: 17 for 24 FMAs per 8 outputs, 5x5: 19
   * for 40), and a group of 8 channels walks the rows 4x as often as the
   * blocks' 32; kiln_benchmarks BM_DepthwiseNhwc, AMD EPYC Zen 4, new / old
   * time: avx512 0.83-0.98 on all six stride-2 layers; avx2 0.73 and 0.90
   * for 5x5 but 1.08-1.09 for three of the 3x3 layers, which keep the
   * blocks where a group is below 32 channels, unless the row is one
   * segment (OW <= 8: MobileNetV2's 576 channels 14x14 -> 7x7, avx2 0.54-0.75,
   * portable 0.76, AMD EPYC Zen 4; longer rows stayed 1.08-1.17). */
  const int stride_fits =
      SW == 1 || (SW == 2 && (KW == 5 || DWN_RG >= 32 || ip[P_OW] <= 8));
  const int fits = stride_fits && ip[P_DW] == 1 && (KW == 3 || KW == 5);
  return fits ? ip[P_C] / DWN_RG * DWN_RG : 0;
}

/* Points g at channel c0 of image n, output row oh. */
static KILN_ALWAYS_INLINE void dwn_seg_channels(const dwn_job* j, int64_t n, int64_t oh,
                                                int64_t c0, dwn_seg* g) {
  const int64_t* ip = j->ip;
  const int64_t C = ip[P_C];
  g->x = j->x + n * ip[P_H] * ip[P_W] * C + c0;
  g->w = j->w + c0;
  g->bias = j->bias ? j->bias + c0 : NULL;
  g->y = j->y + (n * ip[P_OH] + oh) * ip[P_OW] * C + c0;
}

/* Tasks (rows) [t0, t1), channels [0, j->reused): a row of ONE_SEG outputs
 * (1..8) is one inlined segment, so a short row pays no call per segment;
 * ONE_SEG 0 walks longer rows segment by segment. */
static KILN_ALWAYS_INLINE void dwn_reuse_rows_body(const dwn_job* j, int64_t t0, int64_t t1,
                                                   const int ONE_SEG, const int KW,
                                                   const int SW) {
  const int64_t* ip = j->ip;
  const int64_t C = ip[P_C], H = ip[P_H], W = ip[P_W], OH = ip[P_OH], OW = ip[P_OW];
  /* Segments outside, channel groups inside, when a few groups' input window
   * fits in L1: each input row is then read once, front to back, rather than
   * once per group a line at a time (BM_DepthwiseNhwc as above, input from
   * memory: MobileNetV2's 32 channels at 112x112 0.71-0.86 of the time on
   * avx2 and 0.65-0.74 on portable over three to five runs, its 96 at stride 2
   * 0.90-0.97 on avx512).
   * Many narrow groups (144 channels on avx2: 18) ran 8% slower that way, and
   * a wide window (EfficientNet's 5x5 stride-2 layer, 55 KB) would not stay. */
  const int64_t seg_len = DWN_SEG_LEN(KW);
  const int64_t window = ((seg_len - 1) * SW + KW) * ip[P_KH] * C * (int64_t)sizeof(float);
  const int seg_major = window <= DWN_L1_WINDOW && j->reused <= 8 * DWN_RG;
  dwn_seg g;
  g.C = C, g.W = W, g.DH = ip[P_DH], g.PL = ip[P_PL], g.act = ip[P_ACT];
  g.alpha = j->act_alpha, g.beta = j->act_beta;
  for (int64_t t = t0; t < t1; ++t) {
    const int64_t n = t / OH, oh = t % OH;
    g.ih0 = oh * ip[P_SH] - ip[P_PT];
    dwn_tap_range(g.ih0, ip[P_KH], g.DH, H, &g.kh_lo, &g.kh_hi);
    if (ONE_SEG > 0 || !seg_major) {
      for (int64_t c0 = 0; c0 < j->reused; c0 += DWN_RG) {
        dwn_seg_channels(j, n, oh, c0, &g);
        if (ONE_SEG > 0) {
          dwn_seg_body(&g, 0, ONE_SEG, KW, SW, 0);
        } else {
          for (int64_t o0 = 0; o0 < OW; o0 += seg_len) {
            dwn_segment(&g, o0, OW - o0 < seg_len ? OW - o0 : seg_len, KW, SW);
          }
        }
      }
      continue;
    }
    for (int64_t o0 = 0; o0 < OW; o0 += seg_len) {
      const int64_t seg = OW - o0 < seg_len ? OW - o0 : seg_len;
      for (int64_t c0 = 0; c0 < j->reused; c0 += DWN_RG) {
        dwn_seg_channels(j, n, oh, c0, &g);
        dwn_segment(&g, o0, seg, KW, SW);
      }
    }
  }
}

#define DWN_ROWS_CASE(SEG)                                                      \
  case SEG:                                                                     \
    if (KW == 3) {                                                              \
      if (SW == 1) dwn_reuse_rows_body(j, t0, t1, SEG, 3, 1);                   \
      else dwn_reuse_rows_body(j, t0, t1, SEG, 3, 2);                           \
    } else {                                                                    \
      if (SW == 1) dwn_reuse_rows_body(j, t0, t1, SEG, 5, 1);                   \
      else dwn_reuse_rows_body(j, t0, t1, SEG, 5, 2);                           \
    }                                                                           \
    break;

static void dwn_reuse_rows(const dwn_job* j, int64_t t0, int64_t t1) {
  const int64_t OW = j->ip[P_OW], KW = j->ip[P_KW], SW = j->ip[P_SW];
  switch (OW <= 8 ? OW : 0) {
    DWN_ROWS_CASE(1) DWN_ROWS_CASE(2) DWN_ROWS_CASE(3) DWN_ROWS_CASE(4)
    DWN_ROWS_CASE(5) DWN_ROWS_CASE(6) DWN_ROWS_CASE(7) DWN_ROWS_CASE(8)
    default: DWN_ROWS_CASE(0)
  }
}
#undef DWN_ROWS_CASE

/* Task t: image t / OH, output row t % OH. */
static void dwn_tasks(void* ctx, int64_t begin, int64_t end) {
  const dwn_job* j = (const dwn_job*)ctx;
  const int64_t OH = j->ip[P_OH], act = j->ip[P_ACT];
  if (j->reused > 0) dwn_reuse_rows(j, begin, end);
  /* The rows' other channels, and activations the reuse path leaves. */
  if (j->reused < j->ip[P_C] ||
      (act != KILN_ACT_NONE && act != KILN_ACT_RELU && act != KILN_ACT_CLIP)) {
    for (int64_t t = begin; t < end; ++t) j->row_fn(j, t / OH, t % OH);
  }
}

int kiln_conv2d_dw_nhwc_f32(const int64_t* ip, const float* fp, void* const* bindings,
                            const kiln_host* host) {
  dwn_job j;
  j.ip = ip;
  j.x = (const float*)bindings[0];
  j.w = (const float*)bindings[1];
  j.bias = ip[P_HAS_BIAS] ? (const float*)bindings[2] : NULL;
  j.y = (float*)bindings[3];
  j.act_alpha = fp[KILN_FP_CONV2D_DW_NHWC_F32_ACT_ALPHA],
  j.act_beta = fp[KILN_FP_CONV2D_DW_NHWC_F32_ACT_BETA];
  j.reused = dwn_reuse_channels(ip);
  dwn_interior(ip, &j.first, &j.end);
#ifdef KILN_HAVE_AVX512
  j.row_fn = dwn_row_avx512;
  dwn_short_row(ip, &j);
#else
  j.row_fn = dwn_row_vec;
#endif
  const int64_t tasks = ip[P_N] * ip[P_OH];
  if (tasks == 0 || ip[P_OW] == 0) return KILN_OK;
  const double work =
      (double)tasks * ip[P_OW] * ip[P_C] * ip[P_KH] * ip[P_KW];
  /* Split even small layers (a 7x7 plane's): run on one thread, half of
   * its input would be rows the other thread's GEMM wrote, read from that
   * core's cache (MobileNetV2's 7x7 layers on 2 threads: 24 -> 17 us). */
  kiln_run_tasks(host, tasks, work, (double)(1 << 17), dwn_tasks, &j);
  return KILN_OK;
}

int kiln_conv2d_dw_nhwc_f32_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                                  uint32_t fparam_count, const uint64_t* binding_bytes) {
  /* With groups == C == OC, conv2d_f32's weight count OC*(C/G)*KH*KW is
   * this layout's KH*KW*C and its x / y counts are the NHWC ones. */
  KILN_TRY(kiln_check_counts(ip, iparam_count, P_COUNT, fp, fparam_count,
                             KILN_CONV2D_DW_NHWC_F32_FPARAMS));
  /* Not depthwise is a wrong kernel choice, whatever the bindings say. */
  if (ip[P_GROUPS] != ip[P_C] || ip[P_OC] != ip[P_C]) return KILN_ERR_INVALID_ARGUMENT;
  KILN_TRY(kiln_conv_check(ip, iparam_count, fp, fparam_count, binding_bytes, 3, 0));
  /* This layout scales every column index by C and every row index by W*C
   * (a position's step is SW*C): the axes' index spans, so scaled, must stay
   * in int64 (fuzzer find: SW near 2^59 with C = 16 overflowed SW*C). */
  int64_t rows, cols, t;
  KILN_TRY(kiln_conv_axis_span(ip[P_H], ip[P_KH], ip[P_SH], ip[P_PT], ip[P_DH], ip[P_OH], &rows));
  KILN_TRY(kiln_conv_axis_span(ip[P_W], ip[P_KW], ip[P_SW], ip[P_PL], ip[P_DW], ip[P_OW], &cols));
  KILN_TRY(kiln_checked_mul(rows, ip[P_W], &t)); /* (row * W + column) * C */
  KILN_TRY(kiln_checked_add(t, cols, &t));
  KILN_TRY(kiln_checked_mul(t, ip[P_C], &t));
  return KILN_OK;
}
