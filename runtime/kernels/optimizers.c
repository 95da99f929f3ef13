/* optimizers: the ai.onnx.preview.training update rules Adagrad, Adam and
 * Momentum (standard and Nesterov) as inference-time elementwise kernels.
 * One dispatch updates one optimized tensor X with its gradient G and state
 * (H, or V and H); the compiler emits one per tensor of the op's variadic
 * groups. R (float32) and T (int64) are scalars that may arrive at run time,
 * so the scalar factors are computed here, in double as the ONNX reference
 * does, and rounded to float once before the float32 elementwise loop. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check_util.h"
#include "kiln/kernel_params.h"
#include "kiln/kernels.h"

static float opt_load_r(const void* p) {
  float r;
  memcpy(&r, p, sizeof r);
  return r;
}

static int64_t opt_load_t(const void* p) {
  int64_t t;
  memcpy(&t, p, sizeof t);
  return t;
}

int kiln_adagrad_f32(const int64_t* ip, const float* fp, void* const* b,
                     const kiln_host* host) {
  (void)host;
  const int64_t n = ip[KILN_IP_ADAGRAD_F32_N];
  const double t = (double)opt_load_t(b[1]);
  const float norm = fp[KILN_FP_ADAGRAD_F32_NORM_COEFFICIENT],
              eps = fp[KILN_FP_ADAGRAD_F32_EPSILON];
  /* r = R / (1 + T * decay_factor) */
  const float r =
      (float)((double)opt_load_r(b[0]) / (1.0 + t * (double)fp[KILN_FP_ADAGRAD_F32_DECAY_FACTOR]));
  const float* x = (const float*)b[2];
  const float* g = (const float*)b[3];
  const float* h = (const float*)b[4];
  float* x_new = (float*)b[5];
  float* h_new = (float*)b[6];
  for (int64_t k = 0; k < n; ++k) {
    const float gr = norm * x[k] + g[k];
    const float hn = h[k] + gr * gr;
    x_new[k] = x[k] - r * gr / (sqrtf(hn) + eps);
    h_new[k] = hn;
  }
  return KILN_OK;
}

int kiln_adam_f32(const int64_t* ip, const float* fp, void* const* b, const kiln_host* host) {
  (void)host;
  const int64_t n = ip[KILN_IP_ADAM_F32_N];
  const int64_t t = opt_load_t(b[1]);
  const float norm = fp[KILN_FP_ADAM_F32_NORM_COEFFICIENT], alpha = fp[KILN_FP_ADAM_F32_ALPHA],
              beta = fp[KILN_FP_ADAM_F32_BETA], eps = fp[KILN_FP_ADAM_F32_EPSILON];
  const float post = (float)(1.0 - (double)fp[KILN_FP_ADAM_F32_NORM_COEFFICIENT_POST]);
  const float one_minus_alpha = (float)(1.0 - (double)alpha);
  const float one_minus_beta = (float)(1.0 - (double)beta);
  /* Bias correction from the second update on (T > 0). */
  double r = (double)opt_load_r(b[0]);
  if (t > 0) {
    const double td = (double)t;
    r = r * sqrt(1.0 - pow((double)beta, td)) / (1.0 - pow((double)alpha, td));
  }
  const float rf = (float)r;
  const float* x = (const float*)b[2];
  const float* g = (const float*)b[3];
  const float* v = (const float*)b[4];
  const float* h = (const float*)b[5];
  float* x_new = (float*)b[6];
  float* v_new = (float*)b[7];
  float* h_new = (float*)b[8];
  for (int64_t k = 0; k < n; ++k) {
    const float gr = norm * x[k] + g[k];
    const float vn = alpha * v[k] + one_minus_alpha * gr;
    const float hn = beta * h[k] + one_minus_beta * (gr * gr);
    const float xn = x[k] - rf * (vn / (sqrtf(hn) + eps));
    x_new[k] = post * xn;
    v_new[k] = vn;
    h_new[k] = hn;
  }
  return KILN_OK;
}

int kiln_momentum_f32(const int64_t* ip, const float* fp, void* const* b,
                      const kiln_host* host) {
  (void)host;
  const int64_t n = ip[KILN_IP_MOMENTUM_F32_N], nesterov = ip[KILN_IP_MOMENTUM_F32_NESTEROV];
  const float r = opt_load_r(b[0]);
  const float norm = fp[KILN_FP_MOMENTUM_F32_NORM_COEFFICIENT],
              alpha = fp[KILN_FP_MOMENTUM_F32_ALPHA];
  /* The gradient's coefficient is 1 at the first update (T == 0). */
  const float beta = opt_load_t(b[1]) > 0 ? fp[KILN_FP_MOMENTUM_F32_BETA] : 1.0f;
  const float* x = (const float*)b[2];
  const float* g = (const float*)b[3];
  const float* v = (const float*)b[4];
  float* x_new = (float*)b[5];
  float* v_new = (float*)b[6];
  for (int64_t k = 0; k < n; ++k) {
    const float gr = norm * x[k] + g[k];
    const float vn = alpha * v[k] + beta * gr;
    x_new[k] = nesterov ? x[k] - r * (gr + alpha * vn) : x[k] - r * vn;
    v_new[k] = vn;
  }
  return KILN_OK;
}

/* R (one float32) and T (one int64) at bindings 0 and 1, then `tensors`
 * float32 tensors of n elements each. */
static int opt_check_bindings(int64_t n, const uint64_t* bytes, int tensors) {
  KILN_TRY(kiln_check_binding(bytes[0], 4));
  KILN_TRY(kiln_check_binding(bytes[1], 8));
  for (int k = 0; k < tensors; ++k) KILN_TRY(kiln_check_f32_binding(bytes[2 + k], n));
  return KILN_OK;
}

int kiln_adagrad_f32_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                           uint32_t fparam_count, const uint64_t* binding_bytes) {
  KILN_TRY(kiln_check_counts(ip, iparam_count, KILN_ADAGRAD_F32_IPARAMS, fp, fparam_count,
                             KILN_ADAGRAD_F32_FPARAMS));
  KILN_TRY(kiln_check_nonneg(ip, KILN_ADAGRAD_F32_IPARAMS));
  return opt_check_bindings(ip[KILN_IP_ADAGRAD_F32_N], binding_bytes, 5);
}

int kiln_adam_f32_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                        uint32_t fparam_count, const uint64_t* binding_bytes) {
  KILN_TRY(kiln_check_counts(ip, iparam_count, KILN_ADAM_F32_IPARAMS, fp, fparam_count,
                             KILN_ADAM_F32_FPARAMS));
  KILN_TRY(kiln_check_nonneg(ip, KILN_ADAM_F32_IPARAMS));
  return opt_check_bindings(ip[KILN_IP_ADAM_F32_N], binding_bytes, 7);
}

int kiln_momentum_f32_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                            uint32_t fparam_count, const uint64_t* binding_bytes) {
  KILN_TRY(kiln_check_counts(ip, iparam_count, KILN_MOMENTUM_F32_IPARAMS, fp, fparam_count,
                             KILN_MOMENTUM_F32_FPARAMS));
  KILN_TRY(kiln_check_nonneg(ip, KILN_MOMENTUM_F32_IPARAMS));
  KILN_TRY(kiln_check_enum(ip[KILN_IP_MOMENTUM_F32_NESTEROV], 0, 1));
  return opt_check_bindings(ip[KILN_IP_MOMENTUM_F32_N], binding_bytes, 5);
}
