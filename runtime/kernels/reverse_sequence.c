/* reverse_sequence: ReverseSequence over X viewed as [T, B, inner] (time
 * axis 0) or [B, T, inner] (batch axis 0): the first lens[b] time steps of
 * each batch entry are reversed, the rest copied. Lengths arrive at run
 * time; one outside [0, T] fails with KILN_ERR_OUT_OF_RANGE. */
#include <stdint.h>
#include <string.h>

#include "check_util.h"
#include "kiln/kernel_params.h"
#include "kiln/kernels.h"

enum {
  RS_ELEM_BYTES = KILN_IP_REVERSE_SEQUENCE_ELEM_BYTES,
  RS_BATCH_FIRST = KILN_IP_REVERSE_SEQUENCE_BATCH_FIRST,
  RS_T = KILN_IP_REVERSE_SEQUENCE_T,
  RS_B = KILN_IP_REVERSE_SEQUENCE_B,
  RS_INNER = KILN_IP_REVERSE_SEQUENCE_INNER,
  RS_COUNT = KILN_REVERSE_SEQUENCE_IPARAMS
};
_Static_assert(RS_B == RS_T + 1 && RS_INNER == RS_T + 2,
               "T, B and inner are consecutive (the checker's product)");

int kiln_reverse_sequence(const int64_t* ip, const float* fp, void* const* bindings,
                          const kiln_host* host) {
  (void)fp;
  (void)host;
  const int64_t eb = ip[RS_ELEM_BYTES], T = ip[RS_T], B = ip[RS_B], inner = ip[RS_INNER];
  const int batch_first = ip[RS_BATCH_FIRST] != 0;
  const unsigned char* x = (const unsigned char*)bindings[0];
  const unsigned char* lens = (const unsigned char*)bindings[1];
  unsigned char* y = (unsigned char*)bindings[2];
  const int64_t row = inner * eb;
  for (int64_t b = 0; b < B; ++b) {
    int64_t len;
    memcpy(&len, lens + b * 8, 8);
    if (len < 0 || len > T) return KILN_ERR_OUT_OF_RANGE;
    for (int64_t t = 0; t < T; ++t) {
      const int64_t src_t = t < len ? len - 1 - t : t;
      const int64_t dst = batch_first ? b * T + t : t * B + b;
      const int64_t src = batch_first ? b * T + src_t : src_t * B + b;
      memcpy(y + dst * row, x + src * row, (size_t)row);
    }
  }
  return KILN_OK;
}

int kiln_reverse_sequence_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                                uint32_t fparam_count, const uint64_t* binding_bytes) {
  KILN_TRY(kiln_check_counts(ip, iparam_count, RS_COUNT, fp, fparam_count, 0));
  KILN_TRY(kiln_check_nonneg(ip, RS_COUNT));
  KILN_TRY(kiln_check_enum(ip[RS_BATCH_FIRST], 0, 1));
  if (ip[RS_ELEM_BYTES] < 1 || ip[RS_ELEM_BYTES] > 8) return KILN_ERR_INVALID_ARGUMENT;
  /* B x T row copies: inner == 0 leaves them bounded by no binding. */
  KILN_TRY(kiln_check_work(ip + RS_T, 3));
  int64_t count, bytes, row;
  /* The kernel forms the row size before it knows the tensors are empty. */
  KILN_TRY(kiln_checked_mul(ip[RS_INNER], ip[RS_ELEM_BYTES], &row));
  KILN_TRY(kiln_checked_product(ip + RS_T, 3, &count));
  KILN_TRY(kiln_dense_bytes(count, ip[RS_ELEM_BYTES], &bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[0], bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[2], bytes));
  KILN_TRY(kiln_dense_bytes(ip[RS_B], 8, &bytes));
  return kiln_check_binding(binding_bytes[1], bytes);
}
