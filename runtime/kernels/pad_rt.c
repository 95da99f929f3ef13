/* pad_rt: ONNX Pad whose pads (and optional constant_value and axes) are
 * run-time tensors. The compiler fixed the output shape from the model's
 * declaration; this kernel reads the pads (begins then ends, one pair per
 * listed axis; negative values crop) and fails with
 * KILN_ERR_SHAPE_MISMATCH unless in + begin + end gives exactly that
 * shape; otherwise it pads with the pad loop. */
#include <stdint.h>
#include <string.h>

#include "check_util.h"
#include "kiln/kernels.h"
#include "pad_core.h"
#include "rt_param.h"

enum { PR_EB, PR_MODE, PR_R, PR_N, PR_T_PADS, PR_T_AXES, PR_HEAD };

/* Pads beyond this are refused: it keeps begin + end + dim and the pad
 * loop's coordinate arithmetic inside int64 (dims are bounded alike). */
#define PR_MAX_PAD (INT64_C(1) << 61)

int kiln_pad_rt(const int64_t* ip, const float* fp, void* const* bindings,
                const kiln_host* host) {
  (void)fp;
  (void)host;
  const int64_t eb = ip[PR_EB], R = ip[PR_R], n = ip[PR_N], tp = ip[PR_T_PADS];
  const int64_t* in = ip + PR_HEAD;
  const int64_t* out = in + R;
  int64_t begin[KILN_MAX_RANK];
  uint32_t seen = 0;
  for (int64_t d = 0; d < R; ++d) begin[d] = 0;
  for (int64_t k = 0; k < n; ++k) {
    const int64_t a = kiln_rt_axis(bindings[3], ip[PR_T_AXES], k, R, &seen);
    if (a < 0) return KILN_ERR_SHAPE_MISMATCH;
    const int64_t b = kiln_rt_int(bindings[1], tp, k), e = kiln_rt_int(bindings[1], tp, n + k);
    if (b < -PR_MAX_PAD || b > PR_MAX_PAD || e < -PR_MAX_PAD || e > PR_MAX_PAD ||
        in[a] + b + e != out[a])
      return KILN_ERR_SHAPE_MISMATCH;
    begin[a] = b;
  }
  for (int64_t d = 0; d < R; ++d) {
    if (!(seen & (1u << d)) && in[d] != out[d]) return KILN_ERR_SHAPE_MISMATCH;
  }
  unsigned char fill[8];
  memcpy(fill, bindings[2], (size_t)eb);
  kiln_pad_run(eb, ip[PR_MODE], R, in, begin, out, fill, (const unsigned char*)bindings[0],
               (unsigned char*)bindings[4]);
  return KILN_OK;
}

int kiln_pad_rt_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                      uint32_t fparam_count, const uint64_t* binding_bytes) {
  if (ip == NULL || iparam_count < PR_HEAD) return KILN_ERR_INVALID_ARGUMENT;
  const int64_t R = ip[PR_R], n = ip[PR_N], eb = ip[PR_EB], mode = ip[PR_MODE];
  if (R < 0 || R > KILN_MAX_RANK) return KILN_ERR_INVALID_ARGUMENT;
  KILN_TRY(kiln_check_counts(ip, iparam_count, (uint32_t)(PR_HEAD + 2 * R), fp, fparam_count,
                             0));
  KILN_TRY(kiln_check_nonneg(ip, PR_HEAD + 2 * R));
  if (eb < 1 || eb > 8 || n > R) return KILN_ERR_INVALID_ARGUMENT;
  KILN_TRY(kiln_check_enum(mode, KILN_PAD_CONSTANT, KILN_PAD_WRAP));
  const int64_t* in = ip + PR_HEAD;
  const int64_t* out = in + R;
  int64_t in_n, out_n, bytes;
  KILN_TRY(kiln_checked_product(in, R, &in_n));
  KILN_TRY(kiln_checked_product(out, R, &out_n));
  /* Non-constant modes need a source element wherever Y is not empty. */
  for (int64_t d = 0; d < R; ++d) {
    if (mode != KILN_PAD_CONSTANT && in[d] == 0 && out_n > 0) return KILN_ERR_INVALID_ARGUMENT;
    if (in[d] > PR_MAX_PAD || out[d] > PR_MAX_PAD) return KILN_ERR_OUT_OF_RANGE;
  }
  KILN_TRY(kiln_dense_bytes(in_n, eb, &bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[0], bytes));
  KILN_TRY(kiln_rt_check_ints(ip[PR_T_PADS], 2 * n, binding_bytes[1]));
  KILN_TRY(kiln_check_binding(binding_bytes[2], eb));
  KILN_TRY(kiln_rt_check_ints(ip[PR_T_AXES], n, binding_bytes[3]));
  /* Work is bounded by Y: one flat pass over its elements (eb >= 1). */
  KILN_TRY(kiln_dense_bytes(out_n, eb, &bytes));
  return kiln_check_binding(binding_bytes[4], bytes);
}
