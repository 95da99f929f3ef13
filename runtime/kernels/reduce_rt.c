/* reduce_rt_f32: ONNX Reduce* (float32) whose axes are a run-time tensor
 * (ReduceSum from opset 13, the others from 18). The compiler fixed the
 * output shape from the model's declaration; this kernel reads the axes
 * (negative from the back; empty = every axis, or with noop_with_empty_axes
 * the input unchanged), fails with KILN_ERR_SHAPE_MISMATCH unless they
 * give exactly that shape, and otherwise reduces with the reduce loop. */
#include <stdint.h>
#include <string.h>

#include "check_util.h"
#include "kiln/kernel_params.h"
#include "kiln/kernels.h"
#include "reduce_core.h"
#include "rt_param.h"

enum {
  RR_KIND = KILN_IP_REDUCE_RT_F32_KIND,
  RR_KEEPDIMS = KILN_IP_REDUCE_RT_F32_KEEPDIMS,
  RR_NOOP = KILN_IP_REDUCE_RT_F32_NOOP_WITH_EMPTY_AXES,
  RR_T_AXES = KILN_IP_REDUCE_RT_F32_AXES_DTYPE,
  RR_N = KILN_IP_REDUCE_RT_F32_N,
  RR_R = KILN_IP_REDUCE_RT_F32_R,
  RR_RO = KILN_IP_REDUCE_RT_F32_RO,
  RR_HEAD = KILN_IP_REDUCE_RT_F32_IN_DIMS
};
_Static_assert(KILN_IP_REDUCE_RT_F32_BOUNDED_KIND == (int)RR_KIND &&
                   KILN_IP_REDUCE_RT_F32_BOUNDED_KEEPDIMS == (int)RR_KEEPDIMS &&
                   KILN_IP_REDUCE_RT_F32_BOUNDED_NOOP_WITH_EMPTY_AXES == (int)RR_NOOP &&
                   KILN_IP_REDUCE_RT_F32_BOUNDED_AXES_DTYPE == (int)RR_T_AXES &&
                   KILN_IP_REDUCE_RT_F32_BOUNDED_N == (int)RR_N &&
                   KILN_IP_REDUCE_RT_F32_BOUNDED_R == (int)RR_R &&
                   KILN_IP_REDUCE_RT_F32_BOUNDED_RO == (int)RR_RO &&
                   KILN_IP_REDUCE_RT_F32_BOUNDED_IN_DIMS == (int)RR_HEAD,
               "reduce_rt_f32_bounded has reduce_rt_f32's parameters");

/* Reads the axes and reduces X into y; the output dims the axes give go to
 * got[] (*got_rank of them). */
static int reduce_rt(const int64_t* ip, void* const* bindings, float* y, int64_t* got,
                     int64_t* got_rank) {
  const int64_t n = ip[RR_N], R = ip[RR_R], keep = ip[RR_KEEPDIMS];
  const int64_t* in = ip + RR_HEAD;
  uint32_t seen = 0;
  for (int64_t k = 0; k < n; ++k) {
    if (kiln_rt_axis(bindings[1], ip[RR_T_AXES], k, R, &seen) < 0) return KILN_ERR_SHAPE_MISMATCH;
  }
  if (n == 0 && ip[RR_NOOP]) { /* the input unchanged */
    int64_t count = 1;
    for (int64_t d = 0; d < R; ++d) count *= got[d] = in[d];
    *got_rank = R;
    if (count > 0) memcpy(y, bindings[0], (size_t)count * 4);
    return KILN_OK;
  }
  if (n == 0) seen = R == 0 ? 0 : (uint32_t)((1u << R) - 1u); /* every axis */
  /* The output the axes give, and X viewed as kept dims then reduced dims. */
  int64_t xs[KILN_MAX_RANK], od[KILN_MAX_RANK], os[KILN_MAX_RANK], rd[KILN_MAX_RANK],
      rs[KILN_MAX_RANK], nk = 0, nr = 0, o = 0;
  kiln_rt_strides(R, in, xs);
  for (int64_t d = 0; d < R; ++d) {
    const int reduced = (seen >> d) & 1u;
    if (!reduced || keep) got[o++] = reduced ? 1 : in[d];
    if (reduced) {
      rd[nr] = in[d];
      rs[nr++] = xs[d];
    } else {
      od[nk] = in[d];
      os[nk++] = xs[d];
    }
  }
  *got_rank = o;
  kiln_reduce_f32_run(ip[RR_KIND], nk, od, os, nr, rd, rs, (const float*)bindings[0], y);
  return KILN_OK;
}

/* Whether the axes give exactly the compiled out_dims. Run before writing
 * Y: the compiled Y may be smaller than what other axes give. */
static int reduce_rt_shape_ok(const int64_t* ip, void* const* bindings) {
  const int64_t n = ip[RR_N], R = ip[RR_R], ro = ip[RR_RO], keep = ip[RR_KEEPDIMS];
  const int64_t* in = ip + RR_HEAD;
  const int64_t* out = in + R;
  uint32_t seen = 0;
  for (int64_t k = 0; k < n; ++k) {
    if (kiln_rt_axis(bindings[1], ip[RR_T_AXES], k, R, &seen) < 0) return 0;
  }
  if (n == 0) seen = ip[RR_NOOP] || R == 0 ? 0 : (uint32_t)((1u << R) - 1u);
  int64_t o = 0;
  for (int64_t d = 0; d < R; ++d) {
    const int reduced = (seen >> d) & 1u;
    if (!reduced || keep) {
      if (o >= ro || out[o] != (reduced ? 1 : in[d])) return 0;
      ++o;
    }
  }
  return o == ro;
}

