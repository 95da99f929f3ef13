/* conv2d_winograd_f32 and conv2d_winograd_res_f32: a one-group 3x3,
 * stride-1, dilation-1 convolution by Winograd's F(4x4, 3x3)
 * (kiln/conv_winograd.h): 36 multiplies per 4 x 4 outputs and channel pair
 * instead of 144, so 4x fewer than conv2d_packed_f32 on whole tiles.
 *
 * The weights come as a packed GEMM B operand in 16-wide panels of output
 * channels: U, transformed by the compiler (K = 36*C, frequency-major), or,
 * for layers with few tiles, the plain weights (K = 9*C), transformed here
 * per task into a stack buffer (kernels.h). The tiles are taken in waves
 * (kiln_winograd_wave_rows: a wave's data stay in cache from one phase to
 * the next), each wave in two phases:
 *   1. input transform: each tile's 6 x 6 inputs (zero outside the image)
 *      become V[f][t][c] in the scratch binding, written once against vec.h
 *      with channels in the lanes (an NCHW x goes through a staging strip,
 *      transposed a lanes-square block at a time, so both layouts share it);
 *   2. per chunk of output channels, frequency by frequency over all the
 *      chunks, the GEMM micro-kernel of sgemm.h sums M[f][t][oc] = sum_c
 *      V[f][t][c] U[f][c][oc] into the scratch; then the output transform
 *      (output channels in the lanes) and the epilogue write y.
 * On the host's threads, while U is small enough to read once per wave on
 * every thread, each thread takes a share of the tiles and of the scratch
 * and runs its own waves through both phases (wg_slot_tasks); with larger
 * U or plain weights (`chunked`) and one wave, each thread takes a share of
 * the output channels (and with more threads than V rooms, of the tiles),
 * transforms its tiles' whole input into a room of its own and runs both
 * phases for its share (wg_share_tasks); else (chunked on one thread, or
 * in several waves) the input transform is split by tile rows, the GEMMs
 * by chunks of output channels and the outputs by tiles.
 * V and M are frequency-major (each frequency's tiles contiguous, padded
 * apart so that a tile's 36 vectors do not share an L1 set; chunked, M is
 * chunk by chunk, a tile's 36 sums together) and phase 2
 * runs the frequencies outermost: one frequency's V and U (tens of KB) stay
 * in L1/L2 while every tile and chunk of the task uses them; tile-major
 * (frequency inner), ResNet-18's 2.4 MB U of layer2 streamed from memory
 * once per block of tiles.
 *
 * Per output: the 36 products of each channel summed over channels in
 * order (the micro-kernel's order), the output transform, then bias,
 * residual and activation in conv2d_packed_f32's order. No task partition
 * changes any of it, so results do not depend on threads. Winograd's
 * rounding is larger than a direct sum's (the transforms add and scale
 * terms): the error bound the tests use is derived in
 * tests/runtime/conv_winograd_test.cc. */
#include <stdint.h>
#include <string.h>

#include "activation.h"
#include "conv_check.h"
#include "host_tasks.h"
#include "kiln/conv_winograd.h"
#include "kiln/kernels.h"
#include "sgemm.h"
#include "simd.h"
#include "vec.h"

/* conv2d_packed_cl_f32's parameters, then the form of the weights. */
enum {
  P_WG_TRANSFORMED = KILN_IP_CONV2D_WINOGRAD_F32_TRANSFORMED_WEIGHTS,
  P_WG_COUNT = KILN_CONV2D_WINOGRAD_F32_IPARAMS
};
_Static_assert((int)P_WG_TRANSFORMED == (int)P_CL_COUNT, "the weight form follows the layouts");
_Static_assert(KILN_CONV2D_CL_LAYOUT_OF(CONV2D_WINOGRAD_F32) &&
                   KILN_CONV2D_CL_LAYOUT_OF(CONV2D_WINOGRAD_RES_F32) &&
                   KILN_IP_CONV2D_WINOGRAD_RES_F32_TRANSFORMED_WEIGHTS == (int)P_WG_TRANSFORMED &&
                   KILN_CONV2D_WINOGRAD_RES_F32_IPARAMS == (int)P_WG_COUNT,
               "both Winograd kernels have conv2d_packed_cl_f32's parameters, then the form");

#define WG_M KILN_WINOGRAD_M
#define WG_A KILN_WINOGRAD_A
#define WG_F KILN_WINOGRAD_FREQS

/* Tiles of one staging strip (phase 1): its 4*WG_STRIP + 2 columns of six
 * input rows, KV_LANES channels each, live on the stack. */
#define WG_STRIP 8
#define WG_STRIP_COLS (WG_M * WG_STRIP + 2)

typedef struct wg_job {
  const float *x, *u, *bias, *res;
  float *y, *v, *m; /* v: V[f][tile][c], m: the sums M[f][tile][oc] of the wave (scratch) */
  float* ub;         /* plain weights: each panel's U blocks (scratch), or with
                      * ub_own the task's own regions, whatever the chunk */
  int ub_own;
  int x_cl, y_cl;  /* x, and y (and r), channels last */
  int transformed; /* u holds U (else the plain weights in panels) */
  int chunked;     /* M chunk by chunk; the phases split by rows, chunks, tiles */
  int64_t m_oc_stride; /* chunked: floats of M per output channel before the chunk
                        * (0: M holds one chunk at a time) */
  int64_t C, OC, H, W, OH, OW, PT, PL;
  int64_t TH, TW;      /* tiles per column and per row of an image */
  int64_t all_tiles;   /* N*TH*TW, numbered row by row */
  int64_t wave_tiles;  /* the most one wave takes: what V and M hold */
  int64_t tile0, tiles; /* the wave: tiles [tile0, tile0 + tiles) */
  int64_t cgroups;   /* phase 1: channel groups of KV_LANES */
  kiln_gemm_path path;
  int64_t vfs, mfs;       /* floats from one frequency of V (of M) to the next */
  int64_t chunks;         /* phase 2: output-channel chunks of path.nr */
  int64_t h_tasks, g_tasks; /* wg_share_tasks: shares of the chunks, tile groups */
  int64_t act;
  float act_alpha, act_beta;
} wg_job;

