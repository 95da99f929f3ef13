/* qconv2d: integer 2-D convolution for ConvInteger and QLinearConv, with
 * groups, strides, dilations and begin pads (end pads implied by OH/OW):
 *   acc[n,oc,oh,ow] = bias[oc] + sum (X - x_zp) * (W - w_zp[oc])   (exact, int64)
 * Taps in the padding read x_zp (so add nothing), as ONNX specifies.
 * y_dtype int32 stores acc; uint8/int8 requantizes: y = saturate(
 * round_half_even(acc * x_scale * w_scale[oc] / y_scale) + y_zp).
 * 1-D convolution uses H = KH = 1. */
#include <stdint.h>
#include <string.h>

#include "check_util.h"
#include "kiln/kernel_params.h"
#include "kiln/kernels.h"
#include "quant_util.h"

enum {
  QC_X_DTYPE = KILN_IP_QCONV2D_X_DTYPE,
  QC_W_DTYPE = KILN_IP_QCONV2D_W_DTYPE,
  QC_Y_DTYPE = KILN_IP_QCONV2D_Y_DTYPE,
  QC_N = KILN_IP_QCONV2D_N,
  QC_C = KILN_IP_QCONV2D_C,
  QC_H = KILN_IP_QCONV2D_H,
  QC_W = KILN_IP_QCONV2D_W,
  QC_OC = KILN_IP_QCONV2D_OC,
  QC_OH = KILN_IP_QCONV2D_OH,
  QC_OW = KILN_IP_QCONV2D_OW,
  QC_KH = KILN_IP_QCONV2D_KH,
  QC_KW = KILN_IP_QCONV2D_KW,
  QC_SH = KILN_IP_QCONV2D_STRIDE_H,
  QC_SW = KILN_IP_QCONV2D_STRIDE_W,
  QC_PT = KILN_IP_QCONV2D_PAD_TOP,
  QC_PL = KILN_IP_QCONV2D_PAD_LEFT,
  QC_DH = KILN_IP_QCONV2D_DILATION_H,
  QC_DW = KILN_IP_QCONV2D_DILATION_W,
  QC_GROUPS = KILN_IP_QCONV2D_GROUPS,
  QC_X_ZP = KILN_IP_QCONV2D_X_ZP_MODE,
  QC_W_ZP = KILN_IP_QCONV2D_W_ZP_MODE,
  QC_W_SCALE = KILN_IP_QCONV2D_W_SCALE_MODE,
  QC_HAS_BIAS = KILN_IP_QCONV2D_HAS_BIAS,
  QC_COUNT = KILN_QCONV2D_IPARAMS
};
/* The checker reads each (height, width) pair as QC_OH + d, d < 2. */
_Static_assert(QC_OW == QC_OH + 1 && QC_KW == QC_KH + 1 && QC_SW == QC_SH + 1 &&
                   QC_DW == QC_DH + 1,
               "each height parameter is followed by its width one");

int kiln_qconv2d(const int64_t* ip, const float* fp, void* const* bindings, const kiln_host* host) {
  (void)fp;
  (void)host;
  const int64_t tx = ip[QC_X_DTYPE], tw = ip[QC_W_DTYPE], ty = ip[QC_Y_DTYPE];
  const int64_t C = ip[QC_C], H = ip[QC_H], W = ip[QC_W], OC = ip[QC_OC];
  const int64_t OH = ip[QC_OH], OW = ip[QC_OW], KH = ip[QC_KH], KW = ip[QC_KW];
  const int64_t G = ip[QC_GROUPS], cg = C / G, ocg = OC / G;
  const void *X = bindings[0], *Wt = bindings[1];
  const int requant = ty != KILN_DTYPE_I32;
  const int64_t x_zp = kiln_q_zero(bindings[2], tx, ip[QC_X_ZP], 0);
  const double x_scale = requant ? kiln_q_scale(bindings[4], KILN_QMODE_SCALAR, 0) : 1.0;
  const double y_scale = requant ? kiln_q_scale(bindings[6], KILN_QMODE_SCALAR, 0) : 1.0;
  const int64_t y_zp = requant ? kiln_q_zero(bindings[7], ty, KILN_QMODE_SCALAR, 0) : 0;
  for (int64_t n = 0; n < ip[QC_N]; ++n) {
    for (int64_t oc = 0; oc < OC; ++oc) {
      const int64_t g = oc / ocg;
      const int64_t w_zp = kiln_q_zero(bindings[3], tw, ip[QC_W_ZP], oc);
      const int64_t bias =
          ip[QC_HAS_BIAS] ? kiln_q_load(bindings[8], KILN_DTYPE_I32, oc) : 0;
      const double s = requant ? x_scale * kiln_q_scale(bindings[5], ip[QC_W_SCALE], oc) / y_scale
                               : 1.0;
      for (int64_t oh = 0; oh < OH; ++oh) {
        for (int64_t ow = 0; ow < OW; ++ow) {
          int64_t acc = bias;
          for (int64_t ci = 0; ci < cg; ++ci) {
            const int64_t xc = (n * C + g * cg + ci) * H * W;
            const int64_t wc = ((oc * cg) + ci) * KH * KW;
            for (int64_t kh = 0; kh < KH; ++kh) {
              const int64_t h = oh * ip[QC_SH] - ip[QC_PT] + kh * ip[QC_DH];
              if (h < 0 || h >= H) continue;
              for (int64_t kw = 0; kw < KW; ++kw) {
                const int64_t w = ow * ip[QC_SW] - ip[QC_PL] + kw * ip[QC_DW];
                if (w < 0 || w >= W) continue;
                acc += (kiln_q_load(X, tx, xc + h * W + w) - x_zp) *
                       (kiln_q_load(Wt, tw, wc + kh * KW + kw) - w_zp);
              }
            }
          }
          const int64_t o = ((n * OC + oc) * OH + oh) * OW + ow;
          if (!requant) {
            kiln_store_bits(bindings[9], KILN_DTYPE_I32, o, (uint64_t)acc);
          } else {
            kiln_q_store(bindings[9], ty, o, kiln_round_half_even((double)acc * s) + (double)y_zp);
          }
        }
      }
    }
  }
  return KILN_OK;
}

