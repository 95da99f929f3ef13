/* Normalisations: layer_norm_f32, instance_norm_f32, lp_norm_f32, lrn_f32,
 * and hardmax_f32. Statistics accumulate in double (two passes: mean, then
 * centred squares) so they match float64 references closely; eight
 * interleaved partial sums give compilers independent lanes to vectorize
 * (the order is fixed by the code, the same on every path). */
#include <math.h>
#include <stdint.h>

#include "check_util.h"
#include "kiln/kernel_params.h"
#include "kiln/kernels.h"

/* Each checker reads the leading sizes as one array (their product). */
_Static_assert(KILN_IP_LAYER_NORM_F32_N == KILN_IP_LAYER_NORM_F32_OUTER + 1 &&
                   KILN_IP_INSTANCE_NORM_F32_C == KILN_IP_INSTANCE_NORM_F32_N + 1 &&
                   KILN_IP_INSTANCE_NORM_F32_SPATIAL == KILN_IP_INSTANCE_NORM_F32_N + 2 &&
                   KILN_IP_LP_NORM_F32_N == KILN_IP_LP_NORM_F32_OUTER + 1 &&
                   KILN_IP_LP_NORM_F32_INNER == KILN_IP_LP_NORM_F32_OUTER + 2 &&
                   KILN_IP_LRN_F32_C == KILN_IP_LRN_F32_N + 1 &&
                   KILN_IP_LRN_F32_SPATIAL == KILN_IP_LRN_F32_N + 2 &&
                   KILN_IP_HARDMAX_F32_N == KILN_IP_HARDMAX_F32_OUTER + 1 &&
                   KILN_IP_HARDMAX_F32_INNER == KILN_IP_HARDMAX_F32_OUTER + 2,
               "the sizes the checkers multiply are consecutive");

/* Mean and 1/sqrt(variance + eps) of x[0..n) (n >= 1). */
static void moments(const float* x, int64_t n, float eps, double* mean, double* inv_std) {
  double s[8] = {0.0}, q[8] = {0.0};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int k = 0; k < 8; ++k) s[k] += (double)x[i + k];
  double sum = ((s[0] + s[4]) + (s[1] + s[5])) + ((s[2] + s[6]) + (s[3] + s[7]));
  for (; i < n; ++i) sum += x[i];
  const double m = sum / (double)n;
  for (i = 0; i + 8 <= n; i += 8)
    for (int k = 0; k < 8; ++k) q[k] += ((double)x[i + k] - m) * ((double)x[i + k] - m);
  double sq = ((q[0] + q[4]) + (q[1] + q[5])) + ((q[2] + q[6]) + (q[3] + q[7]));
  for (; i < n; ++i) sq += (x[i] - m) * (x[i] - m);
  *mean = m;
  *inv_std = 1.0 / sqrt(sq / (double)n + (double)eps);
}

int kiln_layer_norm_f32(const int64_t* ip, const float* fp, void* const* bindings,
                        const kiln_host* host) {
  (void)host;
  const int64_t outer = ip[KILN_IP_LAYER_NORM_F32_OUTER], n = ip[KILN_IP_LAYER_NORM_F32_N],
                has_bias = ip[KILN_IP_LAYER_NORM_F32_HAS_BIAS],
                has_stats = ip[KILN_IP_LAYER_NORM_F32_HAS_STATS];
  const float* X = (const float*)bindings[0];
  const float* scale = (const float*)bindings[1];
  const float* bias = (const float*)bindings[2];
  float* Y = (float*)bindings[3];
  float* mean_out = (float*)bindings[4];
  float* inv_out = (float*)bindings[5];
  if (n == 0) return KILN_OK;
  for (int64_t o = 0; o < outer; ++o) {
    const float* x = X + o * n;
    float* y = Y + o * n;
    double mean, inv;
    moments(x, n, fp[KILN_FP_LAYER_NORM_F32_EPSILON], &mean, &inv);
    const float m = (float)mean, s = (float)inv;
    if (has_bias) {
      for (int64_t j = 0; j < n; ++j) y[j] = (x[j] - m) * s * scale[j] + bias[j];
    } else {
      for (int64_t j = 0; j < n; ++j) y[j] = (x[j] - m) * s * scale[j];
    }
    if (has_stats) mean_out[o] = m, inv_out[o] = s;
  }
  return KILN_OK;
}

