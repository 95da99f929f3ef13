/* The blocked single-precision GEMM shared by gemm_f32, matmul_f32,
 * conv2d_f32, the packed and Winograd convolutions and the recurrent
 * kernels: Y[M,N] = epilogue(A[M,K] * B[K,N]). This header is its interface
 * (operands, epilogues, the micro-kernel contract); sgemm.c is the
 * implementation, compiled once per path like the kernels, its two
 * functions renamed with them (kernel_table.def, KILN_SHARED_FUNCTION).
 *
 * Every output element accumulates its K products in increasing k order, one
 * product at a time, whatever the path (AVX-512, AVX2, portable) or the task
 * partition; the paths differ only by FMA rounding, and results do not
 * depend on the thread count.
 *
 * Internal to runtime/kernels: an AOT bundle copies it beside the kernels. */
#ifndef KILN_KERNELS_SGEMM_H_
#define KILN_KERNELS_SGEMM_H_

#include <stdint.h>

#include "activation.h"
#include "kiln/kernels.h"
#include "simd.h"
#include "vec.h"

/* Width of a packed-B panel in floats. Fixed for every path: it is the
 * layout of pre-packed constants in a module (kernels.h, gemm_pb_f32). */
#define KILN_PANEL 16
#define KILN_KC 256

/* Columns per task: the micro-kernel's column chunks of one task share each
 * row block of A while it is in L1, so A streams from memory once per 64
 * columns. The task's packing buffer, KILN_KC x 64 floats (64 KiB), is on
 * the stack. */
#define KILN_GROUP_COLS 64

/* Micro-kernel: for i < mr, j < nr:
 *   c[i*c_rs + j] = (load_c ? c[i*c_rs + j] : 0) + sum_k a[i*a_rs + k*a_cs] * B[k][j]
 * where B[k][j] = b[(j/16)*b_ps + k*b_rs + j%16]. mr <= the path's MR, nr <= its nr.
 * When nr is below the path's, columns >= nr of B may be read only if b_rs == KILN_PANEL
 * (a packed, zero-padded panel). */
typedef struct kiln_tile_epilogue kiln_tile_epilogue;
typedef void (*kiln_ukr_fn)(int64_t kc, const float* a, int64_t a_rs, int64_t a_cs,
                            const float* b, int64_t b_rs, int64_t b_ps, float* c,
                            int64_t c_rs, int64_t mr, int64_t nr, int load_c,
                            const kiln_tile_epilogue* ep);

/* What a micro-kernel that fuses the epilogue does to its finished tile
 * before storing it (last K block only): row i gets beta*bias[i*bias_rs]
 * (row_vector 0) or beta*bias[i*bias_rs + j] (row_vector 1) when bias is
 * set, then r[i*r_rs + j] when r is set, then ReLU, Clip(lo, hi) or SiLU:
 * the operations of kiln_epilogue_tile, in its order, so fusing never
 * changes a result (SiLU is activation.h's vector expression, lane by lane
 * the same on a partial vector). */
struct kiln_tile_epilogue {
  const float* bias;
  int64_t bias_rs;
  int row_vector;
  float beta;
  const float* r;
  int64_t r_rs;
  int64_t act; /* KILN_ACT_NONE, RELU, CLIP or (kiln_tile_act_fusable) SILU */
  float lo, hi;
};

/* The activations a micro-kernel applies in its registers. SiLU only with
 * AVX-512's 32 registers: BM_Pointwise's SiLU expansion (16 -> 96 at
 * 112x112) took 1305 -> 1208 us fused on avx512, but 1459 -> 1712 us on
 * avx2 and 3349 -> 4564 us on portable, whose 16 registers the 12
 * accumulators and exp's constants overflow (AMD EPYC Zen 4). */
static inline int kiln_tile_act_fusable(int64_t act) {
#ifdef KILN_HAVE_AVX512
  if (act == KILN_ACT_SILU) return 1;
#endif
  return act == KILN_ACT_NONE || act == KILN_ACT_RELU || act == KILN_ACT_CLIP;
}

/* Element (i, j) of a finished tile through the epilogue, one element at a
 * time: for the columns of a partial tile (SiLU is left to the caller, a
 * vector pass over the row: kiln_tile_copy_back). */
static KILN_ALWAYS_INLINE float kiln_tile_epilogue_scalar(const kiln_tile_epilogue* ep,
                                                          int64_t i, int64_t j, float v) {
  if (ep->bias) v += ep->beta * (ep->row_vector ? ep->bias[i * ep->bias_rs + j] : ep->bias[i * ep->bias_rs]);
  if (ep->r) v += ep->r[i * ep->r_rs + j];
  if (ep->act == KILN_ACT_RELU) v = v < 0.0f ? 0.0f : v;
  if (ep->act == KILN_ACT_CLIP) {
    v = v < ep->lo ? ep->lo : v;
    v = v > ep->hi ? ep->hi : v;
  }
  return v;
}

/* The epilogue over a finished tile held in acc[i * NV + v] (row i,
 * columns [v KV_LANES, (v + 1) KV_LANES)), MR <= 8 rows of NV <= 4 vectors
 * (a whole 16-column panel: 16 / KV_LANES, more than 4 when KV_LANES is 1):
 * bias, residual, activation as kiln_tile_epilogue_scalar, on whole vectors
 * (vec.h: max/min keep NaN as the scalar selects). ep's fields are read once
 * and each step runs over all accumulators, not a test per accumulator: with
 * a short K (an expansion from 16 channels) the epilogue is a good part of a
 * tile's time. */
