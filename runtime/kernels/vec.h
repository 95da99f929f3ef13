/* One SIMD vector of this copy's path (simd.h), so that a kernel written once
 * against kv_* compiles to every path: the ISA is a parameter of the build,
 * not a fork of the source.
 *
 *   path      kv             KV_LANES   kv_fma(a, b, c)
 *   avx512    __m512         16         fused (one rounding)
 *   avx2      __m256         8          fused
 *   neon      float32x4_t    4          fused
 *   portable  4 floats       4          a*b + c, two roundings (GCC/Clang vector
 *                                       extension: SSE, NEON, ... or scalar code)
 *             float          1          the same, for other C11 compilers and
 *                                       KILN_KV_SCALAR (simd.h: Cortex-M)
 *
 * kv_max(a, b) is a > b ? a : b and kv_min(a, b) is a < b ? a : b on every
 * path (x86's rule: the second operand when either is NaN), so ReLU and Clip
 * written max(0, v) and min(hi, max(lo, v)) keep NaN and -0.0 as
 * activation.h's scalar loops do.
 *
 * For vec_math.h and reductions (additive to the ops above):
 *   kv_sub, kv_div, kv_abs        a - b, a / b (IEEE, one rounding), |a|
 *   kv_lt(a, b), kv_le(a, b)      lane masks (kv_keep_mask): false when either is NaN
 *   kv_select(m, a, b)            m ? a : b per lane
 *   kv_all(m)                     whether every lane of the mask is true
 *   kv_reduce_add, kv_reduce_max  one float from the lanes, in a fixed order per path
 *                                 (reduce_max: a NaN lane may or may not win)
 *   kvi                           the lanes' 32 bits as unsigned integers (wrapping):
 *   kv_as_bits, kv_from_bits      bit casts between kv and kvi
 *   kvi_set1, kvi_add, kvi_and, kvi_or, kvi_shl(a, n)
 *
 * kv_even(a, b) is the even lanes of a's and b's lanes side by side (a0, a2,
 * ..., b0, b2, ...): a stride-2 read of 2 * KV_LANES floats.
 *
 * kv_transpose(r) transposes the KV_LANES x KV_LANES block held in the
 * vectors r[0 .. KV_LANES): a shuffle network on each path (one vector is
 * a row, lane j of r[i] becomes lane i of r[j]).
 * Internal to runtime/kernels: an AOT bundle copies it beside the kernels. */
#ifndef KILN_KERNELS_VEC_H_
#define KILN_KERNELS_VEC_H_

#include <stdint.h>
#include <string.h>

#include "simd.h"

#if defined(KILN_HAVE_AVX512)

