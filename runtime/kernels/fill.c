/* fill, arange and int_values: tensors whose element count or values the
 * symbols set (ONNX ConstantOfShape of a shape computed from them, Range over
 * such bounds, a size read as tensor data).
 * The count, and arange's start, arrive as parameters patched at run time
 * (DISPATCH_DYN), so neither reads a run-time tensor for its shape.
 *   fill:   out[i] = value (one element of eb bytes, binding 0), i < n
 *   arange: out[i] = start + i * delta in dtype, i < n (integers wrap as
 *           two's complement, which the compiler's bounds never reach)
 *   int_values: out[i] = values[i] as int64, i < n */
#include <stdint.h>
#include <string.h>

#include "check_util.h"
#include "kiln/kernel_params.h"
#include "kiln/kernels.h"
#include "typed_util.h"

enum { FILL_EB = KILN_IP_FILL_EB, FILL_N = KILN_IP_FILL_N, FILL_COUNT = KILN_FILL_IPARAMS };

int kiln_fill(const int64_t* ip, const float* fp, void* const* bindings, const kiln_host* host) {
  (void)fp;
  (void)host;
  const size_t eb = (size_t)ip[FILL_EB];
  const unsigned char* value = (const unsigned char*)bindings[0];
  unsigned char* out = (unsigned char*)bindings[1];
  for (int64_t i = 0; i < ip[FILL_N]; ++i) memcpy(out + (size_t)i * eb, value, eb);
  return KILN_OK;
}

int kiln_fill_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                    uint32_t fparam_count, const uint64_t* binding_bytes) {
  KILN_TRY(kiln_check_counts(ip, iparam_count, FILL_COUNT, fp, fparam_count, 0));
  KILN_TRY(kiln_check_nonneg(ip, FILL_COUNT));
  const int64_t eb = ip[FILL_EB];
  if (eb != 1 && eb != 2 && eb != 4 && eb != 8) return KILN_ERR_INVALID_ARGUMENT;
  int64_t bytes;
  KILN_TRY(kiln_check_binding(binding_bytes[0], eb));
  /* Work is bounded by the output: n elements written once. */
  KILN_TRY(kiln_dense_bytes(ip[FILL_N], eb, &bytes));
  return kiln_check_binding(binding_bytes[1], bytes);
}

enum {
  AR_DTYPE = KILN_IP_ARANGE_DTYPE,
  AR_N = KILN_IP_ARANGE_N,
  AR_START = KILN_IP_ARANGE_START,
  AR_DELTA = KILN_IP_ARANGE_DELTA,
  AR_COUNT = KILN_ARANGE_IPARAMS
};

int kiln_arange(const int64_t* ip, const float* fp, void* const* bindings, const kiln_host* host) {
  (void)fp;
  (void)host;
  const int64_t t = ip[AR_DTYPE];
  if (kiln_dtype_is_float(t)) {
    for (int64_t i = 0; i < ip[AR_N]; ++i) {
      kiln_store_f(bindings[0], t, i, (double)ip[AR_START] + (double)i * (double)ip[AR_DELTA]);
    }
    return KILN_OK;
  }
  uint64_t v = (uint64_t)ip[AR_START];
  for (int64_t i = 0; i < ip[AR_N]; ++i, v += (uint64_t)ip[AR_DELTA]) kiln_store_bits(bindings[0], t, i, v);
  return KILN_OK;
}

int kiln_arange_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                      uint32_t fparam_count, const uint64_t* binding_bytes) {
  KILN_TRY(kiln_check_counts(ip, iparam_count, AR_COUNT, fp, fparam_count, 0));
  KILN_TRY(kiln_check_nonneg(ip, AR_START));  /* dtype and n; start and delta may be negative */
  const int64_t t = ip[AR_DTYPE];
  if (t != KILN_DTYPE_F32 && t != KILN_DTYPE_F64 && t != KILN_DTYPE_I32 && t != KILN_DTYPE_I64)
    return KILN_ERR_INVALID_ARGUMENT;
  int64_t bytes;
  KILN_TRY(kiln_dense_bytes(ip[AR_N], kiln_dtype_size(t), &bytes));
  return kiln_check_binding(binding_bytes[0], bytes);
}

int kiln_int_values(const int64_t* ip, const float* fp, void* const* bindings,
                    const kiln_host* host) {
  (void)fp;
  (void)host;
  memcpy(bindings[0], ip + KILN_IP_INT_VALUES_VALUES,
         (size_t)ip[KILN_IP_INT_VALUES_N] * sizeof(int64_t));
  return KILN_OK;
}

int kiln_int_values_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                          uint32_t fparam_count, const uint64_t* binding_bytes) {
  if (iparam_count < KILN_IP_INT_VALUES_VALUES || ip == NULL || ip[KILN_IP_INT_VALUES_N] < 0 ||
      (uint64_t)ip[KILN_IP_INT_VALUES_N] != iparam_count - (uint32_t)KILN_IP_INT_VALUES_VALUES)
    return KILN_ERR_INVALID_ARGUMENT;
  KILN_TRY(kiln_check_counts(ip, iparam_count, iparam_count, fp, fparam_count, 0));
  return kiln_check_binding(binding_bytes[0], ip[KILN_IP_INT_VALUES_N] * (int64_t)sizeof(int64_t));
}
