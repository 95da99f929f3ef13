/* slice_rt: ONNX Slice whose starts/ends/axes/steps are run-time tensors.
 * The compiler fixed the output shape from the model's declaration; this
 * kernel resolves the parameters with Slice's semantics (negative indices
 * count from the back, bounds clamp, negative steps walk backwards) and
 * fails with KILN_ERR_SHAPE_MISMATCH unless they give exactly that shape;
 * otherwise it copies the view with the strided_copy loop.
 * slice_rt_bounded, for a model that declares no output shape, reports the
 * dims it finds instead. */
#include <stdint.h>

#include "check_util.h"
#include "kiln/kernel_params.h"
#include "kiln/kernels.h"
#include "rt_param.h"
#include "strided_copy_core.h"

enum {
  SL_EB = KILN_IP_SLICE_RT_ELEM_BYTES,
  SL_R = KILN_IP_SLICE_RT_R,
  SL_N = KILN_IP_SLICE_RT_N,
  SL_T_STARTS = KILN_IP_SLICE_RT_STARTS_DTYPE,
  SL_T_ENDS = KILN_IP_SLICE_RT_ENDS_DTYPE,
  SL_T_AXES = KILN_IP_SLICE_RT_AXES_DTYPE,
  SL_T_STEPS = KILN_IP_SLICE_RT_STEPS_DTYPE,
  SL_HEAD = KILN_IP_SLICE_RT_IN_DIMS
};
_Static_assert(KILN_IP_SLICE_RT_BOUNDED_ELEM_BYTES == (int)SL_EB &&
                   KILN_IP_SLICE_RT_BOUNDED_R == (int)SL_R &&
                   KILN_IP_SLICE_RT_BOUNDED_N == (int)SL_N &&
                   KILN_IP_SLICE_RT_BOUNDED_STARTS_DTYPE == (int)SL_T_STARTS &&
                   KILN_IP_SLICE_RT_BOUNDED_ENDS_DTYPE == (int)SL_T_ENDS &&
                   KILN_IP_SLICE_RT_BOUNDED_AXES_DTYPE == (int)SL_T_AXES &&
                   KILN_IP_SLICE_RT_BOUNDED_STEPS_DTYPE == (int)SL_T_STEPS &&
                   KILN_IP_SLICE_RT_BOUNDED_IN_DIMS == (int)SL_HEAD,
               "slice_rt_bounded has slice_rt's parameters");
/* The checker reads the four dtypes as SL_T_STARTS + k, k < 4 (bindings 1..4). */
_Static_assert(SL_T_ENDS == SL_T_STARTS + 1 && SL_T_AXES == SL_T_STARTS + 2 &&
                   SL_T_STEPS == SL_T_STARTS + 3,
               "starts, ends, axes and steps dtypes are consecutive");

/* One axis of length d: the first index taken (*first) and the count. */
static int64_t slice_len(int64_t d, int64_t s, int64_t e, int64_t step, int64_t* first) {
  *first = 0;
  if (d == 0) return 0;
  if (s < 0) s += d; /* cannot overflow: d >= 0 */
  if (e < 0) e += d;
  if (step > 0) {
    s = s < 0 ? 0 : s > d ? d : s;
    e = e < 0 ? 0 : e > d ? d : e;
    *first = s;
    return e > s ? (e - s - 1) / step + 1 : 0;
  }
  s = s < 0 ? 0 : s > d - 1 ? d - 1 : s;
  e = e < -1 ? -1 : e > d - 1 ? d - 1 : e;
  *first = s;
  /* |INT64_MIN| does not fit; any step that large takes one element. */
  const int64_t mag = step == INT64_MIN ? INT64_MAX : -step;
  return s > e ? (s - e - 1) / mag + 1 : 0;
}

/* Resolves the run-time parameters against in_dims: the output dims
 * (*out), and the first index and step of every axis. */
static int slice_resolve(const int64_t* ip, void* const* bindings, int64_t* out, int64_t* first,
                         int64_t* step) {
  const int64_t R = ip[SL_R], n = ip[SL_N];
  const int64_t* in = ip + SL_HEAD;
  uint32_t seen = 0;
  for (int64_t d = 0; d < R; ++d) {
    out[d] = in[d];
    first[d] = 0;
    step[d] = 1;
  }
  for (int64_t k = 0; k < n; ++k) {
    const int64_t a = kiln_rt_axis(bindings[3], ip[SL_T_AXES], k, R, &seen);
    if (a < 0) return KILN_ERR_SHAPE_MISMATCH;
    step[a] = kiln_rt_int(bindings[4], ip[SL_T_STEPS], k);
    if (step[a] == 0) return KILN_ERR_SHAPE_MISMATCH;
    out[a] = slice_len(in[a], kiln_rt_int(bindings[1], ip[SL_T_STARTS], k),
                       kiln_rt_int(bindings[2], ip[SL_T_ENDS], k), step[a], &first[a]);
  }
  return KILN_OK;
}

