/* gemm_f32, gemm_pb_f32 and matmul_f32: thin wrappers that describe their
 * operands to the blocked GEMM in sgemm.h. */
#include <stdint.h>

#include "check_util.h"
#include "kiln/kernel_params.h"
#include "kiln/kernels.h"
#include "sgemm.h"

enum {
  G_M = KILN_IP_GEMM_F32_M,
  G_N = KILN_IP_GEMM_F32_N,
  G_K = KILN_IP_GEMM_F32_K,
  G_TRANS_A = KILN_IP_GEMM_F32_TRANS_A,
  G_TRANS_B = KILN_IP_GEMM_F32_TRANS_B,
  G_HAS_C = KILN_IP_GEMM_F32_HAS_C,
  G_CSM = KILN_IP_GEMM_F32_C_STRIDE_M,
  G_CSN = KILN_IP_GEMM_F32_C_STRIDE_N,
  G_ACT = KILN_IP_GEMM_F32_ACTIVATION,
  G_COUNT = KILN_GEMM_F32_IPARAMS
};
_Static_assert(KILN_IP_GEMM_PB_F32_M == (int)G_M && KILN_IP_GEMM_PB_F32_N == (int)G_N &&
                   KILN_IP_GEMM_PB_F32_K == (int)G_K &&
                   KILN_IP_GEMM_PB_F32_TRANS_A == (int)G_TRANS_A &&
                   KILN_IP_GEMM_PB_F32_TRANS_B == (int)G_TRANS_B &&
                   KILN_IP_GEMM_PB_F32_HAS_C == (int)G_HAS_C &&
                   KILN_IP_GEMM_PB_F32_C_STRIDE_M == (int)G_CSM &&
                   KILN_IP_GEMM_PB_F32_C_STRIDE_N == (int)G_CSN &&
                   KILN_IP_GEMM_PB_F32_ACTIVATION == (int)G_ACT &&
                   KILN_GEMM_PB_F32_IPARAMS == (int)G_COUNT &&
                   KILN_FP_GEMM_PB_F32_ALPHA == KILN_FP_GEMM_F32_ALPHA &&
                   KILN_FP_GEMM_PB_F32_BETA == KILN_FP_GEMM_F32_BETA &&
                   KILN_FP_GEMM_PB_F32_ACT_ALPHA == KILN_FP_GEMM_F32_ACT_ALPHA &&
                   KILN_FP_GEMM_PB_F32_ACT_BETA == KILN_FP_GEMM_F32_ACT_BETA &&
                   KILN_GEMM_PB_F32_FPARAMS == KILN_GEMM_F32_FPARAMS,
               "gemm_pb_f32 has gemm_f32's parameters");

/* The parts gemm_f32 and gemm_pb_f32 share: A, C, Y and the epilogue. */
static void gemm_describe(const int64_t* ip, const float* fp, void* const* bindings,
                          kiln_gemm_desc* d) {
  const int64_t M = ip[G_M], K = ip[G_K];
  d->M = M, d->N = ip[G_N], d->K = K;
  d->a = (const float*)bindings[0];
  d->a_rs = ip[G_TRANS_A] ? 1 : K;
  d->a_cs = ip[G_TRANS_A] ? M : 1;
  d->a_im2col = NULL;
  d->b_packed = NULL, d->im2col = NULL, d->b = NULL, d->b_rs = 0, d->b_cs = 0;
  d->y = (float*)bindings[3];
  d->y_rs = d->N;
  d->ep.alpha = fp[KILN_FP_GEMM_F32_ALPHA], d->ep.beta = fp[KILN_FP_GEMM_F32_BETA];
  d->ep.c = ip[G_HAS_C] ? (const float*)bindings[2] : NULL;
  d->ep.c_rs = ip[G_CSM], d->ep.c_cs = ip[G_CSN];
  d->ep.r = NULL, d->ep.r_rs = 0;
  d->ep.act = ip[G_ACT], d->ep.act_alpha = fp[KILN_FP_GEMM_F32_ACT_ALPHA],
  d->ep.act_beta = fp[KILN_FP_GEMM_F32_ACT_BETA];
}

