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
 *             float          1          the same, for other C11 compilers
 *
 * kv_max(a, b) is a > b ? a : b and kv_min(a, b) is a < b ? a : b on every
 * path (x86's rule: the second operand when either is NaN), so ReLU and Clip
 * written max(0, v) and min(hi, max(lo, v)) keep NaN and -0.0 as
 * activation.h's scalar loops do.
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

#elif defined(__GNUC__) || defined(__clang__)

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

#else

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
