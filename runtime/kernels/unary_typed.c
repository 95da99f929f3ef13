/* unary_typed: Not (bool), IsNaN / IsInf (float -> bool), Neg / Abs for the
 * dtypes unary_f32 does not take, BitwiseNot (integers). Integer Neg/Abs wrap like two's
 * complement hardware instead of overflowing. */
#include <math.h>
#include <stdint.h>

#include "check_util.h"
#include "kiln/kernel_params.h"
#include "kiln/kernels.h"
#include "typed_util.h"

enum {
  U_OP = KILN_IP_UNARY_TYPED_OP,
  U_DTYPE = KILN_IP_UNARY_TYPED_DTYPE,
  U_COUNT = KILN_IP_UNARY_TYPED_COUNT,
  U_ARG0 = KILN_IP_UNARY_TYPED_ARG0,
  U_ARG1 = KILN_IP_UNARY_TYPED_ARG1,
  U_N = KILN_UNARY_TYPED_IPARAMS
};

int kiln_unary_typed(const int64_t* ip, const float* fp, void* const* bindings,
                     const kiln_host* host) {
  (void)fp;
  (void)host;
  const int64_t op = ip[U_OP], t = ip[U_DTYPE], n = ip[U_COUNT];
  const void* x = bindings[0];
  void* y = bindings[1];
  unsigned char* yb = (unsigned char*)y;
  for (int64_t k = 0; k < n; ++k) {
    switch (op) {
      case KILN_TUNARY_NOT: yb[k] = ((const unsigned char*)x)[k] == 0; break;
      case KILN_TUNARY_ISNAN: yb[k] = (unsigned char)(isnan(kiln_load_f(x, t, k)) != 0); break;
      case KILN_TUNARY_ISINF: {
        const double v = kiln_load_f(x, t, k);
        yb[k] = (unsigned char)((ip[U_ARG0] && v == INFINITY) || (ip[U_ARG1] && v == -INFINITY));
        break;
      }
      case KILN_TUNARY_BITNOT: kiln_store_bits(y, t, k, ~kiln_load_bits(x, t, k)); break;
      default: {
        if (kiln_dtype_is_float(t)) {
          const double v = kiln_load_f(x, t, k);
          kiln_store_f(y, t, k, op == KILN_TUNARY_NEG ? -v : fabs(v));
        } else {
          const uint64_t v = kiln_load_bits(x, t, k);
          const int neg = !kiln_dtype_is_unsigned(t) && (int64_t)v < 0;
          kiln_store_bits(y, t, k, op == KILN_TUNARY_NEG || neg ? 0 - v : v);
        }
        break;
      }
    }
  }
  return KILN_OK;
}

int kiln_unary_typed_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                           uint32_t fparam_count, const uint64_t* binding_bytes) {
  KILN_TRY(kiln_check_counts(ip, iparam_count, U_N, fp, fparam_count, 0));
  KILN_TRY(kiln_check_nonneg(ip, U_N));
  KILN_TRY(kiln_check_enum(ip[U_OP], KILN_TUNARY_NOT, KILN_TUNARY_BITNOT));
  const int64_t op = ip[U_OP], t = ip[U_DTYPE], eb = kiln_dtype_size(t);
  if (eb == 0) return KILN_ERR_INVALID_ARGUMENT;
  if (op == KILN_TUNARY_NOT && t != KILN_DTYPE_BOOL) return KILN_ERR_INVALID_ARGUMENT;
  if ((op == KILN_TUNARY_ISNAN || op == KILN_TUNARY_ISINF) && !kiln_dtype_is_float(t))
    return KILN_ERR_INVALID_ARGUMENT;
  if ((op == KILN_TUNARY_NEG || op == KILN_TUNARY_ABS) && t == KILN_DTYPE_BOOL)
    return KILN_ERR_INVALID_ARGUMENT;
  if (op == KILN_TUNARY_BITNOT && (kiln_dtype_is_float(t) || t == KILN_DTYPE_BOOL))
    return KILN_ERR_INVALID_ARGUMENT;
  /* Work is bounded by the bindings: one flat loop over ip[U_COUNT] elements. */
  const int64_t out_eb = op <= KILN_TUNARY_ISINF ? 1 : eb;
  int64_t bytes;
  KILN_TRY(kiln_dense_bytes(ip[U_COUNT], eb, &bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[0], bytes));
  KILN_TRY(kiln_dense_bytes(ip[U_COUNT], out_eb, &bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[1], bytes));
  return KILN_OK;
}
