/* The strided copy loop shared by strided_copy (data_movement.c, views fixed
 * by the compiler) and slice_rt (slice_rt.c, views resolved from run-time
 * starts/ends/axes/steps). It moves one innermost row at a time: a single
 * memcpy when both sides are contiguous, otherwise a typed loop per common
 * element size. memcpy with a constant size compiles to a plain load/store
 * and is safe for any alignment. Internal to runtime/kernels: an AOT bundle
 * copies it beside the kernels. Callers bound every view first. */
#ifndef KILN_KERNELS_STRIDED_COPY_CORE_H_
#define KILN_KERNELS_STRIDED_COPY_CORE_H_

#include <stdint.h>
#include <string.h>

#include "kiln/kernel_abi.h"

#define KILN_DEFINE_COPY_ROW(name, SIZE)                                     \
  static inline void name(const unsigned char* src, int64_t ss,              \
                          unsigned char* dst, int64_t ds, int64_t n) {       \
    for (int64_t i = 0; i < n; ++i)                                          \
      memcpy(dst + i * ds * (SIZE), src + i * ss * (SIZE), (SIZE));          \
  }

KILN_DEFINE_COPY_ROW(kiln_copy_row_1, 1)
KILN_DEFINE_COPY_ROW(kiln_copy_row_2, 2)
KILN_DEFINE_COPY_ROW(kiln_copy_row_4, 4)
KILN_DEFINE_COPY_ROW(kiln_copy_row_8, 8)

static inline void kiln_copy_row(const unsigned char* src, int64_t ss, unsigned char* dst,
                                 int64_t ds, int64_t n, int64_t eb) {
  if (ss == 1 && ds == 1) {
    memcpy(dst, src, (size_t)(n * eb));
    return;
  }
  switch (eb) {
    case 1: kiln_copy_row_1(src, ss, dst, ds, n); break;
    case 2: kiln_copy_row_2(src, ss, dst, ds, n); break;
    case 4: kiln_copy_row_4(src, ss, dst, ds, n); break;
    case 8: kiln_copy_row_8(src, ss, dst, ds, n); break;
    default:
      for (int64_t i = 0; i < n; ++i)
        memcpy(dst + i * ds * eb, src + i * ss * eb, (size_t)eb);
      break;
  }
}

/* Copies the view dims[R] (element strides ss on the source, ds on the
 * destination) of eb-byte elements; src and dst point at the first element.
 * R <= KILN_MAX_RANK and no dim is 0 (callers return before forming
 * pointers into an empty view, which may lie outside its buffers). */
static inline void kiln_strided_copy_run(int64_t eb, int64_t R, const int64_t* dims,
                                         const int64_t* ss, const int64_t* ds,
                                         const unsigned char* src, unsigned char* dst) {
  if (R == 0) {
    memcpy(dst, src, (size_t)eb);
    return;
  }
  const int64_t inner = dims[R - 1];
  int64_t outer = 1;
  for (int64_t d = 0; d + 1 < R; ++d) outer *= dims[d];
  int64_t idx[KILN_MAX_RANK] = {0};
  for (int64_t o = 0; o < outer; ++o) {
    int64_t s_off = 0, d_off = 0;
    for (int64_t d = 0; d + 1 < R; ++d) {
      s_off += idx[d] * ss[d];
      d_off += idx[d] * ds[d];
    }
    kiln_copy_row(src + s_off * eb, ss[R - 1], dst + d_off * eb, ds[R - 1], inner, eb);
    for (int64_t d = R - 2; d >= 0; --d) {
      if (++idx[d] < dims[d]) break;
      idx[d] = 0;
    }
  }
}

#endif /* KILN_KERNELS_STRIDED_COPY_CORE_H_ */
