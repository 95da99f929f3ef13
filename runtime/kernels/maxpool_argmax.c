/* maxpool_argmax_f32: 2-D max pooling that also writes where each maximum
 * came from, as ONNX MaxPool's Indices output: the flat index into X of
 * shape [N,C,H,W], row-major ((n*C + c)*H + h)*W + w for storage_order 0,
 * column-major within the plane ((n*C + c)*H*W + w*H + h) for 1. The first
 * maximum in window order wins ties; padded taps are skipped; a window with
 * no real tap gives -inf and index -1. 1-D pooling uses H = KH = 1. */
#include <math.h>
#include <stdint.h>

#include "check_util.h"
#include "kiln/kernel_params.h"
#include "kiln/kernels.h"

enum {
  MA_N = KILN_IP_MAXPOOL_ARGMAX_F32_N,
  MA_C = KILN_IP_MAXPOOL_ARGMAX_F32_C,
  MA_H = KILN_IP_MAXPOOL_ARGMAX_F32_H,
  MA_W = KILN_IP_MAXPOOL_ARGMAX_F32_W,
  MA_OH = KILN_IP_MAXPOOL_ARGMAX_F32_OH,
  MA_OW = KILN_IP_MAXPOOL_ARGMAX_F32_OW,
  MA_KH = KILN_IP_MAXPOOL_ARGMAX_F32_KH,
  MA_KW = KILN_IP_MAXPOOL_ARGMAX_F32_KW,
  MA_SH = KILN_IP_MAXPOOL_ARGMAX_F32_STRIDE_H,
  MA_SW = KILN_IP_MAXPOOL_ARGMAX_F32_STRIDE_W,
  MA_PT = KILN_IP_MAXPOOL_ARGMAX_F32_PAD_TOP,
  MA_PL = KILN_IP_MAXPOOL_ARGMAX_F32_PAD_LEFT,
  MA_DH = KILN_IP_MAXPOOL_ARGMAX_F32_DILATION_H,
  MA_DW = KILN_IP_MAXPOOL_ARGMAX_F32_DILATION_W,
  MA_STORAGE = KILN_IP_MAXPOOL_ARGMAX_F32_STORAGE_ORDER,
  MA_COUNT = KILN_MAXPOOL_ARGMAX_F32_IPARAMS
};
/* The checker reads each (height, width) pair as MA_OH + d, d < 2. */
_Static_assert(MA_OW == MA_OH + 1 && MA_KW == MA_KH + 1 && MA_SW == MA_SH + 1 &&
                   MA_DW == MA_DH + 1,
               "each height parameter is followed by its width one");

int kiln_maxpool_argmax_f32(const int64_t* ip, const float* fp, void* const* bindings,
                            const kiln_host* host) {
  (void)fp;
  (void)host;
  const int64_t H = ip[MA_H], W = ip[MA_W], OH = ip[MA_OH], OW = ip[MA_OW];
  const int64_t planes = ip[MA_N] * ip[MA_C];
  const float* x = (const float*)bindings[0];
  float* y = (float*)bindings[1];
  int64_t* idx = (int64_t*)bindings[2];
  for (int64_t p = 0; p < planes; ++p) {
    const float* xp = x + p * H * W;
    for (int64_t oh = 0; oh < OH; ++oh) {
      for (int64_t ow = 0; ow < OW; ++ow) {
        float best = -INFINITY;
        int64_t at = -1;
        for (int64_t kh = 0; kh < ip[MA_KH]; ++kh) {
          const int64_t h = oh * ip[MA_SH] - ip[MA_PT] + kh * ip[MA_DH];
          if (h < 0 || h >= H) continue;
          for (int64_t kw = 0; kw < ip[MA_KW]; ++kw) {
            const int64_t w = ow * ip[MA_SW] - ip[MA_PL] + kw * ip[MA_DW];
            if (w < 0 || w >= W) continue;
            const float v = xp[h * W + w];
            if (at < 0 || v > best) {
              best = v;
              at = ip[MA_STORAGE] ? w * H + h : h * W + w;
            }
          }
        }
        y[(p * OH + oh) * OW + ow] = best;
        idx[(p * OH + oh) * OW + ow] = at < 0 ? -1 : p * H * W + at;
      }
    }
  }
  return KILN_OK;
}

int kiln_maxpool_argmax_f32_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                                  uint32_t fparam_count, const uint64_t* binding_bytes) {
  KILN_TRY(kiln_check_counts(ip, iparam_count, MA_COUNT, fp, fparam_count, 0));
  KILN_TRY(kiln_check_nonneg(ip, MA_COUNT));
  KILN_TRY(kiln_check_enum(ip[MA_STORAGE], 0, 1));
  /* Taps index x only through the bounds tests above, but offsets like
   * oh*stride + kh*dilation must not overflow. */
  int64_t reach;
  for (int d = 0; d < 2; ++d) {
    const int64_t o = ip[MA_OH + d], k = ip[MA_KH + d], s = ip[MA_SH + d], dl = ip[MA_DH + d];
    int64_t a, b;
    KILN_TRY(kiln_checked_mul(o, s, &a));
    KILN_TRY(kiln_checked_mul(k, dl, &b));
    KILN_TRY(kiln_checked_add(a, b, &reach));
  }
  const int64_t work[6] = {ip[MA_N], ip[MA_C], ip[MA_OH], ip[MA_OW], ip[MA_KH], ip[MA_KW]};
  KILN_TRY(kiln_check_work(work, 6));
  const int64_t in_dims[4] = {ip[MA_N], ip[MA_C], ip[MA_H], ip[MA_W]};
  const int64_t out_dims[4] = {ip[MA_N], ip[MA_C], ip[MA_OH], ip[MA_OW]};
  int64_t in_count, out_count, bytes;
  KILN_TRY(kiln_checked_product(in_dims, 4, &in_count));
  KILN_TRY(kiln_checked_product(out_dims, 4, &out_count));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[0], in_count));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[1], out_count));
  KILN_TRY(kiln_dense_bytes(out_count, 8, &bytes));
  /* Taps in the padding read nothing: at most KILN_MAX_REUSE reads per element. */
  KILN_TRY(kiln_check_reuse(kiln_work_of(work, 6), in_count + out_count));
  return kiln_check_binding(binding_bytes[2], bytes);
}
