/* nonzero: ONNX NonZero, whose output length depends on the data. The
 * compiler fixed the output shape [R, count] from the model's declaration;
 * this kernel counts the non-zero elements and fails with
 * KILN_ERR_SHAPE_MISMATCH, writing nothing, unless there are exactly
 * `count`; otherwise it writes their indices in row-major order.
 * nonzero_bounded: the same for an output shaped after the run: `count` is
 * the capacity, and the real count is reported. */
#include <stdint.h>
#include <string.h>

#include "check_util.h"
#include "kiln/kernel_params.h"
#include "kiln/kernels.h"
#include "typed_util.h"

enum {
  NZ_DTYPE = KILN_IP_NONZERO_DTYPE,
  NZ_R = KILN_IP_NONZERO_R,
  NZ_COUNT = KILN_IP_NONZERO_COUNT,
  NZ_HEAD = KILN_IP_NONZERO_IN_DIMS
};
_Static_assert(KILN_IP_NONZERO_BOUNDED_DTYPE == (int)NZ_DTYPE &&
                   KILN_IP_NONZERO_BOUNDED_R == (int)NZ_R &&
                   KILN_IP_NONZERO_BOUNDED_COUNT == (int)NZ_COUNT &&
                   KILN_IP_NONZERO_BOUNDED_IN_DIMS == (int)NZ_HEAD,
               "nonzero_bounded has nonzero's parameters");

/* Element k is non-zero. Floats by value, so -0.0 is zero and NaN is not;
 * other types by their bytes. */
static int nz_is_set(const unsigned char* x, int64_t t, int64_t eb, int64_t k) {
  if (kiln_dtype_is_float(t)) return kiln_load_f(x, t, k) != 0.0;
  const unsigned char* p = x + k * eb;
  for (int64_t b = 0; b < eb; ++b) {
    if (p[b] != 0) return 1;
  }
  return 0;
}

/* Writes the indices of the `count` non-zero elements as [R, count]. */
static void nz_write(const unsigned char* x, int64_t t, int64_t eb, const int64_t* dims, int64_t R,
                     int64_t total, int64_t count, int64_t* y) {
  int64_t idx[KILN_MAX_RANK] = {0};
  int64_t j = 0;
  for (int64_t k = 0; k < total; ++k) {
    if (nz_is_set(x, t, eb, k)) {
      for (int64_t d = 0; d < R; ++d) y[d * count + j] = idx[d];
      ++j;
    }
    for (int64_t d = R - 1; d >= 0; --d) { /* row-major odometer */
      if (++idx[d] < dims[d]) break;
      idx[d] = 0;
    }
  }
}

/* The number of non-zero elements of X. */
static int64_t nz_count(const unsigned char* x, int64_t t, int64_t eb, int64_t total) {
  int64_t found = 0;
  for (int64_t k = 0; k < total; ++k) found += nz_is_set(x, t, eb, k);
  return found;
}

int kiln_nonzero(const int64_t* ip, const float* fp, void* const* bindings,
                 const kiln_host* host) {
  (void)fp;
  (void)host;
  const int64_t t = ip[NZ_DTYPE], R = ip[NZ_R], count = ip[NZ_COUNT];
  const int64_t* dims = ip + NZ_HEAD;
  const int64_t eb = kiln_dtype_size(t);
  const unsigned char* x = (const unsigned char*)bindings[0];
  int64_t total = 1;
  for (int64_t d = 0; d < R; ++d) total *= dims[d];
  if (nz_count(x, t, eb, total) != count) return KILN_ERR_SHAPE_MISMATCH;
  nz_write(x, t, eb, dims, R, total, count, (int64_t*)bindings[1]);
  return KILN_OK;
}

/* nonzero_bounded: the output is shaped after the run; `count` is the
 * capacity (the bound), the real count goes to binding 2. */
int kiln_nonzero_bounded(const int64_t* ip, const float* fp, void* const* bindings,
                         const kiln_host* host) {
  (void)fp;
  (void)host;
  const int64_t t = ip[NZ_DTYPE], R = ip[NZ_R];
  const int64_t* dims = ip + NZ_HEAD;
  const int64_t eb = kiln_dtype_size(t);
  const unsigned char* x = (const unsigned char*)bindings[0];
  int64_t total = 1;
  for (int64_t d = 0; d < R; ++d) total *= dims[d];
  const int64_t found = nz_count(x, t, eb, total); /* <= total */
  if (found > ip[NZ_COUNT]) return KILN_ERR_SHAPE_MISMATCH;
  nz_write(x, t, eb, dims, R, total, found, (int64_t*)bindings[1]);
  memcpy(bindings[2], &found, sizeof found);
  return KILN_OK;
}

/* `bounded`: count is a capacity, which may exceed X's elements when X is
 * sized by a length found during the run (planned at its bound). */
static int nz_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                    uint32_t fparam_count, const uint64_t* binding_bytes, int bounded) {
  if (ip == NULL || iparam_count < NZ_HEAD) return KILN_ERR_INVALID_ARGUMENT;
  const int64_t R = ip[NZ_R], count = ip[NZ_COUNT];
  if (R < 1 || R > KILN_MAX_RANK) return KILN_ERR_INVALID_ARGUMENT;
  KILN_TRY(kiln_check_counts(ip, iparam_count, (uint32_t)KILN_NONZERO_IPARAMS(R), fp, fparam_count, 0));
  KILN_TRY(kiln_check_nonneg(ip + NZ_R, KILN_NONZERO_IPARAMS(R) - NZ_R));
  const int64_t eb = kiln_dtype_size(ip[NZ_DTYPE]);
  if (eb == 0) return KILN_ERR_INVALID_ARGUMENT;
  int64_t total, bytes;
  KILN_TRY(kiln_checked_product(ip + NZ_HEAD, R, &total));
  /* An empty input's dims are bounded by no buffer: bound the odometer. */
  KILN_TRY(kiln_check_work(ip + NZ_HEAD, R));
  if (!bounded && count > total) return KILN_ERR_INVALID_ARGUMENT;
  KILN_TRY(kiln_dense_bytes(total, eb, &bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[0], bytes));
  KILN_TRY(kiln_checked_mul(R, count, &total));
  KILN_TRY(kiln_dense_bytes(total, 8, &bytes));
  return kiln_check_binding(binding_bytes[1], bytes);
}

int kiln_nonzero_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                       uint32_t fparam_count, const uint64_t* binding_bytes) {
  return nz_check(ip, iparam_count, fp, fparam_count, binding_bytes, 0);
}

int kiln_nonzero_bounded_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                               uint32_t fparam_count, const uint64_t* binding_bytes) {
  KILN_TRY(nz_check(ip, iparam_count, fp, fparam_count, binding_bytes, 1));
  return kiln_check_binding(binding_bytes[2], (int64_t)sizeof(int64_t));
}
