/* conv2d_packed_f32 and conv2d_packed_res_f32: a 2-D convolution whose
 * weights the compiler packed with output channels in the vector lanes
 * (kernels.h). A tile of outputs, up to 8 consecutive positions (rows) x 32
 * output channels (two 16-lane panels: of one group, or of two groups of
 * 16), accumulates in registers over the whole K = taps x channels of a
 * group: for each tap the rows' input addresses are fixed and the channels
 * stream through. Nothing is packed at run time and no partial sum is
 * stored and reloaded; a tile's positions need not share an output row, so
 * small planes (7 x 7, 14 x 14) waste no lanes, which the positions-in-lanes
 * layout of conv2d_f32 does. A row whose tap falls in the padding reads a
 * valid address and zeroes the value with a mask.
 *
 * Per output: taps in (kh, kw) order and channels in order within a tap (the
 * packed K order), then bias, residual and activation in kiln_epilogue_tile's
 * order. A tap in the padding for every row of a tile is skipped (a dilated
 * layer's far taps: DeepLabV3's rate-24 and -36 windows over a 28 x 28
 * map), one in the padding for some rows adds their zeros. No task
 * partition changes a sum's order, so results do not depend on threads. */
#include <stdint.h>

#include "activation.h"
#include "conv_check.h"
#include "conv_stem_nhwc.h"
#include "host_tasks.h"
#include "kiln/kernels.h"
#include "sgemm.h"
#include "simd.h"
#include "vec.h"

_Static_assert(KILN_CONV2D_LAYOUT_OF(CONV2D_PACKED_F32) &&
                   KILN_CONV2D_PACKED_F32_IPARAMS == KILN_CONV2D_F32_IPARAMS &&
                   KILN_CONV2D_LAYOUT_OF(CONV2D_PACKED_RES_F32) &&
                   KILN_CONV2D_PACKED_RES_F32_IPARAMS == KILN_CONV2D_F32_IPARAMS,
               "conv2d_packed_f32 and conv2d_packed_res_f32 have conv2d_f32's parameters");
_Static_assert(KILN_CONV2D_CL_LAYOUT_OF(CONV2D_PACKED_CL_F32) &&
                   KILN_CONV2D_CL_LAYOUT_OF(CONV2D_PACKED_CL_RES_F32) &&
                   KILN_CONV2D_PACKED_CL_RES_F32_IPARAMS == KILN_CONV2D_PACKED_CL_F32_IPARAMS,
               "conv2d_packed_cl_res_f32 has conv2d_packed_cl_f32's parameters");

#define CONVP_MR 8   /* positions per tile */
#define CONVP_NR 32  /* output channels per tile */

/* A chunk's weights stream from memory for its first tile (ResNet-18's 3x3
 * layers hold 0.6-9 MB each; the loads waited on them) and come from cache
 * for the tiles after: a tile that `streams` asks, each K step, for the line
 * CONVP_AHEAD steps on in each panel it reads. (Every tile asking cost
 * 5-12% in cache.) */
#define CONVP_AHEAD 16
#define CONVP_PREFETCH_W(STREAM, b, w_ps, NP)                            \
  do {                                                                   \
    if (STREAM) {                                                        \
      KILN_PREFETCH_READ((b) + CONVP_AHEAD * 16);                        \
      if ((NP) > 1) KILN_PREFETCH_READ((b) + (w_ps) + CONVP_AHEAD * 16); \
    }                                                                    \
  } while (0)

/* The rows of one tile: row i reads tap t's first channel at offset
 * base[i] + tap_off[t] when bit i of inside[t] is set (the tap is inside the
 * image for that row) and reads nothing there otherwise. */
typedef struct convp_tile {
  int64_t base[CONVP_MR];
  int64_t tap_off[KILN_CONVP_MAX_TAPS];
  uint32_t inside[KILN_CONVP_MAX_TAPS];
} convp_tile;

/* Row i's offset for a tap: a valid one (0) when the tap is outside. */
static KILN_ALWAYS_INLINE int64_t convp_row_off(const convp_tile* t, int64_t tap, uint32_t in,
                                                int i) {
  return in >> i & 1u ? (int64_t)((uint64_t)t->base[i] + (uint64_t)t->tap_off[tap]) : 0;
}

/* Per tap k of one axis: bit i set when row i's index start[i] + k*dil
 * lies in [0, in). */
static void convp_axis_inside(const int64_t* start, int64_t mr, int64_t taps, int64_t dil,
                              int64_t in, uint32_t* inside) {
  for (int64_t k = 0; k < taps; ++k) {
    uint32_t m = 0;
    for (int64_t i = 0; i < mr; ++i) {
      const int64_t at = start[i] + k * dil;
      m |= (uint32_t)(at >= 0 && at < in) << i;
    }
    inside[k] = m;
  }
}

