/* pad: constant, edge, reflect and wrap padding (and cropping, with negative
 * pads) of any element type, with the loop in pad_core.h (shared with
 * pad_rt). Every output coordinate maps into [0, in) or to the fill, so the
 * checker only has to bound the dense shapes. */
#include <stdint.h>
#include <string.h>

#include "check_util.h"
#include "kiln/kernel_params.h"
#include "kiln/kernels.h"
#include "pad_core.h"

enum {
  PD_EB = KILN_IP_PAD_ELEM_BYTES,
  PD_MODE = KILN_IP_PAD_MODE,
  PD_R = KILN_IP_PAD_R,
  PD_VALUE = KILN_IP_PAD_FILL_BITS,
  PD_HEAD = KILN_IP_PAD_IN_DIMS
};

int kiln_pad(const int64_t* ip, const float* fp, void* const* bindings,
             const kiln_host* host) {
  (void)fp;
  (void)host;
  const int64_t eb = ip[PD_EB], mode = ip[PD_MODE], R = ip[PD_R];
  const int64_t* in = ip + PD_HEAD;
  const int64_t* begin = in + R;
  const int64_t* out = begin + R;
  const unsigned char* x = (const unsigned char*)bindings[0];
  unsigned char* y = (unsigned char*)bindings[1];
  unsigned char fill[8];
  memcpy(fill, &ip[PD_VALUE], 8);
  kiln_pad_run(eb, mode, R, in, begin, out, fill, x, y);
  return KILN_OK;
}

/* iparams (4 + 3R): elem_bytes mode R fill_bits  in_dims[R] begin[R] out_dims[R].
 * begin may be negative (cropping); fill_bits holds the constant's bytes. */
int kiln_pad_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                   uint32_t fparam_count, const uint64_t* binding_bytes) {
  if (ip == NULL || iparam_count < PD_HEAD) return KILN_ERR_INVALID_ARGUMENT;
  const int64_t R = ip[PD_R], eb = ip[PD_EB], mode = ip[PD_MODE];
  if (R < 0 || R > KILN_MAX_RANK) return KILN_ERR_INVALID_ARGUMENT;
  KILN_TRY(kiln_check_counts(ip, iparam_count, (uint32_t)KILN_PAD_IPARAMS(R), fp,
                             fparam_count, 0));
  if (eb < 1 || eb > 8) return KILN_ERR_INVALID_ARGUMENT;
  KILN_TRY(kiln_check_enum(mode, KILN_PAD_CONSTANT, KILN_PAD_WRAP));
  const int64_t* in = ip + PD_HEAD;
  const int64_t* begin = in + R;
  const int64_t* out = begin + R;
  KILN_TRY(kiln_check_nonneg(in, R));
  KILN_TRY(kiln_check_nonneg(out, R));
  int64_t in_n, out_n, t;
  KILN_TRY(kiln_checked_product(in, R, &in_n));
  KILN_TRY(kiln_checked_product(out, R, &out_n));
  for (int64_t d = 0; d < R; ++d) {
    /* pos - begin must not overflow; non-constant modes need a source. */
    if (begin[d] == INT64_MIN) return KILN_ERR_INVALID_ARGUMENT;
    KILN_TRY(kiln_checked_add(out[d], begin[d] < 0 ? -begin[d] : begin[d], &t));
    if (mode != KILN_PAD_CONSTANT && in[d] == 0 && out_n > 0) return KILN_ERR_INVALID_ARGUMENT;
  }
  KILN_TRY(kiln_dense_bytes(in_n, eb, &t));
  KILN_TRY(kiln_check_binding(binding_bytes[0], t));
  /* Work is bounded by Y: one flat pass over its elements (eb >= 1). */
  KILN_TRY(kiln_dense_bytes(out_n, eb, &t));
  KILN_TRY(kiln_check_binding(binding_bytes[1], t));
  return KILN_OK;
}