/* ---- the transforms, on vectors (lanes: channels) --------------------- */

static KILN_ALWAYS_INLINE kv wg_sub(kv a, kv b) { return kv_fma(b, kv_set1(-1.0f), a); }

/* BT d for the six values d[0], d[s], ..., d[5s]: out[i*os]. */
static KILN_ALWAYS_INLINE void wg_input_1d(const kv* d, int s, kv* out, int os) {
  const kv d0 = d[0], d1 = d[s], d2 = d[2 * s], d3 = d[3 * s], d4 = d[4 * s], d5 = d[5 * s];
  const kv m4 = kv_set1(-4.0f), m5 = kv_set1(-5.0f), p4 = kv_set1(4.0f), p2 = kv_set1(2.0f);
  const kv a = kv_fma(m4, d2, d4); /* d4 - 4 d2 */
  const kv b = kv_fma(m4, d1, d3); /* d3 - 4 d1 */
  const kv c = wg_sub(d4, d2);
  const kv g = wg_sub(d3, d1);
  out[0] = kv_fma(p4, d0, kv_fma(m5, d2, d4));
  out[os] = kv_add(a, b);
  out[2 * os] = wg_sub(a, b);
  out[3 * os] = kv_fma(p2, g, c);
  out[4 * os] = kv_fma(kv_set1(-2.0f), g, c);
  out[5 * os] = kv_fma(p4, d1, kv_fma(m5, d3, d5));
}

/* AT m for the six values m[0], m[s], ..., m[5s]: out[i*os], i < 4. */
static KILN_ALWAYS_INLINE void wg_output_1d(const kv* m, int s, kv* out, int os) {
  const kv s1 = kv_add(m[s], m[2 * s]), d1 = wg_sub(m[s], m[2 * s]);
  const kv s2 = kv_add(m[3 * s], m[4 * s]), d2 = wg_sub(m[3 * s], m[4 * s]);
  out[0] = kv_add(kv_add(m[0], s1), s2);
  out[os] = kv_fma(kv_set1(2.0f), d2, d1);
  out[2 * os] = kv_fma(kv_set1(4.0f), s2, s1);
  out[3 * os] = kv_fma(kv_set1(8.0f), d2, kv_add(d1, m[5 * s]));
}

/* ---- phase 1: input transform ------------------------------------------ */

/* Row ih of image n, columns iw0 .. iw0 + cols - 1, channels c0 .. c0 + lc
 * - 1, into dst[q] (one vector per column; lanes past lc and columns
 * outside the image zero). */
static void wg_stage_row(const wg_job* j, int64_t n, int64_t ih, int64_t iw0, int64_t cols,
                         int64_t c0, int64_t lc, kv* dst) {
  const int64_t W = j->W, C = j->C;
  /* Columns [q0, q1) lie inside the image; indices, not pointers, until
   * then, since iw0 may be left of the image. */
  int64_t q0 = iw0 < 0 ? -iw0 : 0;
  if (q0 > cols) q0 = cols;
  int64_t q1 = W - iw0 < cols ? W - iw0 : cols;
  if (q1 < q0 || ih < 0 || ih >= j->H) q1 = q0;
  for (int64_t q = 0; q < q0; ++q) dst[q] = kv_zero();
  for (int64_t q = q1; q < cols; ++q) dst[q] = kv_zero();
  if (j->x_cl) {
    const int64_t row = (n * j->H + ih) * W + iw0;
    for (int64_t q = q0; q < q1; ++q) {
      const float* p = j->x + (row + q) * C + c0;
      dst[q] = lc == KV_LANES ? kv_load(p) : kv_load_n(p, lc);
    }
    return;
  }
  /* NCHW: KV_LANES channel rows of up to KV_LANES columns, transposed. */
  const int64_t hw = j->H * W, row = ((n * C + c0) * j->H + ih) * W + iw0;
  for (int64_t q = q0; q < q1; q += KV_LANES) {
    const int64_t len = q1 - q < KV_LANES ? q1 - q : KV_LANES;
    kv blk[KV_LANES];
    for (int64_t l = 0; l < KV_LANES; ++l) {
      if (l >= lc) {
        blk[l] = kv_zero();
        continue;
      }
      const float* p = j->x + row + l * hw + q;
      blk[l] = len == KV_LANES ? kv_load(p) : kv_load_n(p, len);
    }
    kv_transpose(blk);
    if (len == KV_LANES) {
      for (int l = 0; l < KV_LANES; ++l) dst[q + l] = blk[l];
    } else {
      for (int64_t l = 0; l < len; ++l) dst[q + l] = blk[l];
    }
  }
}

/* Phase 1's tasks: (tile row the wave reaches, channel group). */
static int64_t wg_input_task_count(const wg_job* j) {
  const int64_t first = j->tile0 / j->TW, last = (j->tile0 + j->tiles - 1) / j->TW;
  return (last - first + 1) * j->cgroups;
}

/* Task: the wave's tiles in one tile row, channel group cg (of KV_LANES
 * channels). */
