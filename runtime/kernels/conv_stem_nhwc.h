/* An NCHW image of few channels (an RGB stem: 3 channels, 3x3 or 7x7,
 * stride 2) into an NHWC y through the 16-channel weight panels of
 * conv2d_packed_cl_f32 (kernels.h), on every path (vec.h). Output channels
 * lie in the vector lanes, as y stores them: a tile of STEM_MR consecutive
 * positions of one output row x STEM_NV vectors of channels accumulates in
 * registers, each tap's input value broadcast against the tap's weight
 * vectors, and goes to y's channels-last rows with no transposition. (With
 * positions in the lanes, conv_small_c.h's way, every block went through a
 * tile and a transpose, and its 3-long channel loop kept the scalar units
 * busier than the FMAs.)
 *
 * Per output row and block of positions, the input rows the window reaches
 * are copied once into a buffer with zero columns for the padding, so every
 * tap of every position reads a valid address.
 *
 * Per output: taps in (kh, kw) order, channels in order within a tap (the
 * panels' K order), one FMA each; rows in the padding skipped (they add
 * zero), columns in it adding zero products; then bias and activation (ReLU
 * and Clip in registers, the others in a pass over the finished block). No
 * task partition changes it: rows split over the host's threads.
 * Internal to runtime/kernels: an AOT bundle copies it beside the kernels. */
#ifndef KILN_KERNELS_CONV_STEM_NHWC_H_
#define KILN_KERNELS_CONV_STEM_NHWC_H_

#include <stdint.h>
#include <string.h>

#include "activation.h"
#include "conv_check.h"
#include "host_tasks.h"
#include "kiln/kernel_params.h"
#include "kiln/kernels.h"
#include "vec.h"
#include "window.h"

/* Tile shapes: STEM_MR x STEM_NV accumulators, STEM_NV weight vectors and a
 * broadcast within the path's registers (AVX-512 8 x 2x16 in 32, AVX2
 * 6 x 2x8 in 16, NEON 6 x 4x4 in 32, SSE2's 3 x 4x4 in 16). On AVX-512, 14
 * or 16 positions per tile ran the MobileNetV2 stem slower than 8 (28 and 32
 * accumulators: one broadcast load per two FMAs is the bound). */
#if KV_LANES == 16
#define STEM_MR 8
#define STEM_NV 2
#elif KV_LANES == 8 || (KV_LANES == 4 && defined(KILN_HAVE_NEON))
#define STEM_MR 6
#define STEM_NV (16 / KV_LANES)
#elif KV_LANES == 4
#define STEM_MR 3
#define STEM_NV 4
#else
#define STEM_MR 4
#define STEM_NV 4
#endif
#define STEM_CHUNK (STEM_NV * KV_LANES) /* output channels per tile */
#define STEM_BUF_FLOATS 4096            /* a block's padded rows: 16 KiB of stack */

typedef struct stem_job {
  const float *x, *w, *bias;
  float* y;
  int64_t C, H, W, OC, OH, OW, KH, KW, SH, SW, PT, PL, DH, K;
  int64_t act;
  float act_alpha, act_beta;
  int64_t pos;  /* output positions per buffered block: a multiple of STEM_MR */
  int64_t span; /* floats per buffered input row: (pos - 1) * SW + KW */
} stem_job;

/* Whether the layer is one this kernel takes (horizontal stride 1 or 2, no
 * horizontal dilation, at most KILN_CONVP_SMALL_C channels, taps as the
 * compiler's stem rule allows), and its block of positions. */
static inline int stem_fits(const int64_t* ip, stem_job* j) {
  const int64_t C = ip[P_C], KH = ip[P_KH], KW = ip[P_KW], SW = ip[P_SW], OW = ip[P_OW];
  if (ip[P_GROUPS] != 1 || C < 1 || C > KILN_CONVP_SMALL_C || (SW != 1 && SW != 2) ||
      ip[P_DW] != 1 || KW > 16 || KH > 16 || OW < 1 || ip[P_OH] < 1 || ip[P_OC] < 1)
    return 0;
  const int64_t rows = C * KH;
  int64_t pos = (OW + STEM_MR - 1) / STEM_MR * STEM_MR;
  while (pos > STEM_MR && rows * ((pos - 1) * SW + KW) > STEM_BUF_FLOATS) pos -= STEM_MR;
  if (rows * ((pos - 1) * SW + KW) > STEM_BUF_FLOATS) return 0;
  j->pos = pos;
  j->span = (pos - 1) * SW + KW;
  return 1;
}

/* Copies input row (kh, c) for output row oh and positions from ow0 into
 * buf[(kh*C + c)*span + q]: input column ow0*SW - PL + q, zero outside the
 * image. Rows outside the image are left alone: the tiles skip them. */
