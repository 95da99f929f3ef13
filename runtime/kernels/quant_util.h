/* Helpers for the integer (quantized) kernels: zero points and scales read
 * per tensor or per row/column, and requantization with round half to even
 * and saturation, as ONNX QLinearMatMul / QLinearConv specify.
 * Internal to runtime/kernels: an AOT bundle copies it beside the kernels. */
#ifndef KILN_KERNELS_QUANT_UTIL_H_
#define KILN_KERNELS_QUANT_UTIL_H_

#include <math.h>
#include <stdint.h>

#include "check_util.h"
#include "typed_util.h"

/* How a zero-point or scale binding is read: absent (0 / 1.0), one value
 * for the tensor, or one per row (A, X) / column or output channel (B, W). */
enum { KILN_QMODE_NONE = 0, KILN_QMODE_SCALAR = 1, KILN_QMODE_VECTOR = 2 };

/* Integer element k of a uint8/int8/int32 buffer. */
static inline int64_t kiln_q_load(const void* p, int64_t t, int64_t k) {
  return (int64_t)kiln_load_bits(p, t, k);
}

static inline int64_t kiln_q_zero(const void* p, int64_t t, int64_t mode, int64_t k) {
  return mode == KILN_QMODE_NONE ? 0 : kiln_q_load(p, t, mode == KILN_QMODE_VECTOR ? k : 0);
}

static inline double kiln_q_scale(const void* p, int64_t mode, int64_t k) {
  if (mode == KILN_QMODE_NONE) return 1.0;
  float s;
  memcpy(&s, (const unsigned char*)p + 4 * (mode == KILN_QMODE_VECTOR ? k : 0), 4);
  return s;
}

/* round(v) half to even, independent of the floating-point environment. */
static inline double kiln_round_half_even(double v) {
  const double f = floor(v), d = v - f;
  if (d > 0.5 || (d == 0.5 && fmod(f, 2.0) != 0.0)) return f + 1.0;
  return f;
}

/* Saturating store of an integer value into a uint8/int8/int32 buffer. */
static inline void kiln_q_store(void* p, int64_t t, int64_t k, double v) {
  double lo = -2147483648.0, hi = 2147483647.0;
  if (t == KILN_DTYPE_U8) lo = 0.0, hi = 255.0;
  else if (t == KILN_DTYPE_I8) lo = -128.0, hi = 127.0;
  if (!(v >= lo)) v = lo; /* NaN saturates low */
  if (v > hi) v = hi;
  kiln_store_bits(p, t, k, (uint64_t)(int64_t)v);
}

/* The dtypes the integer kernels take for their 8-bit operands. */
static inline int kiln_q_check_dtype8(int64_t t) {
  return (t == KILN_DTYPE_U8 || t == KILN_DTYPE_I8) ? KILN_OK : KILN_ERR_INVALID_ARGUMENT;
}

/* A zero-point (elem bytes 1, or 4 for int32) or float32 scale binding read
 * in `mode` over `len` entries fits `have` bytes. */
static inline int kiln_q_check_param(uint64_t have, int64_t mode, int64_t len, int64_t eb) {
  KILN_TRY(kiln_check_enum(mode, KILN_QMODE_NONE, KILN_QMODE_VECTOR));
  if (mode == KILN_QMODE_NONE) return KILN_OK;
  int64_t bytes;
  KILN_TRY(kiln_dense_bytes(mode == KILN_QMODE_VECTOR ? len : 1, eb, &bytes));
  /* A per-vector parameter over an empty extent is never read. */
  if (mode == KILN_QMODE_VECTOR && len == 0) return KILN_OK;
  return kiln_check_binding(have, bytes);
}

#endif /* KILN_KERNELS_QUANT_UTIL_H_ */