static void wg_input_tasks(void* ctx, int64_t begin, int64_t end) {
  const wg_job* j = (const wg_job*)ctx;
  const int64_t C = j->C;
  kv stage[WG_A][WG_STRIP_COLS];
  for (int64_t task = begin; task < end; ++task) {
    const int64_t cg = task % j->cgroups, row = j->tile0 / j->TW + task / j->cgroups;
    const int64_t n = row / j->TH, th = row % j->TH;
    const int64_t c0 = cg * KV_LANES, lc = C - c0 < KV_LANES ? C - c0 : KV_LANES;
    /* A wave may start and end inside a row. */
    const int64_t row_tile0 = row * j->TW, wave_end = j->tile0 + j->tiles;
    const int64_t tw_begin = j->tile0 > row_tile0 ? j->tile0 - row_tile0 : 0;
    const int64_t tw_end = wave_end < row_tile0 + j->TW ? wave_end - row_tile0 : j->TW;
    for (int64_t tw0 = tw_begin; tw0 < tw_end; tw0 += WG_STRIP) {
      const int64_t tiles = tw_end - tw0 < WG_STRIP ? tw_end - tw0 : WG_STRIP;
      const int64_t cols = WG_M * tiles + 2;
      for (int r = 0; r < WG_A; ++r)
        wg_stage_row(j, n, th * WG_M - j->PT + r, tw0 * WG_M - j->PL, cols, c0, lc, stage[r]);
      for (int64_t i = 0; i < tiles; ++i) {
        kv tmp[WG_A][WG_A], out[WG_A][WG_A];
        /* Columns: tmp[f][q] = (BT d)[f][q]; rows: out[f][g] = (tmp BT^T)[f][g]. */
        for (int q = 0; q < WG_A; ++q)
          wg_input_1d(&stage[0][WG_M * i + q], WG_STRIP_COLS, &tmp[0][q], WG_A);
        for (int f = 0; f < WG_A; ++f) wg_input_1d(tmp[f], 1, out[f], 1);
        const int64_t t = row * j->TW + tw0 + i - j->tile0; /* in the wave */
        float* v = j->v + t * C + c0;
        const kv* o = &out[0][0];
        if (lc == KV_LANES) {
          for (int f = 0; f < WG_F; ++f) kv_store(v + f * j->vfs, o[f]);
        } else {
          for (int f = 0; f < WG_F; ++f) kv_store_n(v + f * j->vfs, o[f], lc);
        }
      }
    }
  }
}

/* ---- phase 2: per-frequency GEMMs, output transform, epilogue ---------- */

/* ReLU and Clip on vectors, with activation.h's NaN rule (kv_max/kv_min
 * return their second operand when either is NaN); other kinds run
 * kiln_activation_apply over the stored values. */
static KILN_ALWAYS_INLINE kv wg_act_vec(kv v, int64_t act, float lo, float hi) {
  if (act == KILN_ACT_RELU) return kv_max(kv_zero(), v);
  if (act == KILN_ACT_CLIP) return kv_min(kv_set1(hi), kv_max(kv_set1(lo), v));
  return v;
}

static KILN_ALWAYS_INLINE int wg_act_in_vec(int64_t act) {
  return act == KILN_ACT_NONE || act == KILN_ACT_RELU || act == KILN_ACT_CLIP;
}

/* One tile's outputs o[a*4 + b] (lanes: output channels oc0 .. oc0 + lanes
 * - 1, bias added) into NHWC y at (n, oh0 + a, ow0 + b): residual,
 * activation, store; rows and columns past the plane are dropped. */
static void wg_store_nhwc(const wg_job* j, int64_t n, int64_t oh0, int64_t ow0, int64_t oc0,
                          int64_t lanes, const kv* o) {
  const int64_t OC = j->OC;
  for (int a = 0; a < WG_M && oh0 + a < j->OH; ++a)
    for (int b = 0; b < WG_M && ow0 + b < j->OW; ++b) {
      const int64_t at = ((n * j->OH + oh0 + a) * j->OW + ow0 + b) * OC + oc0;
      kv v = o[a * WG_M + b];
      if (j->res) v = kv_add(v, lanes == KV_LANES ? kv_load(j->res + at) : kv_load_n(j->res + at, lanes));
      v = wg_act_vec(v, j->act, j->act_alpha, j->act_beta);
      if (lanes == KV_LANES) {
        kv_store(j->y + at, v);
      } else {
        kv_store_n(j->y + at, v, lanes);
      }
      if (!wg_act_in_vec(j->act))
        kiln_activation_apply(j->y + at, j->y + at, lanes, j->act, j->act_alpha, j->act_beta);
    }
}

/* n (<= 4) floats of a tile row: a whole row is one 16-byte move. */
static KILN_ALWAYS_INLINE void wg_copy_row(float* dst, const float* src, int64_t n) {
  if (n == WG_M) {
    memcpy(dst, src, WG_M * sizeof(float));
  } else {
    for (int64_t b = 0; b < n; ++b) dst[b] = src[b];
  }
}

/* The same into NCHW y: the 16 outputs of each channel become contiguous
 * by transposing o a lanes-square block at a time (blk[l][p]: channel
 * oc0 + l, output p = 4a + b); the residual joins them in that form (its
 * tile rows gathered), the activation runs over the block, and the tile's
 * rows go out. */
static void wg_store_nchw(const wg_job* j, int64_t n, int64_t oh0, int64_t ow0, int64_t oc0,
                          int64_t lanes, kv* o) {
  float blk[KV_LANES][WG_M * WG_M] KILN_ALIGN64;
  for (int g = 0; g < WG_M * WG_M; g += KV_LANES) {
    kv_transpose(o + g);
    for (int l = 0; l < KV_LANES; ++l) kv_store(&blk[l][g], o[g + l]);
  }
  const int64_t rows = j->OH - oh0 < WG_M ? j->OH - oh0 : WG_M;
  const int64_t cols = j->OW - ow0 < WG_M ? j->OW - ow0 : WG_M;
  const int64_t plane = j->OH * j->OW, first = (n * j->OC + oc0) * plane + oh0 * j->OW + ow0;
  if (j->res) {
    float r[KV_LANES][WG_M * WG_M] KILN_ALIGN64;
    memset(r, 0, sizeof r);
    for (int64_t l = 0; l < lanes; ++l)
      for (int64_t a = 0; a < rows; ++a) wg_copy_row(&r[l][a * WG_M], j->res + first + l * plane + a * j->OW, cols);
    for (int64_t q = 0; q < lanes * WG_M * WG_M; q += KV_LANES)
      kv_store(&blk[0][0] + q, kv_add(kv_load(&blk[0][0] + q), kv_load(&r[0][0] + q)));
  }
  if (wg_act_in_vec(j->act)) {
    for (int64_t q = 0; q < lanes * WG_M * WG_M; q += KV_LANES)
      kv_store(&blk[0][0] + q, wg_act_vec(kv_load(&blk[0][0] + q), j->act, j->act_alpha, j->act_beta));
  } else {
    kiln_activation_apply(&blk[0][0], &blk[0][0], lanes * WG_M * WG_M, j->act, j->act_alpha,
                          j->act_beta);
  }
  for (int64_t l = 0; l < lanes; ++l)
    for (int64_t a = 0; a < rows; ++a) wg_copy_row(j->y + first + l * plane + a * j->OW, &blk[l][a * WG_M], cols);
}

