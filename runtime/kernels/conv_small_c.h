/* A one-group NCHW convolution over few input channels (an image stem: 3
 * channels, 3x3 or 7x7, stride 2), on every path (vec.h). im2col + GEMM
 * runs such a layer at a fraction of the machine: its K (C*KH*KW, 27 to 147)
 * is too short to pay for packing 16-column panels and storing tiles. Here
 * output positions lie in the vector lanes and output channels in registers:
 * per output row and block of positions, the input rows the window reaches
 * are copied once into a zero-padded buffer (stride 2: split into even and
 * odd columns, so every tap is one contiguous load), then each block of
 * SMALLC_MOC channels x SMALLC_NPV vectors of positions accumulates over
 * (c, kh, kw) with the weights broadcast from their ONNX layout in place.
 *
 * Per output: the taps in (c, kh, kw) order, one FMA each, rows in the
 * padding skipped (they add zero), then bias, residual and activation in the
 * GEMM epilogue's order. Rows split over the host's threads. (An image stem
 * into NHWC, conv2d_packed_cl_f32's, runs channels in the lanes instead:
 * conv_stem_nhwc.h.)
 * Internal to runtime/kernels: an AOT bundle copies it beside the kernels. */
#ifndef KILN_KERNELS_CONV_SMALL_C_H_
#define KILN_KERNELS_CONV_SMALL_C_H_

#include <stdint.h>

#include "activation.h"
#include "conv_check.h"
#include "host_tasks.h"
#include "kiln/kernel_params.h"
#include "kiln/kernels.h"
#include "vec.h"
#include "window.h"

#define SMALLC_MAX_C KILN_CONVP_SMALL_C /* input channels it takes */
#define SMALLC_BUF_FLOATS 4096  /* the padded rows of one block (16 KiB of stack) */
#define SMALLC_MOC 4            /* output channels per register block */
#if KV_LANES == 16
#define SMALLC_NPV 4 /* vectors of positions per register block */
#elif defined(KV_PORTABLE_VECTOR)
/* SSE2's two-operand multiplies need a temporary beside the accumulators,
 * the positions and the broadcast: with 3 vectors, 17 registers, and GCC
 * kept an accumulator on the stack (its add chained through a store and a
 * load each tap: the ResNet-18 stem ran 8.6 ms, now 6.2). */
#define SMALLC_NPV 2
#elif KV_LANES >= 4
#define SMALLC_NPV 3
#else
#define SMALLC_NPV 4
#endif
#define SMALLC_BLOCK_POS (SMALLC_NPV * KV_LANES)

typedef struct smallc_job {
  const float *x, *w, *bias, *res;
  float* y;
  int64_t C, H, W, OC, OH, OW, KH, KW, SH, SW, PT, PL, DH;
  int64_t act;
  float act_alpha, act_beta;
  int64_t pos;  /* output positions per buffered block: a multiple of KV_LANES */
  int64_t span; /* floats per buffered input row (each parity, stride 2) */
  /* Tap kw reads its parity's row from index kw_off[kw] on: position p of a
   * block reads padded column p*SW + kw, parity kw % SW, index p + kw / SW
   * (a table: no division in the tap loop). */
  int64_t kw_off[16];
} smallc_job;

/* Buffer columns a block of `pos` positions reads per input row and parity. */
static inline int64_t smallc_span(int64_t pos, int64_t SW, int64_t KW) {
  return SW == 1 ? pos + KW - 1 : pos + (KW - 1) / 2;
}

