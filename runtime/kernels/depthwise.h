/* Depthwise convolution (one input and one output channel per group) of one
 * plane. Taps are applied one at a time to a whole output row, which keeps
 * the inner loop a contiguous (or stride-2) vector loop; the row stays in L1.
 * In the VM build the plane function is compiled for AVX-512, AVX2 and the
 * base ISA and chosen per call; an AOT bundle compiles it for its flags.
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

/* yp = act(bias + conv(xp, wk) + rp) over one OH x OW plane; rp may be NULL. */
#define KILN_DW_PLANE_BODY                                                             \
  {                                                                                    \
    const int64_t W = g->W, OW = g->OW, KW = g->KW, SW = g->SW, DW = g->DW;           \
    for (int64_t oh = 0; oh < g->OH; ++oh) {                                           \
      float* yr = yp + oh * OW;                                                        \
      for (int64_t ow = 0; ow < OW; ++ow) yr[ow] = bias;                               \
      const int64_t ih0 = oh * g->SH - g->PT;                                          \
      int64_t kh0, kh1;                                                                \
      kiln_window_range(ih0, g->DH, g->KH, 0, g->H, &kh0, &kh1);                       \
      for (int64_t kh = kh0; kh < kh1; ++kh) {                                         \
        const float* xr = xp + (ih0 + kh * g->DH) * W;                                 \
        for (int64_t kw = 0; kw < KW; ++kw) {                                          \
          const float wv = wk[kh * KW + kw];                                           \
          const int64_t off = kw * DW - g->PL;                                         \
          int64_t o0, o1;                                                              \
          kiln_window_range(off, SW, OW, 0, W, &o0, &o1);                              \
          if (SW == 1) {                                                               \
            const float* xs = xr + off;                                                \
            for (int64_t ow = o0; ow < o1; ++ow) yr[ow] += wv * xs[ow];                \
          } else if (SW == 2) {                                                        \
            const float* xs = xr + off;                                                \
            for (int64_t ow = o0; ow < o1; ++ow) yr[ow] += wv * xs[2 * ow];            \
          } else {                                                                     \
            for (int64_t ow = o0; ow < o1; ++ow) yr[ow] += wv * xr[ow * SW + off];     \
          }                                                                            \
        }                                                                              \
      }                                                                                \
      if (rp)                                                                          \
        for (int64_t ow = 0; ow < OW; ++ow) yr[ow] += rp[oh * OW + ow];                \
      kiln_activation_inplace(yr, OW, g->act, g->act_alpha, g->act_beta);              \
    }                                                                                  \
  }

#define KILN_DW_PLANE_PARAMS                                                            \
  (const kiln_dw_geom* g, const float* xp, const float* wk, float bias, const float* rp, \
   float* yp)

static inline void kiln_dw_plane_base KILN_DW_PLANE_PARAMS KILN_DW_PLANE_BODY
#if defined(KILN_RUNTIME_DISPATCH) && defined(KILN_HAVE_AVX512)
static inline KILN_TARGET_AVX512 void kiln_dw_plane_avx512 KILN_DW_PLANE_PARAMS KILN_DW_PLANE_BODY
static inline KILN_TARGET_AVX2 void kiln_dw_plane_avx2 KILN_DW_PLANE_PARAMS KILN_DW_PLANE_BODY
#endif

typedef void (*kiln_dw_plane_fn) KILN_DW_PLANE_PARAMS;

static inline kiln_dw_plane_fn kiln_dw_select(void) {
#if defined(KILN_RUNTIME_DISPATCH) && defined(KILN_HAVE_AVX512)
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl"))
    return kiln_dw_plane_avx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return kiln_dw_plane_avx2;
#endif
  return kiln_dw_plane_base;
}

#undef KILN_DW_PLANE_BODY
#undef KILN_DW_PLANE_PARAMS

#endif /* KILN_KERNELS_DEPTHWISE_H_ */
