/* pool2d_f32, global_pool_f32 and global_pool_nhwc_f32. pool2d works a
 * whole output row at a time: each window tap (kh, kw) updates the row's
 * valid columns in one contiguous (or strided) pass; average counts are
 * separable, rows times columns. Max pooling with column stride 1 or 2 has a
 * separable AVX-512 path. Planes split over the host's threads. */
#include <math.h>
#include <stdint.h>

#include "check_util.h"
#include "kiln/kernels.h"
#include "simd.h"
#include "window.h"

enum {
  P_KIND, P_N, P_C, P_H, P_W, P_OH, P_OW, P_KH, P_KW, P_SH, P_SW, P_PT, P_PL,
  P_PB, P_PR, P_DH, P_DW, P_CIP, P_COUNT
};

/* Floats of the padded row buffer of the vector max path. */
#define KILN_POOL_ROW 2048

#ifdef KILN_HAVE_AVX512
/* Whether max_plane_avx512 takes this geometry: column stride 1 or 2, and
 * every column it reads (lane blocks past OW included) inside its buffer. */
static int max_vector_fits(const int64_t* ip) {
  const int64_t OW = ip[P_OW], SW = ip[P_SW], KW = ip[P_KW], DW = ip[P_DW];
  if (ip[P_KIND] != KILN_POOL_MAX || (SW != 1 && SW != 2)) return 0;
  if (OW > KILN_POOL_ROW || KW > KILN_POOL_ROW || DW > KILN_POOL_ROW) return 0;
  const int64_t span = (OW + 15) / 16 * 16 * SW + (KW - 1) * DW + 32;
  return span <= KILN_POOL_ROW && ip[P_PL] + ip[P_W] + 16 <= KILN_POOL_ROW;
}

/* Max pooling of one plane, separably: per output row, the max over the
 * window's rows goes into a buffer that holds input column iw at PL + iw and
 * -inf in the padding on both sides; the max over the window's columns then
 * reads 16 outputs per vector from it with no masks (stride 2: two loads and
 * a permute keeping the even elements). max_ps(v, m) returns m when either
 * is NaN, as the scalar loop's `v > m ? v : m`: NaN never wins either way. */
static void max_plane_avx512(const int64_t* ip, const float* xp, float* yp) {
  const int64_t H = ip[P_H], W = ip[P_W], OH = ip[P_OH], OW = ip[P_OW];
  const int64_t KH = ip[P_KH], KW = ip[P_KW], SH = ip[P_SH], SW = ip[P_SW];
  const int64_t PT = ip[P_PT], PL = ip[P_PL], DH = ip[P_DH], DW = ip[P_DW];
  const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
  const __m512 ninf = _mm512_set1_ps(-INFINITY);
  float row[KILN_POOL_ROW] KILN_ALIGN64;
  for (int64_t i = 0; i < KILN_POOL_ROW; i += 16) _mm512_store_ps(row + i, ninf);
  for (int64_t oh = 0; oh < OH; ++oh) {
    const int64_t ih0 = oh * SH - PT;
    int64_t kh0, kh1;
    kiln_window_range(ih0, DH, KH, 0, H, &kh0, &kh1);
    for (int64_t c = 0; c < W; c += 16) {
      const __mmask16 m = W - c >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (W - c)) - 1u);
      __m512 acc = ninf;
      for (int64_t kh = kh0; kh < kh1; ++kh)
        acc = _mm512_max_ps(_mm512_maskz_loadu_ps(m, xp + (ih0 + kh * DH) * W + c), acc);
      _mm512_mask_storeu_ps(row + PL + c, m, acc);
    }
    for (int64_t ow0 = 0; ow0 < OW; ow0 += 16) {
      __m512 acc = ninf;
      for (int64_t kw = 0; kw < KW; ++kw) {
        const float* r = row + ow0 * SW + kw * DW;
        const __m512 v = SW == 1 ? _mm512_loadu_ps(r)
                                 : _mm512_permutex2var_ps(_mm512_loadu_ps(r), even,
                                                          _mm512_loadu_ps(r + 16));
        acc = _mm512_max_ps(v, acc);
      }
      const __mmask16 n = OW - ow0 >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (OW - ow0)) - 1u);
      _mm512_mask_storeu_ps(yp + oh * OW + ow0, n, acc);
    }
  }
}
#endif

typedef struct pool_job {
  const int64_t* ip;
  const float* x;
  float* y;
  int vector_max; /* max_plane_avx512 handles every plane */
} pool_job;