static void stem_fill(const stem_job* j, const float* xn, int64_t oh, int64_t ow0, int64_t kh0,
                      int64_t kh1, float* buf) {
  const int64_t span = j->span, W = j->W, iw0 = ow0 * j->SW - j->PL;
  int64_t qa, qb; /* buf columns [qa, qb) lie in the image */
  kiln_window_range(iw0, 1, span, 0, W, &qa, &qb);
  for (int64_t kh = kh0; kh < kh1; ++kh) {
    const int64_t ih = oh * j->SH - j->PT + kh * j->DH;
    for (int64_t c = 0; c < j->C; ++c) {
      float* o = buf + (kh * j->C + c) * span;
      memset(o, 0, (size_t)qa * sizeof(float));
      if (qb > qa)
        memcpy(o + qa, xn + (c * j->H + ih) * W + iw0 + qa, (size_t)(qb - qa) * sizeof(float));
      memset(o + qb, 0, (size_t)(span - qb) * sizeof(float));
    }
  }
}

/* One tile: MR positions from the buffer column `rows` points at, NV
 * vectors of channels from oc0 (nr of them stored), into yo (the first
 * position's channel oc0). */
static KILN_ALWAYS_INLINE void stem_tile(const stem_job* j, const float* rows, int64_t kh0,
                                         int64_t kh1, int64_t oc0, int64_t nr, float* yo,
                                         const int MR, const int NV, const int SW) {
  const int64_t C = j->C, KW = j->KW, span = j->span;
  /* K-step k of channel oc lies at w[(oc/16)*16K + k*16 + oc%16]: vector v
   * of the tile at w0 + k*16 + off(v), a constant offset within the panel
   * (only AVX-512's second vector is in the next panel). */
  const int64_t ps = 16 * j->K;
  const float* w0 = j->w + (oc0 / 16) * ps + oc0 % 16;
  kv acc[STEM_MR][STEM_NV];
#pragma GCC unroll 8
  for (int i = 0; i < MR; ++i)
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) acc[i][v] = kv_zero();
  for (int64_t kh = kh0; kh < kh1; ++kh) {
    const float* rk = rows + kh * C * span;
    const int64_t k0 = kh * KW * C;
    for (int64_t kw = 0; kw < KW; ++kw) {
      for (int64_t c = 0; c < C; ++c) {
        const float* r = rk + c * span + kw;
        const float* wk = w0 + (k0 + kw * C + c) * 16;
        kv b[STEM_NV];
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v)
          b[v] = kv_load(wk + (v * KV_LANES / 16) * ps + v * KV_LANES % 16);
#pragma GCC unroll 8
        for (int i = 0; i < MR; ++i) {
          const kv a = kv_set1(r[i * SW]);
#pragma GCC unroll 4
          for (int v = 0; v < NV; ++v) acc[i][v] = kv_fma(a, b[v], acc[i][v]);
        }
      }
    }
  }
  kv bias[STEM_NV];
#pragma GCC unroll 4
  for (int v = 0; v < NV; ++v) {
    const int64_t n = nr - v * KV_LANES;
    bias[v] = !j->bias ? kv_zero()
              : n >= KV_LANES ? kv_load(j->bias + oc0 + v * KV_LANES)
              : n > 0 ? kv_load_n(j->bias + oc0 + v * KV_LANES, n) : kv_zero();
  }
  const int64_t OC = j->OC;
#pragma GCC unroll 8
  for (int i = 0; i < MR; ++i) {
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      const int64_t n = nr - v * KV_LANES;
      if (n <= 0) break;
      kv out = j->bias ? kv_add(acc[i][v], bias[v]) : acc[i][v];
      /* ReLU and Clip as the GEMM tiles apply them; others after the block. */
      if (j->act == KILN_ACT_RELU) out = kv_max(kv_zero(), out);
      if (j->act == KILN_ACT_CLIP)
        out = kv_min(kv_set1(j->act_beta), kv_max(kv_set1(j->act_alpha), out));
      if (n >= KV_LANES) kv_store(yo + i * OC + v * KV_LANES, out);
      else kv_store_n(yo + i * OC + v * KV_LANES, out, n);
    }
  }
}

/* The tiles of one chunk of channels over a block of np positions; the
 * last tile takes what is left (fewer than MR). */