/* Where the sums of output channels [oc0, oc0 + nr) of the wave's tile t
 * start in M, *fs floats from one frequency to the next and *ts from one
 * tile to the next: M[f][t][oc], or, chunked, M[chunk][t][f][its nr
 * channels], so that each chunk's sums (the GEMMs split over threads by
 * chunks) are a run of their own. */
static float* wg_m_at(const wg_job* j, int64_t oc0, int64_t nr, int64_t t, int64_t* fs,
                      int64_t* ts) {
  if (!j->chunked) {
    *fs = j->mfs, *ts = j->OC;
    return j->m + t * j->OC + oc0;
  }
  *fs = nr, *ts = WG_F * nr;
  return j->m + oc0 * j->m_oc_stride + WG_F * t * nr;
}

/* Frequency f's sums M[f][t][oc] of the wave's tiles t0 .. t0 + tiles - 1
 * and output channels oc0 .. oc0 + nr - 1, from weights the compiler
 * transformed: the micro-kernel over the whole K = C. */
static void wg_sums_transformed(const wg_job* j, int64_t f, int64_t oc0, int64_t nr, int64_t t0,
                                int64_t tiles) {
  const int64_t C = j->C, MR = j->path.mr;
  const int64_t panel = WG_F * C * 16; /* floats per 16-channel panel of U */
  const float* u = j->u + oc0 / 16 * panel + oc0 % 16 + f * C * 16;
  for (int64_t i = 0; i < tiles; i += MR) {
    const int64_t mr = tiles - i < MR ? tiles - i : MR;
    int64_t fs, ts;
    float* mt = wg_m_at(j, oc0, nr, t0 + i, &fs, &ts) + f * fs;
    j->path.ukr(C, j->v + f * j->vfs + (t0 + i) * C, C, 1, u, 16, panel, mt, ts, mr, nr, 0,
                NULL);
  }
}

/* G g for the three values g[0], g[s], g[2s] (kiln/conv_winograd.h's G,
 * its zeros and pairs of rows shared): out[i*os]. */
static KILN_ALWAYS_INLINE void wg_weight_1d(const kv* g, int s, kv* out, int os) {
  const kv g0 = g[0], g1 = g[s], g2 = g[2 * s];
  const kv sum = kv_add(g0, g2);
  const kv t = kv_fma(g0, kv_set1(1.0f / 24), kv_mul(g2, kv_set1(1.0f / 6)));
  const kv h = kv_mul(g1, kv_set1(1.0f / 12));
  out[0] = kv_mul(g0, kv_set1(0.25f));
  out[os] = kv_mul(kv_add(sum, g1), kv_set1(-1.0f / 6));
  out[2 * os] = kv_mul(wg_sub(sum, g1), kv_set1(-1.0f / 6));
  out[3 * os] = kv_add(t, h);
  out[4 * os] = wg_sub(t, h);
  out[5 * os] = g2;
}

/* wg_sums_transformed from the plain weights w[oc][c][3][3] in panels
 * (kernels.h, transformed_weights 0): U is made here, a block of
 * KILN_WINOGRAD_RAW_KC channels at a time, into the scratch region of each
 * 16-channel panel ([k][f][16]: one channel's 36 frequencies written in a
 * run; lanes of the task's own channels only, so tasks never share a
 * byte), where the micro-kernel reads it from cache; the weights
 * stream from memory once, at a quarter of U's size. For few tiles, where
 * U's size would make the GEMMs wait on memory. */
#define WG_RAW_AHEAD 4 /* channels: 2.3 KB ahead of the loads */
/* Floats of one panel's region of U blocks: [k][f][16] for RAW_KC channels. */
#define WG_UB_REGION (WG_F * KILN_WINOGRAD_RAW_KC * 16)

