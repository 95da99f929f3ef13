/* A stable sort of an index array by the caller's order, for kernels that
 * must not allocate (unique, non_max_suppression): bottom-up merge sort
 * with a caller-provided buffer as long as the array (the compiler plans it
 * as a scratch binding). Stability is what the ONNX references need: equal
 * keys keep their input order (Unique's first occurrence, NMS's lower box
 * index on equal scores).
 * Internal to runtime/kernels: an AOT bundle copies it beside the kernels. */
#ifndef KILN_KERNELS_SORT_UTIL_H_
#define KILN_KERNELS_SORT_UTIL_H_

#include <stdint.h>
#include <string.h>

/* Nonzero when index a must come strictly before index b. */
typedef int (*kiln_index_before_fn)(const void* ctx, int64_t a, int64_t b);

static inline void kiln_stable_sort_indices(int64_t* idx, int64_t* buf, int64_t n,
                                            kiln_index_before_fn before, const void* ctx) {
  int64_t* src = idx;
  int64_t* dst = buf;
  for (int64_t width = 1; width < n; width *= 2) {
    for (int64_t lo = 0; lo < n; lo += 2 * width) {
      const int64_t mid = lo + width < n ? lo + width : n;
      const int64_t hi = lo + 2 * width < n ? lo + 2 * width : n;
      int64_t i = lo, j = mid, k = lo;
      /* Take from the right run only when strictly before: stable. */
      while (i < mid && j < hi) dst[k++] = before(ctx, src[j], src[i]) ? src[j++] : src[i++];
      while (i < mid) dst[k++] = src[i++];
      while (j < hi) dst[k++] = src[j++];
    }
    int64_t* t = src;
    src = dst;
    dst = t;
  }
  if (src != idx && n > 0) memcpy(idx, src, (size_t)n * sizeof(int64_t));
}

/* Comparisons of a merge sort of n keys: about n * ceil(log2 n), bounded
 * for the checkers' work limits. */
static inline int64_t kiln_sort_passes(int64_t n) {
  int64_t passes = 1;
  /* w stops doubling at n (no overflow for n near INT64_MAX). */
  for (int64_t w = 1; w < n; w = w > n / 2 ? n : w * 2) ++passes;
  return passes;
}

#endif /* KILN_KERNELS_SORT_UTIL_H_ */