#define KV_LANES 16
typedef __m512 kv;
typedef __mmask16 kv_keep_mask;
static KILN_ALWAYS_INLINE kv kv_zero(void) { return _mm512_setzero_ps(); }
static KILN_ALWAYS_INLINE kv kv_set1(float x) { return _mm512_set1_ps(x); }
static KILN_ALWAYS_INLINE kv kv_load(const float* p) { return _mm512_loadu_ps(p); }
static KILN_ALWAYS_INLINE void kv_store(float* p, kv v) { _mm512_storeu_ps(p, v); }
static KILN_ALWAYS_INLINE kv kv_fma(kv a, kv b, kv c) { return _mm512_fmadd_ps(a, b, c); }
static KILN_ALWAYS_INLINE kv kv_add(kv a, kv b) { return _mm512_add_ps(a, b); }
static KILN_ALWAYS_INLINE kv kv_mul(kv a, kv b) { return _mm512_mul_ps(a, b); }
static KILN_ALWAYS_INLINE kv kv_max(kv a, kv b) { return _mm512_max_ps(a, b); }
static KILN_ALWAYS_INLINE kv kv_min(kv a, kv b) { return _mm512_min_ps(a, b); }
static KILN_ALWAYS_INLINE kv_keep_mask kv_keep_if(int keep) {
  return keep ? (__mmask16)0xFFFF : (__mmask16)0;
}
static KILN_ALWAYS_INLINE kv kv_keep(kv v, kv_keep_mask m) { return _mm512_maskz_mov_ps(m, v); }
/* The first n (< KV_LANES) lanes; the rest read nothing and are zero. */
static KILN_ALWAYS_INLINE kv kv_load_n(const float* p, int64_t n) {
  return _mm512_maskz_loadu_ps((__mmask16)((1u << n) - 1u), p);
}
static KILN_ALWAYS_INLINE void kv_store_n(float* p, kv v, int64_t n) {
  _mm512_mask_storeu_ps(p, (__mmask16)((1u << n) - 1u), v);
}
typedef __m512i kvi;
static KILN_ALWAYS_INLINE kv kv_sub(kv a, kv b) { return _mm512_sub_ps(a, b); }
static KILN_ALWAYS_INLINE kv kv_div(kv a, kv b) { return _mm512_div_ps(a, b); }
static KILN_ALWAYS_INLINE kv kv_abs(kv a) { return _mm512_abs_ps(a); }
static KILN_ALWAYS_INLINE kv_keep_mask kv_lt(kv a, kv b) {
  return _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ);
}
static KILN_ALWAYS_INLINE kv_keep_mask kv_le(kv a, kv b) {
  return _mm512_cmp_ps_mask(a, b, _CMP_LE_OQ);
}
static KILN_ALWAYS_INLINE int kv_all(kv_keep_mask m) { return m == (__mmask16)0xFFFF; }
static KILN_ALWAYS_INLINE kv kv_select(kv_keep_mask m, kv a, kv b) {
  return _mm512_mask_blend_ps(m, b, a);
}
static KILN_ALWAYS_INLINE float kv_reduce_add(kv v) {
  const __m256 h = _mm256_add_ps(_mm512_castps512_ps256(v), _mm512_extractf32x8_ps(v, 1));
  __m128 q = _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
  q = _mm_add_ps(q, _mm_movehl_ps(q, q));
  q = _mm_add_ss(q, _mm_movehdup_ps(q));
  return _mm_cvtss_f32(q);
}
static KILN_ALWAYS_INLINE float kv_reduce_max(kv v) {
  const __m256 h = _mm256_max_ps(_mm512_castps512_ps256(v), _mm512_extractf32x8_ps(v, 1));
  __m128 q = _mm_max_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
  q = _mm_max_ps(q, _mm_movehl_ps(q, q));
  q = _mm_max_ss(q, _mm_movehdup_ps(q));
  return _mm_cvtss_f32(q);
}
static KILN_ALWAYS_INLINE kvi kv_as_bits(kv v) { return _mm512_castps_si512(v); }
static KILN_ALWAYS_INLINE kv kv_from_bits(kvi b) { return _mm512_castsi512_ps(b); }
static KILN_ALWAYS_INLINE kvi kvi_set1(uint32_t x) { return _mm512_set1_epi32((int)x); }
static KILN_ALWAYS_INLINE kvi kvi_add(kvi a, kvi b) { return _mm512_add_epi32(a, b); }
static KILN_ALWAYS_INLINE kvi kvi_and(kvi a, kvi b) { return _mm512_and_si512(a, b); }
static KILN_ALWAYS_INLINE kvi kvi_or(kvi a, kvi b) { return _mm512_or_si512(a, b); }
static KILN_ALWAYS_INLINE kvi kvi_shl(kvi a, unsigned n) { return _mm512_slli_epi32(a, n); }
static KILN_ALWAYS_INLINE kv kv_even(kv a, kv b) {
  const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
  return _mm512_permutex2var_ps(a, even, b);
}
/* 16 x 16: pairs of rows interleaved by 32 then 64 bits within each
 * 128-bit block (u[4i+k], block b: column 4b+k of rows 4i..4i+3), then the
 * 4 x 4 grid of 128-bit blocks transposed. */
