/* gemm_f32 and matmul_f32. Rows of the output are accumulated in i-k-j order
 * so the inner loop streams contiguous rows of B and Y; a transposed B is
 * handled as row-by-row dot products instead, which is contiguous too. */
#include <stdint.h>

#include "activation.h"
#include "check_util.h"
#include "kiln/kernels.h"

/* yr[0..N) += sum_k a(k) * B[k, 0..N), where a(k) = scale * A[k * a_step]. */
static void accumulate_row_nn(const float* a, int64_t a_step, float scale,
                              const float* b, int64_t K, int64_t N, float* yr) {
  for (int64_t k = 0; k < K; ++k) {
    const float av = scale * a[k * a_step];
    const float* br = b + k * N;
    for (int64_t n = 0; n < N; ++n) yr[n] += av * br[n];
  }
}

/* yr[n] += scale * dot(a, Bt[n, 0..K)), with a strided by a_step. */
static void accumulate_row_nt(const float* a, int64_t a_step, float scale,
                              const float* bt, int64_t K, int64_t N, float* yr) {
  for (int64_t n = 0; n < N; ++n) {
    const float* br = bt + n * K;
    float acc = 0.0f;
    if (a_step == 1) {
      for (int64_t k = 0; k < K; ++k) acc += a[k] * br[k];
    } else {
      for (int64_t k = 0; k < K; ++k) acc += a[k * a_step] * br[k];
    }
    yr[n] += scale * acc;
  }
}

enum { G_M, G_N, G_K, G_TRANS_A, G_TRANS_B, G_HAS_C, G_CSM, G_CSN, G_ACT, G_COUNT };

int kiln_gemm_f32(const int64_t* ip, const float* fp, void* const* bindings,
                  const kiln_host* host) {
  (void)host;
  const int64_t M = ip[G_M], N = ip[G_N], K = ip[G_K];
  const int64_t trans_a = ip[G_TRANS_A], trans_b = ip[G_TRANS_B];
  const int64_t csm = ip[G_CSM], csn = ip[G_CSN], act = ip[G_ACT];
  const float alpha = fp[0], beta = fp[1];
  const float* A = (const float*)bindings[0];
  const float* B = (const float*)bindings[1];
  const float* C = ip[G_HAS_C] ? (const float*)bindings[2] : NULL;
  float* Y = (float*)bindings[3];

  for (int64_t m = 0; m < M; ++m) {
    float* yr = Y + m * N;
    if (C) {
      const float* cr = C + m * csm;
      if (csn == 1) {
        for (int64_t n = 0; n < N; ++n) yr[n] = beta * cr[n];
      } else if (csn == 0) {
        const float v = beta * cr[0];
        for (int64_t n = 0; n < N; ++n) yr[n] = v;
      } else {
        for (int64_t n = 0; n < N; ++n) yr[n] = beta * cr[n * csn];
      }
    } else {
      for (int64_t n = 0; n < N; ++n) yr[n] = 0.0f;
    }
    /* Row m of op(A): A[m, k] = A[m*K + k], or A[k*M + m] when transposed. */
    const float* ar = trans_a ? A + m : A + m * K;
    const int64_t a_step = trans_a ? M : 1;
    if (trans_b) {
      accumulate_row_nt(ar, a_step, alpha, B, K, N, yr);
    } else {
      accumulate_row_nn(ar, a_step, alpha, B, K, N, yr);
    }
    kiln_activation_inplace(yr, N, act, fp[2], fp[3]);
  }
  return KILN_OK;
}

int kiln_gemm_f32_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                        uint32_t fparam_count, const uint64_t* binding_bytes) {
  KILN_TRY(kiln_check_counts(ip, iparam_count, G_COUNT, fp, fparam_count, 4));
  KILN_TRY(kiln_check_nonneg(ip, G_COUNT));
  KILN_TRY(kiln_check_enum(ip[G_TRANS_A], 0, 1));
  KILN_TRY(kiln_check_enum(ip[G_TRANS_B], 0, 1));
  KILN_TRY(kiln_check_enum(ip[G_HAS_C], 0, 1));
  KILN_TRY(kiln_check_enum(ip[G_ACT], KILN_ACT_NONE, KILN_ACT_LAST));
  const int64_t M = ip[G_M], N = ip[G_N], K = ip[G_K];
  int64_t count, bytes;
  KILN_TRY(kiln_checked_mul(M, K, &count));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[0], count));
  KILN_TRY(kiln_checked_mul(K, N, &count));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[1], count));
  if (ip[G_HAS_C]) {
    const int64_t dims[2] = {M, N};
    const int64_t strides[2] = {ip[G_CSM], ip[G_CSN]};
    KILN_TRY(kiln_view_bytes(2, dims, strides, 0, 4, &bytes));
    KILN_TRY(kiln_check_binding(binding_bytes[2], bytes));
  }
  KILN_TRY(kiln_checked_mul(M, N, &count));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[3], count));
  return KILN_OK;
}

