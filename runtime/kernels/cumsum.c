/* cumsum: running sums along the middle axis of X viewed as
 * [outer, len, inner], optionally exclusive and/or reversed. Typed by a kind
 * code because integer sums must stay exact. */
#include <stdint.h>
#include <string.h>

#include "check_util.h"
#include "kiln/kernel_params.h"
#include "kiln/kernels.h"

/* iparams (6 + R): kind axis_ib exclusive reverse axis R  dims[R]
 * axis_ib 0: the axis is the iparam; 4/8: read from binding 1 (int32/int64),
 * negative values wrap once, anything else out of range fails the run. */
enum {
  CS_KIND = KILN_IP_CUMSUM_KIND,
  CS_AXIS_IB = KILN_IP_CUMSUM_AXIS_IB,
  CS_EXCLUSIVE = KILN_IP_CUMSUM_EXCLUSIVE,
  CS_REVERSE = KILN_IP_CUMSUM_REVERSE,
  CS_AXIS = KILN_IP_CUMSUM_AXIS,
  CS_R = KILN_IP_CUMSUM_R,
  CS_HEAD = KILN_IP_CUMSUM_DIMS
};

#define CUMSUM_LOOP(T)                                                        \
  {                                                                           \
    const T* x = (const T*)bindings[0];                                       \
    T* y = (T*)bindings[2];                                                   \
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
  const int64_t R = ip[CS_R];
  const int64_t* dims = ip + CS_HEAD;
  int64_t axis = ip[CS_AXIS];
  if (ip[CS_AXIS_IB] == 4) {
    int32_t a;
    memcpy(&a, bindings[1], 4);
    axis = a;
  } else if (ip[CS_AXIS_IB] == 8) {
    memcpy(&axis, bindings[1], 8);
  }
  if (axis < 0) axis += R;
  if (axis < 0 || axis >= R) return KILN_ERR_OUT_OF_RANGE;
  int64_t outer = 1, inner = 1;
  const int64_t len = dims[axis];
  for (int64_t d = 0; d < axis; ++d) outer *= dims[d];
  for (int64_t d = axis + 1; d < R; ++d) inner *= dims[d];
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
  if (ip == NULL || iparam_count < CS_HEAD) return KILN_ERR_INVALID_ARGUMENT;
  const int64_t R = ip[CS_R];
  if (R < 1 || R > KILN_MAX_RANK) return KILN_ERR_INVALID_ARGUMENT;
  KILN_TRY(kiln_check_counts(ip, iparam_count, (uint32_t)KILN_CUMSUM_IPARAMS(R), fp, fparam_count, 0));
  KILN_TRY(kiln_check_nonneg(ip + CS_HEAD, R));
  KILN_TRY(kiln_check_enum(ip[CS_KIND], 1, 4));
  KILN_TRY(kiln_check_enum(ip[CS_EXCLUSIVE], 0, 1));
  KILN_TRY(kiln_check_enum(ip[CS_REVERSE], 0, 1));
  const int64_t ib = ip[CS_AXIS_IB];
  if (ib != 0 && ib != 4 && ib != 8) return KILN_ERR_INVALID_ARGUMENT;
  if (ib == 0 && (ip[CS_AXIS] < -R || ip[CS_AXIS] >= R)) return KILN_ERR_INVALID_ARGUMENT;
  if (ib != 0) KILN_TRY(kiln_check_binding(binding_bytes[1], ib));
  const int64_t eb = (ip[CS_KIND] == 1 || ip[CS_KIND] == 3) ? 4 : 8;
  /* outer x inner x len, with the axis possibly chosen at run time: a zero
   * extent anywhere empties the tensors and leaves the others unbounded. */
  KILN_TRY(kiln_check_work(ip + CS_HEAD, R));
  int64_t n, bytes;
  KILN_TRY(kiln_checked_product(ip + CS_HEAD, R, &n));
  KILN_TRY(kiln_dense_bytes(n, eb, &bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[0], bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[2], bytes));
  return KILN_OK;
}
