/* tfidf: ONNX TfIdfVectorizer over integer token rows (see kernels.h).
 * Every n-gram occurrence in a row is matched against each pool entry
 * directly: pools are small model attributes, so a direct scan needs no
 * scratch space and no hashing. The entry table (length, pool offset,
 * output index) is in iparams so the checker can bound every offset; the
 * pool values themselves only take part in comparisons. */
#include <stdint.h>

#include "check_util.h"
#include "kiln/kernel_params.h"
#include "kiln/kernels.h"
#include "typed_util.h"

enum {
  TF_DTYPE = KILN_IP_TFIDF_DTYPE,
  TF_ROWS = KILN_IP_TFIDF_ROWS,
  TF_COLS = KILN_IP_TFIDF_COLS,
  TF_SKIPS = KILN_IP_TFIDF_SKIPS,
  TF_ENTRIES = KILN_IP_TFIDF_E,
  TF_POOL = KILN_IP_TFIDF_POOL_LEN,
  TF_OUT = KILN_IP_TFIDF_OUT_LEN,
  TF_MODE = KILN_IP_TFIDF_MODE,
  TF_HEAD = KILN_IP_TFIDF_LEN_OFF_INDEX
};
enum { TF_E_LEN, TF_E_OFF, TF_E_INDEX, TF_E_FIELDS };

/* Occurrences of the n-gram pool[0..n) in row x[0..C) with gaps of
 * 0..skips tokens between consecutive items. A 1-gram has no gaps, so it is
 * counted once per position whatever the skip count. */
static int64_t tfidf_count(const void* x, int64_t dtype, int64_t row_base, int64_t C,
                           int64_t skips, const int64_t* pool, int64_t n) {
  int64_t count = 0;
  const int64_t max_skip = n == 1 ? 0 : skips;
  for (int64_t s = 0; s <= max_skip; ++s) {
    const int64_t step = s + 1;
    const int64_t span = (n - 1) * step; /* first to last item */
    for (int64_t i = 0; i + span < C; ++i) {
      int64_t k = 0;
      while (k < n &&
             (int64_t)kiln_load_bits(x, dtype, row_base + i + k * step) == pool[k]) {
        ++k;
      }
      if (k == n) ++count;
    }
  }
  return count;
}

int kiln_tfidf(const int64_t* ip, const float* fp, void* const* bindings,
               const kiln_host* host) {
  (void)host;
  const int64_t dtype = ip[TF_DTYPE], N = ip[TF_ROWS], C = ip[TF_COLS];
  const int64_t S = ip[TF_SKIPS], E = ip[TF_ENTRIES], out = ip[TF_OUT], mode = ip[TF_MODE];
  const int64_t* entries = ip + TF_HEAD;
  const int64_t* pool = (const int64_t*)bindings[1];
  float* y = (float*)bindings[2];
  for (int64_t r = 0; r < N; ++r) {
    float* yr = y + r * out;
    for (int64_t j = 0; j < out; ++j) yr[j] = 0.0f;
    for (int64_t e = 0; e < E; ++e) {
      const int64_t* ent = entries + e * TF_E_FIELDS;
      const int64_t count =
          tfidf_count(bindings[0], dtype, r * C, C, S, pool + ent[TF_E_OFF], ent[TF_E_LEN]);
      float v;
      if (mode == KILN_TFIDF_TF) v = (float)count;
      else if (mode == KILN_TFIDF_IDF) v = count > 0 ? fp[KILN_FP_TFIDF_WEIGHT + e] : 0.0f;
      else v = (float)count * fp[KILN_FP_TFIDF_WEIGHT + e];
      yr[ent[TF_E_INDEX]] += v;
    }
  }
  return KILN_OK;
}

int kiln_tfidf_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                     uint32_t fparam_count, const uint64_t* binding_bytes) {
  if (ip == NULL || iparam_count < TF_HEAD) return KILN_ERR_INVALID_ARGUMENT;
  KILN_TRY(kiln_check_nonneg(ip, TF_HEAD));
  const int64_t E = ip[TF_ENTRIES];
  int64_t table, want_i;
  KILN_TRY(kiln_checked_mul(E, TF_E_FIELDS, &table));
  KILN_TRY(kiln_checked_add(table, TF_HEAD, &want_i));
  if (want_i > (int64_t)UINT32_MAX) return KILN_ERR_OUT_OF_RANGE;
  if (E > (int64_t)UINT32_MAX) return KILN_ERR_OUT_OF_RANGE;
  KILN_TRY(kiln_check_counts(ip, iparam_count, (uint32_t)want_i, fp, fparam_count,
                             (uint32_t)E));
  const int64_t dtype = ip[TF_DTYPE];
  if (dtype != KILN_DTYPE_I32 && dtype != KILN_DTYPE_I64) return KILN_ERR_INVALID_ARGUMENT;
  KILN_TRY(kiln_check_enum(ip[TF_MODE], KILN_TFIDF_TF, KILN_TFIDF_TFIDF));
  const int64_t N = ip[TF_ROWS], C = ip[TF_COLS], S = ip[TF_SKIPS];
  const int64_t P = ip[TF_POOL], out = ip[TF_OUT];
  /* Bindings: X [N, C], pool int64 [P], Y float32 [N, out]. */
  int64_t count, bytes;
  const int64_t xdims[2] = {N, C};
  KILN_TRY(kiln_checked_product(xdims, 2, &count));
  KILN_TRY(kiln_dense_bytes(count, kiln_dtype_size(dtype), &bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[0], bytes));
  KILN_TRY(kiln_dense_bytes(P, 8, &bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[1], bytes));
  const int64_t ydims[2] = {N, out};
  KILN_TRY(kiln_checked_product(ydims, 2, &count));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[2], count));
  /* Each entry's n-gram lies inside the pool and its index inside a row of Y. */
  int64_t longest = 1;
  for (int64_t e = 0; e < E; ++e) {
    const int64_t* ent = ip + TF_HEAD + e * TF_E_FIELDS;
    const int64_t n = ent[TF_E_LEN], off = ent[TF_E_OFF], index = ent[TF_E_INDEX];
    int64_t end;
    if (n < 1 || off < 0 || index < 0 || index >= out) return KILN_ERR_INVALID_ARGUMENT;
    KILN_TRY(kiln_checked_add(off, n, &end));
    if (end > P) return KILN_ERR_OUT_OF_RANGE;
    if (n > longest) longest = n;
  }
  /* Offsets (n - 1) * (S + 1) + C must not overflow, and the scan is
   * N * E * (S + 1) * C * n comparisons at most. */
  int64_t step, span;
  KILN_TRY(kiln_checked_add(S, 1, &step));
  KILN_TRY(kiln_checked_mul(longest - 1, step, &span));
  KILN_TRY(kiln_checked_add(span, C, &span));
  const int64_t extents[5] = {N, E, step, C, longest};
  KILN_TRY(kiln_check_work(extents, 5));
  const int64_t fill[2] = {N, out};
  return kiln_check_work(fill, 2);
}
