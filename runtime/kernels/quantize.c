/* Linear (de)quantization: QuantizeLinear, DequantizeLinear (per tensor or
 * per axis) and DynamicQuantizeLinear (uint8, scale from the data's range).
 * Rounding is half to even (rint in the default rounding mode), as ONNX
 * specifies; results saturate to the target type. */
#include <math.h>
#include <stdint.h>

#include "check_util.h"
#include "kiln/kernel_params.h"
#include "kiln/kernels.h"
#include "typed_util.h"

/* iparams of quantize_linear and dequantize_linear. */
enum {
  Q_OUTER = KILN_IP_QUANTIZE_LINEAR_OUTER,
  Q_AXIS = KILN_IP_QUANTIZE_LINEAR_AXIS,
  Q_INNER = KILN_IP_QUANTIZE_LINEAR_INNER,
  Q_QDTYPE = KILN_IP_QUANTIZE_LINEAR_Q_DTYPE,
  Q_HAS_ZP = KILN_IP_QUANTIZE_LINEAR_HAS_ZP,
  Q_PER_AXIS = KILN_IP_QUANTIZE_LINEAR_PER_AXIS,
  Q_COUNT = KILN_QUANTIZE_LINEAR_IPARAMS
};
_Static_assert(KILN_IP_DEQUANTIZE_LINEAR_OUTER == (int)Q_OUTER &&
                   KILN_IP_DEQUANTIZE_LINEAR_AXIS == (int)Q_AXIS &&
                   KILN_IP_DEQUANTIZE_LINEAR_INNER == (int)Q_INNER &&
                   KILN_IP_DEQUANTIZE_LINEAR_Q_DTYPE == (int)Q_QDTYPE &&
                   KILN_IP_DEQUANTIZE_LINEAR_HAS_ZP == (int)Q_HAS_ZP &&
                   KILN_IP_DEQUANTIZE_LINEAR_PER_AXIS == (int)Q_PER_AXIS &&
                   KILN_DEQUANTIZE_LINEAR_IPARAMS == (int)Q_COUNT,
               "dequantize_linear has quantize_linear's parameters");
/* The checker reads outer, axis and inner as the array ip + Q_OUTER. */
_Static_assert(Q_AXIS == Q_OUTER + 1 && Q_INNER == Q_OUTER + 2,
               "outer, axis and inner are consecutive");

static double saturate(double v, int64_t t) {
  const double lo = t == KILN_DTYPE_U8 ? 0 : t == KILN_DTYPE_I8 ? -128 : -2147483648.0;
  const double hi = t == KILN_DTYPE_U8 ? 255 : t == KILN_DTYPE_I8 ? 127 : 2147483647.0;
  return v < lo ? lo : (v > hi ? hi : v);
}

static void store_q(void* y, int64_t t, int64_t k, double v) {
  kiln_store_bits(y, t, k, (uint64_t)(int64_t)saturate(v, t));
}

int kiln_quantize_linear(const int64_t* ip, const float* fp, void* const* bindings,
                         const kiln_host* host) {
  (void)fp;
  (void)host;
  const int64_t outer = ip[Q_OUTER], axis = ip[Q_AXIS], inner = ip[Q_INNER], t = ip[Q_QDTYPE];
  const float* x = (const float*)bindings[0];
  const float* scale = (const float*)bindings[1];
  const void* zp = bindings[2];
  void* y = bindings[3];
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t a = 0; a < axis; ++a) {
      const int64_t q = ip[Q_PER_AXIS] ? a : 0;
      const float s = scale[q]; /* x / s in float32, as the ONNX reference divides */
      const double z = ip[Q_HAS_ZP] ? (double)(int64_t)kiln_load_bits(zp, t, q) : 0.0;
      for (int64_t i = 0; i < inner; ++i) {
        const int64_t k = (o * axis + a) * inner + i;
        store_q(y, t, k, rint((double)(x[k] / s)) + z);
      }
    }
  return KILN_OK;
}

int kiln_dequantize_linear(const int64_t* ip, const float* fp, void* const* bindings,
                           const kiln_host* host) {
  (void)fp;
  (void)host;
  const int64_t outer = ip[Q_OUTER], axis = ip[Q_AXIS], inner = ip[Q_INNER], t = ip[Q_QDTYPE];
  const void* x = bindings[0];
  const float* scale = (const float*)bindings[1];
  const void* zp = bindings[2];
  float* y = (float*)bindings[3];
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t a = 0; a < axis; ++a) {
      const int64_t q = ip[Q_PER_AXIS] ? a : 0;
      const int64_t z = ip[Q_HAS_ZP] ? (int64_t)kiln_load_bits(zp, t, q) : 0;
      for (int64_t i = 0; i < inner; ++i) {
        const int64_t k = (o * axis + a) * inner + i;
        y[k] = (float)((double)((int64_t)kiln_load_bits(x, t, k) - z) * scale[q]);
      }
    }
  return KILN_OK;
}