static KILN_ALWAYS_INLINE void kv_transpose(kv* r) {
  __m512 t[16], u[16];
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
  for (int i = 0; i < 4; ++i) {
    const __m512d lo0 = _mm512_castps_pd(t[4 * i]), lo1 = _mm512_castps_pd(t[4 * i + 2]);
    const __m512d hi0 = _mm512_castps_pd(t[4 * i + 1]), hi1 = _mm512_castps_pd(t[4 * i + 3]);
    u[4 * i] = _mm512_castpd_ps(_mm512_unpacklo_pd(lo0, lo1));
    u[4 * i + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(lo0, lo1));
    u[4 * i + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(hi0, hi1));
    u[4 * i + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(hi0, hi1));
  }
  for (int k = 0; k < 4; ++k) {
    const __m512 a0 = _mm512_shuffle_f32x4(u[k], u[4 + k], 0x88);
    const __m512 a1 = _mm512_shuffle_f32x4(u[k], u[4 + k], 0xDD);
    const __m512 a2 = _mm512_shuffle_f32x4(u[8 + k], u[12 + k], 0x88);
    const __m512 a3 = _mm512_shuffle_f32x4(u[8 + k], u[12 + k], 0xDD);
    r[k] = _mm512_shuffle_f32x4(a0, a2, 0x88);
    r[4 + k] = _mm512_shuffle_f32x4(a1, a3, 0x88);
    r[8 + k] = _mm512_shuffle_f32x4(a0, a2, 0xDD);
    r[12 + k] = _mm512_shuffle_f32x4(a1, a3, 0xDD);
  }
}

#elif defined(KILN_HAVE_AVX2)

#define KV_LANES 8
typedef __m256 kv;
typedef __m256 kv_keep_mask;
static KILN_ALWAYS_INLINE kv kv_zero(void) { return _mm256_setzero_ps(); }
static KILN_ALWAYS_INLINE kv kv_set1(float x) { return _mm256_set1_ps(x); }
static KILN_ALWAYS_INLINE kv kv_load(const float* p) { return _mm256_loadu_ps(p); }
static KILN_ALWAYS_INLINE void kv_store(float* p, kv v) { _mm256_storeu_ps(p, v); }
static KILN_ALWAYS_INLINE kv kv_fma(kv a, kv b, kv c) { return _mm256_fmadd_ps(a, b, c); }
static KILN_ALWAYS_INLINE kv kv_add(kv a, kv b) { return _mm256_add_ps(a, b); }
static KILN_ALWAYS_INLINE kv kv_mul(kv a, kv b) { return _mm256_mul_ps(a, b); }
static KILN_ALWAYS_INLINE kv kv_max(kv a, kv b) { return _mm256_max_ps(a, b); }
static KILN_ALWAYS_INLINE kv kv_min(kv a, kv b) { return _mm256_min_ps(a, b); }
static KILN_ALWAYS_INLINE kv_keep_mask kv_keep_if(int keep) {
  return _mm256_castsi256_ps(_mm256_set1_epi32(keep ? -1 : 0));
}
static KILN_ALWAYS_INLINE kv kv_keep(kv v, kv_keep_mask m) { return _mm256_and_ps(v, m); }
static KILN_ALWAYS_INLINE __m256i kv_lanes_below(int64_t n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32((int)n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}
static KILN_ALWAYS_INLINE kv kv_load_n(const float* p, int64_t n) {
  return _mm256_maskload_ps(p, kv_lanes_below(n));
}
static KILN_ALWAYS_INLINE void kv_store_n(float* p, kv v, int64_t n) {
  _mm256_maskstore_ps(p, kv_lanes_below(n), v);
}
typedef __m256i kvi;
static KILN_ALWAYS_INLINE kv kv_sub(kv a, kv b) { return _mm256_sub_ps(a, b); }
static KILN_ALWAYS_INLINE kv kv_div(kv a, kv b) { return _mm256_div_ps(a, b); }
static KILN_ALWAYS_INLINE kv kv_abs(kv a) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), a); }
static KILN_ALWAYS_INLINE kv_keep_mask kv_lt(kv a, kv b) { return _mm256_cmp_ps(a, b, _CMP_LT_OQ); }
static KILN_ALWAYS_INLINE kv_keep_mask kv_le(kv a, kv b) { return _mm256_cmp_ps(a, b, _CMP_LE_OQ); }
static KILN_ALWAYS_INLINE int kv_all(kv_keep_mask m) { return _mm256_movemask_ps(m) == 0xFF; }
static KILN_ALWAYS_INLINE kv kv_select(kv_keep_mask m, kv a, kv b) {
  return _mm256_blendv_ps(b, a, m);
}
static KILN_ALWAYS_INLINE float kv_reduce_add(kv v) {
  __m128 q = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  q = _mm_add_ps(q, _mm_movehl_ps(q, q));
  q = _mm_add_ss(q, _mm_movehdup_ps(q));
  return _mm_cvtss_f32(q);
}
static KILN_ALWAYS_INLINE float kv_reduce_max(kv v) {
  __m128 q = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  q = _mm_max_ps(q, _mm_movehl_ps(q, q));
  q = _mm_max_ss(q, _mm_movehdup_ps(q));
  return _mm_cvtss_f32(q);
}
static KILN_ALWAYS_INLINE kvi kv_as_bits(kv v) { return _mm256_castps_si256(v); }
static KILN_ALWAYS_INLINE kv kv_from_bits(kvi b) { return _mm256_castsi256_ps(b); }
static KILN_ALWAYS_INLINE kvi kvi_set1(uint32_t x) { return _mm256_set1_epi32((int)x); }
static KILN_ALWAYS_INLINE kvi kvi_add(kvi a, kvi b) { return _mm256_add_epi32(a, b); }
static KILN_ALWAYS_INLINE kvi kvi_and(kvi a, kvi b) { return _mm256_and_si256(a, b); }
static KILN_ALWAYS_INLINE kvi kvi_or(kvi a, kvi b) { return _mm256_or_si256(a, b); }
static KILN_ALWAYS_INLINE kvi kvi_shl(kvi a, unsigned n) { return _mm256_slli_epi32(a, (int)n); }
/* a0 a2 b0 b2 | a4 a6 b4 b6 within the 128-bit halves, then the middle
 * 64-bit pairs swapped. */