/* matmul_f32 iparams: M N K R, then three arrays of R. */
enum { MM_M, MM_N, MM_K, MM_R, MM_HEAD };

int kiln_matmul_f32(const int64_t* ip, const float* fp, void* const* bindings,
                    const kiln_host* host) {
  (void)fp;
  (void)host;
  const int64_t M = ip[MM_M], N = ip[MM_N], K = ip[MM_K], R = ip[MM_R];
  const int64_t* dims = ip + MM_HEAD;
  const int64_t* a_strides = dims + R;
  const int64_t* b_strides = dims + 2 * R;
  const float* A = (const float*)bindings[0];
  const float* B = (const float*)bindings[1];
  float* Y = (float*)bindings[2];

  int64_t batch = 1;
  for (int64_t d = 0; d < R; ++d) batch *= dims[d];
  int64_t idx[KILN_MAX_RANK] = {0};
  for (int64_t bi = 0; bi < batch; ++bi) {
    /* Offsets from the index, so no running offset ever leaves the view. */
    int64_t a_off = 0, b_off = 0;
    for (int64_t d = 0; d < R; ++d) {
      a_off += idx[d] * a_strides[d];
      b_off += idx[d] * b_strides[d];
    }
    float* yb = Y + bi * M * N;
    for (int64_t m = 0; m < M; ++m) {
      float* yr = yb + m * N;
      for (int64_t n = 0; n < N; ++n) yr[n] = 0.0f;
      accumulate_row_nn(A + a_off + m * K, 1, 1.0f, B + b_off, K, N, yr);
    }
    for (int64_t d = R - 1; d >= 0; --d) {
      if (++idx[d] < dims[d]) break;
      idx[d] = 0;
    }
  }
  return KILN_OK;
}

int kiln_matmul_f32_check(const int64_t* ip, uint32_t iparam_count,
                          const float* fp, uint32_t fparam_count,
                          const uint64_t* binding_bytes) {
  if (iparam_count < MM_HEAD || ip == NULL) return KILN_ERR_INVALID_ARGUMENT;
  const int64_t R = ip[MM_R];
  if (R < 0 || R > KILN_MAX_RANK) return KILN_ERR_INVALID_ARGUMENT;
  KILN_TRY(kiln_check_counts(ip, iparam_count, (uint32_t)(MM_HEAD + 3 * R), fp,
                             fparam_count, 0));
  KILN_TRY(kiln_check_nonneg(ip, MM_HEAD + 3 * R));
  const int64_t M = ip[MM_M], N = ip[MM_N], K = ip[MM_K];

  /* Each operand is viewed as [batch..., rows, cols] with its batch strides
   * and dense row-major matrices. */
  int64_t dims[KILN_MAX_RANK + 2], strides[KILN_MAX_RANK + 2];
  int64_t bytes, count;
  for (int64_t d = 0; d < R; ++d) dims[d] = ip[MM_HEAD + d];
  for (int64_t d = 0; d < R; ++d) strides[d] = ip[MM_HEAD + R + d];
  dims[R] = M, dims[R + 1] = K, strides[R] = K, strides[R + 1] = 1;
  KILN_TRY(kiln_view_bytes(R + 2, dims, strides, 0, 4, &bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[0], bytes));
  for (int64_t d = 0; d < R; ++d) strides[d] = ip[MM_HEAD + 2 * R + d];
  dims[R] = K, dims[R + 1] = N, strides[R] = N, strides[R + 1] = 1;
  KILN_TRY(kiln_view_bytes(R + 2, dims, strides, 0, 4, &bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[1], bytes));
  dims[R] = M, dims[R + 1] = N;
  KILN_TRY(kiln_checked_product(dims, R + 2, &count));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[2], count));
  return KILN_OK;
}