static int check_q(const int64_t* ip, uint32_t iparam_count, const float* fp,
                   uint32_t fparam_count, const uint64_t* binding_bytes, int quantize) {
  KILN_TRY(kiln_check_counts(ip, iparam_count, Q_COUNT, fp, fparam_count, 0));
  KILN_TRY(kiln_check_nonneg(ip, Q_COUNT));
  KILN_TRY(kiln_check_enum(ip[Q_HAS_ZP], 0, 1));
  KILN_TRY(kiln_check_enum(ip[Q_PER_AXIS], 0, 1));
  const int64_t t = ip[Q_QDTYPE];
  if (t != KILN_DTYPE_U8 && t != KILN_DTYPE_I8 && (quantize || t != KILN_DTYPE_I32))
    return KILN_ERR_INVALID_ARGUMENT;
  const int64_t qb = kiln_dtype_size(t);
  /* outer x axis x inner: inner == 0 leaves the outer loops bounded by no binding. */
  KILN_TRY(kiln_check_work(ip + Q_OUTER, 3));
  int64_t count, bytes;
  KILN_TRY(kiln_checked_product(ip + Q_OUTER, 3, &count));
  const int64_t params = ip[Q_PER_AXIS] ? ip[Q_AXIS] : 1;
  if (params < 1) return KILN_ERR_INVALID_ARGUMENT;
  KILN_TRY(kiln_dense_bytes(count, quantize ? 4 : qb, &bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[0], bytes));
  KILN_TRY(kiln_dense_bytes(params, 4, &bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[1], bytes));
  if (ip[Q_HAS_ZP]) {
    KILN_TRY(kiln_dense_bytes(params, qb, &bytes));
    KILN_TRY(kiln_check_binding(binding_bytes[2], bytes));
  }
  KILN_TRY(kiln_dense_bytes(count, quantize ? qb : 4, &bytes));
  return kiln_check_binding(binding_bytes[3], bytes);
}

int kiln_quantize_linear_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                               uint32_t fparam_count, const uint64_t* binding_bytes) {
  return check_q(ip, iparam_count, fp, fparam_count, binding_bytes, 1);
}

int kiln_dequantize_linear_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                                 uint32_t fparam_count, const uint64_t* binding_bytes) {
  return check_q(ip, iparam_count, fp, fparam_count, binding_bytes, 0);
}

int kiln_dynamic_quantize_linear(const int64_t* ip, const float* fp, void* const* bindings,
                                 const kiln_host* host) {
  (void)fp;
  (void)host;
  const int64_t n = ip[KILN_IP_DYNAMIC_QUANTIZE_LINEAR_COUNT];
  const float* x = (const float*)bindings[0];
  uint8_t* y = (uint8_t*)bindings[1];
  float* y_scale = (float*)bindings[2];
  uint8_t* y_zp = (uint8_t*)bindings[3];
  /* The range always includes 0 so that 0 is exactly representable. */
  float lo = 0.0f, hi = 0.0f;
  for (int64_t k = 0; k < n; ++k) {
    lo = x[k] < lo ? x[k] : lo;
    hi = x[k] > hi ? x[k] : hi;
  }
  const float scale = (hi - lo) / 255.0f;
  const double zp = saturate(rint((double)(0.0f - lo / scale)), KILN_DTYPE_U8);
  *y_scale = scale;
  *y_zp = (uint8_t)zp;
  for (int64_t k = 0; k < n; ++k)
    y[k] = (uint8_t)saturate(rint((double)(x[k] / scale)) + zp, KILN_DTYPE_U8);
  return KILN_OK;
}

int kiln_dynamic_quantize_linear_check(const int64_t* ip, uint32_t iparam_count,
                                       const float* fp, uint32_t fparam_count,
                                       const uint64_t* binding_bytes) {
  KILN_TRY(kiln_check_counts(ip, iparam_count, KILN_DYNAMIC_QUANTIZE_LINEAR_IPARAMS, fp,
                             fparam_count, 0));
  KILN_TRY(kiln_check_nonneg(ip, KILN_DYNAMIC_QUANTIZE_LINEAR_IPARAMS));
  /* Work is bounded by X: two flat passes over its count elements. */
  int64_t bytes;
  KILN_TRY(kiln_dense_bytes(ip[KILN_IP_DYNAMIC_QUANTIZE_LINEAR_COUNT], 4, &bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[0], bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[1], ip[KILN_IP_DYNAMIC_QUANTIZE_LINEAR_COUNT]));
  KILN_TRY(kiln_check_binding(binding_bytes[2], 4));
  return kiln_check_binding(binding_bytes[3], 1);
}