static KILN_ALWAYS_INLINE kv kv_even(kv a, kv b) {
  const __m256 t = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0));
  return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(t), _MM_SHUFFLE(3, 1, 2, 0)));
}
/* 8 x 8: rows interleaved by 32 bits, 4 x 4 blocks formed within each
 * 128-bit half (s[k], half b: column 4b+k of 4 rows), then the halves swapped. */
static KILN_ALWAYS_INLINE void kv_transpose(kv* r) {
  __m256 s[8];
  for (int h = 0; h < 2; ++h) {
    const __m256 t0 = _mm256_unpacklo_ps(r[4 * h], r[4 * h + 1]);
    const __m256 t1 = _mm256_unpackhi_ps(r[4 * h], r[4 * h + 1]);
    const __m256 t2 = _mm256_unpacklo_ps(r[4 * h + 2], r[4 * h + 3]);
    const __m256 t3 = _mm256_unpackhi_ps(r[4 * h + 2], r[4 * h + 3]);
    s[4 * h] = _mm256_shuffle_ps(t0, t2, 0x44);
    s[4 * h + 1] = _mm256_shuffle_ps(t0, t2, 0xEE);
    s[4 * h + 2] = _mm256_shuffle_ps(t1, t3, 0x44);
    s[4 * h + 3] = _mm256_shuffle_ps(t1, t3, 0xEE);
  }
  for (int k = 0; k < 4; ++k) {
    r[k] = _mm256_permute2f128_ps(s[k], s[4 + k], 0x20);
    r[4 + k] = _mm256_permute2f128_ps(s[k], s[4 + k], 0x31);
  }
}

#elif defined(KILN_HAVE_NEON)

