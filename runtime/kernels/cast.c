/* cast: element type conversion between any two kiln_dtypes. Integers move
 * as 64-bit patterns, floats as double, so every conversion is exact where
 * the target can hold the value; float to integer saturates (C leaves
 * out-of-range conversion undefined). */
#include <math.h>
#include <stdint.h>

#include "check_util.h"
#include "kiln/kernel_params.h"
#include "kiln/kernels.h"
#include "typed_util.h"

/* Float to the integer type `t`: truncate, saturate, NaN -> 0. */
static uint64_t float_to_bits(double v, int64_t t) {
  if (isnan(v)) return 0;
  v = trunc(v);
  if (t == KILN_DTYPE_U64) {
    if (v <= 0) return 0;
    if (v >= 18446744073709551616.0) return UINT64_MAX;
    return (uint64_t)v;
  }
  double lo, hi;
  switch (t) {
    case KILN_DTYPE_I8: lo = INT8_MIN; hi = INT8_MAX; break;
    case KILN_DTYPE_U8: lo = 0; hi = UINT8_MAX; break;
    case KILN_DTYPE_I16: lo = INT16_MIN; hi = INT16_MAX; break;
    case KILN_DTYPE_U16: lo = 0; hi = UINT16_MAX; break;
    case KILN_DTYPE_I32: lo = INT32_MIN; hi = INT32_MAX; break;
    case KILN_DTYPE_U32: lo = 0; hi = UINT32_MAX; break;
    default: lo = -9223372036854775808.0; hi = 9223372036854775807.0; break;
  }
  if (v <= lo) v = lo;
  if (t == KILN_DTYPE_I64 && v >= hi) return (uint64_t)INT64_MAX; /* hi rounds to 2^63 */
  if (v >= hi) v = hi;
  return (uint64_t)(int64_t)v;
}

int kiln_cast(const int64_t* ip, const float* fp, void* const* bindings,
              const kiln_host* host) {
  (void)fp;
  (void)host;
  const int64_t src = ip[KILN_IP_CAST_SRC_DTYPE], dst = ip[KILN_IP_CAST_DST_DTYPE],
                n = ip[KILN_IP_CAST_COUNT];
  const void* x = bindings[0];
  void* y = bindings[1];
  const int sf = kiln_dtype_is_float(src), df = kiln_dtype_is_float(dst);
  if (src == KILN_DTYPE_F32 && dst == KILN_DTYPE_F32) {
    memcpy(y, x, (size_t)(n * 4));
    return KILN_OK;
  }
  for (int64_t k = 0; k < n; ++k) {
    if (dst == KILN_DTYPE_BOOL) {
      kiln_store_bits(y, dst, k, sf ? kiln_load_f(x, src, k) != 0 : kiln_load_bits(x, src, k) != 0);
    } else if (sf && df) {
      kiln_store_f(y, dst, k, kiln_load_f(x, src, k));
    } else if (sf) {
      kiln_store_bits(y, dst, k, float_to_bits(kiln_load_f(x, src, k), dst));
    } else if (df) {
      const uint64_t b = kiln_load_bits(x, src, k);
      /* int64 -> float32 rounds once, directly (not through double). */
      if (dst == KILN_DTYPE_F32) {
        const float v = src == KILN_DTYPE_U64 ? (float)b : (float)(int64_t)b;
        memcpy((unsigned char*)y + k * 4, &v, 4);
      } else {
        kiln_store_f(y, dst, k, src == KILN_DTYPE_U64 ? (double)b : (double)(int64_t)b);
      }
    } else {
      kiln_store_bits(y, dst, k, kiln_load_bits(x, src, k));
    }
  }
  return KILN_OK;
}

int kiln_cast_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                    uint32_t fparam_count, const uint64_t* binding_bytes) {
  KILN_TRY(kiln_check_counts(ip, iparam_count, KILN_CAST_IPARAMS, fp, fparam_count, 0));
  KILN_TRY(kiln_check_nonneg(ip, KILN_CAST_IPARAMS));
  const int64_t se = kiln_dtype_size(ip[KILN_IP_CAST_SRC_DTYPE]),
                de = kiln_dtype_size(ip[KILN_IP_CAST_DST_DTYPE]);
  if (se == 0 || de == 0) return KILN_ERR_INVALID_ARGUMENT;
  /* Work is bounded by the bindings: one flat loop over ip[KILN_IP_CAST_COUNT] elements. */
  int64_t bytes;
  KILN_TRY(kiln_dense_bytes(ip[KILN_IP_CAST_COUNT], se, &bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[0], bytes));
  KILN_TRY(kiln_dense_bytes(ip[KILN_IP_CAST_COUNT], de, &bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[1], bytes));
  return KILN_OK;
}
