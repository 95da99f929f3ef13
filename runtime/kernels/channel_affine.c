/* channel_affine_f32: y = x * scale[c] + shift[c] over [N, C, spatial], the
 * form inference BatchNormalization takes once its statistics are folded. */
#include <stdint.h>

#include "activation.h"
#include "check_util.h"
#include "kiln/kernel_params.h"
#include "kiln/kernels.h"

int kiln_channel_affine_f32(const int64_t* ip, const float* fp,
                            void* const* bindings, const kiln_host* host) {
  (void)host;
  const int64_t N = ip[KILN_IP_CHANNEL_AFFINE_F32_N], C = ip[KILN_IP_CHANNEL_AFFINE_F32_C],
                S = ip[KILN_IP_CHANNEL_AFFINE_F32_SPATIAL],
                act = ip[KILN_IP_CHANNEL_AFFINE_F32_ACTIVATION];
  const float* x = (const float*)bindings[0];
  const float* scale = (const float*)bindings[1];
  const float* shift = (const float*)bindings[2];
  float* y = (float*)bindings[3];
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t c = 0; c < C; ++c) {
      const int64_t base = (n * C + c) * S;
      const float a = scale[c], b = shift[c];
      const float* xr = x + base;
      float* yr = y + base;
      for (int64_t i = 0; i < S; ++i) yr[i] = xr[i] * a + b;
      kiln_activation_inplace(yr, S, act, fp[KILN_FP_CHANNEL_AFFINE_F32_ACT_ALPHA],
                              fp[KILN_FP_CHANNEL_AFFINE_F32_ACT_BETA]);
    }
  }
  return KILN_OK;
}

_Static_assert(KILN_IP_CHANNEL_AFFINE_F32_C == KILN_IP_CHANNEL_AFFINE_F32_N + 1 &&
                   KILN_IP_CHANNEL_AFFINE_F32_SPATIAL == KILN_IP_CHANNEL_AFFINE_F32_N + 2,
               "N, C and spatial are consecutive (the checker's product)");

int kiln_channel_affine_f32_check(const int64_t* ip, uint32_t iparam_count,
                                  const float* fp, uint32_t fparam_count,
                                  const uint64_t* binding_bytes) {
  KILN_TRY(kiln_check_counts(ip, iparam_count, KILN_CHANNEL_AFFINE_F32_IPARAMS, fp, fparam_count,
                             KILN_CHANNEL_AFFINE_F32_FPARAMS));
  KILN_TRY(kiln_check_nonneg(ip, KILN_CHANNEL_AFFINE_F32_IPARAMS));
  KILN_TRY(
      kiln_check_enum(ip[KILN_IP_CHANNEL_AFFINE_F32_ACTIVATION], KILN_ACT_NONE, KILN_ACT_LAST));
  /* S == 0 leaves the N x C loops bounded by no binding. */
  KILN_TRY(kiln_check_work(ip + KILN_IP_CHANNEL_AFFINE_F32_N, 3));
  int64_t count;
  KILN_TRY(kiln_checked_product(ip + KILN_IP_CHANNEL_AFFINE_F32_N, 3, &count));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[0], count));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[1], ip[KILN_IP_CHANNEL_AFFINE_F32_C]));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[2], ip[KILN_IP_CHANNEL_AFFINE_F32_C]));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[3], count));
  return KILN_OK;
}
