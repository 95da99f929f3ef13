/* topk: the K largest (or smallest) elements along one axis with their
 * int64 indices, sorted best first; equal values keep the lower index first,
 * as ONNX specifies. X is viewed as [outer, len, inner]. Floats rank NaN
 * above every number (so largest=1 puts NaN first, largest=0 last). When k
 * arrives as a run-time input, the module was compiled for one k (the
 * declared output shape) and a different run-time k fails the call;
 * topk_bounded, for a model that declares none, takes any k up to the axis
 * length and reports it. */
#include <stdint.h>
#include <string.h>

#include "check_util.h"
#include "kiln/kernel_params.h"
#include "kiln/kernels.h"
#include "typed_util.h"

enum {
  TK_DTYPE = KILN_IP_TOPK_DTYPE,
  TK_OUTER = KILN_IP_TOPK_OUTER,
  TK_LEN = KILN_IP_TOPK_LEN,
  TK_INNER = KILN_IP_TOPK_INNER,
  TK_K = KILN_IP_TOPK_K,
  TK_LARGEST = KILN_IP_TOPK_LARGEST,
  TK_K_DTYPE = KILN_IP_TOPK_K_DTYPE,
  TK_COUNT = KILN_TOPK_IPARAMS
};
_Static_assert(KILN_IP_TOPK_BOUNDED_DTYPE == (int)TK_DTYPE &&
                   KILN_IP_TOPK_BOUNDED_OUTER == (int)TK_OUTER &&
                   KILN_IP_TOPK_BOUNDED_LEN == (int)TK_LEN &&
                   KILN_IP_TOPK_BOUNDED_INNER == (int)TK_INNER &&
                   KILN_IP_TOPK_BOUNDED_K == (int)TK_K &&
                   KILN_IP_TOPK_BOUNDED_LARGEST == (int)TK_LARGEST &&
                   KILN_IP_TOPK_BOUNDED_K_DTYPE == (int)TK_K_DTYPE &&
                   KILN_TOPK_BOUNDED_IPARAMS == (int)TK_COUNT,
               "topk_bounded has topk's parameters");
/* The checker reads outer, len and inner as the array ip + TK_OUTER. */
_Static_assert(TK_LEN == TK_OUTER + 1 && TK_INNER == TK_OUTER + 2,
               "outer, len and inner are consecutive");

/* a ranks strictly before b. */
static int topk_before(const void* pa, int64_t ia, const void* pb, int64_t ib, int64_t t,
                       int largest) {
  if (kiln_dtype_is_float(t)) {
    const double a = kiln_load_f(pa, t, ia), b = kiln_load_f(pb, t, ib);
    const int na = a != a, nb = b != b;
    if (na || nb) return largest ? (na && !nb) : (nb && !na);
    return largest ? a > b : a < b;
  }
  const uint64_t ua = kiln_load_bits(pa, t, ia), ub = kiln_load_bits(pb, t, ib);
  if (kiln_dtype_is_unsigned(t)) return largest ? ua > ub : ua < ub;
  const int64_t a = (int64_t)ua, b = (int64_t)ub;
  return largest ? a > b : a < b;
}

/* The K best of each [outer, :, inner] lane, written as [outer, K, inner]. */
static void topk_run(const int64_t* ip, int64_t K, void* const* bindings) {
  const int64_t t = ip[TK_DTYPE], outer = ip[TK_OUTER], len = ip[TK_LEN];
  const int64_t inner = ip[TK_INNER], eb = kiln_dtype_size(t);
  const int largest = ip[TK_LARGEST] != 0;
  const unsigned char* x = (const unsigned char*)bindings[0];
  unsigned char* v = (unsigned char*)bindings[2];
  unsigned char* ix = (unsigned char*)bindings[3];
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      const int64_t xb = o * len * inner + i, yb = o * K * inner + i;
      int64_t n = 0; /* entries held so far, best first */
      for (int64_t s = 0; s < len && K > 0; ++s) {
        const int64_t xs = xb + s * inner;
        if (n == K && !topk_before(x, xs, v, yb + (K - 1) * inner, t, largest)) continue;
        int64_t p = n < K ? n : K - 1;
        /* Shift worse entries down; stopping at equals keeps earlier indices first. */
        while (p > 0 && topk_before(x, xs, v, yb + (p - 1) * inner, t, largest)) {
          memcpy(v + (yb + p * inner) * eb, v + (yb + (p - 1) * inner) * eb, (size_t)eb);
          memcpy(ix + (yb + p * inner) * 8, ix + (yb + (p - 1) * inner) * 8, 8);
          --p;
        }
        memcpy(v + (yb + p * inner) * eb, x + xs * eb, (size_t)eb);
        memcpy(ix + (yb + p * inner) * 8, &s, 8);
        if (n < K) ++n;
      }
    }
  }
}

