/* qmatmul: integer matrix product for MatMulInteger and QLinearMatMul,
 * batched with numpy broadcasting as matmul_f32:
 *   acc[m,n] = sum_k (A[m,k] - a_zp[m]) * (B[k,n] - b_zp[n])   (exact, int64)
 * y_dtype int32 stores acc (MatMulInteger: wraps like int32 arithmetic);
 * uint8/int8 requantizes: y = saturate(round_half_even(acc * a_scale[m] *
 * b_scale[n] / y_scale) + y_zp). Zero points and scales are bindings read
 * per tensor or per row (A) / column (B), as the mode parameters say. */
#include <stdint.h>
#include <string.h>

#include "check_util.h"
#include "kiln/kernel_params.h"
#include "kiln/kernels.h"
#include "quant_util.h"

enum {
  QM_A_DTYPE = KILN_IP_QMATMUL_A_DTYPE,
  QM_B_DTYPE = KILN_IP_QMATMUL_B_DTYPE,
  QM_Y_DTYPE = KILN_IP_QMATMUL_Y_DTYPE,
  QM_M = KILN_IP_QMATMUL_M,
  QM_N = KILN_IP_QMATMUL_N,
  QM_K = KILN_IP_QMATMUL_K,
  QM_A_ZP = KILN_IP_QMATMUL_A_ZP_MODE,
  QM_B_ZP = KILN_IP_QMATMUL_B_ZP_MODE,
  QM_A_SCALE = KILN_IP_QMATMUL_A_SCALE_MODE,
  QM_B_SCALE = KILN_IP_QMATMUL_B_SCALE_MODE,
  QM_R = KILN_IP_QMATMUL_R,
  QM_HEAD = KILN_IP_QMATMUL_BATCH_DIMS
};

int kiln_qmatmul(const int64_t* ip, const float* fp, void* const* bindings, const kiln_host* host) {
  (void)fp;
  (void)host;
  const int64_t ta = ip[QM_A_DTYPE], tb = ip[QM_B_DTYPE], ty = ip[QM_Y_DTYPE];
  const int64_t M = ip[QM_M], N = ip[QM_N], K = ip[QM_K], R = ip[QM_R];
  const int64_t* dims = ip + QM_HEAD;
  const int64_t* sa = ip + KILN_IP_QMATMUL_A_BATCH_STRIDES(R);
  const int64_t* sb = ip + KILN_IP_QMATMUL_B_BATCH_STRIDES(R);
  const void *A = bindings[0], *B = bindings[1];
  const int requant = ty != KILN_DTYPE_I32;
  const double y_scale = requant ? kiln_q_scale(bindings[6], KILN_QMODE_SCALAR, 0) : 1.0;
  const int64_t y_zp = requant ? kiln_q_zero(bindings[7], ty, KILN_QMODE_SCALAR, 0) : 0;
  int64_t batch = 1, idx[KILN_MAX_RANK];
  for (int64_t d = 0; d < R; ++d) batch *= dims[d], idx[d] = 0;
  for (int64_t b = 0; b < batch; ++b) {
    int64_t oa = 0, ob = 0;
    for (int64_t d = 0; d < R; ++d) oa += idx[d] * sa[d], ob += idx[d] * sb[d];
    for (int64_t m = 0; m < M; ++m) {
      const int64_t za = kiln_q_zero(bindings[2], ta, ip[QM_A_ZP], m);
      for (int64_t n = 0; n < N; ++n) {
        const int64_t zb = kiln_q_zero(bindings[3], tb, ip[QM_B_ZP], n);
        int64_t acc = 0;
        for (int64_t k = 0; k < K; ++k) {
          acc += (kiln_q_load(A, ta, oa + m * K + k) - za) *
                 (kiln_q_load(B, tb, ob + k * N + n) - zb);
        }
        const int64_t o = (b * M + m) * N + n;
        if (!requant) {
          kiln_store_bits(bindings[8], KILN_DTYPE_I32, o, (uint64_t)acc);
        } else {
          const double s = kiln_q_scale(bindings[4], ip[QM_A_SCALE], m) *
                           kiln_q_scale(bindings[5], ip[QM_B_SCALE], n) / y_scale;
          kiln_q_store(bindings[8], ty, o, kiln_round_half_even((double)acc * s) + (double)y_zp);
        }
      }
    }
    for (int64_t d = R - 1; d >= 0; --d) {
      if (++idx[d] < dims[d]) break;
      idx[d] = 0;
    }
  }
  return KILN_OK;
}