static void convp_tile_setup(const int64_t* ip, int64_t pixel_stride, int64_t s0, int64_t mr,
                             convp_tile* t) {
  const int64_t H = ip[P_H], W = ip[P_W], OW = ip[P_OW], KH = ip[P_KH], KW = ip[P_KW];
  const int64_t DH = ip[P_DH], DW = ip[P_DW];
  /* Row i is position s0 + i; rows past mr are never read. A tap is inside
   * for a row when both its image row and its image column are, so the
   * bounds are tested per kh and per kw, not per tap. */
  int64_t ih0[CONVP_MR], iw0[CONVP_MR];
  int64_t oh = s0 / OW, ow = s0 % OW;
  for (int64_t i = 0; i < CONVP_MR; ++i) {
    if (i > 0 && i < mr && ++ow == OW) ow = 0, ++oh;
    ih0[i] = oh * ip[P_SH] - ip[P_PT];
    iw0[i] = ow * ip[P_SW] - ip[P_PL];
  }
  /* Offsets wrap modulo 2^64 (unsigned): a row or tap far outside the
   * image (a huge stride, pad or dilation) may not fit, but it is never
   * read, and an inside tap's sum is exact. */
  for (int64_t i = 0; i < CONVP_MR; ++i) {
    t->base[i] = (int64_t)(((uint64_t)ih0[i] * (uint64_t)W + (uint64_t)iw0[i]) *
                           (uint64_t)pixel_stride);
  }
  uint32_t row_in[KILN_CONVP_MAX_TAPS], col_in[KILN_CONVP_MAX_TAPS];
  convp_axis_inside(ih0, mr, KH, DH, H, row_in);
  convp_axis_inside(iw0, mr, KW, DW, W, col_in);
  for (int64_t kh = 0; kh < KH; ++kh) {
    for (int64_t kw = 0; kw < KW; ++kw) {
      t->inside[kh * KW + kw] = row_in[kh] & col_in[kw];
      t->tap_off[kh * KW + kw] =
          (int64_t)(((uint64_t)kh * (uint64_t)DH * (uint64_t)W + (uint64_t)kw * (uint64_t)DW) *
                    (uint64_t)pixel_stride);
    }
  }
}

/* Sums of one tile into T[i*CONVP_NR + j]: x is the image (channel stride
 * cs: the plane in NCHW, 1 in NHWC) at the group's first channel, w the
 * weight panel of the tile's first channel (panel stride w_ps floats);
 * `stream`: prefetch the weights. gx: 0, or where the second panel's group
 * starts after x (a tile of two 16-channel groups, AVX-512 only). */
typedef void (*convp_tile_fn)(const convp_tile* t, const float* x, int64_t cs, int64_t C,
                              int64_t taps, const float* w, int64_t w_ps, int64_t mr,
                              int64_t nr, int64_t gx, int stream, float* T);

#ifndef KILN_HAVE_AVX512
/* The tile of the other paths, written once against vec.h: MR rows x NV
 * vectors of channels, NV * KV_LANES <= 16, so a tile reads one weight panel
 * (its first channel's lane offset within the panel is the caller's w). The
 * shape keeps MR*NV accumulators, NV weight vectors and a broadcast in the
 * path's registers: AVX2 6 x 2x8, NEON 6 x 4x4, portable 4-lane 3 x 4x4
 * (SSE2 has no FMA: 12 accumulators keep its multiplies and adds busy, and
 * one broadcast serves 4 products; 4 x 2x4 ran ResNet-18's 3x3 layers about
 * 20% slower). */
#if KV_LANES == 8
#define CONVP_TILE_MR 6
#define CONVP_TILE_NV 2
#elif KV_LANES == 4 && defined(KILN_HAVE_NEON)
#define CONVP_TILE_MR 6
#define CONVP_TILE_NV 4
#elif KV_LANES == 4
#define CONVP_TILE_MR 3
#define CONVP_TILE_NV 4
#else
#define CONVP_TILE_MR 4
#define CONVP_TILE_NV 4
#endif
#define CONVP_TILE_NR (CONVP_TILE_NV * KV_LANES)

static KILN_ALWAYS_INLINE void convp_tile_body(const convp_tile* t, const float* x, int64_t cs,
                                               int64_t C, int64_t taps, const float* w,
                                               float* T, const int MR, const int STREAM) {
  kv acc[CONVP_TILE_MR][CONVP_TILE_NV];
#pragma GCC unroll 8
  for (int i = 0; i < MR; ++i)
#pragma GCC unroll 4
    for (int v = 0; v < CONVP_TILE_NV; ++v) acc[i][v] = kv_zero();
  const uint32_t all = (1u << MR) - 1u;
  const float* b = w;
  for (int64_t tap = 0; tap < taps; ++tap) {
    const uint32_t in = t->inside[tap];
    if ((in & all) == 0) { /* every row's tap in the padding: adds nothing */
      b += C * 16;
      continue;
    }
    const float* p[CONVP_TILE_MR];
#pragma GCC unroll 8
    for (int i = 0; i < MR; ++i) p[i] = x + convp_row_off(t, tap, in, i);
    if ((in & all) == all) {
      for (int64_t q = 0; q < C * cs; q += cs, b += 16) {
        CONVP_PREFETCH_W(STREAM, b, 0, 1);
        kv wv[CONVP_TILE_NV];
#pragma GCC unroll 4
        for (int v = 0; v < CONVP_TILE_NV; ++v) wv[v] = kv_load(b + v * KV_LANES);
#pragma GCC unroll 8
        for (int i = 0; i < MR; ++i) {
          const kv a = kv_set1(p[i][q]);
#pragma GCC unroll 4
          for (int v = 0; v < CONVP_TILE_NV; ++v) acc[i][v] = kv_fma(a, wv[v], acc[i][v]);
        }
      }
    } else {
      /* A row whose tap lies in the padding reads a valid address and adds
       * zero: the mask clears its broadcast. */
      kv_keep_mask keep[CONVP_TILE_MR];
#pragma GCC unroll 8
      for (int i = 0; i < MR; ++i) keep[i] = kv_keep_if((int)(in >> i & 1u));
      for (int64_t q = 0; q < C * cs; q += cs, b += 16) {
        CONVP_PREFETCH_W(STREAM, b, 0, 1);
        kv wv[CONVP_TILE_NV];
#pragma GCC unroll 4
        for (int v = 0; v < CONVP_TILE_NV; ++v) wv[v] = kv_load(b + v * KV_LANES);
#pragma GCC unroll 8
        for (int i = 0; i < MR; ++i) {
          const kv a = kv_keep(kv_set1(p[i][q]), keep[i]);
#pragma GCC unroll 4
          for (int v = 0; v < CONVP_TILE_NV; ++v) acc[i][v] = kv_fma(a, wv[v], acc[i][v]);
        }
      }
    }
  }
#pragma GCC unroll 8
  for (int i = 0; i < MR; ++i)
#pragma GCC unroll 4
    for (int v = 0; v < CONVP_TILE_NV; ++v) kv_store(T + i * CONVP_NR + v * KV_LANES, acc[i][v]);
}