static void pool_planes(void* ctx, int64_t begin, int64_t end) {
  const pool_job* j = (const pool_job*)ctx;
  const int64_t* ip = j->ip;
  const int64_t is_max = ip[P_KIND] == KILN_POOL_MAX;
  const int64_t H = ip[P_H], W = ip[P_W];
  const int64_t OH = ip[P_OH], OW = ip[P_OW], KH = ip[P_KH], KW = ip[P_KW];
  const int64_t SH = ip[P_SH], SW = ip[P_SW], PT = ip[P_PT], PL = ip[P_PL];
  const int64_t PB = ip[P_PB], PR = ip[P_PR], DH = ip[P_DH], DW = ip[P_DW];
  const int64_t cip = ip[P_CIP];

  for (int64_t p = begin; p < end; ++p) {
    const float* xp = j->x + p * H * W;
    float* yp = j->y + p * OH * OW;
#ifdef KILN_HAVE_AVX512
    if (j->vector_max) {
      max_plane_avx512(ip, xp, yp);
      continue;
    }
#endif
    for (int64_t oh = 0; oh < OH; ++oh) {
      float* yr = yp + oh * OW;
      const int64_t ih0 = oh * SH - PT;
      int64_t kh0, kh1;
      kiln_window_range(ih0, DH, KH, 0, H, &kh0, &kh1);
      const float init = is_max ? -INFINITY : 0.0f;
      for (int64_t ow = 0; ow < OW; ++ow) yr[ow] = init;
      for (int64_t kh = kh0; kh < kh1; ++kh) {
        const float* xr = xp + (ih0 + kh * DH) * W;
        for (int64_t kw = 0; kw < KW; ++kw) {
          const int64_t off = kw * DW - PL; /* iw = ow*SW + off */
          int64_t o0, o1;
          kiln_window_range(off, SW, OW, 0, W, &o0, &o1);
          if (is_max) {
            for (int64_t ow = o0; ow < o1; ++ow) {
              const float v = xr[ow * SW + off];
              yr[ow] = v > yr[ow] ? v : yr[ow];
            }
          } else {
            for (int64_t ow = o0; ow < o1; ++ow) yr[ow] += xr[ow * SW + off];
          }
        }
      }
      if (is_max) continue;
      const int64_t rows = cip ? kiln_window_count(ih0, DH, KH, -PT, H + PB)
                               : kh1 - kh0;
      for (int64_t ow = 0; ow < OW; ++ow) {
        const int64_t iw0 = ow * SW - PL;
        const int64_t cols = cip ? kiln_window_count(iw0, DW, KW, -PL, W + PR)
                                 : kiln_window_count(iw0, DW, KW, 0, W);
        /* A window wholly in the padding averages nothing: report 0. */
        yr[ow] = rows * cols > 0 ? yr[ow] / (float)(rows * cols) : 0.0f;
      }
    }
  }
}

int kiln_pool2d_f32(const int64_t* ip, const float* fp, void* const* bindings,
                    const kiln_host* host) {
  (void)fp;
  pool_job j;
  j.ip = ip;
  j.x = (const float*)bindings[0];
  j.y = (float*)bindings[1];
#ifdef KILN_HAVE_AVX512
  j.vector_max = max_vector_fits(ip);
#else
  j.vector_max = 0;
#endif
  const int64_t NC = ip[P_N] * ip[P_C];
  /* Small layers stay on one thread: the hand-off would cost more. */
  const double work = (double)NC * ip[P_OH] * ip[P_OW] * ip[P_KH] * ip[P_KW];
  if (host && host->parallel_for && NC > 1 && work >= (double)(1 << 18)) {
    host->parallel_for(host->user, NC, pool_planes, &j);
  } else {
    pool_planes(&j, 0, NC);
  }
  return KILN_OK;
}

/* One spatial axis with explicit pads: `out` may be the floor-mode count or
 * anything up to the ceil-mode count, as long as the last window starts
 * inside the padded input. Also keeps every index the kernel forms in int64. */
static int pool_axis_check(int64_t in, int64_t k, int64_t stride, int64_t pad0,
                           int64_t pad1, int64_t dil, int64_t out) {
  int64_t ek, padded, t;
  KILN_TRY(kiln_checked_mul(k - 1, dil, &ek));
  KILN_TRY(kiln_checked_add(ek, 1, &ek));
  KILN_TRY(kiln_checked_add(in, pad0, &padded));
  KILN_TRY(kiln_checked_add(padded, pad1, &padded));
  if (padded < ek) return KILN_ERR_INVALID_ARGUMENT;
  const int64_t floor_out = (padded - ek) / stride + 1;
  const int64_t ceil_out = floor_out + ((padded - ek) % stride != 0);
  if (out < floor_out || out > ceil_out) return KILN_ERR_INVALID_ARGUMENT;
  KILN_TRY(kiln_checked_mul(out, stride, &t));
  if (t - stride >= padded) return KILN_ERR_INVALID_ARGUMENT;
  KILN_TRY(kiln_checked_add(t, ek, &t));
  KILN_TRY(kiln_checked_add(t, padded, &t));
  KILN_TRY(kiln_checked_add(t, stride, &t));
  KILN_TRY(kiln_checked_add(t, dil, &t));
  return KILN_OK;
}

