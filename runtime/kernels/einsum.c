/* einsum: float32 or float64 one- or two-operand Einstein sums. The compiler orders the
 * letters output-first, then summed; each operand reaches a letter through a
 * stride (0 when it lacks the letter, a sum of strides for a repeated one,
 * i.e. a diagonal). The output is dense over the output letters. */
#include <stdint.h>
#include <string.h>

#include "check_util.h"
#include "kiln/kernel_params.h"
#include "kiln/kernels.h"

#define EINSUM_MAX_LETTERS 16
enum {
  ES_L = KILN_IP_EINSUM_L,
  ES_NOUT = KILN_IP_EINSUM_NOUT,
  ES_HAS_B = KILN_IP_EINSUM_HAS_B,
  ES_F64 = KILN_IP_EINSUM_IS_F64,
  ES_HEAD = KILN_IP_EINSUM_DIMS
};

#define EINSUM_LOOP(T)                                                        \
  {                                                                           \
    const T* a = (const T*)bindings[0];                                       \
    const T* b = (const T*)bindings[1];                                       \
    T* y = (T*)bindings[2];                                                   \
    int64_t pos[EINSUM_MAX_LETTERS] = {0};                                    \
    for (int64_t k = 0; k < n_out; ++k) {                                     \
      int64_t oa = 0, ob = 0;                                                 \
      for (int64_t d = 0; d < nout; ++d) {                                    \
        oa += pos[d] * sa[d];                                                 \
        ob += pos[d] * sb[d];                                                 \
      }                                                                       \
      double acc = 0.0;                                                       \
      for (int64_t d = nout; d < L; ++d) pos[d] = 0;                          \
      for (int64_t s = 0; s < n_sum; ++s) {                                   \
        int64_t ia = oa, jb = ob;                                             \
        for (int64_t d = nout; d < L; ++d) {                                  \
          ia += pos[d] * sa[d];                                               \
          jb += pos[d] * sb[d];                                               \
        }                                                                     \
        acc += has_b ? (double)a[ia] * (double)b[jb] : (double)a[ia];         \
        for (int64_t d = L - 1; d >= nout; --d) {                             \
          if (++pos[d] < dims[d]) break;                                      \
          pos[d] = 0;                                                         \
        }                                                                     \
      }                                                                       \
      y[k] = (T)acc;                                                          \
      for (int64_t d = nout - 1; d >= 0; --d) {                               \
        if (++pos[d] < dims[d]) break;                                        \
        pos[d] = 0;                                                           \
      }                                                                       \
    }                                                                         \
  }

int kiln_einsum(const int64_t* ip, const float* fp, void* const* bindings,
                const kiln_host* host) {
  (void)fp;
  (void)host;
  const int64_t L = ip[ES_L], nout = ip[ES_NOUT], has_b = ip[ES_HAS_B];
  const int64_t* dims = ip + ES_HEAD;
  const int64_t* sa = dims + L;
  const int64_t* sb = sa + L;
  int64_t n_out = 1, n_sum = 1;
  for (int64_t d = 0; d < nout; ++d) n_out *= dims[d];
  for (int64_t d = nout; d < L; ++d) n_sum *= dims[d];
  if (n_sum == 0) {
    /* An empty sum reads nothing: the check bounded no operand offset, so
     * none is formed (a fuzzed module's strides overflowed int64 here). */
    const size_t elem = ip[ES_F64] ? sizeof(double) : sizeof(float);
    if (n_out > 0) memset(bindings[2], 0, (size_t)n_out * elem);
    return KILN_OK;
  }
  if (ip[ES_F64]) EINSUM_LOOP(double) else EINSUM_LOOP(float)
  return KILN_OK;
}

/* iparams (4 + 3L): L nout has_b is_f64  dims[L]  a_strides[L]  b_strides[L]
 * bindings: [0] A  [1] B (unread when has_b is 0)  [2] Y */
int kiln_einsum_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                          uint32_t fparam_count, const uint64_t* binding_bytes) {
  if (ip == NULL || iparam_count < ES_HEAD) return KILN_ERR_INVALID_ARGUMENT;
  const int64_t L = ip[ES_L], nout = ip[ES_NOUT];
  if (L < 0 || L > EINSUM_MAX_LETTERS || nout < 0 || nout > L) return KILN_ERR_INVALID_ARGUMENT;
  KILN_TRY(kiln_check_counts(ip, iparam_count, (uint32_t)(ES_HEAD + 3 * L), fp, fparam_count, 0));
  KILN_TRY(kiln_check_nonneg(ip, ES_HEAD + 3 * L));
  KILN_TRY(kiln_check_enum(ip[ES_HAS_B], 0, 1));
  KILN_TRY(kiln_check_enum(ip[ES_F64], 0, 1));
  const int64_t eb = ip[ES_F64] ? 8 : 4;
  const int64_t* dims = ip + ES_HEAD;
  int64_t total, bytes, n_out, n_sum;
  KILN_TRY(kiln_checked_product(dims, L, &total));
  /* Zero strides let the letters' product outgrow both operands, so the
   * walk is bounded directly: every output element (none when Y is empty)
   * runs the whole summed space, which is skipped when empty. */
  KILN_TRY(kiln_checked_product(dims, nout, &n_out));
  KILN_TRY(kiln_checked_product(dims + nout, L - nout, &n_sum));
  if (n_out > 0) KILN_TRY(kiln_check_work(dims, n_sum > 0 ? L : nout));
  if (total == 0) {
    /* Nothing is read; only the (possibly empty) output is written. */
    if (n_out > 0) {
      /* Empty sum: the output is all zeros, operands untouched. */
      KILN_TRY(kiln_dense_bytes(n_out, eb, &bytes));
      return kiln_check_binding(binding_bytes[2], bytes);
    }
    return KILN_OK;
  }
  KILN_TRY(kiln_view_bytes(L, dims, dims + L, 0, eb, &bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[0], bytes));
  int64_t reached = bytes / eb;
  if (ip[ES_HAS_B]) {
    KILN_TRY(kiln_view_bytes(L, dims, dims + 2 * L, 0, eb, &bytes));
    KILN_TRY(kiln_check_binding(binding_bytes[1], bytes));
    reached += bytes / eb;
  }
  KILN_TRY(kiln_dense_bytes(n_out, eb, &bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[2], bytes));
  /* Zero or overlapping strides: under the work limit, the sum can still
   * re-read a few elements for minutes (fuzzer find). A real einsum reads
   * each operand element at most about min(I, J, K) times (a matmul); allow
   * KILN_MAX_REUSE passes over what the operands and output hold. */
  if (n_out > 0 && n_sum > 0) KILN_TRY(kiln_check_reuse(n_out * n_sum, reached + n_out));
  return KILN_OK;
}