#define KV_LANES 4
typedef float32x4_t kv;
typedef uint32x4_t kv_keep_mask;
static KILN_ALWAYS_INLINE kv kv_zero(void) { return vdupq_n_f32(0.0f); }
static KILN_ALWAYS_INLINE kv kv_set1(float x) { return vdupq_n_f32(x); }
static KILN_ALWAYS_INLINE kv kv_load(const float* p) { return vld1q_f32(p); }
static KILN_ALWAYS_INLINE void kv_store(float* p, kv v) { vst1q_f32(p, v); }
static KILN_ALWAYS_INLINE kv kv_fma(kv a, kv b, kv c) { return vfmaq_f32(c, a, b); }
static KILN_ALWAYS_INLINE kv kv_add(kv a, kv b) { return vaddq_f32(a, b); }
static KILN_ALWAYS_INLINE kv kv_mul(kv a, kv b) { return vmulq_f32(a, b); }
static KILN_ALWAYS_INLINE kv kv_max(kv a, kv b) { return vbslq_f32(vcgtq_f32(a, b), a, b); }
static KILN_ALWAYS_INLINE kv kv_min(kv a, kv b) { return vbslq_f32(vcltq_f32(a, b), a, b); }
static KILN_ALWAYS_INLINE kv_keep_mask kv_keep_if(int keep) {
  return vdupq_n_u32(keep ? 0xFFFFFFFFu : 0u);
}
static KILN_ALWAYS_INLINE kv kv_keep(kv v, kv_keep_mask m) {
  return vreinterpretq_f32_u32(vandq_u32(vreinterpretq_u32_f32(v), m));
}
typedef uint32x4_t kvi;
static KILN_ALWAYS_INLINE kv kv_sub(kv a, kv b) { return vsubq_f32(a, b); }
static KILN_ALWAYS_INLINE kv kv_div(kv a, kv b) { return vdivq_f32(a, b); }
static KILN_ALWAYS_INLINE kv kv_abs(kv a) { return vabsq_f32(a); }
static KILN_ALWAYS_INLINE kv_keep_mask kv_lt(kv a, kv b) { return vcltq_f32(a, b); }
static KILN_ALWAYS_INLINE kv_keep_mask kv_le(kv a, kv b) { return vcleq_f32(a, b); }
static KILN_ALWAYS_INLINE int kv_all(kv_keep_mask m) { return vminvq_u32(m) != 0; }
static KILN_ALWAYS_INLINE kv kv_select(kv_keep_mask m, kv a, kv b) { return vbslq_f32(m, a, b); }
static KILN_ALWAYS_INLINE float kv_reduce_add(kv v) {
  return (vgetq_lane_f32(v, 0) + vgetq_lane_f32(v, 2)) +
         (vgetq_lane_f32(v, 1) + vgetq_lane_f32(v, 3));
}
static KILN_ALWAYS_INLINE float kv_reduce_max(kv v) {
  const kv m = kv_max(v, vextq_f32(v, v, 2)); /* lanes 0, 1: max(v0, v2), max(v1, v3) */
  return vgetq_lane_f32(kv_max(m, vextq_f32(m, m, 1)), 0);
}
static KILN_ALWAYS_INLINE kvi kv_as_bits(kv v) { return vreinterpretq_u32_f32(v); }
static KILN_ALWAYS_INLINE kv kv_from_bits(kvi b) { return vreinterpretq_f32_u32(b); }
static KILN_ALWAYS_INLINE kvi kvi_set1(uint32_t x) { return vdupq_n_u32(x); }
static KILN_ALWAYS_INLINE kvi kvi_add(kvi a, kvi b) { return vaddq_u32(a, b); }
static KILN_ALWAYS_INLINE kvi kvi_and(kvi a, kvi b) { return vandq_u32(a, b); }
static KILN_ALWAYS_INLINE kvi kvi_or(kvi a, kvi b) { return vorrq_u32(a, b); }
static KILN_ALWAYS_INLINE kvi kvi_shl(kvi a, unsigned n) {
  return vshlq_u32(a, vdupq_n_s32((int32_t)n));
}
static KILN_ALWAYS_INLINE kv kv_even(kv a, kv b) { return vuzp1q_f32(a, b); }
static KILN_ALWAYS_INLINE void kv_transpose(kv* r) {
  const float32x4x2_t t0 = vtrnq_f32(r[0], r[1]), t1 = vtrnq_f32(r[2], r[3]);
  r[0] = vcombine_f32(vget_low_f32(t0.val[0]), vget_low_f32(t1.val[0]));
  r[1] = vcombine_f32(vget_low_f32(t0.val[1]), vget_low_f32(t1.val[1]));
  r[2] = vcombine_f32(vget_high_f32(t0.val[0]), vget_high_f32(t1.val[0]));
  r[3] = vcombine_f32(vget_high_f32(t0.val[1]), vget_high_f32(t1.val[1]));
}

#elif (defined(__GNUC__) || defined(__clang__)) && !defined(KILN_KV_SCALAR)

