/* range: ONNX Range whose start, limit and delta are run-time scalars. The
 * compiler fixed the element count from the model's declared output shape;
 * this kernel computes max(ceil((limit - start) / delta), 0) with Range's
 * semantics, fails with KILN_ERR_SHAPE_MISMATCH unless it is exactly that
 * count (a zero delta fails too), and writes start + i * delta. */
#include <math.h>
#include <stdint.h>

#include "check_util.h"
#include "kiln/kernel_params.h"
#include "kiln/kernels.h"
#include "typed_util.h"

enum { RG_DTYPE = KILN_IP_RANGE_DTYPE, RG_N = KILN_IP_RANGE_N, RG_HEAD = KILN_RANGE_IPARAMS };
_Static_assert(KILN_IP_RANGE_COUNT_DTYPE == (int)RG_DTYPE, "range_count reads range's dtype");

/* |v| as unsigned (INT64_MIN included). */
static uint64_t range_mag(int64_t v) { return v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v; }

/* Integer dtypes: exact arithmetic in uint64, where |limit - start| always
 * fits. */
static int range_int_count(void* const* b, int64_t t, uint64_t* count) {
  const int64_t s = (int64_t)kiln_load_bits(b[0], t, 0);
  const int64_t l = (int64_t)kiln_load_bits(b[1], t, 0);
  const int64_t dl = (int64_t)kiln_load_bits(b[2], t, 0);
  if (dl == 0) return 0;
  const int up = l > s;
  const uint64_t span = up ? (uint64_t)l - (uint64_t)s : (uint64_t)s - (uint64_t)l;
  *count = span == 0 || up != (dl > 0) ? 0 : (span - 1) / range_mag(dl) + 1;
  return 1;
}

static int range_int(void* const* b, int64_t t, int64_t n) {
  uint64_t count;
  if (!range_int_count(b, t, &count) || count != (uint64_t)n) return 0;
  const int64_t s = (int64_t)kiln_load_bits(b[0], t, 0);
  const int64_t dl = (int64_t)kiln_load_bits(b[2], t, 0);
  /* Every value lies between start and limit; unsigned steps avoid any
   * intermediate overflow. */
  uint64_t v = (uint64_t)s;
  for (int64_t i = 0; i < n; ++i, v += (uint64_t)dl) kiln_store_bits(b[3], t, i, v);
  return 1;
}

static int range_float_count(void* const* b, int64_t t, double* count) {
  const double s = kiln_load_f(b[0], t, 0), l = kiln_load_f(b[1], t, 0);
  const double dl = kiln_load_f(b[2], t, 0);
  if (dl == 0 || !isfinite(s) || !isfinite(l) || !isfinite(dl)) return 0;
  *count = ceil((l - s) / dl);
  if (*count < 0) *count = 0;
  return 1;
}

static int range_float(void* const* b, int64_t t, int64_t n) {
  double count;
  if (!range_float_count(b, t, &count) || !(count == (double)n)) return 0;
  const double s = kiln_load_f(b[0], t, 0), dl = kiln_load_f(b[2], t, 0);
  for (int64_t i = 0; i < n; ++i) kiln_store_f(b[3], t, i, s + (double)i * dl);
  return 1;
}

int kiln_range(const int64_t* ip, const float* fp, void* const* bindings,
               const kiln_host* host) {
  (void)fp;
  (void)host;
  const int64_t t = ip[RG_DTYPE], n = ip[RG_N];
  const int ok = kiln_dtype_is_float(t) ? range_float(bindings, t, n) : range_int(bindings, t, n);
  return ok ? KILN_OK : KILN_ERR_SHAPE_MISMATCH;
}

/* start, limit and delta: scalars of one of Range's dtypes. */
static int range_check_scalars(int64_t t, const uint64_t* binding_bytes) {
  if (t != KILN_DTYPE_F32 && t != KILN_DTYPE_F64 && t != KILN_DTYPE_I16 &&
      t != KILN_DTYPE_I32 && t != KILN_DTYPE_I64)
    return KILN_ERR_INVALID_ARGUMENT;
  for (int k = 0; k < 3; ++k) KILN_TRY(kiln_check_binding(binding_bytes[k], kiln_dtype_size(t)));
  return KILN_OK;
}

/* range_count: the element count alone, for a model that declares no
 * output shape (range then writes that many). Counts beyond int64 fail. */
int kiln_range_count(const int64_t* ip, const float* fp, void* const* bindings,
                     const kiln_host* host) {
  (void)fp;
  (void)host;
  const int64_t t = ip[RG_DTYPE];
  int64_t n;
  if (kiln_dtype_is_float(t)) {
    double count;
    if (!range_float_count(bindings, t, &count) || !(count < 9223372036854775808.0)) {
      return KILN_ERR_SHAPE_MISMATCH;
    }
    n = (int64_t)count;
  } else {
    uint64_t count;
    if (!range_int_count(bindings, t, &count) || count > (uint64_t)INT64_MAX) {
      return KILN_ERR_SHAPE_MISMATCH;
    }
    n = (int64_t)count;
  }
  *(int64_t*)bindings[3] = n;
  return KILN_OK;
}

int kiln_range_count_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                           uint32_t fparam_count, const uint64_t* binding_bytes) {
  KILN_TRY(kiln_check_counts(ip, iparam_count, KILN_RANGE_COUNT_IPARAMS, fp, fparam_count, 0));
  KILN_TRY(range_check_scalars(ip[RG_DTYPE], binding_bytes));
  return kiln_check_binding(binding_bytes[3], 8);
}

int kiln_range_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                     uint32_t fparam_count, const uint64_t* binding_bytes) {
  KILN_TRY(kiln_check_counts(ip, iparam_count, RG_HEAD, fp, fparam_count, 0));
  KILN_TRY(kiln_check_nonneg(ip, RG_HEAD));
  const int64_t t = ip[RG_DTYPE];
  KILN_TRY(range_check_scalars(t, binding_bytes));
  const int64_t eb = kiln_dtype_size(t);
  int64_t bytes;
  /* Work is bounded by Y: n elements of eb bytes. */
  KILN_TRY(kiln_dense_bytes(ip[RG_N], eb, &bytes));
  return kiln_check_binding(binding_bytes[3], bytes);
}
