/* Signal-processing constants computed at run time from scalar inputs:
 *   signal_window: Hann, Hamming or Blackman window of length N
 *     (periodic: denominator N, symmetric: N - 1), as ONNX HannWindow,
 *     HammingWindow, BlackmanWindow;
 *   mel_weight_matrix: ONNX MelWeightMatrix, [dft_length/2 + 1, num_mel_bins]
 *     triangular filters on the mel scale mel(f) = 2595 log10(1 + f/700).
 * The module is compiled for fixed sizes (the declared output shape); a
 * size input that disagrees at run time fails the call. Math in double. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check_util.h"
#include "kiln/kernel_params.h"
#include "kiln/kernels.h"
#include "typed_util.h"

enum {
  SW_KIND = KILN_IP_SIGNAL_WINDOW_KIND,
  SW_N = KILN_IP_SIGNAL_WINDOW_N,
  SW_PERIODIC = KILN_IP_SIGNAL_WINDOW_PERIODIC,
  SW_SIZE_DTYPE = KILN_IP_SIGNAL_WINDOW_SIZE_DTYPE,
  SW_OUT_DTYPE = KILN_IP_SIGNAL_WINDOW_OUT_DTYPE,
  SW_COUNT = KILN_SIGNAL_WINDOW_IPARAMS
};
enum { SW_HANN = 0, SW_HAMMING = 1, SW_BLACKMAN = 2 };

static int sw_int_dtype(int64_t t) { return t == KILN_DTYPE_I32 || t == KILN_DTYPE_I64; }

int kiln_signal_window(const int64_t* ip, const float* fp, void* const* bindings,
                       const kiln_host* host) {
  (void)fp;
  (void)host;
  const int64_t N = ip[SW_N];
  if ((int64_t)kiln_load_bits(bindings[0], ip[SW_SIZE_DTYPE], 0) != N)
    return KILN_ERR_INVALID_ARGUMENT;
  const int64_t denom = ip[SW_PERIODIC] ? N : N - 1;
  const double pi = 3.14159265358979323846;
  for (int64_t n = 0; n < N; ++n) {
    const double a = denom > 0 ? 2.0 * pi * (double)n / (double)denom : 0.0;
    double v;
    if (ip[SW_KIND] == SW_HANN) v = 0.5 - 0.5 * cos(a);
    else if (ip[SW_KIND] == SW_HAMMING) v = 25.0 / 46.0 - (21.0 / 46.0) * cos(a);
    else v = 0.42 - 0.5 * cos(a) + 0.08 * cos(2.0 * a);
    kiln_store_f(bindings[1], ip[SW_OUT_DTYPE], n, v);
  }
  return KILN_OK;
}

int kiln_signal_window_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                             uint32_t fparam_count, const uint64_t* binding_bytes) {
  KILN_TRY(kiln_check_counts(ip, iparam_count, SW_COUNT, fp, fparam_count, 0));
  KILN_TRY(kiln_check_nonneg(ip, SW_COUNT));
  KILN_TRY(kiln_check_enum(ip[SW_KIND], SW_HANN, SW_BLACKMAN));
  KILN_TRY(kiln_check_enum(ip[SW_PERIODIC], 0, 1));
  if (!sw_int_dtype(ip[SW_SIZE_DTYPE]) || !kiln_dtype_is_float(ip[SW_OUT_DTYPE]))
    return KILN_ERR_INVALID_ARGUMENT;
  KILN_TRY(kiln_check_work(ip + SW_N, 1));
  int64_t bytes;
  KILN_TRY(kiln_check_binding(binding_bytes[0], kiln_dtype_size(ip[SW_SIZE_DTYPE])));
  KILN_TRY(kiln_dense_bytes(ip[SW_N], kiln_dtype_size(ip[SW_OUT_DTYPE]), &bytes));
  return kiln_check_binding(binding_bytes[1], bytes);
}

enum {
  MW_BINS = KILN_IP_MEL_WEIGHT_MATRIX_NUM_MEL_BINS,
  MW_SPEC = KILN_IP_MEL_WEIGHT_MATRIX_SPEC_BINS,
  MW_INT_DTYPE = KILN_IP_MEL_WEIGHT_MATRIX_INT_DTYPE,
  MW_FLOAT_DTYPE = KILN_IP_MEL_WEIGHT_MATRIX_FLOAT_DTYPE,
  MW_OUT_DTYPE = KILN_IP_MEL_WEIGHT_MATRIX_OUT_DTYPE,
  MW_COUNT = KILN_MEL_WEIGHT_MATRIX_IPARAMS
};
_Static_assert(MW_SPEC == MW_BINS + 1, "num_mel_bins and spec_bins are consecutive (the checker)");

int kiln_mel_weight_matrix(const int64_t* ip, const float* fp, void* const* bindings,
                           const kiln_host* host) {
  (void)fp;
  (void)host;
  const int64_t B = ip[MW_BINS], S = ip[MW_SPEC], ti = ip[MW_INT_DTYPE];
  const int64_t to = ip[MW_OUT_DTYPE];
  const int64_t bins = (int64_t)kiln_load_bits(bindings[0], ti, 0);
  const int64_t dft = (int64_t)kiln_load_bits(bindings[1], ti, 0);
  const int64_t rate = (int64_t)kiln_load_bits(bindings[2], ti, 0);
  if (bins != B || dft < 0 || dft / 2 + 1 != S || rate <= 0) return KILN_ERR_INVALID_ARGUMENT;
  const double lo = kiln_load_f(bindings[3], ip[MW_FLOAT_DTYPE], 0);
  const double hi = kiln_load_f(bindings[4], ip[MW_FLOAT_DTYPE], 0);
  const double mel_lo = 2595.0 * log10(1.0 + lo / 700.0);
  const double mel_hi = 2595.0 * log10(1.0 + hi / 700.0);
  const double step = (mel_hi - mel_lo) / (double)(B + 2);
  for (int64_t k = 0; k < S * B; ++k) kiln_store_f(bindings[5], to, k, 0.0);
  /* Filter i spans spectrogram bins edge(i) .. edge(i+2), peak at edge(i+1). */
  int64_t edge[3] = {0, 0, 0};
  for (int64_t e = 0; e < B + 2; ++e) {
    const double hz = 700.0 * (pow(10.0, ((double)e * step + mel_lo) / 2595.0) - 1.0);
    const double f = floor((double)(dft + 1) * hz / (double)rate);
    if (!(f >= 0.0 && f < (double)S)) return KILN_ERR_OUT_OF_RANGE;
    edge[0] = edge[1], edge[1] = edge[2], edge[2] = (int64_t)f;
    if (e < 2) continue;
    const int64_t i = e - 2, left = edge[0], center = edge[1], right = edge[2];
    if (center == left) {
      kiln_store_f(bindings[5], to, center * B + i, 1.0);
    } else {
      for (int64_t j = left; j <= center; ++j)
        kiln_store_f(bindings[5], to, j * B + i, (double)(j - left) / (double)(center - left));
    }
    for (int64_t j = center; j < right; ++j)
      kiln_store_f(bindings[5], to, j * B + i, (double)(right - j) / (double)(right - center));
  }
  return KILN_OK;
}