static KILN_ALWAYS_INLINE void kiln_tile_epilogue_kv_all(const kiln_tile_epilogue* ep, kv* acc,
                                                         const int MR, const int NV) {
  if (ep->bias) {
    const kv beta = kv_set1(ep->beta);
    const float* bias = ep->bias;
    const int64_t brs = ep->bias_rs;
    if (ep->row_vector && brs == 0) { /* one bias row for all (a conv's) */
      kv b[16 / KV_LANES > 4 ? 16 / KV_LANES : 4];
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) b[v] = kv_mul(beta, kv_load(bias + v * KV_LANES));
#pragma GCC unroll 8
      for (int i = 0; i < MR; ++i)
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v) acc[i * NV + v] = kv_add(acc[i * NV + v], b[v]);
    } else {
#pragma GCC unroll 8
      for (int i = 0; i < MR; ++i)
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v) {
          const kv b = ep->row_vector ? kv_load(bias + i * brs + v * KV_LANES)
                                      : kv_set1(bias[i * brs]);
          acc[i * NV + v] = kv_add(acc[i * NV + v], kv_mul(beta, b));
        }
    }
  }
  if (ep->r) {
    const float* r = ep->r;
    const int64_t rrs = ep->r_rs;
#pragma GCC unroll 8
    for (int i = 0; i < MR; ++i)
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v)
        acc[i * NV + v] = kv_add(acc[i * NV + v], kv_load(r + i * rrs + v * KV_LANES));
  }
  if (ep->act == KILN_ACT_RELU) {
#pragma GCC unroll 32
    for (int i = 0; i < MR * NV; ++i) acc[i] = kv_max(kv_zero(), acc[i]);
  } else if (ep->act == KILN_ACT_CLIP) {
    const kv lo = kv_set1(ep->lo), hi = kv_set1(ep->hi);
#pragma GCC unroll 32
    for (int i = 0; i < MR * NV; ++i) acc[i] = kv_min(hi, kv_max(lo, acc[i]));
  } else if (ep->act == KILN_ACT_SILU) {
#pragma GCC unroll 32
    for (int i = 0; i < MR * NV; ++i) acc[i] = kv_silu(acc[i]);
  }
}

typedef struct kiln_gemm_path {
  kiln_ukr_fn ukr;
  int64_t mr; /* rows per micro-tile */
  int64_t nr; /* columns per micro-tile: 32 (two panels), 16, or a part of one panel */
  int masks_b;        /* ukr reads no B column at or past nr */
} kiln_gemm_path;

/* Virtual im2col matrix of one convolution group: B[k, n] with
 * k = (ic*KH + kh)*KW + kw and n = oh*OW + ow is
 * plane(ic)[ih*W + iw], ih = oh*SH - PT + kh*DH, iw = ow*SW - PL + kw*DW,
 * or 0 outside the image. plane(ic) is x + ic*H*W when KD is 0 (a 2-D
 * window); with a depth axis (conv3d_f32, one output depth per matrix),
 * ic = c*KD + kd reads depth id = ID0 + kd*DD of channel c, the plane
 * x + (c*D + id)*H*W, and a whole row of zeros where id is outside [0, D)
 * (kiln_im2col_plane). */
typedef struct kiln_im2col {
  const float* x;
  int64_t H, W, OW, KH, KW, SH, SW, PT, PL, DH, DW;
  int64_t KD, D, ID0, DD;
} kiln_im2col;

/* plane(ic) above, or NULL for a row of zeros. */
static inline const float* kiln_im2col_plane(const kiln_im2col* g, int64_t ic) {
  const int64_t plane = g->H * g->W;
  if (g->KD == 0) return g->x + ic * plane;
  const int64_t id = g->ID0 + ic % g->KD * g->DD;
  return id >= 0 && id < g->D ? g->x + (ic / g->KD * g->D + id) * plane : NULL;
}

/* What happens to the finished accumulator v of Y[m, n]:
 *   v = alpha*v + beta*c[m*c_rs + n*c_cs] + r[m*r_rs + n]; y = act(v)
 * (terms with a NULL pointer are skipped; alpha is skipped when 1). */
typedef struct kiln_epilogue {
  float alpha, beta;
  const float* c;
  int64_t c_rs, c_cs;
  const float* r;
  int64_t r_rs;
  int64_t act;
  float act_alpha, act_beta;
} kiln_epilogue;

/* One GEMM. B is given by exactly one of: `b_packed` (16-wide panels over
 * the whole K: B[k,n] = b_packed[(n/16)*K*16 + k*16 + n%16], zero-padded to a
 * multiple of 16 columns), `im2col`, or the strided view b[k*b_rs + n*b_cs].
 * A is the strided view a[m*a_rs + k*a_cs], or, when `a_im2col` is set (and
 * B is b_packed), the transposed im2col matrix A[m, k] = im2col B[k, m]: a
 * convolution whose outputs come out channels last (its rows are packed as
 * the tiles need them, kiln_pack_im2col_rows). */
typedef struct kiln_gemm_desc {
  int64_t M, N, K;
  const float* a;
  int64_t a_rs, a_cs;
  const kiln_im2col* a_im2col;
  const float* b_packed;
  const kiln_im2col* im2col;
  const float* b;
  int64_t b_rs, b_cs;
  float* y;
  int64_t y_rs;
  kiln_epilogue ep;
} kiln_gemm_desc;

/* Runs one GEMM, split over the host's threads when it offers them. */
void kiln_sgemm(const kiln_gemm_desc* d, const kiln_host* host);

/* The micro-kernel of this copy's path (simd.h). */
kiln_gemm_path kiln_gemm_select(void);

#endif /* KILN_KERNELS_SGEMM_H_ */
