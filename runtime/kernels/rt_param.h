/* Reading the operator parameters that arrive as run-time tensors (Slice's
 * starts/ends/axes/steps, Pad's pads/axes, Reduce*'s axes) for the *_rt
 * kernels, which check them against the shapes the compiler fixed from the
 * model's declared output shape. Internal to runtime/kernels: an AOT bundle
 * copies it beside the kernels. */
#ifndef KILN_KERNELS_RT_PARAM_H_
#define KILN_KERNELS_RT_PARAM_H_

#include <stdint.h>

#include "check_util.h"
#include "kiln/kernels.h"
#include "typed_util.h"

/* Element k of an int32 or int64 parameter tensor. */
static inline int64_t kiln_rt_int(const void* p, int64_t t, int64_t k) {
  return (int64_t)kiln_load_bits(p, t, k);
}

/* Checker: t is int32 or int64 and the binding holds `count` of them. */
static inline int kiln_rt_check_ints(int64_t t, int64_t count, uint64_t have) {
  int64_t bytes;
  if (t != KILN_DTYPE_I32 && t != KILN_DTYPE_I64) return KILN_ERR_INVALID_ARGUMENT;
  KILN_TRY(kiln_dense_bytes(count, kiln_dtype_size(t), &bytes));
  return kiln_check_binding(have, bytes);
}

/* Axis k of the tensor at p, normalised into [0, rank) (negative counts from
 * the back) and marked in *seen (bit a); -1 when out of range or repeated.
 * rank <= KILN_MAX_RANK. */
static inline int64_t kiln_rt_axis(const void* p, int64_t t, int64_t k, int64_t rank,
                                   uint32_t* seen) {
  int64_t a = kiln_rt_int(p, t, k);
  if (a < -rank || a >= rank) return -1;
  if (a < 0) a += rank;
  if (*seen & (1u << a)) return -1;
  *seen |= 1u << a;
  return a;
}

/* Row-major element strides of dims[R]. */
static inline void kiln_rt_strides(int64_t R, const int64_t* dims, int64_t* strides) {
  int64_t s = 1;
  for (int64_t d = R - 1; d >= 0; --d) {
    strides[d] = s;
    s *= dims[d];
  }
}

#endif /* KILN_KERNELS_RT_PARAM_H_ */