int kiln_mel_weight_matrix_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                                 uint32_t fparam_count, const uint64_t* binding_bytes) {
  KILN_TRY(kiln_check_counts(ip, iparam_count, MW_COUNT, fp, fparam_count, 0));
  KILN_TRY(kiln_check_nonneg(ip, MW_COUNT));
  if (!sw_int_dtype(ip[MW_INT_DTYPE]) || !kiln_dtype_is_float(ip[MW_FLOAT_DTYPE]) ||
      !kiln_dtype_is_float(ip[MW_OUT_DTYPE]))
    return KILN_ERR_INVALID_ARGUMENT;
  if (ip[MW_SPEC] < 1) return KILN_ERR_INVALID_ARGUMENT; /* dft_length/2 + 1 */
  /* The zero fill, then each filter's edges and at most S taps each. */
  KILN_TRY(kiln_check_work(ip + MW_BINS, 2));
  int64_t count, bytes, edges;
  KILN_TRY(kiln_checked_product(ip + MW_BINS, 2, &count));
  KILN_TRY(kiln_checked_add(ip[MW_BINS], 2, &edges));
  const int64_t ib = kiln_dtype_size(ip[MW_INT_DTYPE]), fb = kiln_dtype_size(ip[MW_FLOAT_DTYPE]);
  for (int k = 0; k < 3; ++k) KILN_TRY(kiln_check_binding(binding_bytes[k], ib));
  for (int k = 3; k < 5; ++k) KILN_TRY(kiln_check_binding(binding_bytes[k], fb));
  KILN_TRY(kiln_dense_bytes(count, kiln_dtype_size(ip[MW_OUT_DTYPE]), &bytes));
  return kiln_check_binding(binding_bytes[5], bytes);
}

enum {
  MWD_INT_DTYPE = KILN_IP_MEL_WEIGHT_MATRIX_DIMS_INT_DTYPE,
  MWD_COUNT = KILN_MEL_WEIGHT_MATRIX_DIMS_IPARAMS
};

int kiln_mel_weight_matrix_dims(const int64_t* ip, const float* fp, void* const* bindings,
                                const kiln_host* host) {
  (void)fp;
  (void)host;
  const int64_t bins = (int64_t)kiln_load_bits(bindings[0], ip[MWD_INT_DTYPE], 0);
  const int64_t dft = (int64_t)kiln_load_bits(bindings[1], ip[MWD_INT_DTYPE], 0);
  if (bins < 1 || dft < 0) return KILN_ERR_INVALID_ARGUMENT;
  const int64_t dims[2] = {dft / 2 + 1, bins};
  memcpy(bindings[2], dims, sizeof dims);
  return KILN_OK;
}

int kiln_mel_weight_matrix_dims_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                                      uint32_t fparam_count, const uint64_t* binding_bytes) {
  KILN_TRY(kiln_check_counts(ip, iparam_count, MWD_COUNT, fp, fparam_count, 0));
  if (!sw_int_dtype(ip[MWD_INT_DTYPE])) return KILN_ERR_INVALID_ARGUMENT;
  const int64_t ib = kiln_dtype_size(ip[MWD_INT_DTYPE]);
  KILN_TRY(kiln_check_binding(binding_bytes[0], ib));
  KILN_TRY(kiln_check_binding(binding_bytes[1], ib));
  return kiln_check_binding(binding_bytes[2], 16);
}