/* Copies the slice of X with dims out[] densely to y. */
static void slice_copy(const int64_t* ip, const void* x, const int64_t* out, const int64_t* first,
                       const int64_t* step, void* y) {
  const int64_t eb = ip[SL_EB], R = ip[SL_R];
  const int64_t* in = ip + SL_HEAD;
  int64_t xs[KILN_MAX_RANK], ss[KILN_MAX_RANK], ds[KILN_MAX_RANK], off = 0;
  for (int64_t d = 0; d < R; ++d) {
    if (out[d] == 0) return; /* nothing to copy */
  }
  kiln_rt_strides(R, in, xs);
  kiln_rt_strides(R, out, ds);
  for (int64_t d = 0; d < R; ++d) {
    /* Taking >= 2 elements bounds |step| by the dim, so the stride fits. */
    ss[d] = out[d] > 1 ? step[d] * xs[d] : 0;
    off += first[d] * xs[d];
  }
  kiln_strided_copy_run(eb, R, out, ss, ds, (const unsigned char*)x + off * eb,
                        (unsigned char*)y);
}

int kiln_slice_rt(const int64_t* ip, const float* fp, void* const* bindings,
                  const kiln_host* host) {
  (void)fp;
  (void)host;
  const int64_t R = ip[SL_R];
  const int64_t* want = ip + KILN_IP_SLICE_RT_OUT_DIMS(R);
  int64_t out[KILN_MAX_RANK], first[KILN_MAX_RANK], step[KILN_MAX_RANK];
  KILN_TRY(slice_resolve(ip, bindings, out, first, step));
  for (int64_t d = 0; d < R; ++d) {
    if (out[d] != want[d]) return KILN_ERR_SHAPE_MISMATCH;
  }
  slice_copy(ip, bindings[0], out, first, step, bindings[5]);
  return KILN_OK;
}

/* slice_rt_bounded: out_dims are capacities (the input's); the real dims
 * go to binding 6 as R int64, Y holds them densely. */
int kiln_slice_rt_bounded(const int64_t* ip, const float* fp, void* const* bindings,
                          const kiln_host* host) {
  (void)fp;
  (void)host;
  const int64_t R = ip[SL_R];
  int64_t out[KILN_MAX_RANK], first[KILN_MAX_RANK], step[KILN_MAX_RANK];
  KILN_TRY(slice_resolve(ip, bindings, out, first, step));
  slice_copy(ip, bindings[0], out, first, step, bindings[5]);
  int64_t* dims = (int64_t*)bindings[6];
  for (int64_t d = 0; d < R; ++d) dims[d] = out[d];
  return KILN_OK;
}

int kiln_slice_rt_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                        uint32_t fparam_count, const uint64_t* binding_bytes) {
  if (ip == NULL || iparam_count < SL_HEAD) return KILN_ERR_INVALID_ARGUMENT;
  const int64_t R = ip[SL_R], n = ip[SL_N], eb = ip[SL_EB];
  if (R < 0 || R > KILN_MAX_RANK) return KILN_ERR_INVALID_ARGUMENT;
  KILN_TRY(kiln_check_counts(ip, iparam_count, (uint32_t)KILN_SLICE_RT_IPARAMS(R), fp, fparam_count,
                             0));
  KILN_TRY(kiln_check_nonneg(ip, KILN_SLICE_RT_IPARAMS(R)));
  /* More entries than axes would repeat one; eb >= 1 lets Y bound the copy. */
  if (eb < 1 || n > R) return KILN_ERR_INVALID_ARGUMENT;
  const int64_t* in = ip + SL_HEAD;
  const int64_t* out = in + R;
  for (int64_t d = 0; d < R; ++d) {
    if (out[d] > in[d]) return KILN_ERR_INVALID_ARGUMENT; /* a slice never grows */
  }
  int64_t count, bytes;
  KILN_TRY(kiln_checked_product(in, R, &count));
  KILN_TRY(kiln_dense_bytes(count, eb, &bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[0], bytes));
  for (int64_t k = 0; k < 4; ++k) {
    KILN_TRY(kiln_rt_check_ints(ip[SL_T_STARTS + k], n, binding_bytes[1 + k]));
  }
  KILN_TRY(kiln_checked_product(out, R, &count));
  KILN_TRY(kiln_dense_bytes(count, eb, &bytes));
  return kiln_check_binding(binding_bytes[5], bytes);
}

int kiln_slice_rt_bounded_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                                uint32_t fparam_count, const uint64_t* binding_bytes) {
  KILN_TRY(kiln_slice_rt_check(ip, iparam_count, fp, fparam_count, binding_bytes));
  /* Every out dim is the input's (a slice never grows past it). */
  const int64_t R = ip[SL_R];
  for (int64_t d = 0; d < R; ++d) {
    if (ip[KILN_IP_SLICE_RT_OUT_DIMS(R) + d] != ip[SL_HEAD + d]) return KILN_ERR_INVALID_ARGUMENT;
  }
  return kiln_check_binding(binding_bytes[6], (R > 0 ? R : 1) * 8);
}
