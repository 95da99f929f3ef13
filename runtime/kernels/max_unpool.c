/* max_unpool: ONNX MaxUnpool. Each X element goes to the flat position its
 * int64 index names in the unpooled tensor of the inferred shape (from
 * kernel, strides and pads, as MaxPool's Indices count positions); that
 * tensor sits at the origin of the output, which may be larger in every dim
 * (output_shape), and everything else is zero. An index outside the inferred
 * tensor fails with KILN_ERR_INDEX_OUT_OF_RANGE before anything is written. */
#include <stdint.h>
#include <string.h>

#include "check_util.h"
#include "kiln/kernel_params.h"
#include "kiln/kernels.h"

enum {
  MU_EB = KILN_IP_MAX_UNPOOL_ELEM_BYTES,
  MU_N = KILN_IP_MAX_UNPOOL_N,
  MU_R = KILN_IP_MAX_UNPOOL_R,
  MU_HEAD = KILN_IP_MAX_UNPOOL_INFERRED_DIMS
};

int kiln_max_unpool(const int64_t* ip, const float* fp, void* const* b, const kiln_host* host) {
  (void)fp;
  (void)host;
  const int64_t eb = ip[MU_EB], n = ip[MU_N], R = ip[MU_R];
  const int64_t* inferred = ip + MU_HEAD;
  const int64_t* out = inferred + R;
  int64_t total = 1, out_total = 1, same = 1;
  for (int64_t d = 0; d < R; ++d) {
    total *= inferred[d];
    out_total *= out[d];
    same = same && inferred[d] == out[d];
  }
  const int64_t* idx = (const int64_t*)b[1];
  for (int64_t k = 0; k < n; ++k) {
    if (idx[k] < 0 || idx[k] >= total) return KILN_ERR_INDEX_OUT_OF_RANGE;
  }
  const unsigned char* x = (const unsigned char*)b[0];
  unsigned char* y = (unsigned char*)b[2];
  if (out_total > 0) memset(y, 0, (size_t)(out_total * eb));
  for (int64_t k = 0; k < n; ++k) {
    int64_t pos = idx[k];
    if (!same) { /* the index's coordinates in the inferred shape, placed in the output */
      int64_t rest = pos, stride = 1;
      pos = 0;
      for (int64_t d = R - 1; d >= 0; --d) {
        pos += (rest % inferred[d]) * stride;
        rest /= inferred[d];
        stride *= out[d];
      }
    }
    memcpy(y + pos * eb, x + k * eb, (size_t)eb);
  }
  return KILN_OK;
}

int kiln_max_unpool_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                          uint32_t fparam_count, const uint64_t* binding_bytes) {
  if (ip == NULL || iparam_count < MU_HEAD) return KILN_ERR_INVALID_ARGUMENT;
  const int64_t R = ip[MU_R];
  if (R < 1 || R > KILN_MAX_RANK) return KILN_ERR_INVALID_ARGUMENT;
  KILN_TRY(kiln_check_counts(ip, iparam_count, (uint32_t)KILN_MAX_UNPOOL_IPARAMS(R), fp, fparam_count, 0));
  KILN_TRY(kiln_check_nonneg(ip, KILN_MAX_UNPOOL_IPARAMS(R)));
  if (ip[MU_EB] < 1 || ip[MU_EB] > 8) return KILN_ERR_INVALID_ARGUMENT;
  const int64_t *inferred = ip + MU_HEAD, *out = inferred + R;
  for (int64_t d = 0; d < R; ++d) {
    if (inferred[d] > out[d]) return KILN_ERR_INVALID_ARGUMENT;
  }
  int64_t total, bytes;
  KILN_TRY(kiln_checked_product(out, R, &total));
  KILN_TRY(kiln_dense_bytes(total, ip[MU_EB], &bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[2], bytes));
  KILN_TRY(kiln_dense_bytes(ip[MU_N], ip[MU_EB], &bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[0], bytes));
  KILN_TRY(kiln_dense_bytes(ip[MU_N], 8, &bytes));
  return kiln_check_binding(binding_bytes[1], bytes);
}