#define KV_LANES 4
#define KV_PORTABLE_VECTOR 1
typedef float kv __attribute__((vector_size(16)));
typedef int32_t kv_keep_mask __attribute__((vector_size(16)));
static KILN_ALWAYS_INLINE kv kv_zero(void) { return (kv){0.0f, 0.0f, 0.0f, 0.0f}; }
static KILN_ALWAYS_INLINE kv kv_set1(float x) { return (kv){x, x, x, x}; }
/* memcpy: no alignment is assumed; compilers turn it into one vector load. */
static KILN_ALWAYS_INLINE kv kv_load(const float* p) {
  kv v;
  memcpy(&v, p, sizeof v);
  return v;
}
static KILN_ALWAYS_INLINE void kv_store(float* p, kv v) { memcpy(p, &v, sizeof v); }
static KILN_ALWAYS_INLINE kv kv_fma(kv a, kv b, kv c) { return a * b + c; }
static KILN_ALWAYS_INLINE kv kv_add(kv a, kv b) { return a + b; }
static KILN_ALWAYS_INLINE kv kv_mul(kv a, kv b) { return a * b; }
static KILN_ALWAYS_INLINE kv kv_select(kv_keep_mask m, kv a, kv b) {
  return (kv)((m & (kv_keep_mask)a) | (~m & (kv_keep_mask)b));
}
static KILN_ALWAYS_INLINE kv kv_max(kv a, kv b) { return kv_select(a > b, a, b); }
static KILN_ALWAYS_INLINE kv kv_min(kv a, kv b) { return kv_select(a < b, a, b); }
static KILN_ALWAYS_INLINE kv_keep_mask kv_keep_if(int keep) {
  const int32_t m = keep ? -1 : 0;
  return (kv_keep_mask){m, m, m, m};
}
static KILN_ALWAYS_INLINE kv kv_keep(kv v, kv_keep_mask m) { return (kv)((kv_keep_mask)v & m); }
typedef uint32_t kvi __attribute__((vector_size(16)));
static KILN_ALWAYS_INLINE kv kv_sub(kv a, kv b) { return a - b; }
static KILN_ALWAYS_INLINE kv kv_div(kv a, kv b) { return a / b; }
static KILN_ALWAYS_INLINE kv kv_abs(kv a) { return (kv)((kvi)a & 0x7FFFFFFFu); }
static KILN_ALWAYS_INLINE kv_keep_mask kv_lt(kv a, kv b) { return a < b; }
static KILN_ALWAYS_INLINE kv_keep_mask kv_le(kv a, kv b) { return a <= b; }
static KILN_ALWAYS_INLINE float kv_reduce_add(kv v) { return (v[0] + v[2]) + (v[1] + v[3]); }
static KILN_ALWAYS_INLINE int kv_all(kv_keep_mask m) { return (m[0] & m[1] & m[2] & m[3]) != 0; }
static KILN_ALWAYS_INLINE float kv_reduce_max(kv v) {
  const float a = v[0] > v[2] ? v[0] : v[2], b = v[1] > v[3] ? v[1] : v[3];
  return a > b ? a : b;
}
static KILN_ALWAYS_INLINE kvi kv_as_bits(kv v) { return (kvi)v; }
static KILN_ALWAYS_INLINE kv kv_from_bits(kvi b) { return (kv)b; }
static KILN_ALWAYS_INLINE kvi kvi_set1(uint32_t x) { return (kvi){x, x, x, x}; }
static KILN_ALWAYS_INLINE kvi kvi_add(kvi a, kvi b) { return a + b; }
static KILN_ALWAYS_INLINE kvi kvi_and(kvi a, kvi b) { return a & b; }
static KILN_ALWAYS_INLINE kvi kvi_or(kvi a, kvi b) { return a | b; }
static KILN_ALWAYS_INLINE kvi kvi_shl(kvi a, unsigned n) { return a << n; }
static KILN_ALWAYS_INLINE kv kv_even(kv a, kv b) {
#if defined(__clang__)
  return __builtin_shufflevector(a, b, 0, 2, 4, 6);
#else
  return __builtin_shuffle(a, b, (kv_keep_mask){0, 2, 4, 6});
#endif
}
/* Through memory: compilers turn it into their target's shuffles. */
static KILN_ALWAYS_INLINE void kv_transpose(kv* r) {
  float t[4][4];
  memcpy(t, r, sizeof t);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) r[i][j] = t[j][i];
}

