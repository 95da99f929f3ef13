/* trilu and one_hot: outputs chosen per element from a position rule, any
 * element type. Neither reads an input at an index the checker has not
 * bounded: one_hot compares its run-time indices, it never follows them. */
#include <stdint.h>
#include <string.h>

#include "check_util.h"
#include "kiln/kernel_params.h"
#include "kiln/kernels.h"

enum {
  TR_EB = KILN_IP_TRILU_ELEM_BYTES,
  TR_BATCH = KILN_IP_TRILU_BATCH,
  TR_ROWS = KILN_IP_TRILU_ROWS,
  TR_COLS = KILN_IP_TRILU_COLS,
  TR_K = KILN_IP_TRILU_K,
  TR_UPPER = KILN_IP_TRILU_UPPER,
  TR_K_BINDING = KILN_IP_TRILU_K_BINDING,
  TR_N = KILN_TRILU_IPARAMS
};
_Static_assert(TR_ROWS == TR_BATCH + 1 && TR_COLS == TR_BATCH + 2,
               "batch, rows and cols are consecutive (the checker's product)");

int kiln_trilu(const int64_t* ip, const float* fp, void* const* bindings,
               const kiln_host* host) {
  (void)fp;
  (void)host;
  const int64_t eb = ip[TR_EB], rows = ip[TR_ROWS], cols = ip[TR_COLS];
  const int64_t upper = ip[TR_UPPER];
  int64_t k = ip[TR_K];
  if (ip[TR_K_BINDING]) memcpy(&k, bindings[1], 8); /* int64 scalar at run time */
  const unsigned char* x = (const unsigned char*)bindings[0];
  unsigned char* y = (unsigned char*)bindings[2];
  for (int64_t b = 0; b < ip[TR_BATCH]; ++b) {
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t at = (b * rows + r) * cols;
      for (int64_t c = 0; c < cols; ++c) {
        const int keep = upper ? (c - r >= k) : (c - r <= k);
        if (keep) memcpy(y + (at + c) * eb, x + (at + c) * eb, (size_t)eb);
        else memset(y + (at + c) * eb, 0, (size_t)eb);
      }
    }
  }
  return KILN_OK;
}

int kiln_trilu_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                     uint32_t fparam_count, const uint64_t* binding_bytes) {
  KILN_TRY(kiln_check_counts(ip, iparam_count, TR_N, fp, fparam_count, 0));
  KILN_TRY(kiln_check_nonneg(ip, TR_K));
  KILN_TRY(kiln_check_enum(ip[TR_UPPER], 0, 1));
  KILN_TRY(kiln_check_enum(ip[TR_K_BINDING], 0, 1));
  if (ip[TR_K_BINDING]) KILN_TRY(kiln_check_binding(binding_bytes[1], 8));
  if (ip[TR_EB] == 0) return KILN_ERR_INVALID_ARGUMENT;
  /* batch x rows x cols: cols == 0 leaves the outer loops bounded by no binding. */
  KILN_TRY(kiln_check_work(ip + TR_BATCH, 3));
  /* c - r must not overflow: both are below 2^62 once the product fits. */
  int64_t n, bytes;
  KILN_TRY(kiln_checked_product(ip + TR_BATCH, 3, &n));
  KILN_TRY(kiln_dense_bytes(n, ip[TR_EB], &bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[0], bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[2], bytes));
  return KILN_OK;
}

/* one_hot: Y[o, d, i] = values[indices[o, i] == d] for d in [0, depth),
 * negative indices counting from depth; out-of-range indices give all "off".
 * idx_kind: 1 f32, 2 f64, 3 i32, 4 i64. */
enum {
  OH_EB = KILN_IP_ONE_HOT_ELEM_BYTES,
  OH_IDX_KIND = KILN_IP_ONE_HOT_IDX_KIND,
  OH_OUTER = KILN_IP_ONE_HOT_OUTER,
  OH_DEPTH = KILN_IP_ONE_HOT_DEPTH,
  OH_INNER = KILN_IP_ONE_HOT_INNER,
  OH_N = KILN_ONE_HOT_IPARAMS
};
_Static_assert(OH_DEPTH == OH_OUTER + 1 && OH_INNER == OH_OUTER + 2,
               "outer, depth and inner are consecutive (the checker's product)");

static int64_t onehot_index(const void* p, int64_t k, int64_t kind) {
  const unsigned char* b = (const unsigned char*)p;
  switch (kind) {
    case 1: { float v; memcpy(&v, b + k * 4, 4); return (v > -1e18f && v < 1e18f) ? (int64_t)v : -(INT64_C(1) << 62); }
    case 2: { double v; memcpy(&v, b + k * 8, 8); return (v > -1e18 && v < 1e18) ? (int64_t)v : -(INT64_C(1) << 62); }
    case 3: { int32_t v; memcpy(&v, b + k * 4, 4); return v; }
    default: { int64_t v; memcpy(&v, b + k * 8, 8); return v; }
  }
}

int kiln_one_hot(const int64_t* ip, const float* fp, void* const* bindings,
                 const kiln_host* host) {
  (void)fp;
  (void)host;
  const int64_t eb = ip[OH_EB], kind = ip[OH_IDX_KIND], outer = ip[OH_OUTER];
  const int64_t depth = ip[OH_DEPTH], inner = ip[OH_INNER];
  const unsigned char* values = (const unsigned char*)bindings[1];
  unsigned char* y = (unsigned char*)bindings[2];
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      int64_t j = onehot_index(bindings[0], o * inner + i, kind);
      if (j < 0 && j > INT64_MIN / 2) j += depth; /* still < 0 if out of range */
      for (int64_t d = 0; d < depth; ++d)
        memcpy(y + ((o * depth + d) * inner + i) * eb, values + (d == j ? eb : 0), (size_t)eb);
    }
  }
  return KILN_OK;
}

int kiln_one_hot_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                       uint32_t fparam_count, const uint64_t* binding_bytes) {
  KILN_TRY(kiln_check_counts(ip, iparam_count, OH_N, fp, fparam_count, 0));
  KILN_TRY(kiln_check_nonneg(ip, OH_N));
  KILN_TRY(kiln_check_enum(ip[OH_IDX_KIND], 1, 4));
  if (ip[OH_DEPTH] > (INT64_C(1) << 61)) return KILN_ERR_OUT_OF_RANGE;
  if (ip[OH_EB] == 0) return KILN_ERR_INVALID_ARGUMENT;
  /* outer x inner x depth: inner == 0 leaves the outer loop bounded by no binding. */
  const int64_t loops[3] = {ip[OH_OUTER], ip[OH_INNER], ip[OH_DEPTH]};
  KILN_TRY(kiln_check_work(loops, 3));
  const int64_t ieb = (ip[OH_IDX_KIND] == 1 || ip[OH_IDX_KIND] == 3) ? 4 : 8;
  int64_t n, idx_n, bytes;
  KILN_TRY(kiln_checked_product(ip + OH_OUTER, 3, &n));
  const int64_t oi[2] = {ip[OH_OUTER], ip[OH_INNER]};
  KILN_TRY(kiln_checked_product(oi, 2, &idx_n));
  KILN_TRY(kiln_dense_bytes(idx_n, ieb, &bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[0], bytes));
  KILN_TRY(kiln_dense_bytes(2, ip[OH_EB], &bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[1], bytes));
  KILN_TRY(kiln_dense_bytes(n, ip[OH_EB], &bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[2], bytes));
  return KILN_OK;
}
