/* det_f32: determinants of a batch of square float32 matrices by LU
 * factorisation with partial pivoting in double. The matrix is copied to a
 * stack buffer (kernels allocate nothing), so its order is bounded by
 * KILN_DET_MAX_ORDER; the checker refuses larger ones. */
#include <math.h>
#include <stdint.h>

#include "check_util.h"
#include "kiln/kernel_params.h"
#include "kiln/kernels.h"

#define KILN_DET_MAX_ORDER 32

int kiln_det_f32(const int64_t* ip, const float* fp, void* const* bindings,
                 const kiln_host* host) {
  (void)fp;
  (void)host;
  const int64_t batch = ip[KILN_IP_DET_F32_BATCH], m = ip[KILN_IP_DET_F32_M];
  const float* x = (const float*)bindings[0];
  float* y = (float*)bindings[1];
  double a[KILN_DET_MAX_ORDER * KILN_DET_MAX_ORDER];
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t i = 0; i < m * m; ++i) a[i] = x[b * m * m + i];
    double det = 1.0;
    for (int64_t c = 0; c < m; ++c) {
      int64_t piv = c;
      for (int64_t r = c + 1; r < m; ++r)
        if (fabs(a[r * m + c]) > fabs(a[piv * m + c])) piv = r;
      if (a[piv * m + c] == 0.0) {
        det = 0.0;
        break;
      }
      if (piv != c) {
        for (int64_t k = 0; k < m; ++k) {
          const double t = a[c * m + k];
          a[c * m + k] = a[piv * m + k];
          a[piv * m + k] = t;
        }
        det = -det;
      }
      det *= a[c * m + c];
      for (int64_t r = c + 1; r < m; ++r) {
        const double f = a[r * m + c] / a[c * m + c];
        for (int64_t k = c; k < m; ++k) a[r * m + k] -= f * a[c * m + k];
      }
    }
    y[b] = (float)det;
  }
  return KILN_OK;
}

int kiln_det_f32_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                       uint32_t fparam_count, const uint64_t* binding_bytes) {
  KILN_TRY(kiln_check_counts(ip, iparam_count, KILN_DET_F32_IPARAMS, fp, fparam_count, 0));
  KILN_TRY(kiln_check_nonneg(ip, KILN_DET_F32_IPARAMS));
  if (ip[KILN_IP_DET_F32_M] > KILN_DET_MAX_ORDER) return KILN_ERR_UNIMPLEMENTED;
  /* Work is bounded by Y (one determinant per batch entry, even at order
   * 0) times at most 32^3 per matrix. */
  int64_t count, bytes;
  KILN_TRY(kiln_checked_mul(ip[KILN_IP_DET_F32_BATCH],
                            ip[KILN_IP_DET_F32_M] * ip[KILN_IP_DET_F32_M], &count));
  KILN_TRY(kiln_dense_bytes(count, 4, &bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[0], bytes));
  KILN_TRY(kiln_dense_bytes(ip[KILN_IP_DET_F32_BATCH], 4, &bytes));
  return kiln_check_binding(binding_bytes[1], bytes);
}