int kiln_qmatmul_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                       uint32_t fparam_count, const uint64_t* binding_bytes) {
  if (iparam_count < QM_HEAD || ip == NULL) return KILN_ERR_INVALID_ARGUMENT;
  const int64_t R = ip[QM_R];
  if (R < 0 || R > KILN_MAX_RANK) return KILN_ERR_INVALID_ARGUMENT;
  KILN_TRY(kiln_check_counts(ip, iparam_count, (uint32_t)KILN_QMATMUL_IPARAMS(R), fp, fparam_count, 0));
  KILN_TRY(kiln_check_nonneg(ip, KILN_QMATMUL_IPARAMS(R)));
  const int64_t ta = ip[QM_A_DTYPE], tb = ip[QM_B_DTYPE], ty = ip[QM_Y_DTYPE];
  const int64_t M = ip[QM_M], N = ip[QM_N], K = ip[QM_K];
  KILN_TRY(kiln_q_check_dtype8(ta));
  KILN_TRY(kiln_q_check_dtype8(tb));
  const int requant = ty != KILN_DTYPE_I32;
  if (requant) KILN_TRY(kiln_q_check_dtype8(ty));
  KILN_TRY(kiln_q_check_param(binding_bytes[2], ip[QM_A_ZP], M, 1));
  KILN_TRY(kiln_q_check_param(binding_bytes[3], ip[QM_B_ZP], N, 1));
  if (requant) {
    KILN_TRY(kiln_q_check_param(binding_bytes[4], ip[QM_A_SCALE], M, 4));
    KILN_TRY(kiln_q_check_param(binding_bytes[5], ip[QM_B_SCALE], N, 4));
    KILN_TRY(kiln_q_check_param(binding_bytes[6], KILN_QMODE_SCALAR, 1, 4));
    KILN_TRY(kiln_q_check_param(binding_bytes[7], KILN_QMODE_SCALAR, 1, 1));
  } else if (ip[QM_A_SCALE] != KILN_QMODE_NONE || ip[QM_B_SCALE] != KILN_QMODE_NONE) {
    return KILN_ERR_INVALID_ARGUMENT;
  }
  int64_t dims[KILN_MAX_RANK + 2], strides[KILN_MAX_RANK + 2], bytes, count;
  for (int64_t d = 0; d < R; ++d) dims[d] = ip[QM_HEAD + d], strides[d] = ip[KILN_IP_QMATMUL_A_BATCH_STRIDES(R) + d];
  dims[R] = M, dims[R + 1] = K, strides[R] = K, strides[R + 1] = 1;
  KILN_TRY(kiln_view_bytes(R + 2, dims, strides, 0, 1, &bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[0], bytes));
  for (int64_t d = 0; d < R; ++d) strides[d] = ip[KILN_IP_QMATMUL_B_BATCH_STRIDES(R) + d];
  dims[R] = K, dims[R + 1] = N, strides[R] = N, strides[R + 1] = 1;
  KILN_TRY(kiln_view_bytes(R + 2, dims, strides, 0, 1, &bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[1], bytes));
  dims[R] = M, dims[R + 1] = N;
  KILN_TRY(kiln_checked_product(dims, R + 2, &count));
  KILN_TRY(kiln_dense_bytes(count, requant ? 1 : 4, &bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[8], bytes));
  /* The batch loop, then M x N x K: zero batch strides or K = 0 leave parts
   * of it bounded by no binding. */
  int64_t work[KILN_MAX_RANK + 3];
  for (int64_t d = 0; d < R + 2; ++d) work[d] = dims[d];
  work[R + 2] = K;
  return kiln_check_work(work, R + 3);
}