int kiln_topk(const int64_t* ip, const float* fp, void* const* bindings, const kiln_host* host) {
  (void)fp;
  (void)host;
  if (ip[TK_K_DTYPE] != 0) {
    const int64_t k = (int64_t)kiln_load_bits(bindings[1], ip[TK_K_DTYPE], 0);
    if (k != ip[TK_K]) return KILN_ERR_SHAPE_MISMATCH;
  }
  topk_run(ip, ip[TK_K], bindings);
  return KILN_OK;
}

/* topk_bounded: K is the capacity (the axis length); the run-time k, in
 * 0..K, picks the result, written densely as [outer, k, inner], and goes to
 * binding 4 as one int64. */
int kiln_topk_bounded(const int64_t* ip, const float* fp, void* const* bindings,
                      const kiln_host* host) {
  (void)fp;
  (void)host;
  const int64_t k = (int64_t)kiln_load_bits(bindings[1], ip[TK_K_DTYPE], 0);
  if (k < 0 || k > ip[TK_K]) return KILN_ERR_SHAPE_MISMATCH;
  topk_run(ip, k, bindings);
  *(int64_t*)bindings[4] = k;
  return KILN_OK;
}

int kiln_topk_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                    uint32_t fparam_count, const uint64_t* binding_bytes) {
  KILN_TRY(kiln_check_counts(ip, iparam_count, TK_COUNT, fp, fparam_count, 0));
  KILN_TRY(kiln_check_nonneg(ip, TK_COUNT));
  const int64_t eb = kiln_dtype_size(ip[TK_DTYPE]);
  if (eb == 0 || ip[TK_DTYPE] == KILN_DTYPE_BOOL) return KILN_ERR_INVALID_ARGUMENT;
  KILN_TRY(kiln_check_enum(ip[TK_LARGEST], 0, 1));
  if (ip[TK_K] > ip[TK_LEN]) return KILN_ERR_INVALID_ARGUMENT;
  if (ip[TK_K_DTYPE] != 0) {
    if (ip[TK_K_DTYPE] != KILN_DTYPE_I64 && ip[TK_K_DTYPE] != KILN_DTYPE_I32)
      return KILN_ERR_INVALID_ARGUMENT;
    KILN_TRY(kiln_check_binding(binding_bytes[1], kiln_dtype_size(ip[TK_K_DTYPE])));
  }
  /* outer x inner x len candidates, each shifted through up to K entries. */
  const int64_t work[4] = {ip[TK_OUTER], ip[TK_INNER], ip[TK_LEN], ip[TK_K]};
  KILN_TRY(kiln_check_work(work, 4));
  int64_t in_count, out_count, bytes;
  KILN_TRY(kiln_checked_product(ip + TK_OUTER, 3, &in_count));
  const int64_t odims[3] = {ip[TK_OUTER], ip[TK_K], ip[TK_INNER]};
  KILN_TRY(kiln_checked_product(odims, 3, &out_count));
  KILN_TRY(kiln_dense_bytes(in_count, eb, &bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[0], bytes));
  KILN_TRY(kiln_dense_bytes(out_count, eb, &bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[2], bytes));
  KILN_TRY(kiln_dense_bytes(out_count, 8, &bytes));
  return kiln_check_binding(binding_bytes[3], bytes);
}

int kiln_topk_bounded_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                            uint32_t fparam_count, const uint64_t* binding_bytes) {
  KILN_TRY(kiln_topk_check(ip, iparam_count, fp, fparam_count, binding_bytes));
  if (ip[TK_K_DTYPE] == 0) return KILN_ERR_INVALID_ARGUMENT; /* k is read */
  return kiln_check_binding(binding_bytes[4], 8);
}