int kiln_layer_norm_f32_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                              uint32_t fparam_count, const uint64_t* binding_bytes) {
  KILN_TRY(kiln_check_counts(ip, iparam_count, KILN_LAYER_NORM_F32_IPARAMS, fp, fparam_count,
                             KILN_LAYER_NORM_F32_FPARAMS));
  KILN_TRY(kiln_check_nonneg(ip, KILN_LAYER_NORM_F32_IPARAMS));
  KILN_TRY(kiln_check_enum(ip[KILN_IP_LAYER_NORM_F32_HAS_BIAS], 0, 1));
  KILN_TRY(kiln_check_enum(ip[KILN_IP_LAYER_NORM_F32_HAS_STATS], 0, 1));
  /* Work is bounded by X: n == 0 returns before the outer loop. */
  int64_t count;
  KILN_TRY(kiln_checked_product(ip + KILN_IP_LAYER_NORM_F32_OUTER, 2, &count));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[0], count));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[1], ip[KILN_IP_LAYER_NORM_F32_N]));
  if (ip[KILN_IP_LAYER_NORM_F32_HAS_BIAS])
    KILN_TRY(kiln_check_f32_binding(binding_bytes[2], ip[KILN_IP_LAYER_NORM_F32_N]));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[3], count));
  if (ip[KILN_IP_LAYER_NORM_F32_HAS_STATS] && ip[KILN_IP_LAYER_NORM_F32_N] > 0) {
    KILN_TRY(kiln_check_f32_binding(binding_bytes[4], ip[KILN_IP_LAYER_NORM_F32_OUTER]));
    KILN_TRY(kiln_check_f32_binding(binding_bytes[5], ip[KILN_IP_LAYER_NORM_F32_OUTER]));
  }
  return KILN_OK;
}

int kiln_instance_norm_f32(const int64_t* ip, const float* fp, void* const* bindings,
                           const kiln_host* host) {
  (void)host;
  const int64_t N = ip[KILN_IP_INSTANCE_NORM_F32_N], C = ip[KILN_IP_INSTANCE_NORM_F32_C],
                spatial = ip[KILN_IP_INSTANCE_NORM_F32_SPATIAL];
  const float* X = (const float*)bindings[0];
  const float* scale = (const float*)bindings[1];
  const float* bias = (const float*)bindings[2];
  float* Y = (float*)bindings[3];
  if (spatial == 0) return KILN_OK;
  for (int64_t p = 0; p < N * C; ++p) {
    const int64_t c = p % C;
    const float* x = X + p * spatial;
    float* y = Y + p * spatial;
    double mean, inv;
    moments(x, spatial, fp[KILN_FP_INSTANCE_NORM_F32_EPSILON], &mean, &inv);
    /* y = x * a + b with a, b folded per plane. */
    const float a = (float)(inv * scale[c]);
    const float b = (float)(bias[c] - mean * inv * scale[c]);
    for (int64_t j = 0; j < spatial; ++j) y[j] = x[j] * a + b;
  }
  return KILN_OK;
}

int kiln_instance_norm_f32_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                                 uint32_t fparam_count, const uint64_t* binding_bytes) {
  KILN_TRY(kiln_check_counts(ip, iparam_count, KILN_INSTANCE_NORM_F32_IPARAMS, fp, fparam_count,
                             KILN_INSTANCE_NORM_F32_FPARAMS));
  KILN_TRY(kiln_check_nonneg(ip, KILN_INSTANCE_NORM_F32_IPARAMS));
  /* Work is bounded by X: spatial == 0 returns before the plane loop. */
  int64_t count;
  KILN_TRY(kiln_checked_product(ip + KILN_IP_INSTANCE_NORM_F32_N, 3, &count));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[0], count));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[1], ip[KILN_IP_INSTANCE_NORM_F32_C]));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[2], ip[KILN_IP_INSTANCE_NORM_F32_C]));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[3], count));
  return KILN_OK;
}

int kiln_lp_norm_f32(const int64_t* ip, const float* fp, void* const* bindings,
                     const kiln_host* host) {
  (void)fp;
  (void)host;
  const int64_t outer = ip[KILN_IP_LP_NORM_F32_OUTER], n = ip[KILN_IP_LP_NORM_F32_N],
                inner = ip[KILN_IP_LP_NORM_F32_INNER], p = ip[KILN_IP_LP_NORM_F32_P];
  const float* X = (const float*)bindings[0];
  float* Y = (float*)bindings[1];
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t j = 0; j < inner; ++j) {
      const float* x = X + o * n * inner + j;
      float* y = Y + o * n * inner + j;
      double acc = 0.0;
      if (p == 1) {
        for (int64_t a = 0; a < n; ++a) acc += fabs((double)x[a * inner]);
      } else {
        for (int64_t a = 0; a < n; ++a) acc += (double)x[a * inner] * x[a * inner];
        acc = sqrt(acc);
      }
      const float norm = (float)acc;
      for (int64_t a = 0; a < n; ++a) y[a * inner] = x[a * inner] / norm;
    }
  }
  return KILN_OK;
}

int kiln_lp_norm_f32_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                           uint32_t fparam_count, const uint64_t* binding_bytes) {
  KILN_TRY(kiln_check_counts(ip, iparam_count, KILN_LP_NORM_F32_IPARAMS, fp, fparam_count, 0));
  KILN_TRY(kiln_check_nonneg(ip, KILN_LP_NORM_F32_IPARAMS));
  KILN_TRY(kiln_check_enum(ip[KILN_IP_LP_NORM_F32_P], 1, 2));
  /* n == 0 leaves outer x inner bounded by no binding. */
  KILN_TRY(kiln_check_work(ip + KILN_IP_LP_NORM_F32_OUTER, 3));
  int64_t count;
  KILN_TRY(kiln_checked_product(ip + KILN_IP_LP_NORM_F32_OUTER, 3, &count));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[0], count));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[1], count));
  return KILN_OK;
}

