/* compare: Equal/Less/LessOrEqual/Greater/GreaterOrEqual for any dtype,
 * writing bool, broadcasting through strides. Floats compare as double (NaN
 * compares false), signed integers as int64, unsigned as uint64. */
#include <stdint.h>

#include "check_util.h"
#include "kiln/kernel_params.h"
#include "kiln/kernels.h"
#include "typed_util.h"

enum {
  C_OP = KILN_IP_COMPARE_OP,
  C_DTYPE = KILN_IP_COMPARE_DTYPE,
  C_R = KILN_IP_COMPARE_R,
  C_HEAD = KILN_IP_COMPARE_OUT_DIMS
};

#define CMP(op, a, b)                                                          \
  ((op) == KILN_CMP_EQ ? (a) == (b)                                            \
   : (op) == KILN_CMP_LT ? (a) < (b)                                           \
   : (op) == KILN_CMP_LE ? (a) <= (b)                                          \
   : (op) == KILN_CMP_GT ? (a) > (b) : (a) >= (b))

int kiln_compare(const int64_t* ip, const float* fp, void* const* bindings,
                 const kiln_host* host) {
  (void)fp;
  (void)host;
  const int64_t op = ip[C_OP], t = ip[C_DTYPE], R = ip[C_R];
  const int64_t* dims = ip + C_HEAD;
  kiln_bcast b;
  int64_t rows, inner, idx[KILN_MAX_RANK] = {0}, off[3];
  if (!kiln_bcast_init(&b, R, dims, 2, &rows, &inner)) return KILN_OK;
  const int64_t sa = R > 0 ? b.strides[0][R - 1] : 0, sb = R > 0 ? b.strides[1][R - 1] : 0;
  const void* A = bindings[0];
  const void* B = bindings[1];
  unsigned char* Y = (unsigned char*)bindings[2];
  const int is_f = kiln_dtype_is_float(t), is_u = t == KILN_DTYPE_U64;
  for (int64_t r = 0; r < rows; ++r) {
    kiln_bcast_offsets(&b, idx, off);
    unsigned char* y = Y + r * inner;
    for (int64_t i = 0; i < inner; ++i) {
      if (is_f) {
        const double x = kiln_load_f(A, t, off[0] + i * sa), z = kiln_load_f(B, t, off[1] + i * sb);
        y[i] = (unsigned char)CMP(op, x, z);
      } else if (is_u) {
        const uint64_t x = kiln_load_bits(A, t, off[0] + i * sa);
        const uint64_t z = kiln_load_bits(B, t, off[1] + i * sb);
        y[i] = (unsigned char)CMP(op, x, z);
      } else {
        /* Smaller unsigned types and bool zero-extend, so int64 order is right. */
        const int64_t x = (int64_t)kiln_load_bits(A, t, off[0] + i * sa);
        const int64_t z = (int64_t)kiln_load_bits(B, t, off[1] + i * sb);
        y[i] = (unsigned char)CMP(op, x, z);
      }
    }
    kiln_bcast_next(&b, idx);
  }
  return KILN_OK;
}

int kiln_compare_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                       uint32_t fparam_count, const uint64_t* binding_bytes) {
  int64_t R;
  KILN_TRY(kiln_check_bcast_params(ip, iparam_count, C_HEAD, C_R, fp, fparam_count, &R));
  KILN_TRY(kiln_check_enum(ip[C_OP], KILN_CMP_EQ, KILN_CMP_GE));
  const int64_t eb = kiln_dtype_size(ip[C_DTYPE]);
  if (eb == 0) return KILN_ERR_INVALID_ARGUMENT;
  /* Work is bounded by Y: one pass over its elements, none when it is empty. */
  const int64_t in_eb[2] = {eb, eb};
  return kiln_check_bcast(ip + C_HEAD, R, ip + KILN_IP_COMPARE_A_STRIDES(R), 2, in_eb, 1, binding_bytes);
}