/* w: the tile's first channel in its panel; nr is at most CONVP_TILE_NR and
 * the lanes past it (zero weights of the padded panel, or the next chunk's)
 * are computed and never stored. */
#if CONVP_TILE_MR > 4
#define CONVP_VEC_CASES_6(S)                                     \
  case 6: convp_tile_body(t, x, cs, C, taps, w, T, 6, S); break; \
  case 5: convp_tile_body(t, x, cs, C, taps, w, T, 5, S); break;
#else
#define CONVP_VEC_CASES_6(S)
#endif
#if CONVP_TILE_MR > 3
#define CONVP_VEC_CASES_4(S) \
  case 4: convp_tile_body(t, x, cs, C, taps, w, T, 4, S); break;
#else
#define CONVP_VEC_CASES_4(S)
#endif
#define CONVP_VEC_CASES(S)                                        \
  switch (mr) {                                                   \
    CONVP_VEC_CASES_6(S)                                          \
    CONVP_VEC_CASES_4(S)                                          \
    case 3: convp_tile_body(t, x, cs, C, taps, w, T, 3, S); break; \
    case 2: convp_tile_body(t, x, cs, C, taps, w, T, 2, S); break; \
    default: convp_tile_body(t, x, cs, C, taps, w, T, 1, S); break; \
  }

static void convp_tile_vec(const convp_tile* t, const float* x, int64_t cs, int64_t C,
                           int64_t taps, const float* w, int64_t w_ps, int64_t mr, int64_t nr,
                           int64_t gx, int stream, float* T) {
  (void)w_ps;
  (void)nr;
  (void)gx; /* a tile is one panel here, so one group */
  if (stream) {
    CONVP_VEC_CASES(1)
  } else {
    CONVP_VEC_CASES(0)
  }
}
#undef CONVP_VEC_CASES
#undef CONVP_VEC_CASES_4
#undef CONVP_VEC_CASES_6
#endif /* !KILN_HAVE_AVX512 */

#ifdef KILN_HAVE_AVX512
#define CONVP_R8(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)

/* NP panels; with SPLIT the second reads its own group's channels, gx
 * floats after the first's. */
