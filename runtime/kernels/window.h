/* Sliding-window index arithmetic shared by conv2d and pool2d.
 * Internal to runtime/kernels: an AOT bundle copies it beside the kernels. */
#ifndef KILN_KERNELS_WINDOW_H_
#define KILN_KERNELS_WINDOW_H_

#include <stdint.h>

/* The k in [0, n) with lo <= start + k*step < hi form [*k0, *k1) (step > 0).
 * Used to clip a row of outputs (or of window taps) to the valid input, so
 * the loop over it needs no bounds test. */
static inline void kiln_window_range(int64_t start, int64_t step, int64_t n,
                                     int64_t lo, int64_t hi, int64_t* k0,
                                     int64_t* k1) {
  int64_t a = 0, b = 0;
  if (step == 1) { /* the common case, without two divisions: pooling calls this per row */
    if (lo > start) a = lo - start;
    if (hi > start) b = hi - start;
  } else {
    if (lo > start) a = (lo - start + step - 1) / step;
    if (hi > start) b = (hi - start + step - 1) / step;
  }
  if (b > n) b = n;
  if (a > b) a = b;
  *k0 = a;
  *k1 = b;
}

static inline int64_t kiln_window_count(int64_t start, int64_t step, int64_t n,
                                        int64_t lo, int64_t hi) {
  int64_t a, b;
  kiln_window_range(start, step, n, lo, hi, &a, &b);
  return b - a;
}

#endif /* KILN_KERNELS_WINDOW_H_ */
