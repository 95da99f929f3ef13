/* Discrete Fourier transforms (ONNX DFT and STFT, opset 17), float32 values
 * with a trailing component dim (1 = real, 2 = complex); outputs complex.
 * A direct O(n^2) sum per output bin, accumulated in double. Twiddles
 * exp(-2 pi i m / n) come from a compiler-built table of (cos, sin) pairs in
 * double when the transform length is known at compile time, else from
 * cos/sin per term; j * k is reduced mod n first so large products keep
 * their accuracy. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check_util.h"
#include "kiln/kernel_params.h"
#include "kiln/kernels.h"
#include "typed_util.h"

static const double kDftTwoPi = 6.28318530717958647692;

/* cos and sin of 2 pi m / n, m in [0, n). */
static void dft_twiddle(const double* table, int64_t m, int64_t n, double* c, double* s) {
  if (table) {
    *c = table[2 * m];
    *s = table[2 * m + 1];
    return;
  }
  const double a = kDftTwoPi * (double)m / (double)n;
  *c = cos(a);
  *s = sin(a);
}

/* Bins [0, K) of the length-n transform of `count` points x[j * xs] (the
 * rest zero), each scaled by w[j] when w is non-null; written to y[k * ys]
 * as (re, im). sign -1 forward, +1 inverse; scale multiplies the result. */
static void dft_line(const float* x, int64_t xs, int64_t comps, const float* w, int64_t count,
                     int64_t n, int64_t K, double sign, double scale, const double* table,
                     float* y, int64_t ys) {
  for (int64_t k = 0; k < K; ++k) {
    double re = 0.0, im = 0.0;
    int64_t m = 0; /* j * k mod n, stepped */
    const int64_t step = k % n;
    for (int64_t j = 0; j < count; ++j) {
      double c, s;
      dft_twiddle(table, m, n, &c, &s);
      s *= sign;
      double a = x[j * xs], b = comps == 2 ? x[j * xs + 1] : 0.0;
      if (w) {
        a *= w[j];
        b *= w[j];
      }
      re += a * c - b * s;
      im += a * s + b * c;
      m += step;
      if (m >= n) m -= n;
    }
    y[k * ys] = (float)(re * scale);
    y[k * ys + 1] = (float)(im * scale);
  }
}

enum {
  DFT_O = KILN_IP_DFT_F32_O,
  DFT_NIN = KILN_IP_DFT_F32_N_IN,
  DFT_I = KILN_IP_DFT_F32_I,
  DFT_C = KILN_IP_DFT_F32_C,
  DFT_N = KILN_IP_DFT_F32_N,
  DFT_K = KILN_IP_DFT_F32_K,
  DFT_INVERSE = KILN_IP_DFT_F32_INVERSE,
  DFT_COUNT = KILN_DFT_F32_IPARAMS
};

int kiln_dft_f32(const int64_t* ip, const float* fp, void* const* bindings,
                 const kiln_host* host) {
  (void)fp;
  (void)host;
  const int64_t O = ip[DFT_O], NIN = ip[DFT_NIN], I = ip[DFT_I], C = ip[DFT_C];
  const int64_t n = ip[DFT_N], K = ip[DFT_K];
  const float* x = (const float*)bindings[0];
  const double* table = (const double*)bindings[1];
  float* y = (float*)bindings[2];
  const int inverse = ip[DFT_INVERSE] != 0;
  const int64_t count = NIN < n ? NIN : n;
  for (int64_t o = 0; o < O; ++o) {
    for (int64_t i = 0; i < I; ++i) {
      const float* xl = x + (o * NIN * I + i) * C;
      float* yl = y + (o * K * I + i) * 2;
      dft_line(xl, I * C, C, 0, count, n, K, inverse ? 1.0 : -1.0,
               inverse ? 1.0 / (double)n : 1.0, table, yl, I * 2);
    }
  }
  return KILN_OK;
}

int kiln_dft_f32_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                       uint32_t fparam_count, const uint64_t* binding_bytes) {
  KILN_TRY(kiln_check_counts(ip, iparam_count, DFT_COUNT, fp, fparam_count, 0));
  KILN_TRY(kiln_check_nonneg(ip, DFT_COUNT));
  KILN_TRY(kiln_check_enum(ip[DFT_C], 1, 2));
  KILN_TRY(kiln_check_enum(ip[DFT_INVERSE], 0, 1));
  const int64_t n = ip[DFT_N], K = ip[DFT_K];
  if (n < 1 || K > n) return KILN_ERR_INVALID_ARGUMENT;
  /* Loops: O x I lines, K bins, min(NIN, n) terms each. */
  const int64_t count = ip[DFT_NIN] < n ? ip[DFT_NIN] : n;
  const int64_t work[4] = {ip[DFT_O], ip[DFT_I], K, count};
  KILN_TRY(kiln_check_work(work, 4));
  int64_t xe, ye, tb;
  const int64_t xd[4] = {ip[DFT_O], ip[DFT_NIN], ip[DFT_I], ip[DFT_C]};
  const int64_t yd[4] = {ip[DFT_O], K, ip[DFT_I], 2};
  KILN_TRY(kiln_checked_product(xd, 4, &xe));
  KILN_TRY(kiln_checked_product(yd, 4, &ye));
  KILN_TRY(kiln_checked_mul(n, 16, &tb));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[0], xe));
  KILN_TRY(kiln_check_binding(binding_bytes[1], tb));
  return kiln_check_f32_binding(binding_bytes[2], ye);
}

