/* unique: ONNX Unique, whose output length depends on the data. X is viewed
 * as [outer, len, inner] and its len slices x[:, j, :] are compared whole,
 * lexicographically in row-major order (without an axis: [1, elements, 1],
 * one element a slice). Numbers compare by value: -0.0 equals 0.0 and NaN
 * sorts after every number and equals NaN. The compiler fixed the number
 * of unique slices from the model's declared output; the kernel fails with
 * KILN_ERR_SHAPE_MISMATCH, writing no output, unless there are exactly
 * that many. Otherwise (numpy.unique's results):
 *   Y       the unique slices, ascending (sorted) or by first occurrence;
 *   indices each one's first occurrence in X;
 *   inverse for each slice of X, its position in Y;
 *   counts  how often each one occurs.
 * The sort order lives in a scratch binding of 2 * len int64 (no heap).
 * unique_bounded: the same for outputs shaped after the run: count is the
 * capacity (the outputs' bound), Y, indices and counts are written
 * compactly for the n distinct slices found (Y as [outer, n, inner] from
 * its start) and n goes as one int64 to binding 6. */
#include <stdint.h>
#include <string.h>

#include "check_util.h"
#include "kiln/kernel_params.h"
#include "kiln/kernels.h"
#include "sort_util.h"
#include "typed_util.h"

enum {
  UQ_DTYPE = KILN_IP_UNIQUE_DTYPE,
  UQ_OUTER = KILN_IP_UNIQUE_OUTER,
  UQ_LEN = KILN_IP_UNIQUE_LEN,
  UQ_INNER = KILN_IP_UNIQUE_INNER,
  UQ_COUNT = KILN_IP_UNIQUE_COUNT,
  UQ_SORTED = KILN_IP_UNIQUE_SORTED,
  UQ_HAS_INDICES = KILN_IP_UNIQUE_HAS_INDICES,
  UQ_HAS_INVERSE = KILN_IP_UNIQUE_HAS_INVERSE,
  UQ_HAS_COUNTS = KILN_IP_UNIQUE_HAS_COUNTS,
  UQ_NPARAMS = KILN_UNIQUE_IPARAMS
};
_Static_assert(KILN_IP_UNIQUE_BOUNDED_DTYPE == (int)UQ_DTYPE &&
                   KILN_IP_UNIQUE_BOUNDED_OUTER == (int)UQ_OUTER &&
                   KILN_IP_UNIQUE_BOUNDED_LEN == (int)UQ_LEN &&
                   KILN_IP_UNIQUE_BOUNDED_INNER == (int)UQ_INNER &&
                   KILN_IP_UNIQUE_BOUNDED_COUNT == (int)UQ_COUNT &&
                   KILN_IP_UNIQUE_BOUNDED_SORTED == (int)UQ_SORTED &&
                   KILN_IP_UNIQUE_BOUNDED_HAS_INDICES == (int)UQ_HAS_INDICES &&
                   KILN_IP_UNIQUE_BOUNDED_HAS_INVERSE == (int)UQ_HAS_INVERSE &&
                   KILN_IP_UNIQUE_BOUNDED_HAS_COUNTS == (int)UQ_HAS_COUNTS &&
                   KILN_UNIQUE_BOUNDED_IPARAMS == (int)UQ_NPARAMS,
               "unique_bounded has unique's parameters");
enum { UQ_X, UQ_Y, UQ_INDICES, UQ_INVERSE, UQ_COUNTS, UQ_SCRATCH, UQ_RESULT };

typedef struct uq_view {
  const unsigned char* x;
  int64_t t, outer, len, inner;
} uq_view;

/* -1, 0 or 1 as element a of X orders before, with or after element b. */
static int uq_cmp_elem(const uq_view* v, int64_t a, int64_t b) {
  if (kiln_dtype_is_float(v->t)) {
    const double x = kiln_load_f(v->x, v->t, a), y = kiln_load_f(v->x, v->t, b);
    const int nx = x != x, ny = y != y;
    if (nx || ny) return nx - ny; /* NaN after numbers, equal to NaN */
    return (x > y) - (x < y);
  }
  const uint64_t ux = kiln_load_bits(v->x, v->t, a), uy = kiln_load_bits(v->x, v->t, b);
  if (kiln_dtype_is_unsigned(v->t)) return (ux > uy) - (ux < uy);
  const int64_t sx = (int64_t)ux, sy = (int64_t)uy;
  return (sx > sy) - (sx < sy);
}

