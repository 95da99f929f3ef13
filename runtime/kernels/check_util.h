/* Helpers shared by the kernel checkers (kiln_*_check). The checkers are the
 * security boundary between a module file and unchecked kernel loops, so all
 * size arithmetic goes through the overflow-checked functions below.
 * Internal to runtime/kernels: an AOT bundle copies it beside the kernels. */
#ifndef KILN_KERNELS_CHECK_UTIL_H_
#define KILN_KERNELS_CHECK_UTIL_H_

#include <stddef.h>
#include <stdint.h>

#include "kiln/kernel_abi.h"

/* Each helper returns KILN_OK or a kiln_status_code, so callers chain them
 * with KILN_TRY. */
#define KILN_TRY(expr)        \
  do {                        \
    int kiln_try_rc_ = (expr); \
    if (kiln_try_rc_ != KILN_OK) return kiln_try_rc_; \
  } while (0)

#if defined(__GNUC__) || defined(__clang__)
#define KILN_HAVE_OVERFLOW_BUILTINS 1
#endif

static inline int kiln_checked_mul(int64_t a, int64_t b, int64_t* out) {
#ifdef KILN_HAVE_OVERFLOW_BUILTINS
  if (__builtin_mul_overflow(a, b, out)) return KILN_ERR_OUT_OF_RANGE;
  return KILN_OK;
#else
  /* Portable fallback; the checkers only multiply non-negative values. */
  if (a < 0 || b < 0) return KILN_ERR_INVALID_ARGUMENT;
  if (a != 0 && b > INT64_MAX / a) return KILN_ERR_OUT_OF_RANGE;
  *out = a * b;
  return KILN_OK;
#endif
}

static inline int kiln_checked_add(int64_t a, int64_t b, int64_t* out) {
#ifdef KILN_HAVE_OVERFLOW_BUILTINS
  if (__builtin_add_overflow(a, b, out)) return KILN_ERR_OUT_OF_RANGE;
  return KILN_OK;
#else
  if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b))
    return KILN_ERR_OUT_OF_RANGE;
  *out = a + b;
  return KILN_OK;
#endif
}

/* The exact parameter counts a kernel reads; fparams/iparams must be present
 * whenever they are read. */
static inline int kiln_check_counts(const int64_t* iparams, uint32_t iparam_count,
                                    uint32_t want_i, const float* fparams,
                                    uint32_t fparam_count, uint32_t want_f) {
  if (iparam_count != want_i || fparam_count != want_f)
    return KILN_ERR_INVALID_ARGUMENT;
  if ((want_i > 0 && iparams == NULL) || (want_f > 0 && fparams == NULL))
    return KILN_ERR_INVALID_ARGUMENT;
  return KILN_OK;
}

/* Every value in p[0..n) is >= 0. */
static inline int kiln_check_nonneg(const int64_t* p, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    if (p[i] < 0) return KILN_ERR_INVALID_ARGUMENT;
  return KILN_OK;
}

/* v lies in [lo, hi]. */
static inline int kiln_check_enum(int64_t v, int64_t lo, int64_t hi) {
  return (v < lo || v > hi) ? KILN_ERR_INVALID_ARGUMENT : KILN_OK;
}

/* Product of n non-negative values. A zero factor does not hide an overflow
 * among the others: kernels form partial products (plane sizes, row
 * offsets) before they notice an empty dim, so every sub-product must fit. */
static inline int kiln_checked_product(const int64_t* dims, int64_t n, int64_t* out) {
  int64_t p = 1;
  int empty = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (dims[i] < 0) return KILN_ERR_INVALID_ARGUMENT;
    if (dims[i] == 0) empty = 1;
    else KILN_TRY(kiln_checked_mul(p, dims[i], &p));
  }
  *out = empty ? 0 : p;
  return KILN_OK;
}

/* Most loop iterations one dispatch may run. A loop over a dimension that
 * indexes no memory (a window height when the width is 0, say) is bounded by
 * nothing else, so a crafted module could otherwise make a kernel spin for
 * hours while touching no out-of-bounds byte. */
#define KILN_MAX_WORK (INT64_C(1) << 40)

/* An empty iteration space (some extent 0) does no useful work, but the
 * loops outside the empty one still spin, and the empty tensor lets the
 * other extents grow without any buffer to bound them. */
