/* pad_rt: ONNX Pad whose pads (and optional constant_value and axes) are
 * run-time tensors. The compiler fixed the output shape from the model's
 * declaration; this kernel reads the pads (begins then ends, one pair per
 * listed axis; negative values crop) and fails with
 * KILN_ERR_SHAPE_MISMATCH unless in + begin + end gives exactly that
 * shape; otherwise it pads with the pad loop. */
#include <stdint.h>
#include <string.h>

#include "check_util.h"
#include "kiln/kernel_params.h"
#include "kiln/kernels.h"
#include "pad_core.h"
#include "rt_param.h"

enum {
  PR_EB = KILN_IP_PAD_RT_ELEM_BYTES,
  PR_MODE = KILN_IP_PAD_RT_MODE,
  PR_R = KILN_IP_PAD_RT_R,
  PR_N = KILN_IP_PAD_RT_N,
  PR_T_PADS = KILN_IP_PAD_RT_PADS_DTYPE,
  PR_T_AXES = KILN_IP_PAD_RT_AXES_DTYPE,
  PR_HEAD = KILN_IP_PAD_RT_IN_DIMS
};
_Static_assert(KILN_IP_PAD_RT_DIMS_ELEM_BYTES == (int)PR_EB &&
                   KILN_IP_PAD_RT_DIMS_MODE == (int)PR_MODE &&
                   KILN_IP_PAD_RT_DIMS_R == (int)PR_R && KILN_IP_PAD_RT_DIMS_N == (int)PR_N &&
                   KILN_IP_PAD_RT_DIMS_PADS_DTYPE == (int)PR_T_PADS &&
                   KILN_IP_PAD_RT_DIMS_AXES_DTYPE == (int)PR_T_AXES &&
                   KILN_IP_PAD_RT_DIMS_IN_DIMS == (int)PR_HEAD,
               "pad_rt_dims has pad_rt's parameters up to in_dims");

/* Pads beyond this are refused: it keeps begin + end + dim and the pad
 * loop's coordinate arithmetic inside int64 (dims are bounded alike). */
#define PR_MAX_PAD (INT64_C(1) << 61)

/* The output dims the pads give (in + begin + end on each listed axis, in
 * elsewhere) and each axis's begin; 0 when an axis repeats or is out of
 * range, a pad is beyond PR_MAX_PAD or a dim would be negative. */
static int pr_resolve(const int64_t* ip, const void* pads, const void* axes, int64_t* begin,
                      int64_t* dims) {
  const int64_t R = ip[PR_R], n = ip[PR_N], tp = ip[PR_T_PADS];
  const int64_t* in = ip + PR_HEAD;
  uint32_t seen = 0;
  for (int64_t d = 0; d < R; ++d) {
    begin[d] = 0;
    dims[d] = in[d];
  }
  for (int64_t k = 0; k < n; ++k) {
    const int64_t a = kiln_rt_axis(axes, ip[PR_T_AXES], k, R, &seen);
    if (a < 0) return 0;
    const int64_t b = kiln_rt_int(pads, tp, k), e = kiln_rt_int(pads, tp, n + k);
    if (b < -PR_MAX_PAD || b > PR_MAX_PAD || e < -PR_MAX_PAD || e > PR_MAX_PAD ||
        in[a] + b + e < 0)
      return 0;
    begin[a] = b;
    dims[a] = in[a] + b + e;
  }
  return 1;
}

int kiln_pad_rt(const int64_t* ip, const float* fp, void* const* bindings,
                const kiln_host* host) {
  (void)fp;
  (void)host;
  const int64_t eb = ip[PR_EB], R = ip[PR_R];
  const int64_t* in = ip + PR_HEAD;
  const int64_t* out = in + R;
  int64_t begin[KILN_MAX_RANK], dims[KILN_MAX_RANK];
  if (!pr_resolve(ip, bindings[1], bindings[3], begin, dims)) return KILN_ERR_SHAPE_MISMATCH;
  for (int64_t d = 0; d < R; ++d) {
    if (dims[d] != out[d]) return KILN_ERR_SHAPE_MISMATCH;
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
  KILN_TRY(kiln_check_counts(ip, iparam_count, (uint32_t)KILN_PAD_RT_IPARAMS(R), fp, fparam_count,
                             0));
  KILN_TRY(kiln_check_nonneg(ip, KILN_PAD_RT_IPARAMS(R)));
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

/* pad_rt_dims: the dims alone, for a model that declares no output shape. */
int kiln_pad_rt_dims(const int64_t* ip, const float* fp, void* const* bindings,
                     const kiln_host* host) {
  (void)fp;
  (void)host;
  const int64_t R = ip[PR_R];
  int64_t begin[KILN_MAX_RANK], dims[KILN_MAX_RANK];
  if (!pr_resolve(ip, bindings[0], bindings[1], begin, dims)) return KILN_ERR_SHAPE_MISMATCH;
  /* Other tensors of these dims must fit int64 bytes: refuse beyond that. */
  int64_t n;
  if (kiln_checked_product(dims, R, &n) != KILN_OK || n > (INT64_C(1) << 56)) {
    return KILN_ERR_SHAPE_MISMATCH;
  }
  for (int64_t d = 0; d < R; ++d) ((int64_t*)bindings[2])[d] = dims[d];
  return KILN_OK;
}

int kiln_pad_rt_dims_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                           uint32_t fparam_count, const uint64_t* binding_bytes) {
  if (ip == NULL || iparam_count < PR_HEAD) return KILN_ERR_INVALID_ARGUMENT;
  const int64_t R = ip[PR_R], n = ip[PR_N];
  if (R < 1 || R > KILN_MAX_RANK) return KILN_ERR_INVALID_ARGUMENT;
  KILN_TRY(kiln_check_counts(ip, iparam_count, (uint32_t)KILN_PAD_RT_DIMS_IPARAMS(R), fp, fparam_count, 0));
  KILN_TRY(kiln_check_nonneg(ip, KILN_PAD_RT_DIMS_IPARAMS(R)));
  if (n > R) return KILN_ERR_INVALID_ARGUMENT;
  for (int64_t d = 0; d < R; ++d) {
    if (ip[PR_HEAD + d] > PR_MAX_PAD) return KILN_ERR_OUT_OF_RANGE;
  }
  KILN_TRY(kiln_rt_check_ints(ip[PR_T_PADS], 2 * n, binding_bytes[0]));
  KILN_TRY(kiln_rt_check_ints(ip[PR_T_AXES], n, binding_bytes[1]));
  return kiln_check_binding(binding_bytes[2], 8 * R);
}