/* Whether the layer is one smallc takes, and its block of positions. */
static inline int smallc_fits(const int64_t* ip, smallc_job* j) {
  const int64_t C = ip[P_C], KH = ip[P_KH], KW = ip[P_KW], SW = ip[P_SW];
  if (ip[P_GROUPS] != 1 || C < 1 || C > SMALLC_MAX_C || (SW != 1 && SW != 2) ||
      ip[P_DW] != 1 || KW > 16 || KH > 16 || ip[P_OW] < 1 || ip[P_OH] < 1 || ip[P_OC] < 1 ||
      ip[P_W] > SMALLC_BUF_FLOATS)
    return 0;
  const int64_t rounded = (ip[P_OW] + KV_LANES - 1) / KV_LANES * KV_LANES;
  int64_t pos = rounded < 4 * SMALLC_BLOCK_POS ? rounded : 4 * SMALLC_BLOCK_POS;
  /* Rows x parities x span floats must fit the buffer. */
  const int64_t rows = C * KH * SW;
  while (pos > KV_LANES && rows * smallc_span(pos, SW, KW) > SMALLC_BUF_FLOATS) pos -= KV_LANES;
  if (rows * smallc_span(pos, SW, KW) > SMALLC_BUF_FLOATS) return 0;
  /* A buffered block cut short of the row is whole register blocks: 112
   * positions in blocks of 80 ran 4 + 1 + 2 vectors a row, in blocks of 64
   * they run 4 + 3 (the ResNet-18 stem: 2.2 -> 1.85 ms in the model). */
  if (pos < rounded && pos > SMALLC_BLOCK_POS) pos -= pos % SMALLC_BLOCK_POS;
  j->pos = pos;
  j->span = smallc_span(pos, SW, KW);
  for (int64_t kw = 0; kw < KW; ++kw) j->kw_off[kw] = (kw % SW) * j->span + kw / SW;
  return 1;
}

/* Copies, for output row oh and positions from ow0, input row (c, kh) into
 * buf[((c*KH + kh)*SW + parity)*span + q]: input column
 * ow0*SW - PL + parity + q*SW, zero outside the image. Rows outside the
 * image are left alone: smallc_block skips them. */
static void smallc_fill(const smallc_job* j, const float* xn, int64_t oh, int64_t ow0,
                        float* buf) {
  const int64_t span = j->span, SW = j->SW, W = j->W;
  for (int64_t c = 0; c < j->C; ++c) {
    for (int64_t kh = 0; kh < j->KH; ++kh) {
      const int64_t ih = oh * j->SH - j->PT + kh * j->DH;
      if (ih < 0 || ih >= j->H) continue;
      const float* xr = xn + (c * j->H + ih) * W;
      for (int64_t par = 0; par < SW; ++par) {
        float* o = buf + ((c * j->KH + kh) * SW + par) * span;
        const int64_t iw0 = ow0 * SW - j->PL + par; /* column of o[0] */
        int64_t qa, qb; /* o[q] for q in [qa, qb) lies in the image */
        kiln_window_range(iw0, SW, span, 0, W, &qa, &qb);
        for (int64_t q = 0; q < qa; ++q) o[q] = 0.0f;
        int64_t q = qa;
        /* Whole vectors while their reads stay in the row (stride 2: the
         * even lanes of 2 * KV_LANES columns). */
        for (; q + KV_LANES <= qb && iw0 + (q + KV_LANES) * SW <= W; q += KV_LANES) {
          const float* p = xr + iw0 + q * SW;
          kv_store(o + q, SW == 1 ? kv_load(p) : kv_even(kv_load(p), kv_load(p + KV_LANES)));
        }
        for (; q < qb; ++q) o[q] = xr[iw0 + q * SW];
        for (; q < span; ++q) o[q] = 0.0f;
      }
    }
  }
}

/* One tap's FMAs: NPV vectors of positions from r, MOC weights from wk
 * (w[oc, c, kh, kw]: stride wm between channels). */
#define SMALLC_TAP(r, wk)                                                     \
  do {                                                                        \
    kv xv[SMALLC_NPV];                                                        \
    _Pragma("GCC unroll 4") for (int v = 0; v < NPV; ++v) xv[v] =             \
        kv_load((r) + v * KV_LANES);                                          \
    _Pragma("GCC unroll 4") for (int m = 0; m < MOC; ++m) {                   \
      const kv wv = kv_set1((wk)[m * wm]);                                    \
      _Pragma("GCC unroll 4") for (int v = 0; v < NPV; ++v) acc[m][v] =       \
          kv_fma(xv[v], wv, acc[m][v]);                                       \
    }                                                                         \
  } while (0)

