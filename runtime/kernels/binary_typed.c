/* binary_typed: Add/Sub/Mul/Div/Max/Min/Mod for every non-float32 dtype,
 * And/Or/Xor on bool, BitShift on unsigned integers and BitwiseAnd/Or/Xor on
 * integers, broadcasting through
 * strides. Integer arithmetic runs on uint64
 * patterns so overflow wraps instead of being undefined; division follows
 * C (truncation toward zero), which is what ONNX Div means for integers. */
#include <math.h>
#include <stdint.h>

#include "check_util.h"
#include "kiln/kernel_params.h"
#include "kiln/kernels.h"
#include "typed_util.h"

enum {
  T_OP = KILN_IP_BINARY_TYPED_OP,
  T_DTYPE = KILN_IP_BINARY_TYPED_DTYPE,
  T_R = KILN_IP_BINARY_TYPED_R,
  T_HEAD = KILN_IP_BINARY_TYPED_OUT_DIMS
};

/* Signed or unsigned integer division of two patterns of type t. */
static uint64_t int_div(uint64_t a, uint64_t b, int64_t t) {
  if (b == 0) return 0; /* undefined in ONNX; defined here */
  if (kiln_dtype_is_unsigned(t)) return a / b;
  const int64_t sa = (int64_t)a, sb = (int64_t)b;
  if (sb == -1) return 0 - a; /* INT_MIN / -1 wraps */
  return (uint64_t)(sa / sb);
}

/* Integer remainder; floor_mod gives the sign of b (Python), else of a (C). */
static uint64_t int_mod(uint64_t a, uint64_t b, int64_t t, int floor_mod) {
  if (b == 0) return 0; /* undefined in ONNX; defined here */
  if (kiln_dtype_is_unsigned(t)) return a % b;
  const int64_t sa = (int64_t)a, sb = (int64_t)b;
  if (sb == -1) return 0; /* also avoids INT_MIN % -1 */
  int64_t r = sa % sb;
  if (floor_mod && r != 0 && ((r < 0) != (sb < 0))) r += sb;
  return (uint64_t)r;
}

static int int_less(uint64_t a, uint64_t b, int64_t t) {
  return kiln_dtype_is_unsigned(t) ? a < b : (int64_t)a < (int64_t)b;
}

/* Shifts of an unsigned value of `bits` width; wide shifts give 0. */
static uint64_t int_shift(uint64_t a, uint64_t n, int64_t t, int left) {
  const uint64_t bits = (uint64_t)kiln_dtype_size(t) * 8;
  if (n >= bits) return 0;
  return left ? a << n : a >> n;
}

static uint64_t int_op(int64_t op, uint64_t a, uint64_t b, int64_t t) {
  switch (op) {
    case KILN_TBINARY_MAX: return int_less(a, b, t) ? b : a;
    case KILN_TBINARY_MIN: return int_less(b, a, t) ? b : a;
    case KILN_TBINARY_MOD: return int_mod(a, b, t, 1);
    case KILN_TBINARY_FMOD: return int_mod(a, b, t, 0);
    case KILN_TBINARY_SHL: return int_shift(a, b, t, 1);
    case KILN_TBINARY_SHR: return int_shift(a, b, t, 0);
    case KILN_TBINARY_ADD: return a + b;
    case KILN_TBINARY_SUB: return a - b;
    case KILN_TBINARY_MUL: return a * b;
    case KILN_TBINARY_DIV: return int_div(a, b, t);
    case KILN_TBINARY_BITAND: return a & b; /* kiln_store_bits keeps the dtype's width */
    case KILN_TBINARY_BITOR: return a | b;
    case KILN_TBINARY_BITXOR: return a ^ b;
    case KILN_TBINARY_AND: return (a != 0) & (b != 0);
    case KILN_TBINARY_OR: return (a != 0) | (b != 0);
    default: return (a != 0) ^ (b != 0);
  }
}