int kiln_pool2d_f32_check(const int64_t* ip, uint32_t iparam_count,
                          const float* fp, uint32_t fparam_count,
                          const uint64_t* binding_bytes) {
  KILN_TRY(kiln_check_counts(ip, iparam_count, P_COUNT, fp, fparam_count, 0));
  KILN_TRY(kiln_check_nonneg(ip, P_COUNT));
  KILN_TRY(kiln_check_enum(ip[P_KIND], KILN_POOL_MAX, KILN_POOL_AVG));
  KILN_TRY(kiln_check_enum(ip[P_CIP], 0, 1));
  if (ip[P_KH] == 0 || ip[P_KW] == 0 || ip[P_SH] == 0 || ip[P_SW] == 0 ||
      ip[P_DH] == 0 || ip[P_DW] == 0)
    return KILN_ERR_INVALID_ARGUMENT;
  int64_t taps; /* the average divisor is at most KH*KW */
  KILN_TRY(kiln_checked_mul(ip[P_KH], ip[P_KW], &taps));
  KILN_TRY(pool_axis_check(ip[P_H], ip[P_KH], ip[P_SH], ip[P_PT], ip[P_PB],
                           ip[P_DH], ip[P_OH]));
  KILN_TRY(pool_axis_check(ip[P_W], ip[P_KW], ip[P_SW], ip[P_PL], ip[P_PR],
                           ip[P_DW], ip[P_OW]));
  const int64_t loops[6] = {ip[P_N], ip[P_C], ip[P_OH], ip[P_OW], ip[P_KH], ip[P_KW]};
  KILN_TRY(kiln_check_work(loops, 6));
  const int64_t x_dims[4] = {ip[P_N], ip[P_C], ip[P_H], ip[P_W]};
  const int64_t y_dims[4] = {ip[P_N], ip[P_C], ip[P_OH], ip[P_OW]};
  int64_t in_count, out_count;
  KILN_TRY(kiln_checked_product(x_dims, 4, &in_count));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[0], in_count));
  KILN_TRY(kiln_checked_product(y_dims, 4, &out_count));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[1], out_count));
  /* Taps in the padding read nothing: at most KILN_MAX_REUSE reads per element. */
  return kiln_check_reuse(kiln_work_of(loops, 6), in_count + out_count);
}

int kiln_global_pool_f32(const int64_t* ip, const float* fp, void* const* bindings,
                         const kiln_host* host) {
  (void)fp;
  (void)host;
  const int64_t rows = ip[1], spatial = ip[2];
  const float* x = (const float*)bindings[0];
  float* y = (float*)bindings[1];
  if (ip[0] == KILN_POOL_MAX) {
    for (int64_t r = 0; r < rows; ++r) {
      const float* xr = x + r * spatial;
      float m = -INFINITY;
      for (int64_t i = 0; i < spatial; ++i) m = xr[i] > m ? xr[i] : m;
      y[r] = m;
    }
  } else {
    /* Eight rows at a time: eight independent chains of adds instead of one,
     * each row still summed in index order. */
    int64_t r = 0;
    for (; r + 8 <= rows; r += 8) {
      float s[8] = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
      for (int64_t i = 0; i < spatial; ++i)
        for (int q = 0; q < 8; ++q) s[q] += x[(r + q) * spatial + i];
      for (int q = 0; q < 8; ++q) y[r + q] = spatial > 0 ? s[q] / (float)spatial : NAN;
    }
    for (; r < rows; ++r) {
      const float* xr = x + r * spatial;
      float s = 0.0f;
      for (int64_t i = 0; i < spatial; ++i) s += xr[i];
      y[r] = spatial > 0 ? s / (float)spatial : NAN; /* mean of nothing */
    }
  }
  return KILN_OK;
}