enum {
  STFT_B = KILN_IP_STFT_F32_B,
  STFT_L = KILN_IP_STFT_F32_L,
  STFT_C = KILN_IP_STFT_F32_C,
  STFT_F = KILN_IP_STFT_F32_F,
  STFT_K = KILN_IP_STFT_F32_K,
  STFT_ONESIDED = KILN_IP_STFT_F32_ONESIDED,
  STFT_WINDOW_LEN = KILN_IP_STFT_F32_WINDOW_LEN,
  STFT_HAS_FL = KILN_IP_STFT_F32_HAS_FRAME_LENGTH,
  STFT_TABLE_N = KILN_IP_STFT_F32_TABLE_N,
  STFT_STEP_DTYPE = KILN_IP_STFT_F32_STEP_DTYPE,
  STFT_FL_DTYPE = KILN_IP_STFT_F32_FRAME_LENGTH_DTYPE,
  STFT_COUNT = KILN_STFT_F32_IPARAMS
};

static int stft_int_dtype(int64_t t) { return t == KILN_DTYPE_I32 || t == KILN_DTYPE_I64; }

/* The frame count F and bin count K the run-time scalars give (and fl), or
 * KILN_ERR_INVALID_ARGUMENT for a step or frame length out of range. */
static int stft_shape(int64_t L, int64_t onesided, int64_t wn, int64_t has_fl, int64_t step_dtype,
                      int64_t fl_dtype, const void* step_in, const void* fl_in, int64_t* fl_out,
                      int64_t* F, int64_t* K) {
  const int64_t step = (int64_t)kiln_load_bits(step_in, step_dtype, 0);
  int64_t fl = wn;
  if (has_fl) {
    const int64_t v = (int64_t)kiln_load_bits(fl_in, fl_dtype, 0);
    if (wn > 0 && v != wn) return KILN_ERR_INVALID_ARGUMENT;
    fl = v;
  }
  if (step < 1 || fl < 1 || fl > L) return KILN_ERR_INVALID_ARGUMENT;
  *fl_out = fl;
  *F = (L - fl) / step + 1;
  *K = onesided ? fl / 2 + 1 : fl;
  return KILN_OK;
}

int kiln_stft_f32(const int64_t* ip, const float* fp, void* const* bindings,
                  const kiln_host* host) {
  (void)fp;
  (void)host;
  const int64_t B = ip[STFT_B], L = ip[STFT_L], C = ip[STFT_C], F = ip[STFT_F], K = ip[STFT_K];
  const int64_t wn = ip[STFT_WINDOW_LEN], tn = ip[STFT_TABLE_N];
  /* The run-time scalars must give exactly the compiled shape. */
  int64_t fl, frames, bins;
  KILN_TRY(stft_shape(L, ip[STFT_ONESIDED], wn, ip[STFT_HAS_FL], ip[STFT_STEP_DTYPE],
                      ip[STFT_FL_DTYPE], bindings[1], bindings[3], &fl, &frames, &bins));
  if (frames != F || bins != K) return KILN_ERR_INVALID_ARGUMENT;
  if (tn > 0 && tn != fl) return KILN_ERR_INVALID_ARGUMENT;
  const int64_t step = (int64_t)kiln_load_bits(bindings[1], ip[STFT_STEP_DTYPE], 0);
  const float* x = (const float*)bindings[0];
  const float* w = wn > 0 ? (const float*)bindings[2] : 0;
  const double* table = tn > 0 ? (const double*)bindings[4] : 0;
  float* y = (float*)bindings[5];
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t f = 0; f < F; ++f) {
      dft_line(x + (b * L + f * step) * C, C, C, w, fl, fl, K, -1.0, 1.0, table,
               y + (b * F + f) * K * 2, 2);
    }
  }
  return KILN_OK;
}