/* Channels oc0 .. oc0 + MOC x NPV vectors of positions from the block's
 * position p0 (buffer-relative), into y row oh at column ow0 + p0; the
 * last vector stores `last` lanes. */
static KILN_ALWAYS_INLINE void smallc_block(const smallc_job* j, const float* buf, float* yn,
                                            const float* rn, int64_t oh, int64_t ow0,
                                            int64_t p0, int64_t oc0, int64_t last,
                                            const int MOC, const int NPV) {
  const int64_t KH = j->KH, KW = j->KW, SW = j->SW, span = j->span;
  const int64_t wm = j->C * KH * KW;
  const int64_t* kw_off = j->kw_off;
  kv acc[SMALLC_MOC][SMALLC_NPV];
#pragma GCC unroll 4
  for (int m = 0; m < MOC; ++m)
#pragma GCC unroll 4
    for (int v = 0; v < NPV; ++v) acc[m][v] = kv_zero();
  const float* w0 = j->w + oc0 * wm;
  for (int64_t c = 0; c < j->C; ++c) {
    for (int64_t kh = 0; kh < KH; ++kh) {
      const int64_t ih = oh * j->SH - j->PT + kh * j->DH;
      if (ih < 0 || ih >= j->H) continue; /* the padding adds zero */
      const float* row = buf + (c * KH + kh) * SW * span + p0;
      const float* wk = w0 + (c * KH + kh) * KW;
      for (int64_t kw = 0; kw < KW; ++kw) SMALLC_TAP(row + kw_off[kw], wk + kw);
    }
  }
  const int64_t plane = j->OH * j->OW, at = oh * j->OW + ow0 + p0;
#pragma GCC unroll 4
  for (int m = 0; m < MOC; ++m) {
    float* yo = yn + (oc0 + m) * plane + at;
    const float* ro = rn ? rn + (oc0 + m) * plane + at : NULL;
    const kv b = kv_set1(j->bias ? j->bias[oc0 + m] : 0.0f);
#pragma GCC unroll 4
    for (int v = 0; v < NPV; ++v) {
      const int64_t n = v == NPV - 1 ? last : KV_LANES;
      kv out = j->bias ? kv_add(acc[m][v], b) : acc[m][v];
      if (ro) out = kv_add(out, n == KV_LANES ? kv_load(ro + v * KV_LANES)
                                              : kv_load_n(ro + v * KV_LANES, n));
      /* ReLU and Clip as the GEMM tiles apply them; others below. */
      if (j->act == KILN_ACT_RELU) out = kv_max(kv_zero(), out);
      if (j->act == KILN_ACT_CLIP)
        out = kv_min(kv_set1(j->act_beta), kv_max(kv_set1(j->act_alpha), out));
      if (n == KV_LANES) kv_store(yo + v * KV_LANES, out);
      else kv_store_n(yo + v * KV_LANES, out, n);
    }
    if (j->act != KILN_ACT_NONE && j->act != KILN_ACT_RELU && j->act != KILN_ACT_CLIP)
      kiln_activation_apply(yo, yo, (NPV - 1) * KV_LANES + last, j->act, j->act_alpha,
                            j->act_beta);
  }
}
#undef SMALLC_TAP

#if SMALLC_NPV == 2
#define SMALLC_NPV_CASES(MOC)                                                   \
  switch (npv) {                                                                \
    case 1: smallc_block(j, buf, yn, rn, oh, ow0, p0, oc0, last, MOC, 1); break; \
    default: smallc_block(j, buf, yn, rn, oh, ow0, p0, oc0, last, MOC, 2); break; \
  }
#elif SMALLC_NPV == 4
#define SMALLC_NPV_CASES(MOC)                                                   \
  switch (npv) {                                                                \
    case 1: smallc_block(j, buf, yn, rn, oh, ow0, p0, oc0, last, MOC, 1); break; \
    case 2: smallc_block(j, buf, yn, rn, oh, ow0, p0, oc0, last, MOC, 2); break; \
    case 3: smallc_block(j, buf, yn, rn, oh, ow0, p0, oc0, last, MOC, 3); break; \
    default: smallc_block(j, buf, yn, rn, oh, ow0, p0, oc0, last, MOC, 4); break; \
  }