static void wg_sums_raw(const wg_job* j, int64_t oc0, int64_t nr, int64_t t0, int64_t tiles) {
  const int64_t C = j->C, MR = j->path.mr, KC = KILN_WINOGRAD_RAW_KC;
  const int64_t panel = 9 * C * 16;   /* floats per 16-channel panel of w */
  /* Floats from one channel's row of K to the next, and from a tap's to the
   * next (kiln_winograd_plain_tap_major). */
  const int tap_major = kiln_winograd_plain_tap_major(j->OH, j->OW);
  const int64_t ch_step = tap_major ? 16 : 9 * 16, tap_step = tap_major ? C * 16 : 16;
  const int64_t region = WG_UB_REGION;
  const int64_t p0 = oc0 / 16, panels = (oc0 % 16 + nr + 15) / 16;
  /* The task's lanes in each panel: the micro-kernel's columns. */
  const int64_t q0 = oc0 % 16, q1 = q0 + (j->path.nr < 16 ? j->path.nr : 16);
  float* const ub0 = j->ub_own ? j->ub : j->ub + p0 * region;
  for (int64_t c0 = 0; c0 < C; c0 += KC) {
    const int64_t kc = C - c0 < KC ? C - c0 : KC;
    for (int64_t p = 0; p < panels; ++p) {
      float* ub = ub0 + p * region;
      for (int64_t k = 0; k < kc; ++k) {
        /* The plain weights stream from memory, a line per tap and channel,
         * and the loads stalled on them (over half of this loop's time on
         * ResNet-18's layer3): ask for the lines of the channel WG_RAW_AHEAD
         * on. */
        if (k + WG_RAW_AHEAD < kc) {
          const float* ahead = j->u + (p0 + p) * panel + (c0 + k + WG_RAW_AHEAD) * ch_step + q0;
          for (int tap = 0; tap < 9; ++tap) KILN_PREFETCH_READ(ahead + tap * tap_step);
        }
        for (int64_t q = q0; q < q1; q += KV_LANES) {
          const float* g = j->u + (p0 + p) * panel + (c0 + k) * ch_step + q;
          kv taps[9], h[3][WG_A], out[WG_A];
          for (int tap = 0; tap < 9; ++tap) taps[tap] = kv_load(g + tap * tap_step);
          /* h[v][i] = (G g)[i][v], then U[i][b] = (h G^T)[i][b]. */
          for (int v = 0; v < 3; ++v) wg_weight_1d(taps + v, 3, h[v], 1);
          for (int i = 0; i < WG_A; ++i) {
            const kv row[3] = {h[0][i], h[1][i], h[2][i]};
            wg_weight_1d(row, 1, out, 1);
            for (int b = 0; b < WG_A; ++b) kv_store(ub + (k * WG_F + i * WG_A + b) * 16 + q, out[b]);
          }
        }
      }
    }
    for (int64_t f = 0; f < WG_F; ++f) {
      for (int64_t r = 0; r < tiles; r += MR) {
        const int64_t mr = tiles - r < MR ? tiles - r : MR;
        int64_t fs, ts;
        float* mt = wg_m_at(j, oc0, nr, t0 + r, &fs, &ts) + f * fs;
        j->path.ukr(kc, j->v + f * j->vfs + (t0 + r) * C + c0, C, 1,
                    ub0 + f * 16 + q0, WG_F * 16, region, mt, ts, mr, nr,
                    c0 > 0, NULL);
      }
    }
  }
}

/* Chunk `chunk` of phase 2: its output channels [*oc0, *oc0 + *nr). */
static void wg_chunk_span(const wg_job* j, int64_t chunk, int64_t* oc0, int64_t* nr) {
  *oc0 = chunk * j->path.nr;
  *nr = j->OC - *oc0 < j->path.nr ? j->OC - *oc0 : j->path.nr;
}

/* The output transform and epilogue of the wave's tiles [t0, t0 + tiles)
 * for output channels [oc0, oc0 + nr), from the sums M. */
static void wg_outputs(const wg_job* j, int64_t oc0, int64_t nr, int64_t t0, int64_t tiles) {
  for (int64_t i = 0; i < tiles; ++i) {
    const int64_t tile = j->tile0 + t0 + i, row = tile / j->TW, n = row / j->TH;
    const int64_t oh0 = row % j->TH * WG_M, ow0 = tile % j->TW * WG_M;
    for (int64_t g = 0; g < nr; g += KV_LANES) {
      const int64_t lanes = nr - g < KV_LANES ? nr - g : KV_LANES;
      kv m[WG_F], tmp[WG_A][WG_M], o[WG_M * WG_M];
      int64_t fs, ts;
      const float* mt = wg_m_at(j, oc0, nr, t0 + i, &fs, &ts) + g;
      for (int f = 0; f < WG_F; ++f)
        m[f] = lanes == KV_LANES ? kv_load(mt + f * fs) : kv_load_n(mt + f * fs, lanes);
      /* Rows: tmp[f][b] = (m AT^T)[f][b]; columns: o[a][b] = (AT tmp)[a][b]. */
      for (int f = 0; f < WG_A; ++f) wg_output_1d(m + f * WG_A, 1, tmp[f], 1);
      for (int b = 0; b < WG_M; ++b) wg_output_1d(&tmp[0][b], WG_M, o + b, WG_M);
      if (j->bias) {
        const float* bp = j->bias + oc0 + g;
        const kv bv = lanes == KV_LANES ? kv_load(bp) : kv_load_n(bp, lanes);
        for (int p = 0; p < WG_M * WG_M; ++p) o[p] = kv_add(o[p], bv);
      }
      if (j->y_cl) {
        wg_store_nhwc(j, n, oh0, ow0, oc0 + g, lanes, o);
      } else {
        wg_store_nchw(j, n, oh0, ow0, oc0 + g, lanes, o);
      }
    }
  }
}

/* Phase 2 in two steps: chunks [begin, end) sum into M (with plain
 * weights, each chunk makes its own U; with U, frequency by frequency over
 * the chunks), then tiles [begin, end) take every chunk's outputs. Split
 * over threads apart (chunked), each thread's sums are a run of M of their
 * own and each thread writes a run of y, not some channels of every
 * position (two cores writing neighbouring lines of y ran slower than
 * one). */
static void wg_chunk_sums_tasks(void* ctx, int64_t begin, int64_t end) {
  const wg_job* j = (const wg_job*)ctx;
  int64_t oc0, nr;
  if (j->transformed) {
    for (int64_t f = 0; f < WG_F; ++f)
      for (int64_t chunk = begin; chunk < end; ++chunk) {
        wg_chunk_span(j, chunk, &oc0, &nr);
        wg_sums_transformed(j, f, oc0, nr, 0, j->tiles);
      }
    return;
  }
  for (int64_t chunk = begin; chunk < end; ++chunk) {
    wg_chunk_span(j, chunk, &oc0, &nr);
    wg_sums_raw(j, oc0, nr, 0, j->tiles);
  }
}

static void wg_tile_output_tasks(void* ctx, int64_t begin, int64_t end) {
  const wg_job* j = (const wg_job*)ctx;
  int64_t oc0, nr;
  for (int64_t chunk = 0; chunk < j->chunks; ++chunk) {
    wg_chunk_span(j, chunk, &oc0, &nr);
    wg_outputs(j, oc0, nr, begin, end - begin);
  }
}

/* Tiles a slot of `slot` of the wave's tiles holds at a time, and the
 * floats *fs from one frequency to the next in it, where a tile takes
 * `width` floats: the slot's part of V (or M) is its own run of
 * WG_F * slot * width floats (the last slot's also holds the frequencies'
 * padding), and a slot with room for it gives up a tile to pad too. */