int kiln_lrn_f32(const int64_t* ip, const float* fp, void* const* bindings,
                 const kiln_host* host) {
  (void)host;
  const int64_t N = ip[KILN_IP_LRN_F32_N], C = ip[KILN_IP_LRN_F32_C],
                spatial = ip[KILN_IP_LRN_F32_SPATIAL], size = ip[KILN_IP_LRN_F32_SIZE];
  const float alpha = fp[KILN_FP_LRN_F32_ALPHA], beta = fp[KILN_FP_LRN_F32_BETA],
              bias = fp[KILN_FP_LRN_F32_BIAS];
  const float* X = (const float*)bindings[0];
  float* Y = (float*)bindings[1];
  const int64_t lo = (size - 1) / 2, hi = size - 1 - lo; /* floor / ceil halves */
  const double scale = (double)alpha / (double)size;
  for (int64_t b = 0; b < N; ++b) {
    for (int64_t c = 0; c < C; ++c) {
      const int64_t c0 = c - lo < 0 ? 0 : c - lo;
      const int64_t c1 = c + hi > C - 1 ? C - 1 : c + hi;
      const float* x = X + (b * C + c) * spatial;
      float* y = Y + (b * C + c) * spatial;
      for (int64_t j = 0; j < spatial; ++j) {
        double sq = 0.0;
        for (int64_t k = c0; k <= c1; ++k) {
          const double v = X[(b * C + k) * spatial + j];
          sq += v * v;
        }
        y[j] = (float)(x[j] / pow((double)bias + scale * sq, (double)beta));
      }
    }
  }
  return KILN_OK;
}

int kiln_lrn_f32_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                       uint32_t fparam_count, const uint64_t* binding_bytes) {
  KILN_TRY(kiln_check_counts(ip, iparam_count, KILN_LRN_F32_IPARAMS, fp, fparam_count,
                             KILN_LRN_F32_FPARAMS));
  KILN_TRY(kiln_check_nonneg(ip, KILN_LRN_F32_IPARAMS));
  if (ip[KILN_IP_LRN_F32_SIZE] < 1) return KILN_ERR_INVALID_ARGUMENT;
  /* N x C x spatial, each summing at most min(size, C) channels; spatial ==
   * 0 (or C == 0) leaves the outer loops bounded by no binding. */
  const int64_t loops[4] = {
      ip[KILN_IP_LRN_F32_N], ip[KILN_IP_LRN_F32_C], ip[KILN_IP_LRN_F32_SPATIAL],
      ip[KILN_IP_LRN_F32_SIZE] < ip[KILN_IP_LRN_F32_C] ? ip[KILN_IP_LRN_F32_SIZE]
                                                       : ip[KILN_IP_LRN_F32_C]};
  KILN_TRY(kiln_check_work(loops, 4));
  int64_t count;
  KILN_TRY(kiln_checked_product(ip + KILN_IP_LRN_F32_N, 3, &count));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[0], count));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[1], count));
  return KILN_OK;
}

int kiln_hardmax_f32(const int64_t* ip, const float* fp, void* const* bindings,
                     const kiln_host* host) {
  (void)fp;
  (void)host;
  const int64_t outer = ip[KILN_IP_HARDMAX_F32_OUTER], n = ip[KILN_IP_HARDMAX_F32_N],
                inner = ip[KILN_IP_HARDMAX_F32_INNER];
  const float* X = (const float*)bindings[0];
  float* Y = (float*)bindings[1];
  if (n == 0) return KILN_OK;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t j = 0; j < inner; ++j) {
      const float* x = X + o * n * inner + j;
      float* y = Y + o * n * inner + j;
      int64_t at = 0;
      for (int64_t a = 1; a < n; ++a)
        if (x[a * inner] > x[at * inner]) at = a;
      for (int64_t a = 0; a < n; ++a) y[a * inner] = a == at ? 1.0f : 0.0f;
    }
  }
  return KILN_OK;
}

int kiln_hardmax_f32_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                           uint32_t fparam_count, const uint64_t* binding_bytes) {
  KILN_TRY(kiln_check_counts(ip, iparam_count, KILN_HARDMAX_F32_IPARAMS, fp, fparam_count, 0));
  KILN_TRY(kiln_check_nonneg(ip, KILN_HARDMAX_F32_IPARAMS));
  /* inner == 0 leaves the outer loop bounded by no binding. */
  KILN_TRY(kiln_check_work(ip + KILN_IP_HARDMAX_F32_OUTER, 3));
  int64_t count;
  KILN_TRY(kiln_checked_product(ip + KILN_IP_HARDMAX_F32_OUTER, 3, &count));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[0], count));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[1], count));
  return KILN_OK;
}
