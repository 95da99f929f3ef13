/* nll_loss_f32: NegativeLogLikelihoodLoss, and SoftmaxCrossEntropyLoss when
 * the scores are logits (log-softmax over the class axis is taken first and
 * can be written out as the op's second output). Sums run in double. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check_util.h"
#include "kiln/kernel_params.h"
#include "kiln/kernels.h"

enum {
  L_N = KILN_IP_NLL_LOSS_F32_N,
  L_C = KILN_IP_NLL_LOSS_F32_C,
  L_D = KILN_IP_NLL_LOSS_F32_D,
  L_REDUCTION = KILN_IP_NLL_LOSS_F32_REDUCTION,
  L_IGNORE = KILN_IP_NLL_LOSS_F32_IGNORE_INDEX,
  L_HAS_WEIGHT = KILN_IP_NLL_LOSS_F32_HAS_WEIGHT,
  L_TARGET_BYTES = KILN_IP_NLL_LOSS_F32_TARGET_BYTES,
  L_LOGITS = KILN_IP_NLL_LOSS_F32_LOGITS,
  L_HAS_LOG_PROB = KILN_IP_NLL_LOSS_F32_HAS_LOG_PROB,
  L_COUNT = KILN_NLL_LOSS_F32_IPARAMS
};
_Static_assert(L_C == L_N + 1 && L_D == L_N + 2, "N, C and D are consecutive (the checker)");

static int64_t load_target(const void* p, int64_t bytes, int64_t k) {
  if (bytes == 4) {
    int32_t v;
    memcpy(&v, (const unsigned char*)p + k * 4, 4);
    return v;
  }
  int64_t v;
  memcpy(&v, (const unsigned char*)p + k * 8, 8);
  return v;
}

int kiln_nll_loss_f32(const int64_t* ip, const float* fp, void* const* bindings,
                      const kiln_host* host) {
  (void)fp;
  (void)host;
  const int64_t N = ip[L_N], C = ip[L_C], D = ip[L_D], red = ip[L_REDUCTION];
  const int64_t ignore = ip[L_IGNORE], tb = ip[L_TARGET_BYTES];
  const float* x = (const float*)bindings[0];
  const void* target = bindings[1];
  const float* weight = ip[L_HAS_WEIGHT] ? (const float*)bindings[2] : NULL;
  float* loss = (float*)bindings[3];
  float* log_prob = ip[L_HAS_LOG_PROB] ? (float*)bindings[4] : NULL;
  const int logits = ip[L_LOGITS] != 0;
  double total = 0, wsum = 0;
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t d = 0; d < D; ++d) {
      const float* row = x + n * C * D + d; /* class c at row[c * D] */
      double lse = 0;
      if (logits && C > 0) {
        double mx = row[0];
        for (int64_t c = 1; c < C; ++c) mx = row[c * D] > mx ? row[c * D] : mx;
        double s = 0;
        for (int64_t c = 0; c < C; ++c) s += exp(row[c * D] - mx);
        lse = mx + log(s);
        if (log_prob)
          for (int64_t c = 0; c < C; ++c)
            log_prob[n * C * D + c * D + d] = (float)(row[c * D] - lse);
      }
      const int64_t t = load_target(target, tb, n * D + d);
      double l = 0, w = 0;
      if (t != ignore) {
        if (t < 0 || t >= C) return KILN_ERR_OUT_OF_RANGE; /* a class index outside [0, C) */
        w = weight ? weight[t] : 1.0;
        l = -(row[t * D] - lse) * w;
      }
      if (red == 0) loss[n * D + d] = (float)l;
      total += l;
      wsum += w;
    }
  }
  if (red == 1) loss[0] = (float)total;
  if (red == 2) loss[0] = (float)(total / wsum);
  return KILN_OK;
}

int kiln_nll_loss_f32_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                            uint32_t fparam_count, const uint64_t* binding_bytes) {
  KILN_TRY(kiln_check_counts(ip, iparam_count, L_COUNT, fp, fparam_count, 0));
  KILN_TRY(kiln_check_nonneg(ip + L_N, 3));
  KILN_TRY(kiln_check_enum(ip[L_REDUCTION], 0, 2));
  KILN_TRY(kiln_check_enum(ip[L_HAS_WEIGHT], 0, 1));
  KILN_TRY(kiln_check_enum(ip[L_LOGITS], 0, 1));
  KILN_TRY(kiln_check_enum(ip[L_HAS_LOG_PROB], 0, 1));
  if (ip[L_TARGET_BYTES] != 4 && ip[L_TARGET_BYTES] != 8) return KILN_ERR_INVALID_ARGUMENT;
  if (ip[L_HAS_LOG_PROB] && !ip[L_LOGITS]) return KILN_ERR_INVALID_ARGUMENT;
  /* N x D x C: D == 0 leaves the outer loop bounded by no binding. */
  KILN_TRY(kiln_check_work(ip + L_N, 3));
  int64_t nd, ncd, bytes;
  KILN_TRY(kiln_checked_mul(ip[L_N], ip[L_D], &nd));
  KILN_TRY(kiln_checked_mul(nd, ip[L_C], &ncd));
  KILN_TRY(kiln_dense_bytes(ncd, 4, &bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[0], bytes));
  KILN_TRY(kiln_dense_bytes(nd, ip[L_TARGET_BYTES], &bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[1], bytes));
  if (ip[L_HAS_WEIGHT]) {
    KILN_TRY(kiln_dense_bytes(ip[L_C], 4, &bytes));
    KILN_TRY(kiln_check_binding(binding_bytes[2], bytes));
  }
  KILN_TRY(kiln_dense_bytes(ip[L_REDUCTION] == 0 ? nd : 1, 4, &bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[3], bytes));
  if (ip[L_HAS_LOG_PROB]) {
    KILN_TRY(kiln_dense_bytes(ncd, 4, &bytes));
    KILN_TRY(kiln_check_binding(binding_bytes[4], bytes));
  }
  return KILN_OK;
}
