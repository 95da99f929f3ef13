/* Which SIMD paths a kernel file may compile, and how it picks one.
 *
 * In the VM build (KILN_RUNTIME_DISPATCH, set by runtime/CMakeLists.txt) every
 * x86 path is compiled with target attributes and chosen per call from the
 * CPU's features; elsewhere (an AOT bundle) the target's compile flags decide
 * (-mavx512f, -mavx2 -mfma, or portable C only).
 * Internal to runtime/kernels: an AOT bundle copies it beside the kernels. */
#ifndef KILN_KERNELS_SIMD_H_
#define KILN_KERNELS_SIMD_H_

#include <stdint.h>

#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#if defined(KILN_RUNTIME_DISPATCH)
#define KILN_TARGET_AVX512 __attribute__((target("avx512f,avx512vl,avx2,fma")))
#define KILN_TARGET_AVX2 __attribute__((target("avx2,fma")))
#define KILN_HAVE_AVX512 1
#define KILN_HAVE_AVX2 1
#else
#if defined(__AVX512F__) && defined(__FMA__)
#define KILN_TARGET_AVX512
#define KILN_HAVE_AVX512 1
#endif
#if defined(__AVX2__) && defined(__FMA__)
#define KILN_TARGET_AVX2
#define KILN_HAVE_AVX2 1
#endif
#endif
#endif

#if defined(__GNUC__) || defined(__clang__)
#define KILN_ALWAYS_INLINE inline __attribute__((always_inline))
#define KILN_ALIGN64 __attribute__((aligned(64)))
#else
#define KILN_ALWAYS_INLINE inline
#define KILN_ALIGN64
#endif

/* 1 when the AVX-512 path of this build may run on this CPU. Reads only
 * state the C runtime initialised before main. */
static inline int kiln_avx512_usable(void) {
#if defined(KILN_RUNTIME_DISPATCH) && defined(KILN_HAVE_AVX512)
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl");
#elif defined(KILN_HAVE_AVX512)
  return 1;
#else
  return 0;
#endif
}

/* The address of element idx of x, which may lie outside x's buffer: formed
 * in integers, for masked loads that read only the lanes inside. */
static KILN_ALWAYS_INLINE const float* kiln_simd_at(const float* x, int64_t idx) {
  return (const float*)((uintptr_t)x + (uintptr_t)idx * sizeof(float));
}

#endif /* KILN_KERNELS_SIMD_H_ */