int kiln_global_pool_f32_check(const int64_t* ip, uint32_t iparam_count,
                               const float* fp, uint32_t fparam_count,
                               const uint64_t* binding_bytes) {
  KILN_TRY(kiln_check_counts(ip, iparam_count, 3, fp, fparam_count, 0));
  KILN_TRY(kiln_check_nonneg(ip, 3));
  KILN_TRY(kiln_check_enum(ip[0], KILN_POOL_MAX, KILN_POOL_AVG));
  /* Work is bounded by the bindings: rows by Y (written even when spatial
   * is 0), rows x spatial by X. */
  int64_t count;
  KILN_TRY(kiln_checked_product(ip + 1, 2, &count));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[0], count));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[1], ip[1]));
  return KILN_OK;
}

#ifdef KILN_HAVE_AVX512
/* One image's sums (average pooling) over channels [c0, c0 + 64) in
 * registers, each channel's chain in pixel order; lanes past C masked. */
static void global_avg_nhwc_avx512(const float* xn, int64_t spatial,
                                                      int64_t C, int64_t c0, float* yn) {
  __mmask16 m[4];
  __m512 acc[4];
  for (int v = 0; v < 4; ++v) {
    const int64_t left = C - c0 - 16 * v;
    m[v] = left >= 16 ? (__mmask16)0xFFFF : left > 0 ? (__mmask16)((1u << left) - 1u) : 0;
    acc[v] = _mm512_setzero_ps();
  }
  for (int64_t i = 0; i < spatial; ++i) {
    const float* px = xn + i * C + c0;
    for (int v = 0; v < 4; ++v)
      acc[v] = _mm512_add_ps(acc[v], _mm512_maskz_loadu_ps(m[v], kiln_simd_at(px, 16 * v)));
  }
  const __m512 count = _mm512_set1_ps((float)spatial);
  for (int v = 0; v < 4; ++v)
    _mm512_mask_storeu_ps(yn + c0 + 16 * v, m[v], _mm512_div_ps(acc[v], count));
}
#endif

int kiln_global_pool_nhwc_f32(const int64_t* ip, const float* fp, void* const* bindings,
                              const kiln_host* host) {
  (void)fp;
  (void)host;
  const int64_t N = ip[1], spatial = ip[2], C = ip[3];
  const float* x = (const float*)bindings[0];
  float* y = (float*)bindings[1];
  const int is_max = ip[0] == KILN_POOL_MAX;
  enum { BLOCK = 32 }; /* channels whose chains stay in registers */
  for (int64_t n = 0; n < N; ++n) {
    const float* xn = x + n * spatial * C;
    float* yn = y + n * C;
    /* Per block of channels, one pass over the pixels: every channel's
     * chain runs in index order. */
#ifdef KILN_HAVE_AVX512
    if (!is_max && spatial > 0) {
      for (int64_t c0 = 0; c0 < C; c0 += 64) global_avg_nhwc_avx512(xn, spatial, C, c0, yn);
      continue;
    }
#endif
    for (int64_t c0 = 0; c0 < C; c0 += BLOCK) {
      const int64_t w = C - c0 < BLOCK ? C - c0 : BLOCK;
      float acc[BLOCK];
      for (int64_t c = 0; c < BLOCK; ++c) acc[c] = is_max ? -INFINITY : 0.0f;
      for (int64_t i = 0; i < spatial; ++i) {
        const float* px = xn + i * C + c0;
        if (w < BLOCK) {
          for (int64_t c = 0; c < w; ++c) acc[c] = is_max ? (px[c] > acc[c] ? px[c] : acc[c])
                                                          : acc[c] + px[c];
        } else if (is_max) {
          for (int64_t c = 0; c < BLOCK; ++c) acc[c] = px[c] > acc[c] ? px[c] : acc[c];
        } else {
          for (int64_t c = 0; c < BLOCK; ++c) acc[c] += px[c];
        }
      }
      for (int64_t c = 0; c < w; ++c)
        yn[c0 + c] = is_max ? acc[c] : spatial > 0 ? acc[c] / (float)spatial : NAN;
    }
  }
  return KILN_OK;
}

int kiln_global_pool_nhwc_f32_check(const int64_t* ip, uint32_t iparam_count,
                                    const float* fp, uint32_t fparam_count,
                                    const uint64_t* binding_bytes) {
  KILN_TRY(kiln_check_counts(ip, iparam_count, 4, fp, fparam_count, 0));
  KILN_TRY(kiln_check_nonneg(ip, 4));
  KILN_TRY(kiln_check_enum(ip[0], KILN_POOL_MAX, KILN_POOL_AVG));
  const int64_t x_dims[3] = {ip[1], ip[2], ip[3]}, y_dims[2] = {ip[1], ip[3]};
  int64_t count;
  KILN_TRY(kiln_checked_product(x_dims, 3, &count));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[0], count));
  KILN_TRY(kiln_checked_product(y_dims, 2, &count));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[1], count));
  return KILN_OK;
}