static int64_t wg_slot_fit(int64_t slot, int64_t width, int last, int64_t* fs) {
  const int64_t give = (KILN_WINOGRAD_FREQ_PAD + width - 1) / width;
  if (last) {
    *fs = slot * width + KILN_WINOGRAD_FREQ_PAD;
    return slot;
  }
  if (slot > give) {
    *fs = (slot - give) * width + KILN_WINOGRAD_FREQ_PAD;
    return slot - give;
  }
  *fs = slot * width;
  return slot;
}

/* Floats of V and M one step of a slot holds at most: with the U that
 * every step reads (up to KILN_WINOGRAD_WAVE_MAX_U floats, 590 KB for
 * ResNet-18's 64-channel layers) they stay within a core's L2 (1 MB on AMD
 * Zen 4 and 5): 14 tiles of those layers, where a thread's slot of 28 on
 * two threads (56 on one) took 1.1 MB (1.6 MB) with U. AMD EPYC Zen 5:
 * BM_ConvWinograd C:64 H:56 OC:64 nhwc:1, 4 interleaved rounds, 2 threads
 * 0.327-0.337 -> 0.304-0.318 ms; ResNet-18's four such layers in the VM,
 * 5 interleaved rounds, 1.70 -> 1.63 ms on 2 threads, 2.28 -> 2.21 on 1. */
#define WG_STEP_FLOATS (64 * 1024)

/* Slots [begin, end) of the wave_tiles that V and M hold, not chunked:
 * the slots' share of all the tiles, taken in steps of as many tiles as
 * the slots hold (V and M at most WG_STEP_FLOATS), each through both
 * phases. A thread's tiles, their V and M and its outputs are its own,
 * so the phases need no barrier between them and no data crosses to
 * another core's cache: with the phases split over the threads apart, two
 * threads ran ResNet-18's 56x56 layers no faster than one (AMD EPYC
 * Zen 5). */
static void wg_slot_tasks(void* ctx, int64_t begin, int64_t end) {
  const wg_job* j = (const wg_job*)ctx;
  const int64_t n = j->wave_tiles, q = j->all_tiles / n, r = j->all_tiles % n;
  const int64_t first = q * begin + r * begin / n, last = q * end + r * end / n;
  wg_job w = *j;
  w.v = j->v + WG_F * begin * j->C;
  w.m = j->m + WG_F * begin * j->OC;
  const int64_t fit_v = wg_slot_fit(end - begin, j->C, end == n, &w.vfs);
  const int64_t fit_m = wg_slot_fit(end - begin, j->OC, end == n, &w.mfs);
  const int64_t fit = fit_v < fit_m ? fit_v : fit_m;
  const int64_t cap = WG_STEP_FLOATS / (WG_F * (j->C + j->OC));
  const int64_t step = fit < cap ? fit : (cap > 1 ? cap : 1);
  for (w.tile0 = first; w.tile0 < last; w.tile0 += step) {
    w.tiles = last - w.tile0 < step ? last - w.tile0 : step;
    wg_input_tasks(&w, 0, wg_input_task_count(&w));
    wg_chunk_sums_tasks(&w, 0, w.chunks);
    wg_tile_output_tasks(&w, 0, w.tiles);
  }
}

/* With U large or made here, on the host's threads (one wave holds every
 * tile): task t of h_tasks * g_tasks takes the output chunks of share
 * h = t / g_tasks and the tiles of group g = t % g_tasks. A share's tasks
 * transform their tiles' input into the share's own V room, then sum
 * their tiles of the share's chunks into M (chunk by chunk, each a run of
 * its own) and write those outputs. A run of tasks of one share is one
 * pass over their tiles (on two threads: each thread all the tiles and
 * half the output channels), so the weights are read, or with plain
 * weights transformed, once per share, and no thread reads what another
 * core wrote. Split instead by chunks over one V that the threads had
 * filled a part of each (layer2), or by tiles with every thread
 * transforming all the plain weights (layer3), ResNet-18's 28x28 and 14x14
 * layers took 410-640 us on two threads in the VM where shares take
 * 380-560 (AMD EPYC Zen 5, docs/paths.md). With plain weights, each run of
 * tasks makes its U blocks in the region of its first task. */
static int64_t wg_chunk_width(const wg_job* j) { return j->path.nr < j->OC ? j->path.nr : j->OC; }

static void wg_share_pass(const wg_job* j, int64_t h, int64_t g0, int64_t g1, int64_t region) {
  const int64_t t0 = j->all_tiles * g0 / j->g_tasks, t1 = j->all_tiles * g1 / j->g_tasks;
  if (t0 >= t1) return;
  const int64_t c0 = j->chunks * h / j->h_tasks, c1 = j->chunks * (h + 1) / j->h_tasks;
  wg_job w = *j;
  w.v = j->v + h * WG_F * j->vfs;
  wg_job in = w; /* the input transform's wave: the pass's tiles */
  in.tile0 = t0, in.tiles = t1 - t0, in.v = w.v + t0 * j->C;
  wg_input_tasks(&in, 0, wg_input_task_count(&in));
  int64_t oc0, nr;
  if (j->transformed) {
    for (int64_t f = 0; f < WG_F; ++f)
      for (int64_t chunk = c0; chunk < c1; ++chunk) {
        wg_chunk_span(j, chunk, &oc0, &nr);
        wg_sums_transformed(&w, f, oc0, nr, t0, t1 - t0);
      }
  } else {
    w.ub = j->ub + region * ((wg_chunk_width(j) + 15) / 16) * WG_UB_REGION;
    w.ub_own = 1;
    for (int64_t chunk = c0; chunk < c1; ++chunk) {
      wg_chunk_span(j, chunk, &oc0, &nr);
      wg_sums_raw(&w, oc0, nr, t0, t1 - t0);
    }
  }
  for (int64_t chunk = c0; chunk < c1; ++chunk) {
    wg_chunk_span(j, chunk, &oc0, &nr);
    wg_outputs(&w, oc0, nr, t0, t1 - t0);
  }
}

