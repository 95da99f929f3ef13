/* lp_pool_f32 (LpPool, GlobalLpPool): each output is the p-norm of its
 * window, summed in double. */
#include <math.h>
#include <stdint.h>

#include "check_util.h"
#include "kiln/kernel_params.h"
#include "kiln/kernels.h"

/* lp_pool_f32: y = (sum over the window of |x|^p)^(1/p), padding ignored.
 * iparams (15): N C H W OH OW KH KW stride_h stride_w pad_top pad_left
 *               dilation_h dilation_w p */
enum {
  LP_N = KILN_IP_LP_POOL_F32_N,
  LP_C = KILN_IP_LP_POOL_F32_C,
  LP_H = KILN_IP_LP_POOL_F32_H,
  LP_W = KILN_IP_LP_POOL_F32_W,
  LP_OH = KILN_IP_LP_POOL_F32_OH,
  LP_OW = KILN_IP_LP_POOL_F32_OW,
  LP_KH = KILN_IP_LP_POOL_F32_KH,
  LP_KW = KILN_IP_LP_POOL_F32_KW,
  LP_SH = KILN_IP_LP_POOL_F32_STRIDE_H,
  LP_SW = KILN_IP_LP_POOL_F32_STRIDE_W,
  LP_PT = KILN_IP_LP_POOL_F32_PAD_TOP,
  LP_PL = KILN_IP_LP_POOL_F32_PAD_LEFT,
  LP_DH = KILN_IP_LP_POOL_F32_DILATION_H,
  LP_DW = KILN_IP_LP_POOL_F32_DILATION_W,
  LP_P = KILN_IP_LP_POOL_F32_P,
  LP_COUNT = KILN_LP_POOL_F32_IPARAMS
};

int kiln_lp_pool_f32(const int64_t* ip, const float* fp, void* const* bindings,
                     const kiln_host* host) {
  (void)fp;
  (void)host;
  const int64_t NC = ip[LP_N] * ip[LP_C], H = ip[LP_H], W = ip[LP_W];
  const int64_t OH = ip[LP_OH], OW = ip[LP_OW], KH = ip[LP_KH], KW = ip[LP_KW];
  const double p = (double)ip[LP_P];
  const float* x = (const float*)bindings[0];
  float* y = (float*)bindings[1];
  for (int64_t c = 0; c < NC; ++c) {
    for (int64_t oh = 0; oh < OH; ++oh) {
      for (int64_t ow = 0; ow < OW; ++ow) {
        double acc = 0.0;
        for (int64_t kh = 0; kh < KH; ++kh) {
          const int64_t ih = oh * ip[LP_SH] - ip[LP_PT] + kh * ip[LP_DH];
          if (ih < 0 || ih >= H) continue;
          for (int64_t kw = 0; kw < KW; ++kw) {
            const int64_t iw = ow * ip[LP_SW] - ip[LP_PL] + kw * ip[LP_DW];
            if (iw < 0 || iw >= W) continue;
            const double v = fabs((double)x[(c * H + ih) * W + iw]);
            acc += p == 1.0 ? v : p == 2.0 ? v * v : pow(v, p);
          }
        }
        y[(c * OH + oh) * OW + ow] =
            (float)(p == 1.0 ? acc : p == 2.0 ? sqrt(acc) : pow(acc, 1.0 / p));
      }
    }
  }
  return KILN_OK;
}

int kiln_lp_pool_f32_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                           uint32_t fparam_count, const uint64_t* binding_bytes) {
  KILN_TRY(kiln_check_counts(ip, iparam_count, LP_COUNT, fp, fparam_count, 0));
  KILN_TRY(kiln_check_nonneg(ip, LP_COUNT));
  if (ip[LP_P] < 1 || ip[LP_SH] < 1 || ip[LP_SW] < 1 || ip[LP_DH] < 1 || ip[LP_DW] < 1)
    return KILN_ERR_INVALID_ARGUMENT;
  int64_t t, u;
  KILN_TRY(kiln_checked_mul(ip[LP_OH], ip[LP_SH], &t));
  KILN_TRY(kiln_checked_mul(ip[LP_KH], ip[LP_DH], &u));
  KILN_TRY(kiln_checked_add(t, u, &t));
  KILN_TRY(kiln_checked_mul(ip[LP_OW], ip[LP_SW], &t));
  KILN_TRY(kiln_checked_mul(ip[LP_KW], ip[LP_DW], &u));
  KILN_TRY(kiln_checked_add(t, u, &t));
  const int64_t loops[6] = {ip[LP_N], ip[LP_C], ip[LP_OH], ip[LP_OW], ip[LP_KH], ip[LP_KW]};
  KILN_TRY(kiln_check_work(loops, 6));
  const int64_t xd[4] = {ip[LP_N], ip[LP_C], ip[LP_H], ip[LP_W]};
  const int64_t yd[4] = {ip[LP_N], ip[LP_C], ip[LP_OH], ip[LP_OW]};
  int64_t n;
  KILN_TRY(kiln_checked_product(xd, 4, &n));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[0], n));
  KILN_TRY(kiln_checked_product(yd, 4, &n));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[1], n));
  return KILN_OK;
}
