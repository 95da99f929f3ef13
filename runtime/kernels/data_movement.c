/* strided_copy and copy: data movement with no arithmetic. strided_copy's
 * loop is in strided_copy_core.h (shared with slice_rt). */
#include <stdint.h>
#include <string.h>

#include "check_util.h"
#include "kiln/kernel_params.h"
#include "kiln/kernels.h"
#include "strided_copy_core.h"

enum {
  S_EB = KILN_IP_STRIDED_COPY_ELEM_BYTES,
  S_R = KILN_IP_STRIDED_COPY_R,
  S_SRC_OFF = KILN_IP_STRIDED_COPY_SRC_OFFSET,
  S_DST_OFF = KILN_IP_STRIDED_COPY_DST_OFFSET,
  S_HEAD = KILN_IP_STRIDED_COPY_DIMS
};

int kiln_strided_copy(const int64_t* ip, const float* fp, void* const* bindings,
                      const kiln_host* host) {
  (void)fp;
  (void)host;
  const int64_t eb = ip[S_EB], R = ip[S_R];
  const int64_t* dims = ip + S_HEAD;
  const int64_t* ss = dims + R;
  const int64_t* ds = dims + 2 * R;
  for (int64_t d = 0; d < R; ++d)
    if (dims[d] == 0) return KILN_OK; /* the view may lie outside empty buffers */
  const unsigned char* src = (const unsigned char*)bindings[0] + ip[S_SRC_OFF] * eb;
  unsigned char* dst = (unsigned char*)bindings[1] + ip[S_DST_OFF] * eb;
  kiln_strided_copy_run(eb, R, dims, ss, ds, src, dst);
  return KILN_OK;
}

/* Like kiln_view_bytes, but strides may be negative: every reachable index
 * offset + sum(idx[i] * strides[i]) must be >= 0, and the largest sets the
 * bytes needed. All partial sums stay within int64. */
static int src_view_bytes(int64_t R, const int64_t* dims, const int64_t* strides,
                          int64_t offset, int64_t eb, int64_t* out) {
  int64_t count, lo = offset, hi = offset;
  KILN_TRY(kiln_checked_product(dims, R, &count));
  if (count == 0) {
    *out = 0;
    return KILN_OK;
  }
  for (int64_t i = 0; i < R; ++i) {
    int64_t span;
    KILN_TRY(kiln_checked_mul(dims[i] - 1, strides[i], &span));
    if (span < 0) KILN_TRY(kiln_checked_add(lo, span, &lo));
    else KILN_TRY(kiln_checked_add(hi, span, &hi));
  }
  if (lo < 0) return KILN_ERR_INVALID_ARGUMENT; /* a view starting before the buffer */
  KILN_TRY(kiln_checked_add(hi, 1, &hi));
  return kiln_checked_mul(hi, eb, out);
}

int kiln_strided_copy_check(const int64_t* ip, uint32_t iparam_count,
                            const float* fp, uint32_t fparam_count,
                            const uint64_t* binding_bytes) {
  if (iparam_count < S_HEAD || ip == NULL) return KILN_ERR_INVALID_ARGUMENT;
  const int64_t R = ip[S_R];
  if (R < 0 || R > KILN_MAX_RANK) return KILN_ERR_INVALID_ARGUMENT;
  KILN_TRY(kiln_check_counts(ip, iparam_count, (uint32_t)KILN_STRIDED_COPY_IPARAMS(R), fp,
                             fparam_count, 0));
  /* Source strides may be negative (Slice with negative steps). */
  KILN_TRY(kiln_check_nonneg(ip, KILN_IP_STRIDED_COPY_SRC_STRIDES(R)));
  KILN_TRY(kiln_check_nonneg(ip + KILN_IP_STRIDED_COPY_DST_STRIDES(R), R));
  const int64_t eb = ip[S_EB];
  if (eb == 0) return KILN_ERR_INVALID_ARGUMENT;
  const int64_t* dims = ip + S_HEAD;
  /* Zero strides (a broadcast source, or a repeated destination) let the
   * element count exceed both views, so the copy is bounded directly: every
   * element moves eb bytes. An empty view returns before any loop. */
  int64_t loops[KILN_MAX_RANK + 1], count, bytes;
  KILN_TRY(kiln_checked_product(dims, R, &count));
  for (int64_t d = 0; d < R; ++d) loops[d] = dims[d];
  loops[R] = eb;
  if (count > 0) KILN_TRY(kiln_check_work(loops, R + 1));
  KILN_TRY(src_view_bytes(R, dims, dims + R, ip[S_SRC_OFF], eb, &bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[0], bytes));
  KILN_TRY(kiln_view_bytes(R, dims, dims + 2 * R, ip[S_DST_OFF], eb, &bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[1], bytes));
  /* A copy writes each destination byte once; zero destination strides
   * would rewrite a few bytes for as long as the dims allow. */
  if (count > 0) KILN_TRY(kiln_check_reuse(count * eb, bytes));
  return KILN_OK;
}

int kiln_copy(const int64_t* ip, const float* fp, void* const* bindings,
              const kiln_host* host) {
  (void)fp;
  (void)host;
  if (ip[KILN_IP_COPY_BYTES] > 0) memcpy(bindings[1], bindings[0], (size_t)ip[KILN_IP_COPY_BYTES]);
  return KILN_OK;
}

int kiln_copy_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                    uint32_t fparam_count, const uint64_t* binding_bytes) {
  KILN_TRY(kiln_check_counts(ip, iparam_count, KILN_COPY_IPARAMS, fp, fparam_count, 0));
  KILN_TRY(kiln_check_nonneg(ip, KILN_COPY_IPARAMS));
  /* Work is bounded by the bindings: one memcpy of ip[KILN_IP_COPY_BYTES] bytes. */
  KILN_TRY(kiln_check_binding(binding_bytes[0], ip[KILN_IP_COPY_BYTES]));
  KILN_TRY(kiln_check_binding(binding_bytes[1], ip[KILN_IP_COPY_BYTES]));
  return KILN_OK;
}
