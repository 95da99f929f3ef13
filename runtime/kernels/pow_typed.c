/* pow_typed: Pow whose base and exponent may have different dtypes (ONNX
 * Pow-12+); the result has the base's dtype. Integer ** integer is exact
 * (square-and-multiply, wrapping like the other integer kernels); any float
 * operand makes it C's pow in double, converted back (truncation toward
 * zero for an integer base, as the ONNX reference's astype does). */
#include <math.h>
#include <stdint.h>

#include "check_util.h"
#include "kiln/kernel_params.h"
#include "kiln/kernels.h"
#include "typed_util.h"

enum {
  P_ADTYPE = KILN_IP_POW_TYPED_A_DTYPE,
  P_BDTYPE = KILN_IP_POW_TYPED_B_DTYPE,
  P_R = KILN_IP_POW_TYPED_R,
  P_HEAD = KILN_IP_POW_TYPED_OUT_DIMS
};

static uint64_t int_pow(uint64_t base, uint64_t exp_bits, int64_t bt) {
  const int negative = !kiln_dtype_is_unsigned(bt) && (int64_t)exp_bits < 0;
  if (negative) {
    /* Only 1 and -1 have integer reciprocals; the rest truncate to 0. */
    if (base == 1) return 1;
    if (base == (uint64_t)-1) return (exp_bits & 1) ? base : 1;
    return 0;
  }
  uint64_t r = 1, b = base, e = exp_bits;
  while (e != 0) {
    if (e & 1) r *= b;
    b *= b;
    e >>= 1;
  }
  return r;
}

/* double → integer pattern of dtype t, truncating; NaN and out-of-range give 0. */
static uint64_t to_int_bits(double v, int64_t t) {
  if (!(v > -9.2233720368547758e18 && v < 9.2233720368547758e18)) return 0;
  if (kiln_dtype_is_unsigned(t) && v >= 0) return (uint64_t)v;
  return (uint64_t)(int64_t)v;
}

int kiln_pow_typed(const int64_t* ip, const float* fp, void* const* bindings,
                   const kiln_host* host) {
  (void)fp;
  (void)host;
  const int64_t at = ip[P_ADTYPE], bt = ip[P_BDTYPE], R = ip[P_R];
  const int64_t* dims = ip + P_HEAD;
  kiln_bcast b;
  int64_t rows, inner, idx[KILN_MAX_RANK] = {0}, off[3];
  if (!kiln_bcast_init(&b, R, dims, 2, &rows, &inner)) return KILN_OK;
  const int64_t sa = R > 0 ? b.strides[0][R - 1] : 0, sb = R > 0 ? b.strides[1][R - 1] : 0;
  const void* A = bindings[0];
  const void* B = bindings[1];
  void* Y = bindings[2];
  const int a_float = kiln_dtype_is_float(at), b_float = kiln_dtype_is_float(bt);
  for (int64_t r = 0; r < rows; ++r) {
    kiln_bcast_offsets(&b, idx, off);
    const int64_t y0 = r * inner;
    for (int64_t i = 0; i < inner; ++i) {
      const int64_t ka = off[0] + i * sa, kb = off[1] + i * sb;
      if (!a_float && !b_float) {
        kiln_store_bits(Y, at, y0 + i,
                        int_pow(kiln_load_bits(A, at, ka), kiln_load_bits(B, bt, kb), bt));
        continue;
      }
      const double v = pow(kiln_load_f(A, at, ka), kiln_load_f(B, bt, kb));
      if (a_float) {
        kiln_store_f(Y, at, y0 + i, v);
      } else {
        kiln_store_bits(Y, at, y0 + i, to_int_bits(v, at));
      }
    }
    kiln_bcast_next(&b, idx);
  }
  return KILN_OK;
}

int kiln_pow_typed_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                         uint32_t fparam_count, const uint64_t* binding_bytes) {
  int64_t R;
  KILN_TRY(kiln_check_bcast_params(ip, iparam_count, P_HEAD, P_R, fp, fparam_count, &R));
  const int64_t at = ip[P_ADTYPE], bt = ip[P_BDTYPE];
  const int64_t ea = kiln_dtype_size(at), eb = kiln_dtype_size(bt);
  if (ea == 0 || eb == 0 || at == KILN_DTYPE_BOOL || bt == KILN_DTYPE_BOOL)
    return KILN_ERR_INVALID_ARGUMENT;
  /* Work is bounded by Y: one pass over its elements, none when it is empty. */
  const int64_t in_eb[2] = {ea, eb};
  return kiln_check_bcast(ip + P_HEAD, R, ip + KILN_IP_POW_TYPED_A_STRIDES(R), 2, in_eb, ea, binding_bytes);
}