static KILN_ALWAYS_INLINE void convp_tile_avx512_body(
    const convp_tile* t, const float* x, int64_t cs, int64_t C, int64_t taps,
    const float* w, int64_t w_ps, int64_t gx, float* T, const int MR, const int NP,
    const int SPLIT, const int STREAM) {
#define CONVP_DECL(i) __m512 c##i##0 = _mm512_setzero_ps(), c##i##1 = _mm512_setzero_ps();
  CONVP_R8(CONVP_DECL)
#undef CONVP_DECL
  const uint32_t all = (1u << MR) - 1u;
  const float* b = w;
  for (int64_t tap = 0; tap < taps; ++tap) {
    const uint32_t in = t->inside[tap];
    if ((in & all) == 0) { /* every row's tap in the padding: adds nothing */
      b += C * 16;
      continue;
    }
#define CONVP_PTR(i) const float* p##i = x + (MR > i ? convp_row_off(t, tap, in, i) : 0);
    CONVP_R8(CONVP_PTR)
#undef CONVP_PTR
#define CONVP_FMA(i, LOAD, LOAD1)                            \
  if (MR > i) {                                              \
    const __m512 av = LOAD;                                  \
    c##i##0 = _mm512_fmadd_ps(av, v0, c##i##0);              \
    if (NP > 1) {                                            \
      const __m512 av1 = SPLIT ? LOAD1 : av;                 \
      c##i##1 = _mm512_fmadd_ps(av1, v1, c##i##1);           \
    }                                                        \
  }
    if ((in & all) == all) {
      for (int64_t q = 0; q < C * cs; q += cs, b += 16) {
        CONVP_PREFETCH_W(STREAM, b, w_ps, NP);
        const __m512 v0 = _mm512_loadu_ps(b);
        const __m512 v1 = NP > 1 ? _mm512_loadu_ps(b + w_ps) : v0;
#define CONVP_STEP(i) CONVP_FMA(i, _mm512_set1_ps(p##i[q]), _mm512_set1_ps(p##i[q + gx]))
        CONVP_R8(CONVP_STEP)
#undef CONVP_STEP
      }
    } else {
#define CONVP_MASK(i) const __m512i z##i = _mm512_set1_epi32(in >> i & 1u ? -1 : 0);
      CONVP_R8(CONVP_MASK)
#undef CONVP_MASK
      for (int64_t q = 0; q < C * cs; q += cs, b += 16) {
        CONVP_PREFETCH_W(STREAM, b, w_ps, NP);
        const __m512 v0 = _mm512_loadu_ps(b);
        const __m512 v1 = NP > 1 ? _mm512_loadu_ps(b + w_ps) : v0;
#define CONVP_MASKED(i, at) \
  _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(_mm512_set1_ps(p##i[at])), z##i))
#define CONVP_STEP(i) CONVP_FMA(i, CONVP_MASKED(i, q), CONVP_MASKED(i, q + gx))
        CONVP_R8(CONVP_STEP)
#undef CONVP_STEP
#undef CONVP_MASKED
      }
    }
#undef CONVP_FMA
  }
#define CONVP_STORE(i)                                                  \
  if (MR > i) {                                                         \
    _mm512_storeu_ps(T + i * CONVP_NR, c##i##0);                        \
    if (NP > 1) _mm512_storeu_ps(T + i * CONVP_NR + 16, c##i##1);       \
  }
  CONVP_R8(CONVP_STORE)
#undef CONVP_STORE
}

#define CONVP_BODY(MR, NP, SP, S) \
  convp_tile_avx512_body(t, x, cs, C, taps, w, w_ps, gx, T, MR, NP, SP, S)
#define CONVP_CASES(NP, SP, S)                  \
  switch (mr) {                                 \
    case 8: CONVP_BODY(8, NP, SP, S); break;    \
    case 7: CONVP_BODY(7, NP, SP, S); break;    \
    case 6: CONVP_BODY(6, NP, SP, S); break;    \
    case 5: CONVP_BODY(5, NP, SP, S); break;    \
    case 4: CONVP_BODY(4, NP, SP, S); break;    \
    case 3: CONVP_BODY(3, NP, SP, S); break;    \
    case 2: CONVP_BODY(2, NP, SP, S); break;    \
    default: CONVP_BODY(1, NP, SP, S); break;   \
  }

static void convp_tile_avx512(const convp_tile* t, const float* x,
                                                 int64_t cs, int64_t C, int64_t taps,
                                                 const float* w, int64_t w_ps, int64_t mr,
                                                 int64_t nr, int64_t gx, int stream, float* T) {
  /* The second panel exists only when the tile has more than 16 channels;
   * panels are whole (zero past OC), so both load unmasked. */
  if (nr > 16 && gx != 0) {
    if (stream) {
      CONVP_CASES(2, 1, 1)
    } else {
      CONVP_CASES(2, 1, 0)
    }
  } else if (nr > 16) {
    if (stream) {
      CONVP_CASES(2, 0, 1)
    } else {
      CONVP_CASES(2, 0, 0)
    }
  } else if (stream) {
    CONVP_CASES(1, 0, 1)
  } else {
    CONVP_CASES(1, 0, 0)
  }
}
#undef CONVP_CASES
#undef CONVP_BODY
#undef CONVP_R8
#endif /* KILN_HAVE_AVX512 */

typedef struct convp_job {
  const int64_t* ip;
  const float *x, *w, *bias, *res;
  float* y;
  convp_tile_fn tile_fn;
  int64_t S, tiles, mr, chunks;
  int64_t chunk; /* output channels per tile: 32 (AVX-512) or CONVP_TILE_NR */
  int64_t cpg, ocpg; /* input and output channels per group */
  int64_t split; /* tiles [0, split) take all their chunks before the rest */
  int x_channels_last, y_channels_last; /* y's layout is also r's */
  float act_alpha, act_beta;
} convp_job;

/* Writes one tile T (mr positions x nr channels from s0, oc0) to y NCHW:
 * bias (and, with no residual, the activation) along T's rows, where the
 * tile's channels are contiguous; then T goes out transposed. The order per
 * output stays sum, bias, residual, activation. */
static void convp_store_nchw(const convp_job* j, const float* res, float* y, int64_t oc0,
                             int64_t mr, int64_t nr, float* T) {
  const int64_t* ip = j->ip;
  const int64_t S = j->S;
  for (int64_t i = 0; i < mr; ++i) {
    float* row = T + i * CONVP_NR;
    if (j->bias)
      for (int64_t c = 0; c < nr; ++c) row[c] += j->bias[oc0 + c];
    if (!res) kiln_activation_apply(row, row, nr, ip[P_ACT], j->act_alpha, j->act_beta);
  }
  for (int64_t c = 0; c < nr; ++c) {
    float* yo = y + (oc0 + c) * S;
    if (res) {
      const float* ro = res + (oc0 + c) * S;
      for (int64_t i = 0; i < mr; ++i) yo[i] = T[i * CONVP_NR + c] + ro[i];
      kiln_activation_apply(yo, yo, mr, ip[P_ACT], j->act_alpha, j->act_beta);
    } else {
      for (int64_t i = 0; i < mr; ++i) yo[i] = T[i * CONVP_NR + c];
    }
  }
}

/* The same for y NHWC, where T's rows are y's rows: no transpose. */
static void convp_store_nhwc(const convp_job* j, const float* res, float* y, int64_t oc0,
                             int64_t mr, int64_t nr, const float* T) {
  const int64_t* ip = j->ip;
  const int64_t OC = ip[P_OC];
  for (int64_t i = 0; i < mr; ++i) {
    const float* row = T + i * CONVP_NR;
    float* yo = y + i * OC + oc0;
    for (int64_t c = 0; c < nr; ++c) yo[c] = row[c] + (j->bias ? j->bias[oc0 + c] : 0.0f);
    if (res)
      for (int64_t c = 0; c < nr; ++c) yo[c] += res[i * OC + oc0 + c];
    kiln_activation_apply(yo, yo, nr, ip[P_ACT], j->act_alpha, j->act_beta);
  }
}

/* Task t: image t / (chunks*tiles), then the position tiles before or
 * from `split`, then channel chunk, then position tile, so consecutive
 * tasks share a chunk's weights. */
static void convp_tasks(void* ctx, int64_t begin, int64_t end) {
  const convp_job* j = (const convp_job*)ctx;
  const int64_t* ip = j->ip;
  const int64_t C = ip[P_C], OC = ip[P_OC], plane = ip[P_H] * ip[P_W];
  const int64_t taps = ip[P_KH] * ip[P_KW], K = taps * j->cpg, S = j->S;
  const int64_t pixel_stride = j->x_channels_last ? C : 1;
  const int64_t channel_stride = j->x_channels_last ? 1 : plane;
  float T[CONVP_MR * CONVP_NR] KILN_ALIGN64;
  convp_tile tile;
  for (int64_t t = begin; t < end; ++t) {
    const int64_t n = t / (j->chunks * j->tiles), rem = t % (j->chunks * j->tiles);
    /* The part's first tile and tiles; rem's place in the part. */
    const int64_t second = rem >= j->chunks * j->split;
    const int64_t h0 = second ? j->split : 0, hn = second ? j->tiles - j->split : j->split;
    const int64_t in_half = rem - j->chunks * h0;
    const int64_t oc0 = in_half / hn * j->chunk, s0 = (h0 + in_half % hn) * j->mr;
    const int64_t mr = S - s0 < j->mr ? S - s0 : j->mr;
    const int64_t nr = OC - oc0 < j->chunk ? OC - oc0 : j->chunk;
    if (plane > 0 && j->cpg > 0) {
      convp_tile_setup(ip, pixel_stride, s0, mr, &tile);
      /* Panel oc0 / 16, lane oc0 % 16 (a chunk never straddles panels, nor
       * groups: a group's output channels are whole panels). */
      const float* w = j->w + (oc0 / 16) * 16 * K + oc0 % 16;
      const float* xg = j->x + n * C * plane + oc0 / j->ocpg * j->cpg * channel_stride;
      /* A chunk wider than a group holds two (AVX-512, 16 channels each). */
      const int64_t gx = nr > j->ocpg ? j->cpg * channel_stride : 0;
      /* A chunk's first tile, or a thread's first task, reads the chunk's
       * weights from memory. */
      const int stream = in_half % hn == 0 || t == begin;
      j->tile_fn(&tile, xg, channel_stride, j->cpg, taps, w, 16 * K, mr, nr, gx, stream, T);
    } else {
      for (int64_t i = 0; i < CONVP_MR * CONVP_NR; ++i) T[i] = 0.0f; /* nothing to sum */
    }
    if (j->y_channels_last) {
      const int64_t at = (n * S + s0) * OC;
      convp_store_nhwc(j, j->res ? j->res + at : NULL, j->y + at, oc0, mr, nr, T);
    } else {
      const int64_t at = n * OC * S + s0;
      convp_store_nchw(j, j->res ? j->res + at : NULL, j->y + at, oc0, mr, nr, T);
    }
  }
}

/* A 1x1, stride-1, unpadded conv into NHWC is one GEMM per image,
 * Y[pixels, OC] = X[pixels, C] * W[C, OC], with X read in place (NHWC rows,
 * or NCHW columns) and the packed weights already B's panels (one tap: the
 * panels of gemm_pb_f32). The sums and the epilogue order are the tiles'. */
static int convp_is_pointwise_gemm(const int64_t* ip, int y_channels_last) {
  return y_channels_last && ip[P_KH] == 1 && ip[P_KW] == 1 && ip[P_SH] == 1 && ip[P_SW] == 1 &&
         ip[P_PT] == 0 && ip[P_PL] == 0 && ip[P_OH] == ip[P_H] && ip[P_OW] == ip[P_W];
}

/* The GEMM of image n into NHWC y: B the packed weights, C the bias along
 * the channels, the residual in y's layout, the conv's activation; A and K
 * are the caller's. */
static kiln_gemm_desc convp_nhwc_gemm(const int64_t* ip, const float* fp, void* const* bindings,
                                      const float* res, float* y, int64_t n) {
  const int64_t S = ip[P_OH] * ip[P_OW], OC = ip[P_OC];
  kiln_gemm_desc d = {0};
  d.M = S;
  d.N = OC;
  d.b_packed = (const float*)bindings[1];
  d.y = y + n * S * OC;
  d.y_rs = OC;
  d.ep.alpha = 1.0f;
  d.ep.beta = 1.0f;
  d.ep.c = ip[P_HAS_BIAS] ? (const float*)bindings[2] : NULL;
  d.ep.c_cs = 1;
  d.ep.r = res ? res + n * S * OC : NULL;
  d.ep.r_rs = OC;
  d.ep.act = ip[P_ACT];
  d.ep.act_alpha = fp[KILN_FP_CONV2D_F32_ACT_ALPHA];
  d.ep.act_beta = fp[KILN_FP_CONV2D_F32_ACT_BETA];
  return d;
}

static void convp_pointwise_gemm(const int64_t* ip, const float* fp, void* const* bindings,
                                 const float* res, float* y, int x_channels_last,
                                 const kiln_host* host) {
  const int64_t S = ip[P_H] * ip[P_W], C = ip[P_C];
  for (int64_t n = 0; n < ip[P_N]; ++n) {
    kiln_gemm_desc d = convp_nhwc_gemm(ip, fp, bindings, res, y, n);
    d.K = C;
    d.a = (const float*)bindings[0] + n * S * C;
    d.a_rs = x_channels_last ? C : 1;
    d.a_cs = x_channels_last ? 1 : S;
    kiln_sgemm(&d, host);
  }
}

/* A one-channel image (a spectrogram, a grey picture) into NHWC: the tiles
 * above would run one FMA step per tap between row setups, so instead each
 * block of output pixels packs its im2col rows (the K order is the packed
 * one when C is 1) and runs the GEMM micro-kernel on them, per image. */
static void convp_one_channel_gemm(const int64_t* ip, const float* fp, void* const* bindings,
                                   const float* res, float* y, const kiln_host* host) {
  const int64_t plane = ip[P_H] * ip[P_W];
  kiln_im2col g;
  g.H = ip[P_H], g.W = ip[P_W], g.OW = ip[P_OW], g.KH = ip[P_KH], g.KW = ip[P_KW];
  g.SH = ip[P_SH], g.SW = ip[P_SW], g.PT = ip[P_PT], g.PL = ip[P_PL];
  g.DH = ip[P_DH], g.DW = ip[P_DW];
  g.KD = 0, g.D = 0, g.ID0 = 0, g.DD = 0; /* a 2-D window */
  for (int64_t n = 0; n < ip[P_N]; ++n) {
    g.x = (const float*)bindings[0] + n * plane;
    kiln_gemm_desc d = convp_nhwc_gemm(ip, fp, bindings, res, y, n);
    d.K = ip[P_KH] * ip[P_KW];
    d.a_im2col = &g;
    kiln_sgemm(&d, host);
  }
}

/* Floats of the zero-padded one-channel image convp_rows keeps on the stack
 * (16 KiB), and the widest output row it holds in registers. */
#define CONVP_ROWS_PAD_MAX 4096
#define CONVP_ROWS_MAX_OW 8

/* The padded extent of one axis: every input index a window reaches. */
static int64_t convp_reach(int64_t out, int64_t stride, int64_t k, int64_t dil) {
  return (out - 1) * stride + (k - 1) * dil + 1;
}

/* Whether convp_rows takes the layer: one input channel into NHWC, output
 * rows of at most 8, whole 16-channel panels, a padded image that fits. */
static int convp_rows_fit(const int64_t* ip, int y_channels_last) {
  if (!y_channels_last || ip[P_C] != 1 || ip[P_OW] < 1 || ip[P_OW] > CONVP_ROWS_MAX_OW ||
      ip[P_OH] < 1 || ip[P_OC] % 16 != 0)
    return 0;
  const int64_t hp = convp_reach(ip[P_OH], ip[P_SH], ip[P_KH], ip[P_DH]);
  const int64_t wp = convp_reach(ip[P_OW], ip[P_SW], ip[P_KW], ip[P_DW]);
  return hp <= CONVP_ROWS_PAD_MAX && wp <= CONVP_ROWS_PAD_MAX && hp * wp <= CONVP_ROWS_PAD_MAX;
}

/* What one register block of convp_row_body holds: positions x vectors of
 * channels (AVX-512 8 x 4 panels, AVX2 6 x 1 panel, 4 lanes 4 x 1 panel). */
#if KV_LANES == 16
#define CONVP_ROWS_POS 8
#define CONVP_ROWS_VECS 4
#elif KV_LANES == 8
#define CONVP_ROWS_POS 6
#define CONVP_ROWS_VECS 2
#else
#define CONVP_ROWS_POS 4
#define CONVP_ROWS_VECS (16 / KV_LANES)
#endif

/* Positions p0 .. p0 + P of one output row x NV vectors of channels from
 * oc0 (a panel's first channel), held in registers over all taps of the
 * padded image xp (row stride wp): per tap, NV weight loads and P
 * broadcasts feed P x NV FMAs. Per output: taps in (kh, kw) order, padding
 * included as zeros (as the tiles' masked taps), then bias, residual and
 * activation in the tiles' order. */
static KILN_ALWAYS_INLINE void convp_row_body(const int64_t* ip, const float* fp, const float* xp,
                                              int64_t wp, const float* w, const float* bias,
                                              const float* res, float* y, int64_t oh, int64_t p0,
                                              int64_t oc0, const int P, const int NV) {
  const int64_t KH = ip[P_KH], KW = ip[P_KW], SW = ip[P_SW], DW = ip[P_DW], OC = ip[P_OC];
  const int64_t K = KH * KW, act = ip[P_ACT];
  kv acc[CONVP_ROWS_POS * CONVP_ROWS_VECS]; /* position p, vector v at p * NV + v */
#pragma GCC unroll 8
  for (int p = 0; p < P; ++p)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[p * NV + v] = kv_zero();
  const float* wk = w + oc0 * K; /* panel oc0/16, tap 0 */
  for (int64_t kh = 0; kh < KH; ++kh) {
    const float* xr = xp + (oh * ip[P_SH] + kh * ip[P_DH]) * wp + p0 * SW;
    for (int64_t kw = 0; kw < KW; ++kw, wk += 16) {
      kv wv[CONVP_ROWS_VECS];
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v)
        wv[v] = kv_load(wk + (v * KV_LANES / 16) * K * 16 + (v * KV_LANES) % 16);
      const float* xk = xr + kw * DW;
#pragma GCC unroll 8
      for (int p = 0; p < P; ++p) {
        const kv a = kv_set1(xk[p * SW]);
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v) acc[p * NV + v] = kv_fma(a, wv[v], acc[p * NV + v]);
      }
    }
  }
  /* The GEMM tiles' epilogue: bias along the channels, then residual and
   * the activations it fuses (others below). */
  const int64_t first = (oh * ip[P_OW] + p0) * OC + oc0; /* position p0's output */
  const kiln_tile_epilogue te = {bias ? bias + oc0 : NULL,
                                 0,
                                 1,
                                 1.0f,
                                 res ? res + first : NULL,
                                 OC,
                                 kiln_tile_act_fusable(act) ? act : KILN_ACT_NONE,
                                 fp[KILN_FP_CONV2D_F32_ACT_ALPHA],
                                 fp[KILN_FP_CONV2D_F32_ACT_BETA]};
  kiln_tile_epilogue_kv_all(&te, acc, P, NV);
#pragma GCC unroll 8
  for (int p = 0; p < P; ++p) {
    float* yo = y + first + p * OC;
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) kv_store(yo + KV_LANES * v, acc[p * NV + v]);
    if (!kiln_tile_act_fusable(act))
      kiln_activation_apply(yo, yo, KV_LANES * NV, act, fp[KILN_FP_CONV2D_F32_ACT_ALPHA],
                            fp[KILN_FP_CONV2D_F32_ACT_BETA]);
  }
}

#define CONVP_ROW_BODY(P, NV) \
  convp_row_body(ip, fp, xp, wp, w, bias, res, y, oh, p0, oc0, P, NV)
#if KV_LANES == 16
/* A block is up to 4 panels; below 16 lanes it is one whole panel (the
 * layer's channels are whole panels). */
#define CONVP_ROW_NV(P)                      \
  switch (nv) {                              \
    case 4: CONVP_ROW_BODY(P, 4); break;     \
    case 3: CONVP_ROW_BODY(P, 3); break;     \
    case 2: CONVP_ROW_BODY(P, 2); break;     \
    default: CONVP_ROW_BODY(P, 1); break;    \
  }
#else
#define CONVP_ROW_NV(P) CONVP_ROW_BODY(P, CONVP_ROWS_VECS);
#endif

/* Positions p0 .. p0 + np (np <= CONVP_ROWS_POS) x nv vectors from oc0. */
static void convp_row(const int64_t* ip, const float* fp, const float* xp, int64_t wp,
                      const float* w, const float* bias, const float* res, float* y, int64_t oh,
                      int64_t p0, int64_t np, int64_t oc0, int64_t nv) {
  (void)nv; /* a whole block below 16 lanes */
  switch (np) {
    case 1: CONVP_ROW_NV(1) break;
    case 2: CONVP_ROW_NV(2) break;
    case 3: CONVP_ROW_NV(3) break;
#if CONVP_ROWS_POS > 4
    case 4: CONVP_ROW_NV(4) break;
    case 5: CONVP_ROW_NV(5) break;
#if CONVP_ROWS_POS > 6
    case 6: CONVP_ROW_NV(6) break;
    case 7: CONVP_ROW_NV(7) break;
    default: CONVP_ROW_NV(8) break;
#else
    default: CONVP_ROW_NV(6) break;
#endif
#else
    default: CONVP_ROW_NV(4) break;
#endif
  }
}
#undef CONVP_ROW_NV
#undef CONVP_ROW_BODY

/* A one-channel image with short output rows into NHWC (a keyword
 * spotter's stem over a spectrogram): per image, a zero-padded copy on the
 * stack, then each output row's channels in registers (convp_row_body), so
 * no im2col rows are packed. Serial: such a layer is small. */
static void convp_rows(const int64_t* ip, const float* fp, void* const* bindings,
                       const float* res, float* y) {
  const int64_t H = ip[P_H], W = ip[P_W], OH = ip[P_OH], OW = ip[P_OW], OC = ip[P_OC];
  const int64_t hp = convp_reach(OH, ip[P_SH], ip[P_KH], ip[P_DH]);
  const int64_t wp = convp_reach(OW, ip[P_SW], ip[P_KW], ip[P_DW]);
  const float* bias = ip[P_HAS_BIAS] ? (const float*)bindings[2] : NULL;
  const int64_t block = CONVP_ROWS_VECS * KV_LANES; /* channels per register block */
  float xp[CONVP_ROWS_PAD_MAX];
  for (int64_t n = 0; n < ip[P_N]; ++n) {
    const float* x = (const float*)bindings[0] + n * H * W;
    for (int64_t r = 0; r < hp; ++r) {
      const int64_t ih = r - ip[P_PT];
      for (int64_t q = 0; q < wp; ++q) {
        const int64_t iw = q - ip[P_PL];
        xp[r * wp + q] = ih >= 0 && ih < H && iw >= 0 && iw < W ? x[ih * W + iw] : 0.0f;
      }
    }
    float* yn = y + n * OH * OW * OC;
    const float* rn = res ? res + n * OH * OW * OC : NULL;
    for (int64_t oh = 0; oh < OH; ++oh)
      for (int64_t oc0 = 0; oc0 < OC; oc0 += block) {
        const int64_t nv = (OC - oc0 < block ? OC - oc0 : block) / KV_LANES;
        for (int64_t p0 = 0; p0 < OW; p0 += CONVP_ROWS_POS) {
          const int64_t np = OW - p0 < CONVP_ROWS_POS ? OW - p0 : CONVP_ROWS_POS;
          convp_row(ip, fp, xp, wp, (const float*)bindings[1], bias, rn, yn, oh, p0, np, oc0,
                    nv);
        }
      }
  }
}

static int convp_run(const int64_t* ip, const float* fp, void* const* bindings, const float* res,
                     float* y, int x_channels_last, int y_channels_last, const kiln_host* host) {
  /* A few-channel NCHW image into NHWC (an image stem before channels-last
   * layers): conv_stem_nhwc.h. */
  const int64_t G = ip[P_GROUPS];
  stem_job stem;
  if (G == 1 && !x_channels_last && y_channels_last && !res && ip[P_C] > 1 &&
      stem_fits(ip, &stem)) {
    stem_run(&stem, ip, fp, bindings, y, host);
    return KILN_OK;
  }
  if (G == 1 && convp_rows_fit(ip, y_channels_last)) {
    convp_rows(ip, fp, bindings, res, y);
    return KILN_OK;
  }
  if (G == 1 && convp_is_pointwise_gemm(ip, y_channels_last)) {
    convp_pointwise_gemm(ip, fp, bindings, res, y, x_channels_last, host);
    return KILN_OK;
  }
  if (G == 1 && y_channels_last && ip[P_C] == 1) {
    convp_one_channel_gemm(ip, fp, bindings, res, y, host);
    return KILN_OK;
  }
  convp_job j;
  j.ip = ip;
  j.x = (const float*)bindings[0];
  j.w = (const float*)bindings[1];
  j.bias = ip[P_HAS_BIAS] ? (const float*)bindings[2] : NULL;
  j.res = res;
  j.y = y;
  j.x_channels_last = x_channels_last;
  j.y_channels_last = y_channels_last;
  j.cpg = ip[P_C] / G;
  j.ocpg = ip[P_OC] / G;
#ifdef KILN_HAVE_AVX512
  j.tile_fn = convp_tile_avx512;
  /* Two panels per tile: of one group, or of two groups of 16 channels. */
  j.chunk = CONVP_NR;
  const int64_t tile_rows = CONVP_MR;
#else
  j.tile_fn = convp_tile_vec;
  j.chunk = CONVP_TILE_NR;
  const int64_t tile_rows = CONVP_TILE_MR;
#endif
  j.S = ip[P_OH] * ip[P_OW];
  /* Equal tiles of at most tile_rows positions: 49 positions in tiles of
   * 8 rows are 7 tiles of 7. */
  j.tiles = (j.S + tile_rows - 1) / tile_rows;
  j.mr = j.tiles > 0 ? (j.S + j.tiles - 1) / j.tiles : 1;
  j.chunks = (ip[P_OC] + j.chunk - 1) / j.chunk;
  j.act_alpha = fp[KILN_FP_CONV2D_F32_ACT_ALPHA], j.act_beta = fp[KILN_FP_CONV2D_F32_ACT_BETA];
  const int64_t tasks = ip[P_N] * j.chunks * j.tiles;
  const double work = (double)ip[P_N] * ip[P_OC] * j.S * j.cpg * ip[P_KH] * ip[P_KW];
  /* On threads, chunk by chunk over all positions gives each thread some
   * channels of every position of y: two cores then write neighbouring
   * lines, and their prefetchers pull each other's lines back and forth
   * (two threads ran ResNet-18's layers no faster than one on an AMD EPYC
   * Zen 5). Where y outweighs the weights, each half of the positions
   * takes its chunks in turn instead: two threads then write a half of y
   * each and read all the weights. */
  j.split = host && j.tiles > 1 && j.S > j.cpg * ip[P_KH] * ip[P_KW] ? j.tiles / 2 : j.tiles;
  kiln_run_tasks(host, tasks, work, (double)(1 << 19), convp_tasks, &j);
  return KILN_OK;
}

int kiln_conv2d_packed_f32(const int64_t* ip, const float* fp, void* const* bindings,
                           const kiln_host* host) {
  return convp_run(ip, fp, bindings, NULL, (float*)bindings[3], 0, 0, host);
}

int kiln_conv2d_packed_res_f32(const int64_t* ip, const float* fp, void* const* bindings,
                               const kiln_host* host) {
  return convp_run(ip, fp, bindings, (const float*)bindings[3], (float*)bindings[4], 0, 0, host);
}

int kiln_conv2d_packed_cl_f32(const int64_t* ip, const float* fp, void* const* bindings,
                              const kiln_host* host) {
  return convp_run(ip, fp, bindings, NULL, (float*)bindings[3], (int)ip[P_X_CL], (int)ip[P_Y_CL],
                   host);
}

int kiln_conv2d_packed_cl_res_f32(const int64_t* ip, const float* fp, void* const* bindings,
                                  const kiln_host* host) {
  return convp_run(ip, fp, bindings, (const float*)bindings[3], (float*)bindings[4],
                   (int)ip[P_X_CL], (int)ip[P_Y_CL], host);
}

int kiln_conv2d_packed_f32_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                                 uint32_t fparam_count, const uint64_t* binding_bytes) {
  return kiln_conv_check(ip, iparam_count, fp, fparam_count, binding_bytes, 3, 1);
}

int kiln_conv2d_packed_res_f32_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                                     uint32_t fparam_count, const uint64_t* binding_bytes) {
  return kiln_conv_res_check(ip, iparam_count, fp, fparam_count, binding_bytes, 1);
}

int kiln_conv2d_packed_cl_f32_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                                    uint32_t fparam_count, const uint64_t* binding_bytes) {
  KILN_TRY(kiln_conv_layout_check(ip, iparam_count));
  return kiln_conv_check(ip, P_COUNT, fp, fparam_count, binding_bytes, 3, 1);
}

int kiln_conv2d_packed_cl_res_f32_check(const int64_t* ip, uint32_t iparam_count,
                                        const float* fp, uint32_t fparam_count,
                                        const uint64_t* binding_bytes) {
  KILN_TRY(kiln_conv_layout_check(ip, iparam_count));
  return kiln_conv_res_check(ip, P_COUNT, fp, fparam_count, binding_bytes, 1);
}