int kiln_stft_f32_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                        uint32_t fparam_count, const uint64_t* binding_bytes) {
  KILN_TRY(kiln_check_counts(ip, iparam_count, STFT_COUNT, fp, fparam_count, 0));
  KILN_TRY(kiln_check_nonneg(ip, STFT_COUNT));
  KILN_TRY(kiln_check_enum(ip[STFT_C], 1, 2));
  KILN_TRY(kiln_check_enum(ip[STFT_ONESIDED], 0, 1));
  KILN_TRY(kiln_check_enum(ip[STFT_HAS_FL], 0, 1));
  if (!stft_int_dtype(ip[STFT_STEP_DTYPE])) return KILN_ERR_INVALID_ARGUMENT;
  if (ip[STFT_HAS_FL] && !stft_int_dtype(ip[STFT_FL_DTYPE])) return KILN_ERR_INVALID_ARGUMENT;
  /* The frame length comes from the window or from a scalar. */
  if (ip[STFT_WINDOW_LEN] == 0 && !ip[STFT_HAS_FL]) return KILN_ERR_INVALID_ARGUMENT;
  const int64_t L = ip[STFT_L], K = ip[STFT_K];
  /* The kernel refuses a frame length beyond L or, with K bins, beyond 2K
   * (onesided K = fl/2 + 1); so 2K terms per bin bound the work. */
  int64_t terms;
  KILN_TRY(kiln_checked_mul(K, 2, &terms));
  const int64_t work[4] = {ip[STFT_B], ip[STFT_F], K, terms};
  KILN_TRY(kiln_check_work(work, 4));
  int64_t xe, ye, tb;
  const int64_t xd[3] = {ip[STFT_B], L, ip[STFT_C]};
  const int64_t yd[4] = {ip[STFT_B], ip[STFT_F], K, 2};
  KILN_TRY(kiln_checked_product(xd, 3, &xe));
  KILN_TRY(kiln_checked_product(yd, 4, &ye));
  KILN_TRY(kiln_checked_mul(ip[STFT_TABLE_N], 16, &tb));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[0], xe));
  KILN_TRY(kiln_check_binding(binding_bytes[1], kiln_dtype_size(ip[STFT_STEP_DTYPE])));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[2], ip[STFT_WINDOW_LEN]));
  if (ip[STFT_HAS_FL]) {
    KILN_TRY(kiln_check_binding(binding_bytes[3], kiln_dtype_size(ip[STFT_FL_DTYPE])));
  }
  KILN_TRY(kiln_check_binding(binding_bytes[4], tb));
  return kiln_check_f32_binding(binding_bytes[5], ye);
}

enum {
  STD_L = KILN_IP_STFT_DIMS_L,
  STD_ONESIDED = KILN_IP_STFT_DIMS_ONESIDED,
  STD_WINDOW_LEN = KILN_IP_STFT_DIMS_WINDOW_LEN,
  STD_HAS_FL = KILN_IP_STFT_DIMS_HAS_FRAME_LENGTH,
  STD_STEP_DTYPE = KILN_IP_STFT_DIMS_STEP_DTYPE,
  STD_FL_DTYPE = KILN_IP_STFT_DIMS_FRAME_LENGTH_DTYPE,
  STD_COUNT = KILN_STFT_DIMS_IPARAMS
};

int kiln_stft_dims(const int64_t* ip, const float* fp, void* const* bindings,
                   const kiln_host* host) {
  (void)fp;
  (void)host;
  int64_t fl, dims[2];
  KILN_TRY(stft_shape(ip[STD_L], ip[STD_ONESIDED], ip[STD_WINDOW_LEN], ip[STD_HAS_FL],
                      ip[STD_STEP_DTYPE], ip[STD_FL_DTYPE], bindings[0], bindings[1], &fl,
                      &dims[0], &dims[1]));
  memcpy(bindings[2], dims, sizeof dims);
  return KILN_OK;
}

int kiln_stft_dims_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                         uint32_t fparam_count, const uint64_t* binding_bytes) {
  KILN_TRY(kiln_check_counts(ip, iparam_count, STD_COUNT, fp, fparam_count, 0));
  KILN_TRY(kiln_check_nonneg(ip, STD_COUNT));
  KILN_TRY(kiln_check_enum(ip[STD_ONESIDED], 0, 1));
  KILN_TRY(kiln_check_enum(ip[STD_HAS_FL], 0, 1));
  if (!stft_int_dtype(ip[STD_STEP_DTYPE])) return KILN_ERR_INVALID_ARGUMENT;
  if (ip[STD_HAS_FL] && !stft_int_dtype(ip[STD_FL_DTYPE])) return KILN_ERR_INVALID_ARGUMENT;
  if (ip[STD_WINDOW_LEN] == 0 && !ip[STD_HAS_FL]) return KILN_ERR_INVALID_ARGUMENT;
  KILN_TRY(kiln_check_binding(binding_bytes[0], kiln_dtype_size(ip[STD_STEP_DTYPE])));
  if (ip[STD_HAS_FL]) {
    KILN_TRY(kiln_check_binding(binding_bytes[1], kiln_dtype_size(ip[STD_FL_DTYPE])));
  }
  return kiln_check_binding(binding_bytes[2], 16);
}