int kiln_reduce_rt_f32(const int64_t* ip, const float* fp, void* const* bindings,
                       const kiln_host* host) {
  (void)fp;
  (void)host;
  if (!reduce_rt_shape_ok(ip, bindings)) return KILN_ERR_SHAPE_MISMATCH;
  int64_t got[KILN_MAX_RANK], got_rank = 0;
  return reduce_rt(ip, bindings, (float*)bindings[2], got, &got_rank);
}

/* reduce_rt_f32_bounded: out_dims are capacities; the dims the axes give
 * go to binding 3 as RO int64 (their count must be RO), Y holds them. */
int kiln_reduce_rt_f32_bounded(const int64_t* ip, const float* fp, void* const* bindings,
                               const kiln_host* host) {
  (void)fp;
  (void)host;
  const int64_t R = ip[RR_R], ro = ip[RR_RO], n = ip[RR_N];
  /* Rank without keepdims: R - n, unless n = 0 (every axis, or none). */
  if (!ip[RR_KEEPDIMS] && n == 0) return KILN_ERR_SHAPE_MISMATCH;
  (void)R;
  int64_t got[KILN_MAX_RANK], got_rank = 0;
  KILN_TRY(reduce_rt(ip, bindings, (float*)bindings[2], got, &got_rank));
  if (got_rank != ro) return KILN_ERR_SHAPE_MISMATCH;
  int64_t* dims = (int64_t*)bindings[3];
  for (int64_t d = 0; d < ro; ++d) dims[d] = got[d];
  return KILN_OK;
}

int kiln_reduce_rt_f32_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                             uint32_t fparam_count, const uint64_t* binding_bytes) {
  if (ip == NULL || iparam_count < RR_HEAD) return KILN_ERR_INVALID_ARGUMENT;
  const int64_t R = ip[RR_R], ro = ip[RR_RO], n = ip[RR_N];
  if (R < 0 || R > KILN_MAX_RANK || ro < 0 || ro > R) return KILN_ERR_INVALID_ARGUMENT;
  KILN_TRY(kiln_check_counts(ip, iparam_count, (uint32_t)KILN_REDUCE_RT_F32_IPARAMS(R, ro), fp, fparam_count,
                             0));
  KILN_TRY(kiln_check_nonneg(ip, KILN_REDUCE_RT_F32_IPARAMS(R, ro)));
  KILN_TRY(kiln_check_enum(ip[RR_KIND], KILN_REDUCE_SUM, KILN_REDUCE_SUM_SQUARE));
  KILN_TRY(kiln_check_enum(ip[RR_KEEPDIMS], 0, 1));
  KILN_TRY(kiln_check_enum(ip[RR_NOOP], 0, 1));
  if (n > R) return KILN_ERR_INVALID_ARGUMENT; /* more would repeat an axis */
  KILN_TRY(kiln_rt_check_ints(ip[RR_T_AXES], n, binding_bytes[1]));
  int64_t in_n, out_n;
  KILN_TRY(kiln_checked_product(ip + RR_HEAD, R, &in_n));
  KILN_TRY(kiln_checked_product(ip + KILN_IP_REDUCE_RT_F32_OUT_DIMS(R), ro, &out_n));
  /* X is read densely once (every output element folds its own part); an
   * empty reduction still walks Y once. Both are bounded by the bindings. */
  KILN_TRY(kiln_check_f32_binding(binding_bytes[0], in_n));
  return kiln_check_f32_binding(binding_bytes[2], out_n);
}

int kiln_reduce_rt_f32_bounded_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                                     uint32_t fparam_count, const uint64_t* binding_bytes) {
  KILN_TRY(kiln_reduce_rt_f32_check(ip, iparam_count, fp, fparam_count, binding_bytes));
  /* The capacities hold any result: with keepdims the input's dims, else
   * R - n dims each at least the largest input dim. */
  const int64_t R = ip[RR_R], ro = ip[RR_RO], n = ip[RR_N];
  const int64_t* in = ip + RR_HEAD;
  const int64_t* out = in + R;
  int64_t largest = 0;
  for (int64_t d = 0; d < R; ++d) largest = in[d] > largest ? in[d] : largest;
  if (ip[RR_KEEPDIMS]) {
    if (ro != R) return KILN_ERR_INVALID_ARGUMENT;
    for (int64_t d = 0; d < R; ++d) {
      if (out[d] != in[d]) return KILN_ERR_INVALID_ARGUMENT;
    }
  } else {
    if (n < 1 || ro != R - n) return KILN_ERR_INVALID_ARGUMENT;
    for (int64_t d = 0; d < ro; ++d) {
      if (out[d] < largest) return KILN_ERR_INVALID_ARGUMENT;
    }
  }
  return kiln_check_binding(binding_bytes[3], (ro > 0 ? ro : 1) * 8);
}