/* Slices a and b compared lexicographically. */
static int uq_cmp_slice(const uq_view* v, int64_t a, int64_t b) {
  if (a == b) return 0;
  for (int64_t o = 0; o < v->outer; ++o) {
    const int64_t base = o * v->len;
    for (int64_t i = 0; i < v->inner; ++i) {
      const int c = uq_cmp_elem(v, (base + a) * v->inner + i, (base + b) * v->inner + i);
      if (c != 0) return c;
    }
  }
  return 0;
}

static int uq_before(const void* ctx, int64_t a, int64_t b) {
  return uq_cmp_slice((const uq_view*)ctx, a, b) < 0;
}

/* Copies slice j of X to slot s of Y [outer, count, inner]. */
static void uq_copy_slice(const uq_view* v, unsigned char* y, int64_t count, int64_t eb,
                          int64_t j, int64_t s) {
  const int64_t row = v->inner * eb;
  if (row == 0) return;
  for (int64_t o = 0; o < v->outer; ++o) {
    memcpy(y + (o * count + s) * row, v->x + (o * v->len + j) * row, (size_t)row);
  }
}

/* Sorts X's slices into groups of equal ones: returns how many groups;
 * group[j] is slice j's group (sorted rank) and perm[g] group g's first
 * occurrence in X. */
static int64_t uq_group(const uq_view* v, int64_t* perm, int64_t* group) {
  const int64_t n = v->len;
  for (int64_t s = 0; s < n; ++s) perm[s] = s;
  kiln_stable_sort_indices(perm, group, n, uq_before, v);
  /* Number the groups of equal slices; compact perm to each group's first
   * member, which the stable sort made its first occurrence in X (perm[s]
   * is read before perm[groups - 1 <= s] is written). */
  int64_t groups = 0;
  for (int64_t s = 0; s < n; ++s) {
    if (s == 0 || uq_cmp_slice(v, perm[s - 1], perm[s]) != 0) perm[groups++] = perm[s];
    group[perm[s]] = groups - 1;
  }
  return groups;
}

/* Writes the outputs for `count` groups (uq_group's), Y as
 * [outer, count, inner]. */
static void uq_write(const int64_t* ip, const uq_view* vp, void* const* bindings, int64_t* perm,
                     const int64_t* group, int64_t count) {
  const uq_view v = *vp;
  const int64_t n = v.len, eb = kiln_dtype_size(v.t);
  unsigned char* y = (unsigned char*)bindings[UQ_Y];
  int64_t* indices = ip[UQ_HAS_INDICES] ? (int64_t*)bindings[UQ_INDICES] : NULL;
  int64_t* inverse = ip[UQ_HAS_INVERSE] ? (int64_t*)bindings[UQ_INVERSE] : NULL;
  int64_t* counts = ip[UQ_HAS_COUNTS] ? (int64_t*)bindings[UQ_COUNTS] : NULL;
  if (counts) {
    for (int64_t g = 0; g < count; ++g) counts[g] = 0;
  }
  /* Walking X in order meets each group first at its first occurrence,
   * which fixes the group's Y slot: its sorted rank, or the next free one.
   * perm[g] then holds -1 - slot. */
  int64_t next = 0;
  for (int64_t j = 0; j < n; ++j) {
    const int64_t g = group[j];
    if (perm[g] == j) {
      const int64_t s = ip[UQ_SORTED] ? g : next++;
      uq_copy_slice(&v, y, count, eb, j, s);
      if (indices) indices[s] = j;
      perm[g] = -1 - s;
    }
    const int64_t s = -1 - perm[g];
    if (inverse) inverse[j] = s;
    if (counts) ++counts[s];
  }
}

static uq_view uq_view_of(const int64_t* ip, void* const* bindings) {
  const uq_view v = {(const unsigned char*)bindings[UQ_X], ip[UQ_DTYPE], ip[UQ_OUTER],
                     ip[UQ_LEN], ip[UQ_INNER]};
  return v;
}