static void wg_share_tasks(void* ctx, int64_t begin, int64_t end) {
  const wg_job* j = (const wg_job*)ctx;
  const int64_t G = j->g_tasks;
  for (int64_t h = begin / G; h * G < end; ++h) {
    const int64_t g0 = h * G < begin ? begin - h * G : 0;
    const int64_t g1 = (h + 1) * G < end ? G : end - h * G;
    wg_share_pass(j, h, g0, g1, begin);
  }
}

/* The shares (at most the V rooms, one per chunk) and the tile groups per
 * share (up to WG_TILE_GROUPS, for hosts of more threads than shares; with
 * plain weights, no more tasks than U-block regions). */
#define WG_TILE_GROUPS 4
static void wg_share_count(wg_job* j) {
  int64_t h = j->chunks < KILN_WINOGRAD_V_COPIES ? j->chunks : KILN_WINOGRAD_V_COPIES;
  int64_t g = j->all_tiles < WG_TILE_GROUPS ? j->all_tiles : WG_TILE_GROUPS;
  if (!j->transformed) {
    /* Regions of the widest chunk's panels that the panels' room holds
     * (at least one: a chunk is at most all the panels). */
    const int64_t regions = (j->OC + 15) / 16 / ((wg_chunk_width(j) + 15) / 16);
    if (h > regions) h = regions;
    if (g > regions / h) g = regions / h;
  }
  j->h_tasks = h;
  j->g_tasks = g > 1 ? g : 1;
}

/* ---- entry points -------------------------------------------------------- */

static int wg_run(const int64_t* ip, const float* fp, void* const* bindings, const float* res,
                  float* y, float* scratch, const kiln_host* host) {
  wg_job j = {0};
  j.x = (const float*)bindings[0];
  j.u = (const float*)bindings[1];
  j.bias = ip[P_HAS_BIAS] ? (const float*)bindings[2] : NULL;
  j.res = res;
  j.y = y;
  j.v = scratch;
  j.x_cl = (int)ip[P_X_CL];
  j.y_cl = (int)ip[P_Y_CL];
  j.transformed = (int)ip[P_WG_TRANSFORMED];
  j.C = ip[P_C], j.OC = ip[P_OC], j.H = ip[P_H], j.W = ip[P_W];
  j.OH = ip[P_OH], j.OW = ip[P_OW], j.PT = ip[P_PT], j.PL = ip[P_PL];
  j.TH = kiln_winograd_tiles(j.OH), j.TW = kiln_winograd_tiles(j.OW);
  j.cgroups = (j.C + KV_LANES - 1) / KV_LANES;
  j.path = kiln_gemm_select();
  j.chunks = (j.OC + j.path.nr - 1) / j.path.nr;

  j.act = ip[P_ACT], j.act_alpha = fp[KILN_FP_CONV2D_F32_ACT_ALPHA],
  j.act_beta = fp[KILN_FP_CONV2D_F32_ACT_BETA];
  /* The direct convolution's multiply-adds: below 2^19 a hand-off to other
   * threads costs more than it saves (conv2d_packed_f32's rule). */
  const double work = (double)ip[P_N] * j.OC * j.OH * j.OW * j.C * 9.0;
  const double min_work = (double)(1 << 19);
  const int64_t wave = kiln_winograd_wave_rows(ip[P_N], j.C, j.OC, j.OH, j.OW);
  j.all_tiles = ip[P_N] * j.TH * j.TW;
  if (j.all_tiles == 0) return KILN_OK; /* an empty output */
  j.wave_tiles = wave * j.TW;
  j.vfs = j.wave_tiles * j.C + KILN_WINOGRAD_FREQ_PAD;
  j.mfs = j.wave_tiles * j.OC + KILN_WINOGRAD_FREQ_PAD;
  j.chunked = kiln_winograd_chunked(j.C, j.OC, j.transformed);
  j.m = scratch + kiln_winograd_v_copies(j.C, j.OC, j.transformed) * WG_F * j.vfs;
  j.ub = j.m + WG_F * j.mfs;
  /* Each thread its own tiles through both phases (wg_slot_tasks) while U
   * is small enough to read once per wave on every thread; else, on a
   * host, shares of the output channels, each transforming the whole input
   * (wg_share_tasks); else (one thread, or several waves of plain weights)
   * wave by wave, the GEMMs by chunks of output channels (with plain
   * weights, U made once per chunk), the input transform split by rows,
   * the outputs by tiles. */
  if (j.chunked && host && host->parallel_for && work >= min_work &&
      j.wave_tiles >= j.all_tiles) {
    j.tiles = j.all_tiles;
    j.m_oc_stride = WG_F * j.all_tiles;
    wg_share_count(&j);
    kiln_run_tasks(host, j.h_tasks * j.g_tasks, work, min_work, wg_share_tasks, &j);
    return KILN_OK;
  }
  if (!j.chunked) {
    kiln_run_tasks(host, j.wave_tiles, work, min_work, wg_slot_tasks, &j);
    return KILN_OK;
  }
  for (j.tile0 = 0; j.tile0 < j.all_tiles; j.tile0 += j.wave_tiles) {
    j.tiles = j.all_tiles - j.tile0 < j.wave_tiles ? j.all_tiles - j.tile0 : j.wave_tiles;
    j.m_oc_stride = WG_F * j.tiles;
    kiln_run_tasks(host, wg_input_task_count(&j), work, min_work, wg_input_tasks, &j);
    kiln_run_tasks(host, j.chunks, work, min_work, wg_chunk_sums_tasks, &j);
    kiln_run_tasks(host, j.tiles, work, min_work, wg_tile_output_tasks, &j);
  }
  return KILN_OK;
}