static double float_op(int64_t op, double a, double b) {
  switch (op) {
    case KILN_TBINARY_MAX: return (isnan(a) || isnan(b)) ? a + b : (a < b ? b : a);
    case KILN_TBINARY_MIN: return (isnan(a) || isnan(b)) ? a + b : (b < a ? b : a);
    case KILN_TBINARY_FMOD: return fmod(a, b);
    case KILN_TBINARY_MOD: {
      const double r = fmod(a, b);
      return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
    }
    case KILN_TBINARY_ADD: return a + b;
    case KILN_TBINARY_SUB: return a - b;
    case KILN_TBINARY_MUL: return a * b;
    default: return a / b;
  }
}

int kiln_binary_typed(const int64_t* ip, const float* fp, void* const* bindings,
                      const kiln_host* host) {
  (void)fp;
  (void)host;
  const int64_t op = ip[T_OP], t = ip[T_DTYPE], R = ip[T_R];
  const int64_t* dims = ip + T_HEAD;
  kiln_bcast b;
  int64_t rows, inner, idx[KILN_MAX_RANK] = {0}, off[3];
  if (!kiln_bcast_init(&b, R, dims, 2, &rows, &inner)) return KILN_OK;
  const int64_t sa = R > 0 ? b.strides[0][R - 1] : 0, sb = R > 0 ? b.strides[1][R - 1] : 0;
  const void* A = bindings[0];
  const void* B = bindings[1];
  void* Y = bindings[2];
  const int is_f = kiln_dtype_is_float(t);
  for (int64_t r = 0; r < rows; ++r) {
    kiln_bcast_offsets(&b, idx, off);
    const int64_t y0 = r * inner;
    if (t == KILN_DTYPE_F64) {
      /* float64 rounds like C's double ops (no float16 narrowing). */
      for (int64_t i = 0; i < inner; ++i) {
        const double x = kiln_load_f(A, t, off[0] + i * sa), z = kiln_load_f(B, t, off[1] + i * sb);
        kiln_store_f(Y, t, y0 + i, float_op(op, x, z));
      }
    } else if (is_f) {
      /* float16: compute in float, as the hardware-less reference does. */
      for (int64_t i = 0; i < inner; ++i) {
        const float x = (float)kiln_load_f(A, t, off[0] + i * sa);
        const float z = (float)kiln_load_f(B, t, off[1] + i * sb);
        kiln_store_f(Y, t, y0 + i, (float)float_op(op, x, z));
      }
    } else {
      for (int64_t i = 0; i < inner; ++i) {
        const uint64_t x = kiln_load_bits(A, t, off[0] + i * sa);
        const uint64_t z = kiln_load_bits(B, t, off[1] + i * sb);
        kiln_store_bits(Y, t, y0 + i, int_op(op, x, z, t));
      }
    }
    kiln_bcast_next(&b, idx);
  }
  return KILN_OK;
}

int kiln_binary_typed_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                            uint32_t fparam_count, const uint64_t* binding_bytes) {
  int64_t R;
  KILN_TRY(kiln_check_bcast_params(ip, iparam_count, T_HEAD, T_R, fp, fparam_count, &R));
  KILN_TRY(kiln_check_enum(ip[T_OP], KILN_TBINARY_ADD, KILN_TBINARY_BITXOR));
  const int64_t op = ip[T_OP], t = ip[T_DTYPE], eb = kiln_dtype_size(t);
  if (eb == 0) return KILN_ERR_INVALID_ARGUMENT;
  const int logic = op >= KILN_TBINARY_AND && op <= KILN_TBINARY_XOR;
  if (logic != (t == KILN_DTYPE_BOOL)) return KILN_ERR_INVALID_ARGUMENT;
  const int shift = op == KILN_TBINARY_SHL || op == KILN_TBINARY_SHR;
  if (shift && (kiln_dtype_is_float(t) || !kiln_dtype_is_unsigned(t)))
    return KILN_ERR_INVALID_ARGUMENT;
  const int bitwise = op >= KILN_TBINARY_BITAND && op <= KILN_TBINARY_BITXOR;
  if (bitwise && (kiln_dtype_is_float(t) || t == KILN_DTYPE_BOOL)) return KILN_ERR_INVALID_ARGUMENT;
  /* Work is bounded by Y: one pass over its elements, none when it is empty. */
  const int64_t in_eb[2] = {eb, eb};
  return kiln_check_bcast(ip + T_HEAD, R, ip + KILN_IP_BINARY_TYPED_A_STRIDES(R), 2, in_eb, eb, binding_bytes);
}