#else
#define SMALLC_NPV_CASES(MOC)                                                   \
  switch (npv) {                                                                \
    case 1: smallc_block(j, buf, yn, rn, oh, ow0, p0, oc0, last, MOC, 1); break; \
    case 2: smallc_block(j, buf, yn, rn, oh, ow0, p0, oc0, last, MOC, 2); break; \
    default: smallc_block(j, buf, yn, rn, oh, ow0, p0, oc0, last, MOC, 3); break; \
  }
#endif

/* Tasks are (image, output row) pairs. */
static void smallc_rows(void* ctx, int64_t begin, int64_t end) {
  const smallc_job* j = (const smallc_job*)ctx;
  float buf[SMALLC_BUF_FLOATS];
  for (int64_t t = begin; t < end; ++t) {
    const int64_t n = t / j->OH, oh = t % j->OH;
    const float* xn = j->x + n * j->C * j->H * j->W;
    float* yn = j->y + n * j->OC * j->OH * j->OW;
    const float* rn = j->res ? j->res + n * j->OC * j->OH * j->OW : NULL;
    for (int64_t ow0 = 0; ow0 < j->OW; ow0 += j->pos) {
      const int64_t block = j->OW - ow0 < j->pos ? j->OW - ow0 : j->pos;
      smallc_fill(j, xn, oh, ow0, buf);
      for (int64_t p0 = 0; p0 < block; p0 += SMALLC_BLOCK_POS) {
        const int64_t np = block - p0 < SMALLC_BLOCK_POS ? block - p0 : SMALLC_BLOCK_POS;
        const int64_t npv = (np + KV_LANES - 1) / KV_LANES;
        const int64_t last = np - (npv - 1) * KV_LANES;
        for (int64_t oc0 = 0; oc0 < j->OC; oc0 += SMALLC_MOC) {
          switch (j->OC - oc0 < SMALLC_MOC ? j->OC - oc0 : SMALLC_MOC) {
            case 1: SMALLC_NPV_CASES(1) break;
            case 2: SMALLC_NPV_CASES(2) break;
            case 3: SMALLC_NPV_CASES(3) break;
            default: SMALLC_NPV_CASES(4) break;
          }
        }
      }
    }
  }
}
#undef SMALLC_NPV_CASES

/* Runs the layer (smallc_fits filled j's block sizes): bindings x, w
 * [OC, C, KH, KW], bias; res (or NULL) and y NCHW. */
static inline void smallc_run(smallc_job* j, const int64_t* ip,
                              const float* fp, void* const* bindings, const float* res,
                              float* y, const kiln_host* host) {
  j->x = (const float*)bindings[0];
  j->w = (const float*)bindings[1];
  j->bias = ip[P_HAS_BIAS] ? (const float*)bindings[2] : NULL;
  j->res = res;
  j->y = y;
  j->C = ip[P_C], j->H = ip[P_H], j->W = ip[P_W], j->OC = ip[P_OC];
  j->OH = ip[P_OH], j->OW = ip[P_OW], j->KH = ip[P_KH], j->KW = ip[P_KW];
  j->SH = ip[P_SH], j->SW = ip[P_SW], j->PT = ip[P_PT], j->PL = ip[P_PL], j->DH = ip[P_DH];
  j->act = ip[P_ACT], j->act_alpha = fp[KILN_FP_CONV2D_F32_ACT_ALPHA],
  j->act_beta = fp[KILN_FP_CONV2D_F32_ACT_BETA];
  const int64_t tasks = ip[P_N] * j->OH;
  const double work = (double)tasks * j->OW * j->OC * j->C * j->KH * j->KW;
  kiln_run_tasks(host, tasks, work, (double)(1 << 19), smallc_rows, j);
}

#endif /* KILN_KERNELS_CONV_SMALL_C_H_ */
