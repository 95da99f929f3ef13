/* cumsum: running sums along the middle axis of X viewed as
 * [outer, len, inner], optionally exclusive and/or reversed. Typed by a kind
 * code because integer sums must stay exact. */
#include <stdint.h>

#include "check_util.h"
#include "kiln/kernels.h"

enum { CS_KIND, CS_OUTER, CS_LEN, CS_INNER, CS_EXCLUSIVE, CS_REVERSE, CS_N };

#define CUMSUM_LOOP(T)                                                        \
  {                                                                           \
    const T* x = (const T*)bindings[0];                                       \
    T* y = (T*)bindings[1];                                                   \
    for (int64_t o = 0; o < outer; ++o) {                                     \
      for (int64_t i = 0; i < inner; ++i) {                                   \
        T acc = 0;                                                            \
        for (int64_t s = 0; s < len; ++s) {                                   \
          const int64_t t = rev ? len - 1 - s : s;                            \
          const int64_t at = (o * len + t) * inner + i;                       \
          if (excl) {                                                         \
            y[at] = acc;                                                      \
            acc += x[at];                                                     \
          } else {                                                            \
            acc += x[at];                                                     \
            y[at] = acc;                                                      \
          }                                                                   \
        }                                                                     \
      }                                                                       \
    }                                                                         \
    return KILN_OK;                                                           \
  }

/* kind: 1 f32, 2 f64, 3 i32, 4 i64. */
int kiln_cumsum(const int64_t* ip, const float* fp, void* const* bindings,
                const kiln_host* host) {
  (void)fp;
  (void)host;
  const int64_t outer = ip[CS_OUTER], len = ip[CS_LEN], inner = ip[CS_INNER];
  const int64_t excl = ip[CS_EXCLUSIVE], rev = ip[CS_REVERSE];
  switch (ip[CS_KIND]) {
    case 1: CUMSUM_LOOP(float)
    case 2: CUMSUM_LOOP(double)
    case 3: CUMSUM_LOOP(int32_t)
    default: CUMSUM_LOOP(int64_t)
  }
}

int kiln_cumsum_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                      uint32_t fparam_count, const uint64_t* binding_bytes) {
  KILN_TRY(kiln_check_counts(ip, iparam_count, CS_N, fp, fparam_count, 0));
  KILN_TRY(kiln_check_nonneg(ip, CS_N));
  KILN_TRY(kiln_check_enum(ip[CS_KIND], 1, 4));
  KILN_TRY(kiln_check_enum(ip[CS_EXCLUSIVE], 0, 1));
  KILN_TRY(kiln_check_enum(ip[CS_REVERSE], 0, 1));
  const int64_t eb = (ip[CS_KIND] == 1 || ip[CS_KIND] == 3) ? 4 : 8;
  int64_t n, bytes;
  KILN_TRY(kiln_checked_product(ip + CS_OUTER, 3, &n));
  KILN_TRY(kiln_dense_bytes(n, eb, &bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[0], bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[1], bytes));
  return KILN_OK;
}
