/* dropout: ONNX Dropout when training_mode is decided at run time. Not
 * training (or ratio 0): Y = X and the mask is all true. Training with
 * ratio r in (0, 1): element k is kept when u_k >= r and then scaled,
 * Y = X / (1 - r); dropped elements are 0 with a false mask. u_k in [0, 1)
 * comes from a counter-based generator (splitmix64 of the seed and k), so
 * a run's result depends on the seed alone: reproducible, and the same for
 * any thread count or schedule. A ratio outside [0, 1) (or NaN) fails the
 * call with KILN_ERR_BAD_VALUE, writing nothing, as ONNX allows
 * only [0, 1). ratio and training_mode are scalars read at run time
 * (constants or inputs alike); absent, they are 0.5 and false. */
#include <stdint.h>
#include <string.h>

#include "check_util.h"
#include "kiln/kernel_params.h"
#include "kiln/kernels.h"
#include "typed_util.h"

enum {
  DO_DTYPE = KILN_IP_DROPOUT_DTYPE,
  DO_COUNT = KILN_IP_DROPOUT_COUNT,
  DO_RATIO_DTYPE = KILN_IP_DROPOUT_RATIO_DTYPE,
  DO_HAS_TRAINING = KILN_IP_DROPOUT_HAS_TRAINING,
  DO_HAS_MASK = KILN_IP_DROPOUT_HAS_MASK,
  DO_SEED_HI = KILN_IP_DROPOUT_SEED_HI,
  DO_SEED_LO = KILN_IP_DROPOUT_SEED_LO,
  DO_NPARAMS = KILN_DROPOUT_IPARAMS
};
enum { DO_X, DO_RATIO, DO_TRAINING, DO_Y, DO_MASK };

/* The k-th output of a splitmix64 stream started at `seed`. */
static uint64_t do_mix(uint64_t seed, uint64_t k) {
  uint64_t z = seed + (k + 1) * UINT64_C(0x9E3779B97F4A7C15);
  z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
  return z ^ (z >> 31);
}

int kiln_dropout(const int64_t* ip, const float* fp, void* const* bindings,
                 const kiln_host* host) {
  (void)fp;
  (void)host;
  const int64_t t = ip[DO_DTYPE], n = ip[DO_COUNT];
  const double ratio =
      ip[DO_RATIO_DTYPE] ? kiln_load_f(bindings[DO_RATIO], ip[DO_RATIO_DTYPE], 0) : 0.5;
  if (!(ratio >= 0.0 && ratio < 1.0)) return KILN_ERR_BAD_VALUE;
  const int training =
      ip[DO_HAS_TRAINING] && kiln_load_bits(bindings[DO_TRAINING], KILN_DTYPE_BOOL, 0) != 0;
  const void* x = bindings[DO_X];
  void* y = bindings[DO_Y];
  unsigned char* mask = ip[DO_HAS_MASK] ? (unsigned char*)bindings[DO_MASK] : NULL;
  if (!training || ratio == 0.0) { /* the identity, bit for bit */
    if (n > 0) memcpy(y, x, (size_t)(n * kiln_dtype_size(t)));
    if (mask && n > 0) memset(mask, 1, (size_t)n);
    return KILN_OK;
  }
  const uint64_t seed = (uint64_t)ip[DO_SEED_HI] << 32 | (uint64_t)ip[DO_SEED_LO];
  const double scale = 1.0 / (1.0 - ratio);
  for (int64_t k = 0; k < n; ++k) {
    /* The top 53 bits as a double in [0, 1). */
    const double u = (double)(do_mix(seed, (uint64_t)k) >> 11) * (1.0 / 9007199254740992.0);
    const int keep = u >= ratio;
    kiln_store_f(y, t, k, keep ? kiln_load_f(x, t, k) * scale : 0.0);
    if (mask) mask[k] = (unsigned char)keep;
  }
  return KILN_OK;
}

int kiln_dropout_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                       uint32_t fparam_count, const uint64_t* binding_bytes) {
  KILN_TRY(kiln_check_counts(ip, iparam_count, DO_NPARAMS, fp, fparam_count, 0));
  KILN_TRY(kiln_check_nonneg(ip, DO_NPARAMS));
  if (!kiln_dtype_is_float(ip[DO_DTYPE])) return KILN_ERR_INVALID_ARGUMENT;
  const int64_t rt = ip[DO_RATIO_DTYPE];
  if (rt != 0 && !kiln_dtype_is_float(rt)) return KILN_ERR_INVALID_ARGUMENT;
  KILN_TRY(kiln_check_enum(ip[DO_HAS_TRAINING], 0, 1));
  KILN_TRY(kiln_check_enum(ip[DO_HAS_MASK], 0, 1));
  KILN_TRY(kiln_check_enum(ip[DO_SEED_HI], 0, UINT32_MAX));
  KILN_TRY(kiln_check_enum(ip[DO_SEED_LO], 0, UINT32_MAX));
  if (rt != 0) KILN_TRY(kiln_check_binding(binding_bytes[DO_RATIO], kiln_dtype_size(rt)));
  if (ip[DO_HAS_TRAINING]) KILN_TRY(kiln_check_binding(binding_bytes[DO_TRAINING], 1));
  int64_t bytes;
  KILN_TRY(kiln_dense_bytes(ip[DO_COUNT], kiln_dtype_size(ip[DO_DTYPE]), &bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[DO_X], bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[DO_Y], bytes));
  if (ip[DO_HAS_MASK]) KILN_TRY(kiln_check_binding(binding_bytes[DO_MASK], ip[DO_COUNT]));
  return KILN_OK;
}
