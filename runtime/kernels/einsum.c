/* einsum: float32 or float64 one- or two-operand Einstein sums. The compiler orders the
 * letters output-first, then summed; each operand reaches a letter through a
 * stride (0 when it lacks the letter, a sum of strides for a repeated one,
 * i.e. a diagonal). The output is dense over the output letters.
 *
 * A float32 einsum shaped as a batch of matrix products (attention's
 * "bhid,bhjd->bhij" and "bhij,bhjd->bhid") runs one GEMM (sgemm.h) per batch
 * element, summing in float as MatMul does; any other einsum runs the loops
 * below, summing in double. */
#include <stdint.h>
#include <string.h>

#include "check_util.h"
#include "host_tasks.h"
#include "sgemm.h"
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

/* The batch of matrix products an einsum may be: one summed letter k that
 * both operands have; the rows, letters only A has, and the columns, letters
 * only B has, each one letter or adjacent output letters that run densely
 * in their operand and in Y ("bij,jk->bik": b and i together are A's rows);
 * every other output letter a batch letter; Y's last letter a column, or a
 * row (then each product is computed transposed: Y^T = B^T A^T). Per batch
 * element: desc with a, b and y set. */
typedef struct es_batch {
  kiln_gemm_desc desc;
  const float *a, *b;
  float* y;
  int64_t letters;                /* batch letters, in output order */
  int64_t dims[EINSUM_MAX_LETTERS], sa[EINSUM_MAX_LETTERS], sb[EINSUM_MAX_LETTERS],
      sy[EINSUM_MAX_LETTERS];
  int64_t count;                  /* batch elements */
  const kiln_host* gemm_host;     /* the GEMMs' own threads: when the batch is one */
} es_batch;

/* Adds output letter d to the group whose innermost letter is *last (-1:
 * none yet) of one operand's strides s: 0 when it does not continue it. */
static int es_group_add(const int64_t* dims, const int64_t* s, const int64_t* ys, int64_t d,
                        int64_t* last, int64_t* extent) {
  if (*last < 0) {
    *last = d, *extent = dims[d];
    return 1;
  }
  if (*last != d - 1 || s[*last] != dims[d] * s[d] || ys[*last] != dims[d] * ys[d]) return 0;
  *last = d, *extent *= dims[d];
  return 1;
}

static int es_batch_plan(const int64_t* ip, void* const* bindings, es_batch* p) {
  const int64_t L = ip[ES_L], nout = ip[ES_NOUT];
  const int64_t* dims = ip + ES_HEAD;
  const int64_t* sa = dims + L;
  const int64_t* sb = sa + L;
  if (!ip[ES_HAS_B] || ip[ES_F64] || L - nout != 1) return 0;
  const int64_t k = nout;
  if (sa[k] == 0 || sb[k] == 0) return 0;
  int64_t m = -1, n = -1, rows = 1, cols = 1, ys[EINSUM_MAX_LETTERS], stride = 1;
  for (int64_t d = nout - 1; d >= 0; --d) ys[d] = stride, stride *= dims[d];
  p->letters = 0, p->count = 1;
  for (int64_t d = 0; d < nout; ++d) {
    if (sa[d] != 0 && sb[d] == 0) {
      if (!es_group_add(dims, sa, ys, d, &m, &rows)) return 0;
    } else if (sa[d] == 0 && sb[d] != 0) {
      if (!es_group_add(dims, sb, ys, d, &n, &cols)) return 0;
    } else {
      p->dims[p->letters] = dims[d], p->sa[p->letters] = sa[d], p->sb[p->letters] = sb[d];
      p->sy[p->letters] = ys[d], p->count *= dims[d], ++p->letters;
    }
  }
  kiln_gemm_desc* g = &p->desc;
  memset(g, 0, sizeof *g);
  g->K = dims[k];
  g->ep.alpha = 1.0f, g->ep.beta = 1.0f;
  if (n >= 0 && ys[n] == 1) {
    g->M = rows, g->N = cols;
    g->a_rs = m >= 0 ? sa[m] : 0, g->a_cs = sa[k];
    g->b_rs = sb[k], g->b_cs = sb[n];
    g->y_rs = m >= 0 ? ys[m] : 0;
    p->a = (const float*)bindings[0], p->b = (const float*)bindings[1];
  } else if (m >= 0 && ys[m] == 1) {
    g->M = cols, g->N = rows;
    g->a_rs = n >= 0 ? sb[n] : 0, g->a_cs = sb[k];
    g->b_rs = sa[k], g->b_cs = sa[m];
    g->y_rs = n >= 0 ? ys[n] : 0;
    p->a = (const float*)bindings[1], p->b = (const float*)bindings[0];
    /* The batch strides follow the operands' new roles. */
    for (int64_t i = 0; i < p->letters; ++i) {
      const int64_t t = p->sa[i];
      p->sa[i] = p->sb[i], p->sb[i] = t;
    }
  } else {
    return 0; /* Y's last letter is a batch letter */
  }
  p->y = (float*)bindings[2];
  return 1;
}

/* Batch elements [begin, end), each one GEMM. */
static void es_batch_tasks(void* ctx, int64_t begin, int64_t end) {
  const es_batch* p = (const es_batch*)ctx;
  kiln_gemm_desc g = p->desc;
  for (int64_t t = begin; t < end; ++t) {
    int64_t oa = 0, ob = 0, oy = 0, rest = t;
    for (int64_t i = p->letters - 1; i >= 0; --i) {
      const int64_t pos = rest % p->dims[i];
      rest /= p->dims[i];
      oa += pos * p->sa[i], ob += pos * p->sb[i], oy += pos * p->sy[i];
    }
    g.a = p->a + oa, g.b = p->b + ob, g.y = p->y + oy;
    kiln_sgemm(&g, p->gemm_host);
  }
}

int kiln_einsum(const int64_t* ip, const float* fp, void* const* bindings,
                const kiln_host* host) {
  (void)fp;
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
  es_batch batch;
  if (es_batch_plan(ip, bindings, &batch)) {
    /* Many small products (attention's windows and heads) split over
     * threads by batch element; one large product splits itself. */
    batch.gemm_host = batch.count == 1 ? host : NULL;
    kiln_run_tasks(batch.count > 1 ? host : NULL, batch.count, (double)n_out * (double)n_sum,
                   (double)(1 << 19), es_batch_tasks, &batch);
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