int kiln_gemm_f32(const int64_t* ip, const float* fp, void* const* bindings,
                  const kiln_host* host) {
  kiln_gemm_desc d;
  gemm_describe(ip, fp, bindings, &d);
  d.b = (const float*)bindings[1];
  d.b_rs = ip[G_TRANS_B] ? 1 : d.N;
  d.b_cs = ip[G_TRANS_B] ? d.K : 1;
  kiln_sgemm(&d, host);
  return KILN_OK;
}

/* The blocked GEMM's work, `batch` times: M x N x K multiply-adds, or an
 * M x N zero fill when K == 0; nothing when M or N is 0 (kiln_sgemm returns
 * at once, though a batch loop around it still counts). Each operand is
 * bounded by its binding, but their product is not. */
static int gemm_work(int64_t batch, int64_t M, int64_t N, int64_t K) {
  const int64_t empty[2] = {batch, 0};
  const int64_t loops[4] = {batch, M, N, K > 0 ? K : 1};
  if (M == 0 || N == 0) return kiln_check_work(empty, 2);
  return kiln_check_work(loops, 4);
}

/* Everything but B's bytes, which the two gemm forms count differently. */
static int gemm_check_common(const int64_t* ip, uint32_t iparam_count, const float* fp,
                             uint32_t fparam_count, const uint64_t* binding_bytes) {
  KILN_TRY(
      kiln_check_counts(ip, iparam_count, G_COUNT, fp, fparam_count, KILN_GEMM_F32_FPARAMS));
  KILN_TRY(kiln_check_nonneg(ip, G_COUNT));
  KILN_TRY(kiln_check_enum(ip[G_TRANS_A], 0, 1));
  KILN_TRY(kiln_check_enum(ip[G_TRANS_B], 0, 1));
  KILN_TRY(kiln_check_enum(ip[G_HAS_C], 0, 1));
  KILN_TRY(kiln_check_enum(ip[G_ACT], KILN_ACT_NONE, KILN_ACT_LAST));
  const int64_t M = ip[G_M], N = ip[G_N], K = ip[G_K];
  int64_t count, bytes;
  KILN_TRY(kiln_checked_mul(M, K, &count));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[0], count));
  if (ip[G_HAS_C]) {
    const int64_t dims[2] = {M, N};
    const int64_t strides[2] = {ip[G_CSM], ip[G_CSN]};
    KILN_TRY(kiln_view_bytes(2, dims, strides, 0, 4, &bytes));
    KILN_TRY(kiln_check_binding(binding_bytes[2], bytes));
  }
  KILN_TRY(kiln_checked_mul(M, N, &count));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[3], count));
  KILN_TRY(gemm_work(1, M, N, K));
  /* Row and column offsets the blocked loops form stay in int64. */
  KILN_TRY(kiln_checked_add(N, KILN_GROUP_COLS, &count));
  KILN_TRY(kiln_checked_add(K, KILN_KC, &count));
  return KILN_OK;
}

int kiln_gemm_f32_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                        uint32_t fparam_count, const uint64_t* binding_bytes) {
  KILN_TRY(gemm_check_common(ip, iparam_count, fp, fparam_count, binding_bytes));
  int64_t count;
  KILN_TRY(kiln_checked_mul(ip[G_K], ip[G_N], &count));
  return kiln_check_f32_binding(binding_bytes[1], count);
}

/* Elements of B [K, N] packed into 16-wide panels. */
static int packed_b_count(int64_t K, int64_t N, int64_t* out) {
  const int64_t panels = N / KILN_PANEL + (N % KILN_PANEL != 0);
  int64_t cols;
  KILN_TRY(kiln_checked_mul(panels, KILN_PANEL, &cols));
  return kiln_checked_mul(cols, K, out);
}

int kiln_gemm_pb_f32(const int64_t* ip, const float* fp, void* const* bindings,
                     const kiln_host* host) {
  kiln_gemm_desc d;
  gemm_describe(ip, fp, bindings, &d);
  d.b_packed = (const float*)bindings[1];
  kiln_sgemm(&d, host);
  return KILN_OK;
}

int kiln_gemm_pb_f32_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                           uint32_t fparam_count, const uint64_t* binding_bytes) {
  KILN_TRY(gemm_check_common(ip, iparam_count, fp, fparam_count, binding_bytes));
  if (ip[G_TRANS_B] != 0) return KILN_ERR_INVALID_ARGUMENT; /* packing resolved it */
  int64_t count;
  KILN_TRY(packed_b_count(ip[G_K], ip[G_N], &count));
  return kiln_check_f32_binding(binding_bytes[1], count);
}