/* Whether this path runs the layer as the direct convolution instead: on
 * AVX-512, a plane under 8x8 with plain weights (ResNet-18's layer4, 7x7:
 * 2x2 tiles hold 64 outputs for 49) took 1.55 ms by Winograd against 1.30
 * by conv2d_packed_cl_f32 (BM_ConvWinograd/BM_ConvPacked3x3 C:512 H:7 u:0,
 * AMD EPYC Zen 5), where AVX2 took 1.82 against 2.80 and portable C 3.78
 * against 8.68. The plain weights of such a plane are that kernel's
 * (kiln_winograd_plain_tap_major), and its bindings this kernel's first
 * ones. */
static int wg_runs_direct(const int64_t* ip) {
#ifdef KILN_HAVE_AVX512
  return !ip[P_WG_TRANSFORMED] && kiln_winograd_plain_tap_major(ip[P_OH], ip[P_OW]);
#else
  (void)ip;
  return 0;
#endif
}

int kiln_conv2d_winograd_f32(const int64_t* ip, const float* fp, void* const* bindings,
                             const kiln_host* host) {
  if (wg_runs_direct(ip)) return kiln_conv2d_packed_cl_f32(ip, fp, bindings, host);
  return wg_run(ip, fp, bindings, NULL, (float*)bindings[3], (float*)bindings[4], host);
}

int kiln_conv2d_winograd_res_f32(const int64_t* ip, const float* fp, void* const* bindings,
                                 const kiln_host* host) {
  if (wg_runs_direct(ip)) return kiln_conv2d_packed_cl_res_f32(ip, fp, bindings, host);
  return wg_run(ip, fp, bindings, (const float*)bindings[3], (float*)bindings[4],
                (float*)bindings[5], host);
}

/* conv2d_packed_cl_f32's checks (which bound x, bias, y and r), then what
 * this kernel adds: the 3x3 stride-1 dilation-1 window, U's panels over
 * 36*C and the scratch, every offset the tiles form kept in int64. */
static int wg_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                    uint32_t fparam_count, const uint64_t* binding_bytes, int residual) {
  if (iparam_count != P_WG_COUNT || ip == NULL) return KILN_ERR_INVALID_ARGUMENT;
  KILN_TRY(kiln_conv_layout_check(ip, P_CL_COUNT));
  KILN_TRY(kiln_check_enum(ip[P_WG_TRANSFORMED], 0, 1));
  if (residual) {
    KILN_TRY(kiln_conv_res_check(ip, P_COUNT, fp, fparam_count, binding_bytes, 1));
  } else {
    KILN_TRY(kiln_conv_check(ip, P_COUNT, fp, fparam_count, binding_bytes, 3, 1));
  }
  if (ip[P_KH] != 3 || ip[P_KW] != 3 || ip[P_SH] != 1 || ip[P_SW] != 1 || ip[P_DH] != 1 ||
      ip[P_DW] != 1)
    return KILN_ERR_UNIMPLEMENTED;
  const int64_t N = ip[P_N], C = ip[P_C], OC = ip[P_OC];
  /* Tile windows reach 3 rows and columns past the last output, and start
   * PT/PL before the first: all inside int64 with room to spare. */
  int64_t t;
  KILN_TRY(kiln_checked_add(ip[P_OH], 2 * WG_A, &t));
  KILN_TRY(kiln_checked_add(t, ip[P_PT], &t));
  KILN_TRY(kiln_checked_add(ip[P_OW], 2 * WG_A, &t));
  KILN_TRY(kiln_checked_add(t, ip[P_PL], &t));
  const int64_t TH = kiln_winograd_tiles(ip[P_OH]), TW = kiln_winograd_tiles(ip[P_OW]);
  const int64_t loops[6] = {N, TH, TW, WG_F, C, OC};
  KILN_TRY(kiln_check_work(loops, 6));
  int64_t oc_pad, count;
  KILN_TRY(kiln_checked_add(OC, 15, &oc_pad));
  /* U over 36 frequencies, or the plain weights over 9 taps. */
  const int64_t u_dims[4] = {oc_pad / 16, 16, ip[P_WG_TRANSFORMED] ? WG_F : 9, C};
  KILN_TRY(kiln_checked_product(u_dims, 4, &count));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[1], count));
  /* The whole transformed input and sums (36 x N*TH*TW x (C + OC)), U
   * (36 x C x OC) and the U blocks of every panel stay in int64, and so,
   * with the frequencies' padding, does the scratch (kiln_winograd_scratch_floats: one
   * wave, at most the sum). */
  int64_t c_oc, vm, blocks;
  const int64_t copies = kiln_winograd_v_copies(C, OC, (int)ip[P_WG_TRANSFORMED]);
  KILN_TRY(kiln_checked_mul(copies, C, &c_oc));
  KILN_TRY(kiln_checked_add(c_oc, OC, &c_oc));
  const int64_t v_dims[5] = {WG_F, N, TH, TW, c_oc}, w_dims[3] = {WG_F, C, OC};
  KILN_TRY(kiln_checked_product(v_dims, 5, &vm));
  KILN_TRY(kiln_checked_product(w_dims, 3, &count));
  KILN_TRY(kiln_checked_mul(oc_pad / 16 * 16, WG_F * KILN_WINOGRAD_RAW_KC, &blocks));
  KILN_TRY(kiln_checked_add(vm, blocks, &count));
  KILN_TRY(kiln_checked_add(count, (copies + 1) * WG_F * KILN_WINOGRAD_FREQ_PAD, &count));
  count = kiln_winograd_scratch_floats(N, C, OC, ip[P_OH], ip[P_OW], (int)ip[P_WG_TRANSFORMED]);
  return kiln_check_f32_binding(binding_bytes[residual ? 5 : 4], count);
}

int kiln_conv2d_winograd_f32_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                                   uint32_t fparam_count, const uint64_t* binding_bytes) {
  return wg_check(ip, iparam_count, fp, fparam_count, binding_bytes, 0);
}

int kiln_conv2d_winograd_res_f32_check(const int64_t* ip, uint32_t iparam_count,
                                       const float* fp, uint32_t fparam_count,
                                       const uint64_t* binding_bytes) {
  return wg_check(ip, iparam_count, fp, fparam_count, binding_bytes, 1);
}