static KILN_ALWAYS_INLINE void stem_chunk(const stem_job* j, const float* buf, int64_t kh0,
                                          int64_t kh1, int64_t oc0, int64_t nr, float* yb,
                                          int64_t np, const int NV, const int SW) {
  const int64_t OC = j->OC;
  int64_t p = 0;
  for (; p + STEM_MR <= np; p += STEM_MR)
    stem_tile(j, buf + p * SW, kh0, kh1, oc0, nr, yb + p * OC, STEM_MR, NV, SW);
  switch (np - p) {
#if STEM_MR > 7
    case 7: stem_tile(j, buf + p * SW, kh0, kh1, oc0, nr, yb + p * OC, 7, NV, SW); break;
    case 6: stem_tile(j, buf + p * SW, kh0, kh1, oc0, nr, yb + p * OC, 6, NV, SW); break;
#endif
#if STEM_MR > 5
    case 5: stem_tile(j, buf + p * SW, kh0, kh1, oc0, nr, yb + p * OC, 5, NV, SW); break;
    case 4: stem_tile(j, buf + p * SW, kh0, kh1, oc0, nr, yb + p * OC, 4, NV, SW); break;
#endif
#if STEM_MR > 3
    case 3: stem_tile(j, buf + p * SW, kh0, kh1, oc0, nr, yb + p * OC, 3, NV, SW); break;
#endif
    case 2: stem_tile(j, buf + p * SW, kh0, kh1, oc0, nr, yb + p * OC, 2, NV, SW); break;
    case 1: stem_tile(j, buf + p * SW, kh0, kh1, oc0, nr, yb + p * OC, 1, NV, SW); break;
    default: break;
  }
}

/* AVX-512's chunks span two panels: a chunk of at most 16 channels reads
 * one (the second may not exist). */
static void stem_block(const stem_job* j, const float* buf, int64_t kh0, int64_t kh1,
                       float* yb, int64_t np) {
  for (int64_t oc0 = 0; oc0 < j->OC; oc0 += STEM_CHUNK) {
    const int64_t nr = j->OC - oc0 < STEM_CHUNK ? j->OC - oc0 : STEM_CHUNK;
#if KV_LANES == 16
    if (nr <= 16) {
      if (j->SW == 1) stem_chunk(j, buf, kh0, kh1, oc0, nr, yb + oc0, np, 1, 1);
      else stem_chunk(j, buf, kh0, kh1, oc0, nr, yb + oc0, np, 1, 2);
      continue;
    }
#endif
    if (j->SW == 1) stem_chunk(j, buf, kh0, kh1, oc0, nr, yb + oc0, np, STEM_NV, 1);
    else stem_chunk(j, buf, kh0, kh1, oc0, nr, yb + oc0, np, STEM_NV, 2);
  }
}

/* Tasks are (image, output row) pairs. */
static void stem_rows(void* ctx, int64_t begin, int64_t end) {
  const stem_job* j = (const stem_job*)ctx;
  float buf[STEM_BUF_FLOATS];
  for (int64_t t = begin; t < end; ++t) {
    const int64_t n = t / j->OH, oh = t % j->OH;
    const float* xn = j->x + n * j->C * j->H * j->W;
    int64_t kh0, kh1; /* the taps whose input row lies in the image */
    kiln_window_range(oh * j->SH - j->PT, j->DH, j->KH, 0, j->H, &kh0, &kh1);
    float* yr = j->y + (n * j->OH + oh) * j->OW * j->OC;
    for (int64_t ow0 = 0; ow0 < j->OW; ow0 += j->pos) {
      const int64_t np = j->OW - ow0 < j->pos ? j->OW - ow0 : j->pos;
      stem_fill(j, xn, oh, ow0, kh0, kh1, buf);
      float* yb = yr + ow0 * j->OC;
      stem_block(j, buf, kh0, kh1, yb, np);
      if (j->act != KILN_ACT_NONE && j->act != KILN_ACT_RELU && j->act != KILN_ACT_CLIP)
        kiln_activation_apply(yb, yb, np * j->OC, j->act, j->act_alpha, j->act_beta);
    }
  }
}

/* Runs the layer (stem_fits filled j's block sizes): bindings x, w (the
 * panels), bias. */
static inline void stem_run(stem_job* j, const int64_t* ip, const float* fp,
                            void* const* bindings, float* y, const kiln_host* host) {
  j->x = (const float*)bindings[0];
  j->w = (const float*)bindings[1];
  j->bias = ip[P_HAS_BIAS] ? (const float*)bindings[2] : NULL;
  j->y = y;
  j->C = ip[P_C], j->H = ip[P_H], j->W = ip[P_W], j->OC = ip[P_OC];
  j->OH = ip[P_OH], j->OW = ip[P_OW], j->KH = ip[P_KH], j->KW = ip[P_KW];
  j->SH = ip[P_SH], j->SW = ip[P_SW], j->PT = ip[P_PT], j->PL = ip[P_PL], j->DH = ip[P_DH];
  j->K = j->KH * j->KW * j->C;
  j->act = ip[P_ACT], j->act_alpha = fp[KILN_FP_CONV2D_F32_ACT_ALPHA],
  j->act_beta = fp[KILN_FP_CONV2D_F32_ACT_BETA];
  const int64_t tasks = ip[P_N] * j->OH;
  const double work = (double)tasks * j->OW * j->OC * j->K;
  kiln_run_tasks(host, tasks, work, (double)(1 << 19), stem_rows, j);
}

#endif /* KILN_KERNELS_CONV_STEM_NHWC_H_ */