/* matmul_f32 iparams: M N K R, then three arrays of R. */
enum {
  MM_M = KILN_IP_MATMUL_F32_M,
  MM_N = KILN_IP_MATMUL_F32_N,
  MM_K = KILN_IP_MATMUL_F32_K,
  MM_R = KILN_IP_MATMUL_F32_R,
  MM_HEAD = KILN_IP_MATMUL_F32_BATCH_DIMS
};

int kiln_matmul_f32(const int64_t* ip, const float* fp, void* const* bindings,
                    const kiln_host* host) {
  (void)fp;
  const int64_t M = ip[MM_M], N = ip[MM_N], K = ip[MM_K], R = ip[MM_R];
  const int64_t* dims = ip + MM_HEAD;
  const int64_t* a_strides = dims + R;
  const int64_t* b_strides = dims + 2 * R;
  const float* A = (const float*)bindings[0];
  const float* B = (const float*)bindings[1];
  float* Y = (float*)bindings[2];

  kiln_gemm_desc d = {0};
  d.M = M, d.N = N, d.K = K;
  d.a_rs = K, d.a_cs = 1, d.b_rs = N, d.b_cs = 1, d.y_rs = N;
  d.ep.alpha = 1.0f, d.ep.act = KILN_ACT_NONE;
  int64_t batch = 1;
  for (int64_t i = 0; i < R; ++i) batch *= dims[i];
  int64_t idx[KILN_MAX_RANK] = {0};
  for (int64_t bi = 0; bi < batch; ++bi) {
    /* Offsets from the index, so no running offset ever leaves the view. */
    int64_t a_off = 0, b_off = 0;
    for (int64_t i = 0; i < R; ++i) {
      a_off += idx[i] * a_strides[i];
      b_off += idx[i] * b_strides[i];
    }
    d.a = A + a_off, d.b = B + b_off, d.y = Y + bi * M * N;
    kiln_sgemm(&d, host);
    for (int64_t i = R - 1; i >= 0; --i) {
      if (++idx[i] < dims[i]) break;
      idx[i] = 0;
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
  KILN_TRY(kiln_check_counts(ip, iparam_count, (uint32_t)KILN_MATMUL_F32_IPARAMS(R), fp,
                             fparam_count, 0));
  KILN_TRY(kiln_check_nonneg(ip, KILN_MATMUL_F32_IPARAMS(R)));
  const int64_t M = ip[MM_M], N = ip[MM_N], K = ip[MM_K];

  /* Each operand is viewed as [batch..., rows, cols] with its batch strides
   * and dense row-major matrices. */
  int64_t dims[KILN_MAX_RANK + 2], strides[KILN_MAX_RANK + 2];
  int64_t bytes, count;
  for (int64_t d = 0; d < R; ++d) dims[d] = ip[MM_HEAD + d];
  for (int64_t d = 0; d < R; ++d) strides[d] = ip[KILN_IP_MATMUL_F32_A_BATCH_STRIDES(R) + d];
  dims[R] = M, dims[R + 1] = K, strides[R] = K, strides[R + 1] = 1;
  KILN_TRY(kiln_view_bytes(R + 2, dims, strides, 0, 4, &bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[0], bytes));
  for (int64_t d = 0; d < R; ++d) strides[d] = ip[KILN_IP_MATMUL_F32_B_BATCH_STRIDES(R) + d];
  dims[R] = K, dims[R + 1] = N, strides[R] = N, strides[R + 1] = 1;
  KILN_TRY(kiln_view_bytes(R + 2, dims, strides, 0, 4, &bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[1], bytes));
  dims[R] = M, dims[R + 1] = N;
  KILN_TRY(kiln_checked_product(dims, R + 2, &count));
  /* Zero batch strides let the batch outgrow A and B, and an empty matrix
   * empties Y, so the batch loop is bounded by no binding. */
  int64_t batch;
  KILN_TRY(kiln_checked_product(dims, R, &batch));
  if (batch > 0) KILN_TRY(gemm_work(batch, M, N, K));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[2], count));
  KILN_TRY(kiln_checked_add(N, KILN_GROUP_COLS, &count));
  KILN_TRY(kiln_checked_add(K, KILN_KC, &count));
  return KILN_OK;
}