int kiln_unique(const int64_t* ip, const float* fp, void* const* bindings,
                const kiln_host* host) {
  (void)fp;
  (void)host;
  const uq_view v = uq_view_of(ip, bindings);
  int64_t* perm = (int64_t*)bindings[UQ_SCRATCH]; /* sorted order, then per group */
  int64_t* group = perm + v.len;                  /* group (sorted rank) of each slice */
  const int64_t groups = uq_group(&v, perm, group);
  if (groups != ip[UQ_COUNT]) return KILN_ERR_SHAPE_MISMATCH;
  uq_write(ip, &v, bindings, perm, group, groups);
  return KILN_OK;
}

/* unique_bounded: ip[UQ_COUNT] is the capacity; the real count goes to
 * binding 6 (the outputs are shaped after the run). */
int kiln_unique_bounded(const int64_t* ip, const float* fp, void* const* bindings,
                        const kiln_host* host) {
  (void)fp;
  (void)host;
  const uq_view v = uq_view_of(ip, bindings);
  int64_t* perm = (int64_t*)bindings[UQ_SCRATCH];
  int64_t* group = perm + v.len;
  const int64_t groups = uq_group(&v, perm, group);
  if (groups > ip[UQ_COUNT]) return KILN_ERR_SHAPE_MISMATCH;
  uq_write(ip, &v, bindings, perm, group, groups);
  memcpy(bindings[UQ_RESULT], &groups, sizeof groups);
  return KILN_OK;
}

int kiln_unique_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                      uint32_t fparam_count, const uint64_t* binding_bytes) {
  KILN_TRY(kiln_check_counts(ip, iparam_count, UQ_NPARAMS, fp, fparam_count, 0));
  KILN_TRY(kiln_check_nonneg(ip, UQ_NPARAMS));
  const int64_t eb = kiln_dtype_size(ip[UQ_DTYPE]);
  if (eb == 0) return KILN_ERR_INVALID_ARGUMENT;
  for (int k = UQ_SORTED; k <= UQ_HAS_COUNTS; ++k) KILN_TRY(kiln_check_enum(ip[k], 0, 1));
  const int64_t outer = ip[UQ_OUTER], len = ip[UQ_LEN], inner = ip[UQ_INNER];
  const int64_t count = ip[UQ_COUNT];
  if (count > len) return KILN_ERR_INVALID_ARGUMENT;
  /* A merge sort of len slices, each comparison up to outer x inner elements. */
  const int64_t work[4] = {outer, inner, len, kiln_sort_passes(len)};
  KILN_TRY(kiln_check_work(work, 4));
  int64_t elems, bytes;
  const int64_t in[3] = {outer, len, inner}, out[3] = {outer, count, inner};
  KILN_TRY(kiln_checked_product(in, 3, &elems));
  KILN_TRY(kiln_dense_bytes(elems, eb, &bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[UQ_X], bytes));
  KILN_TRY(kiln_checked_product(out, 3, &elems));
  KILN_TRY(kiln_dense_bytes(elems, eb, &bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[UQ_Y], bytes));
  KILN_TRY(kiln_dense_bytes(count, 8, &bytes));
  if (ip[UQ_HAS_INDICES]) KILN_TRY(kiln_check_binding(binding_bytes[UQ_INDICES], bytes));
  if (ip[UQ_HAS_COUNTS]) KILN_TRY(kiln_check_binding(binding_bytes[UQ_COUNTS], bytes));
  KILN_TRY(kiln_dense_bytes(len, 8, &bytes));
  if (ip[UQ_HAS_INVERSE]) KILN_TRY(kiln_check_binding(binding_bytes[UQ_INVERSE], bytes));
  KILN_TRY(kiln_dense_bytes(len, 16, &bytes));
  return kiln_check_binding(binding_bytes[UQ_SCRATCH], bytes);
}

int kiln_unique_bounded_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                              uint32_t fparam_count, const uint64_t* binding_bytes) {
  KILN_TRY(kiln_unique_check(ip, iparam_count, fp, fparam_count, binding_bytes));
  return kiln_check_binding(binding_bytes[UQ_RESULT], (int64_t)sizeof(int64_t));
}