#else

#include <math.h>

#define KV_LANES 1
typedef float kv;
typedef int kv_keep_mask;
static KILN_ALWAYS_INLINE kv kv_zero(void) { return 0.0f; }
static KILN_ALWAYS_INLINE kv kv_set1(float x) { return x; }
static KILN_ALWAYS_INLINE kv kv_load(const float* p) { return *p; }
static KILN_ALWAYS_INLINE void kv_store(float* p, kv v) { *p = v; }
static KILN_ALWAYS_INLINE kv kv_fma(kv a, kv b, kv c) { return a * b + c; }
static KILN_ALWAYS_INLINE kv kv_add(kv a, kv b) { return a + b; }
static KILN_ALWAYS_INLINE kv kv_mul(kv a, kv b) { return a * b; }
static KILN_ALWAYS_INLINE kv kv_max(kv a, kv b) { return a > b ? a : b; }
static KILN_ALWAYS_INLINE kv kv_min(kv a, kv b) { return a < b ? a : b; }
static KILN_ALWAYS_INLINE kv_keep_mask kv_keep_if(int keep) { return keep; }
static KILN_ALWAYS_INLINE kv kv_keep(kv v, kv_keep_mask m) { return m ? v : 0.0f; }
typedef uint32_t kvi;
static KILN_ALWAYS_INLINE kv kv_sub(kv a, kv b) { return a - b; }
static KILN_ALWAYS_INLINE kv kv_div(kv a, kv b) { return a / b; }
static KILN_ALWAYS_INLINE kv kv_abs(kv a) { return fabsf(a); }
static KILN_ALWAYS_INLINE kv_keep_mask kv_lt(kv a, kv b) { return a < b; }
static KILN_ALWAYS_INLINE kv_keep_mask kv_le(kv a, kv b) { return a <= b; }
static KILN_ALWAYS_INLINE kv kv_select(kv_keep_mask m, kv a, kv b) { return m ? a : b; }
static KILN_ALWAYS_INLINE int kv_all(kv_keep_mask m) { return m != 0; }
static KILN_ALWAYS_INLINE float kv_reduce_add(kv v) { return v; }
static KILN_ALWAYS_INLINE float kv_reduce_max(kv v) { return v; }
static KILN_ALWAYS_INLINE kvi kv_as_bits(kv v) {
  kvi b;
  memcpy(&b, &v, sizeof b);
  return b;
}
static KILN_ALWAYS_INLINE kv kv_from_bits(kvi b) {
  kv v;
  memcpy(&v, &b, sizeof v);
  return v;
}
static KILN_ALWAYS_INLINE kvi kvi_set1(uint32_t x) { return x; }
static KILN_ALWAYS_INLINE kvi kvi_add(kvi a, kvi b) { return a + b; }
static KILN_ALWAYS_INLINE kvi kvi_and(kvi a, kvi b) { return a & b; }
static KILN_ALWAYS_INLINE kvi kvi_or(kvi a, kvi b) { return a | b; }
static KILN_ALWAYS_INLINE kvi kvi_shl(kvi a, unsigned n) { return a << n; }
static KILN_ALWAYS_INLINE kv kv_even(kv a, kv b) {
  (void)b;
  return a;
}
static KILN_ALWAYS_INLINE void kv_transpose(kv* r) { (void)r; } /* 1 x 1 */

#endif

#if !defined(KILN_HAVE_AVX512) && !defined(KILN_HAVE_AVX2)
/* Partial vectors through a lane buffer where the ISA has no masked loads. */
static KILN_ALWAYS_INLINE kv kv_load_n(const float* p, int64_t n) {
  float t[KV_LANES] = {0};
  for (int64_t i = 0; i < n; ++i) t[i] = p[i];
  return kv_load(t);
}
static KILN_ALWAYS_INLINE void kv_store_n(float* p, kv v, int64_t n) {
  float t[KV_LANES];
  kv_store(t, v);
  for (int64_t i = 0; i < n; ++i) p[i] = t[i];
}
#endif

#endif /* KILN_KERNELS_VEC_H_ */
