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

/* Output elements [from, to) of a row of Y whose outer coordinates map to
 * input row xrow: each from its source column, or the fill. */
static inline void kiln_pad_border(int64_t eb, int64_t mode, int64_t begin, int64_t in,
                                   int64_t from, int64_t to, const unsigned char* fill,
                                   const unsigned char* xrow, unsigned char* yrow) {
  for (int64_t o = from; o < to; ++o) {
    const int64_t c = kiln_pad_source(o, begin, in, mode);
    memcpy(yrow + o * eb, c < 0 ? fill : xrow + c * eb, (size_t)eb);
  }
}

/* Y [out] from X [in] with begin[d] elements added (or, negative, removed)
 * before each dim; `fill` holds the constant's eb bytes. R <= KILN_MAX_RANK;
 * non-constant modes need in[d] > 0 wherever Y is not empty. Row by row of
 * the last dim: the columns that read the input row in order are one
 * memcpy, only the border columns map one at a time (a CNN's one-pixel pad
 * of a 64 x 112 x 112 map took 4.4 ms element by element). */
static inline void kiln_pad_run(int64_t eb, int64_t mode, int64_t R, const int64_t* in,
                                const int64_t* begin, const int64_t* out,
                                const unsigned char* fill, const unsigned char* x,
                                unsigned char* y) {
  if (R == 0) {
    memcpy(y, x, (size_t)eb);
    return;
  }
  int64_t rows = 1, istr[KILN_MAX_RANK + 1], pos[KILN_MAX_RANK] = {0};
  for (int64_t d = 0; d + 1 < R; ++d) rows *= out[d];
  istr[R] = 1;
  for (int64_t d = R; d > 0; --d) istr[d - 1] = istr[d] * in[d - 1];
  const int64_t W = out[R - 1], win = in[R - 1], b = begin[R - 1];
  /* Output columns [lo, hi) read input columns lo - b .. hi - 1 - b. */
  const int64_t lo = b < 0 ? 0 : (b < W ? b : W);
  const int64_t end = b + win, hi = end < lo ? lo : (end < W ? end : W);
  for (int64_t r = 0; r < rows; ++r) {
    int64_t off = 0, is_fill = 0;
    for (int64_t d = 0; d + 1 < R; ++d) {
      const int64_t c = kiln_pad_source(pos[d], begin[d], in[d], mode);
      if (c < 0) {
        is_fill = 1;
        break;
      }
      off += c * istr[d + 1];
    }
    unsigned char* yrow = y + r * W * eb;
    if (is_fill) {
      for (int64_t o = 0; o < W; ++o) memcpy(yrow + o * eb, fill, (size_t)eb);
    } else {
      const unsigned char* xrow = x + off * eb;
      kiln_pad_border(eb, mode, b, win, 0, lo, fill, xrow, yrow);
      if (hi > lo) memcpy(yrow + lo * eb, xrow + (lo - b) * eb, (size_t)((hi - lo) * eb));
      kiln_pad_border(eb, mode, b, win, hi, W, fill, xrow, yrow);
    }
    for (int64_t d = R - 2; d >= 0; --d) {
      if (++pos[d] < out[d]) break;
      pos[d] = 0;
    }
  }
}

#endif /* KILN_KERNELS_PAD_CORE_H_ */
