/* compress: ONNX Compress, whose output length depends on the condition.
 * The input is viewed as [outer, axis_len, inner] (without an axis:
 * [1, all elements, 1]); the compiler fixed out_count from the model's
 * declaration. The kernel fails with KILN_ERR_SHAPE_MISMATCH, writing
 * nothing, unless the condition selects exactly out_count slices (a true
 * entry past axis_len fails with KILN_ERR_INDEX_OUT_OF_RANGE, as np.compress
 * fails); otherwise it copies the selected slices in order.
 * compress_bounded: the same for an output shaped after the run: out_count
 * is the capacity, and the real count is reported. */
#include <stdint.h>
#include <string.h>

#include "check_util.h"
#include "kiln/kernel_params.h"
#include "kiln/kernels.h"

enum {
  CP_EB = KILN_IP_COMPRESS_ELEM_BYTES,
  CP_OUTER = KILN_IP_COMPRESS_OUTER,
  CP_AXIS = KILN_IP_COMPRESS_AXIS_LEN,
  CP_INNER = KILN_IP_COMPRESS_INNER,
  CP_COND = KILN_IP_COMPRESS_COND_LEN,
  CP_OUT = KILN_IP_COMPRESS_OUT_COUNT,
  CP_COUNT = KILN_COMPRESS_IPARAMS
};
_Static_assert(KILN_IP_COMPRESS_BOUNDED_ELEM_BYTES == (int)CP_EB &&
                   KILN_IP_COMPRESS_BOUNDED_OUTER == (int)CP_OUTER &&
                   KILN_IP_COMPRESS_BOUNDED_AXIS_LEN == (int)CP_AXIS &&
                   KILN_IP_COMPRESS_BOUNDED_INNER == (int)CP_INNER &&
                   KILN_IP_COMPRESS_BOUNDED_COND_LEN == (int)CP_COND &&
                   KILN_IP_COMPRESS_BOUNDED_OUT_COUNT == (int)CP_OUT &&
                   KILN_COMPRESS_BOUNDED_IPARAMS == (int)CP_COUNT,
               "compress_bounded has compress's parameters");

/* Counts the selected slices; a true entry past axis_len is refused. */
static int cp_count(const int64_t* ip, const unsigned char* cond, int64_t* found) {
  *found = 0;
  for (int64_t a = 0; a < ip[CP_COND]; ++a) {
    if (cond[a] == 0) continue;
    if (a >= ip[CP_AXIS]) return KILN_ERR_INDEX_OUT_OF_RANGE;
    ++*found;
  }
  return KILN_OK;
}

/* Copies the selected slices, in order: [outer, found, inner] from Y's start. */
static void cp_copy(const int64_t* ip, const unsigned char* cond, void* const* bindings) {
  const int64_t eb = ip[CP_EB], outer = ip[CP_OUTER], len = ip[CP_AXIS], inner = ip[CP_INNER];
  const int64_t n = ip[CP_COND];
  const int64_t row = inner * eb; /* bytes of one slice */
  const unsigned char* x = (const unsigned char*)bindings[0];
  unsigned char* y = (unsigned char*)bindings[2];
  if (row == 0) return;
  const int64_t m = n < len ? n : len;
  for (int64_t o = 0; o < outer; ++o) {
    const unsigned char* src = x + o * len * row;
    for (int64_t a = 0; a < m; ++a) {
      if (cond[a] == 0) continue;
      memcpy(y, src + a * row, (size_t)row);
      y += row;
    }
  }
}

int kiln_compress(const int64_t* ip, const float* fp, void* const* bindings,
                  const kiln_host* host) {
  (void)fp;
  (void)host;
  const unsigned char* cond = (const unsigned char*)bindings[1];
  int64_t found;
  KILN_TRY(cp_count(ip, cond, &found));
  if (found != ip[CP_OUT]) return KILN_ERR_SHAPE_MISMATCH;
  if (found > 0) cp_copy(ip, cond, bindings);
  return KILN_OK;
}

/* compress_bounded: out_count is the capacity; the real count goes to
 * binding 3 (the output is shaped after the run). */
int kiln_compress_bounded(const int64_t* ip, const float* fp, void* const* bindings,
                          const kiln_host* host) {
  (void)fp;
  (void)host;
  const unsigned char* cond = (const unsigned char*)bindings[1];
  int64_t found;
  KILN_TRY(cp_count(ip, cond, &found));
  if (found > ip[CP_OUT]) return KILN_ERR_SHAPE_MISMATCH;
  if (found > 0) cp_copy(ip, cond, bindings);
  memcpy(bindings[3], &found, sizeof found);
  return KILN_OK;
}

int kiln_compress_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                        uint32_t fparam_count, const uint64_t* binding_bytes) {
  KILN_TRY(kiln_check_counts(ip, iparam_count, CP_COUNT, fp, fparam_count, 0));
  KILN_TRY(kiln_check_nonneg(ip, CP_COUNT));
  if (ip[CP_EB] < 1 || ip[CP_EB] > 8) return KILN_ERR_INVALID_ARGUMENT;
  if (ip[CP_OUT] > ip[CP_AXIS] || ip[CP_OUT] > ip[CP_COND]) return KILN_ERR_INVALID_ARGUMENT;
  /* outer x condition x inner loops even when the tensors are empty. */
  const int64_t loops[3] = {ip[CP_OUTER], ip[CP_COND], ip[CP_INNER]};
  KILN_TRY(kiln_check_work(loops, 3));
  int64_t count, bytes;
  const int64_t in[3] = {ip[CP_OUTER], ip[CP_AXIS], ip[CP_INNER]};
  KILN_TRY(kiln_checked_product(in, 3, &count));
  KILN_TRY(kiln_dense_bytes(count, ip[CP_EB], &bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[0], bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[1], ip[CP_COND]));
  const int64_t out[3] = {ip[CP_OUTER], ip[CP_OUT], ip[CP_INNER]};
  KILN_TRY(kiln_checked_product(out, 3, &count));
  KILN_TRY(kiln_dense_bytes(count, ip[CP_EB], &bytes));
  return kiln_check_binding(binding_bytes[2], bytes);
}

int kiln_compress_bounded_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                                uint32_t fparam_count, const uint64_t* binding_bytes) {
  KILN_TRY(kiln_compress_check(ip, iparam_count, fp, fparam_count, binding_bytes));
  return kiln_check_binding(binding_bytes[3], (int64_t)sizeof(int64_t));
}
