/* where: Y = C ? A : B with three-way broadcasting; moves elements of any
 * size without interpreting them. */
#include <stdint.h>
#include <string.h>

#include "check_util.h"
#include "kiln/kernel_params.h"
#include "kiln/kernels.h"
#include "typed_util.h"

enum { W_EB = KILN_IP_WHERE_ELEM_BYTES, W_R = KILN_IP_WHERE_R, W_HEAD = KILN_IP_WHERE_OUT_DIMS };

int kiln_where(const int64_t* ip, const float* fp, void* const* bindings,
               const kiln_host* host) {
  (void)fp;
  (void)host;
  const int64_t eb = ip[W_EB], R = ip[W_R];
  const int64_t* dims = ip + W_HEAD;
  kiln_bcast b;
  int64_t rows, inner, idx[KILN_MAX_RANK] = {0}, off[3];
  if (!kiln_bcast_init(&b, R, dims, 3, &rows, &inner)) return KILN_OK;
  const int64_t sc = R > 0 ? b.strides[0][R - 1] : 0, sa = R > 0 ? b.strides[1][R - 1] : 0,
                sb = R > 0 ? b.strides[2][R - 1] : 0;
  const unsigned char* C = (const unsigned char*)bindings[0];
  const unsigned char* A = (const unsigned char*)bindings[1];
  const unsigned char* B = (const unsigned char*)bindings[2];
  unsigned char* Y = (unsigned char*)bindings[3];
  for (int64_t r = 0; r < rows; ++r) {
    kiln_bcast_offsets(&b, idx, off);
    unsigned char* y = Y + r * inner * eb;
    for (int64_t i = 0; i < inner; ++i) {
      const unsigned char* src = C[off[0] + i * sc] ? A + (off[1] + i * sa) * eb
                                                    : B + (off[2] + i * sb) * eb;
      memcpy(y + i * eb, src, (size_t)eb);
    }
    kiln_bcast_next(&b, idx);
  }
  return KILN_OK;
}

int kiln_where_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                     uint32_t fparam_count, const uint64_t* binding_bytes) {
  if (iparam_count < W_HEAD || ip == NULL) return KILN_ERR_INVALID_ARGUMENT;
  const int64_t R = ip[W_R];
  if (R < 0 || R > KILN_MAX_RANK) return KILN_ERR_INVALID_ARGUMENT;
  KILN_TRY(kiln_check_counts(ip, iparam_count, (uint32_t)KILN_WHERE_IPARAMS(R), fp, fparam_count, 0));
  KILN_TRY(kiln_check_nonneg(ip, KILN_WHERE_IPARAMS(R)));
  const int64_t eb = ip[W_EB];
  if (eb != 1 && eb != 2 && eb != 4 && eb != 8) return KILN_ERR_INVALID_ARGUMENT;
  /* Work is bounded by Y: one pass over its elements, none when it is empty. */
  const int64_t in_eb[3] = {1, eb, eb};
  return kiln_check_bcast(ip + W_HEAD, R, ip + KILN_IP_WHERE_C_STRIDES(R), 3, in_eb, eb, binding_bytes);
}