int kiln_qconv2d_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                       uint32_t fparam_count, const uint64_t* binding_bytes) {
  KILN_TRY(kiln_check_counts(ip, iparam_count, QC_COUNT, fp, fparam_count, 0));
  KILN_TRY(kiln_check_nonneg(ip, QC_COUNT));
  const int64_t ty = ip[QC_Y_DTYPE], G = ip[QC_GROUPS];
  KILN_TRY(kiln_q_check_dtype8(ip[QC_X_DTYPE]));
  KILN_TRY(kiln_q_check_dtype8(ip[QC_W_DTYPE]));
  const int requant = ty != KILN_DTYPE_I32;
  if (requant) KILN_TRY(kiln_q_check_dtype8(ty));
  KILN_TRY(kiln_check_enum(ip[QC_HAS_BIAS], 0, 1));
  if (G < 1 || ip[QC_C] % G != 0 || ip[QC_OC] % G != 0) return KILN_ERR_INVALID_ARGUMENT;
  KILN_TRY(kiln_check_enum(ip[QC_X_ZP], KILN_QMODE_NONE, KILN_QMODE_SCALAR));
  KILN_TRY(kiln_q_check_param(binding_bytes[2], ip[QC_X_ZP], 1, 1));
  KILN_TRY(kiln_q_check_param(binding_bytes[3], ip[QC_W_ZP], ip[QC_OC], 1));
  if (requant) {
    KILN_TRY(kiln_q_check_param(binding_bytes[4], KILN_QMODE_SCALAR, 1, 4));
    KILN_TRY(kiln_check_enum(ip[QC_W_SCALE], KILN_QMODE_SCALAR, KILN_QMODE_VECTOR));
    KILN_TRY(kiln_q_check_param(binding_bytes[5], ip[QC_W_SCALE], ip[QC_OC], 4));
    KILN_TRY(kiln_q_check_param(binding_bytes[6], KILN_QMODE_SCALAR, 1, 4));
    KILN_TRY(kiln_q_check_param(binding_bytes[7], KILN_QMODE_SCALAR, 1, 1));
  } else if (ip[QC_W_SCALE] != KILN_QMODE_NONE) {
    return KILN_ERR_INVALID_ARGUMENT;
  }
  if (ip[QC_HAS_BIAS]) KILN_TRY(kiln_q_check_param(binding_bytes[8], KILN_QMODE_VECTOR, ip[QC_OC], 4));
  /* Tap offsets (oh*stride + kh*dilation) must stay inside int64. */
  for (int d = 0; d < 2; ++d) {
    int64_t a, b, reach;
    KILN_TRY(kiln_checked_mul(ip[QC_OH + d], ip[QC_SH + d], &a));
    KILN_TRY(kiln_checked_mul(ip[QC_KH + d], ip[QC_DH + d], &b));
    KILN_TRY(kiln_checked_add(a, b, &reach));
  }
  const int64_t xd[4] = {ip[QC_N], ip[QC_C], ip[QC_H], ip[QC_W]};
  const int64_t wd[4] = {ip[QC_OC], ip[QC_C] / G, ip[QC_KH], ip[QC_KW]};
  const int64_t yd[4] = {ip[QC_N], ip[QC_OC], ip[QC_OH], ip[QC_OW]};
  int64_t count, bytes;
  KILN_TRY(kiln_checked_product(xd, 4, &count));
  KILN_TRY(kiln_check_binding(binding_bytes[0], count));
  KILN_TRY(kiln_checked_product(wd, 4, &count));
  KILN_TRY(kiln_check_binding(binding_bytes[1], count));
  KILN_TRY(kiln_checked_product(yd, 4, &count));
  KILN_TRY(kiln_dense_bytes(count, requant ? 1 : 4, &bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[9], bytes));
  const int64_t work[7] = {ip[QC_N], ip[QC_OC], ip[QC_OH], ip[QC_OW], ip[QC_C] / G, ip[QC_KH],
                           ip[QC_KW]};
  return kiln_check_work(work, 7);
}
