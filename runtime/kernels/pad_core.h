/* The padding loop shared by pad (pad.c, pads fixed by the compiler) and
 * pad_rt (pad_rt.c, pads read at run time): constant, edge, reflect and wrap
 * padding (and cropping, with negative begins) of any element type. Every
 * output coordinate maps to an input coordinate that is either
 * clamped/reflected/wrapped into [0, in) or, in constant mode, marks the
 * element as fill. Internal to runtime/kernels: an AOT bundle copies it
 * beside the kernels. Callers bound every shape first. */
#ifndef KILN_KERNELS_PAD_CORE_H_
#define KILN_KERNELS_PAD_CORE_H_

#include <stdint.h>
#include <string.h>

#include "kiln/kernel_abi.h"

enum { KILN_PAD_CONSTANT = 0, KILN_PAD_EDGE = 1, KILN_PAD_REFLECT = 2, KILN_PAD_WRAP = 3 };

/* Source coordinate for output coordinate o, or -1 for fill. */
static inline int64_t kiln_pad_source(int64_t o, int64_t begin, int64_t in, int64_t mode) {
  int64_t c = o - begin;
  if (c >= 0 && c < in) return c;
  if (mode == KILN_PAD_CONSTANT) return -1;
  if (mode == KILN_PAD_EDGE || in == 1) return c < 0 ? 0 : in - 1;
  if (mode == KILN_PAD_WRAP) {
    c %= in;
    return c < 0 ? c + in : c;
  }
  const int64_t period = 2 * (in - 1); /* reflect, edge not repeated */
  c %= period;
  if (c < 0) c += period;
  return c < in ? c : period - c;
}

/* Y [out] from X [in] with begin[d] elements added (or, negative, removed)
 * before each dim; `fill` holds the constant's eb bytes. R <= KILN_MAX_RANK;
 * non-constant modes need in[d] > 0 wherever Y is not empty. */
static inline void kiln_pad_run(int64_t eb, int64_t mode, int64_t R, const int64_t* in,
                                const int64_t* begin, const int64_t* out,
                                const unsigned char* fill, const unsigned char* x,
                                unsigned char* y) {
  int64_t n = 1, istr[KILN_MAX_RANK + 1], pos[KILN_MAX_RANK] = {0};
  for (int64_t d = 0; d < R; ++d) n *= out[d];
  istr[R] = 1;
  for (int64_t d = R; d > 0; --d) istr[d - 1] = istr[d] * in[d - 1];
  for (int64_t k = 0; k < n; ++k) {
    int64_t off = 0, is_fill = 0;
    for (int64_t d = 0; d < R; ++d) {
      const int64_t c = kiln_pad_source(pos[d], begin[d], in[d], mode);
      if (c < 0) {
        is_fill = 1;
        break;
      }
      off += c * istr[d + 1];
    }
    memcpy(y + k * eb, is_fill ? fill : x + off * eb, (size_t)eb);
    for (int64_t d = R - 1; d >= 0; --d) {
      if (++pos[d] < out[d]) break;
      pos[d] = 0;
    }
  }
}

#endif /* KILN_KERNELS_PAD_CORE_H_ */
