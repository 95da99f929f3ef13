/* Which SIMD path this copy of the kernels is, decided by its compile flags.
 *
 * A kernel file is compiled once per path, exactly as an AOT bundle for that
 * target compiles it: the VM links one copy per path its host can run
 * (runtime/CMakeLists.txt; x86-64: portable, avx2, avx512; AArch64: portable,
 * neon) and picks one per module load; a bundle gets the path of its CFLAGS.
 *
 *   path      compile flags (at least)                      macros set here
 *   avx512    -mavx512f -mavx512vl -mavx512bw -mavx512dq    KILN_HAVE_AVX512, KILN_HAVE_AVX2
 *             -mavx2 -mfma
 *   avx2      -mavx2 -mfma                                  KILN_HAVE_AVX2
 *   neon      AArch64 (NEON is part of the base ISA)        KILN_HAVE_NEON
 *   portable  none, or -DKILN_PORTABLE_ONLY                 none: plain C11 that compilers
 *                                                           vectorize for their target
 *
 * KILN_PORTABLE_ONLY forces the portable code whatever the flags (the VM's
 * portable copy on AArch64, where NEON cannot be switched off).
 * Internal to runtime/kernels: an AOT bundle copies it beside the kernels. */
#ifndef KILN_KERNELS_SIMD_H_
#define KILN_KERNELS_SIMD_H_

#include <stdint.h>

#if !defined(KILN_PORTABLE_ONLY)
#if (defined(__x86_64__) || defined(__i386__)) && (defined(__GNUC__) || defined(__clang__))
#if defined(__AVX512F__) && defined(__AVX512VL__) && defined(__AVX512BW__) && \
    defined(__AVX512DQ__) && defined(__AVX2__) && defined(__FMA__)
#define KILN_HAVE_AVX512 1
#endif
#if defined(__AVX2__) && defined(__FMA__)
#define KILN_HAVE_AVX2 1
#endif
#if defined(KILN_HAVE_AVX2)
#include <immintrin.h>
#endif
#endif
#if defined(__aarch64__) && defined(__ARM_NEON)
#define KILN_HAVE_NEON 1
#include <arm_neon.h>
#endif
#endif /* !KILN_PORTABLE_ONLY */

/* The portable path's vectors (vec.h) are GCC/Clang's 4-float vector
 * extension, which a target with a vector unit (SSE, NEON, ...) holds in its
 * registers. A target without one lowers every vector operation to four
 * scalar ones, and the kernels' unrolled register blocks, four times as wide
 * as its float registers, spill and grow: for a Cortex-M4, depthwise_nhwc.c
 * compiled to 455 KB of code in 94 s, and to 139 KB in 9 s with one float
 * per vector. KILN_KV_SCALAR makes the portable vector one float: set here
 * for Cortex-M without Helium (M-profile, no MVE); -DKILN_KV_SCALAR=1 sets it
 * for any other target without a vector unit. */
#if !defined(KILN_KV_SCALAR) && defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M' && \
    !defined(__ARM_FEATURE_MVE)
#define KILN_KV_SCALAR 1
#endif

/* The path's name, for messages and reports. */
#if defined(KILN_HAVE_AVX512)
#define KILN_SIMD_PATH_NAME "avx512"
#elif defined(KILN_HAVE_AVX2)
#define KILN_SIMD_PATH_NAME "avx2"
#elif defined(KILN_HAVE_NEON)
#define KILN_SIMD_PATH_NAME "neon"
#else
#define KILN_SIMD_PATH_NAME "portable"
#endif

#if defined(__GNUC__) || defined(__clang__)
#define KILN_ALWAYS_INLINE inline __attribute__((always_inline))
#define KILN_ALIGN64 __attribute__((aligned(64)))
/* Hints that the cache line at p will soon be written / read. For a write,
 * PREFETCHW asks for the line exclusive at once, so a line another core
 * holds is not read shared first and upgraded again for the store. GCC
 * emits it only under -mprfchw; every x86 CPU with AVX2 runs it (those
 * before Broadwell as a no-op). */
#if defined(__x86_64__) && defined(KILN_HAVE_AVX2)
#define KILN_PREFETCH_WRITE(p) __asm__ volatile("prefetchw %0" : : "m"(*(const char*)(p)))
#else
#define KILN_PREFETCH_WRITE(p) __builtin_prefetch((p), 1, 3)
#endif
#define KILN_PREFETCH_READ(p) __builtin_prefetch((p), 0, 3)
/* ... read soon, but not before what L1 holds now is done with. */
#define KILN_PREFETCH_READ_L2(p) __builtin_prefetch((p), 0, 2)
#else
#define KILN_ALWAYS_INLINE inline
#define KILN_ALIGN64
#define KILN_PREFETCH_WRITE(p) ((void)(p))
#define KILN_PREFETCH_READ(p) ((void)(p))
#define KILN_PREFETCH_READ_L2(p) ((void)(p))
#endif

/* The address of element idx of x, which may lie outside x's buffer: formed
 * in integers, for masked loads that read only the lanes inside. */
static KILN_ALWAYS_INLINE const float* kiln_simd_at(const float* x, int64_t idx) {
  return (const float*)((uintptr_t)x + (uintptr_t)idx * sizeof(float));
}

#endif /* KILN_KERNELS_SIMD_H_ */