#define KILN_MAX_EMPTY_WORK (INT64_C(1) << 24)

/* The product of max(1, extent) over nested loop extents is at most
 * KILN_MAX_WORK, or KILN_MAX_EMPTY_WORK when some extent is 0. */
static inline int kiln_check_work(const int64_t* extents, int64_t n) {
  int64_t work = 1, limit = KILN_MAX_WORK;
  for (int64_t i = 0; i < n; ++i) {
    if (extents[i] == 0) limit = KILN_MAX_EMPTY_WORK;
  }
  for (int64_t i = 0; i < n; ++i) {
    const int64_t e = extents[i] > 1 ? extents[i] : 1;
    if (e > limit / work) return KILN_ERR_OUT_OF_RANGE;
    work *= e;
  }
  return KILN_OK;
}

/* Work that walks a view with zero or overlapping strides re-reads what it
 * reaches, so no buffer bounds it; the 2^40 limit alone still allows
 * minutes of spinning over a few bytes. Such work may make at most
 * KILN_MAX_REUSE passes over the `reached` elements (the compiler's views
 * for these kernels are dense: one pass), or KILN_MAX_EMPTY_WORK in all.
 * `work` is a product already checked by kiln_check_work. */
#define KILN_MAX_REUSE (INT64_C(1) << 12)

static inline int kiln_check_reuse(int64_t work, int64_t reached) {
  if (work <= KILN_MAX_EMPTY_WORK) return KILN_OK;
  return work / KILN_MAX_REUSE > reached ? KILN_ERR_OUT_OF_RANGE : KILN_OK;
}

/* The work of `extents` as kiln_check_work counts it (an extent below 1
 * counts 1); call after kiln_check_work accepted them, so it fits int64. */
static inline int64_t kiln_work_of(const int64_t* extents, int64_t n) {
  int64_t work = 1;
  for (int64_t i = 0; i < n; ++i) work *= extents[i] > 1 ? extents[i] : 1;
  return work;
}

/* Bytes of a dense tensor of `count` elements of `elem_bytes` each. */
static inline int kiln_dense_bytes(int64_t count, int64_t elem_bytes, int64_t* out) {
  return kiln_checked_mul(count, elem_bytes, out);
}

/* Bytes reachable through a strided view: elements at
 * offset + sum(idx[i] * strides[i]) for idx[i] in [0, dims[i]). An empty view
 * (some dim 0) reaches nothing, but its other spans must still fit in int64
 * since kernels may form those offsets. Dims, strides, offset are >= 0. */
static inline int kiln_view_bytes(int64_t rank, const int64_t* dims,
                                  const int64_t* strides, int64_t offset,
                                  int64_t elem_bytes, int64_t* out) {
  if (offset < 0 || elem_bytes < 0) return KILN_ERR_INVALID_ARGUMENT;
  KILN_TRY(kiln_check_nonneg(dims, rank));
  KILN_TRY(kiln_check_nonneg(strides, rank));
  int64_t count, max_index = offset;
  KILN_TRY(kiln_checked_product(dims, rank, &count));
  for (int64_t i = 0; i < rank; ++i) {
    int64_t span;
    if (dims[i] == 0) continue;
    KILN_TRY(kiln_checked_mul(dims[i] - 1, strides[i], &span));
    KILN_TRY(kiln_checked_add(max_index, span, &max_index));
  }
  KILN_TRY(kiln_checked_add(max_index, 1, &max_index));
  KILN_TRY(kiln_checked_mul(max_index, elem_bytes, &max_index));
  *out = count == 0 ? 0 : max_index;
  return KILN_OK;
}

/* The kernel touches `need` bytes of a binding that holds `have`. */
static inline int kiln_check_binding(uint64_t have, int64_t need) {
  if (need < 0) return KILN_ERR_INVALID_ARGUMENT;
  return ((uint64_t)need > have) ? KILN_ERR_OUT_OF_RANGE : KILN_OK;
}

/* Dense float32 tensor of `count` elements fits binding `have`. */
static inline int kiln_check_f32_binding(uint64_t have, int64_t count) {
  int64_t bytes;
  KILN_TRY(kiln_dense_bytes(count, 4, &bytes));
  return kiln_check_binding(have, bytes);
}

#endif /* KILN_KERNELS_CHECK_UTIL_H_ */
