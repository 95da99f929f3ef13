/* binary_f32 (broadcasting through strides) and unary_f32. The op is chosen
 * once per output row; each row loop is specialised for the common stride
 * patterns (both contiguous, one side broadcast) so it vectorises. */
#include <math.h>
#include <stdint.h>

#include "activation.h"
#include "check_util.h"
#include "host_tasks.h"
#include "kiln/kernel_params.h"
#include "kiln/kernels.h"

#define KILN_BINARY_LAST KILN_BINARY_PRELU

/* y[i] = a[i*sa] OP b[i*sb] for i in [0, n), one function per operator. */
#define DEFINE_BINARY_ROW(name, OP)                                            \
  static void name(const float* a, int64_t sa, const float* b, int64_t sb,     \
                   float* y, int64_t n) {                                      \
    int64_t i;                                                                 \
    if (sa == 1 && sb == 1) {                                                  \
      for (i = 0; i < n; ++i) y[i] = a[i] OP b[i];                             \
    } else if (sa == 1 && sb == 0) {                                           \
      const float bv = b[0];                                                   \
      for (i = 0; i < n; ++i) y[i] = a[i] OP bv;                               \
    } else if (sa == 0 && sb == 1) {                                           \
      const float av = a[0];                                                   \
      for (i = 0; i < n; ++i) y[i] = av OP b[i];                               \
    } else {                                                                   \
      for (i = 0; i < n; ++i) y[i] = a[i * sa] OP b[i * sb];                   \
    }                                                                          \
  }

DEFINE_BINARY_ROW(binary_row_add, +)
DEFINE_BINARY_ROW(binary_row_sub, -)
DEFINE_BINARY_ROW(binary_row_mul, *)
DEFINE_BINARY_ROW(binary_row_div, /)

/* The same row shapes for operators written as functions: y = FN(a, b). */
#define DEFINE_BINARY_ROW_FN(name, FN)                                         \
  static void name(const float* a, int64_t sa, const float* b, int64_t sb,     \
                   float* y, int64_t n) {                                      \
    int64_t i;                                                                 \
    if (sa == 1 && sb == 1) {                                                  \
      for (i = 0; i < n; ++i) y[i] = FN(a[i], b[i]);                           \
    } else if (sa == 1 && sb == 0) {                                           \
      const float bv = b[0];                                                   \
      for (i = 0; i < n; ++i) y[i] = FN(a[i], bv);                             \
    } else if (sa == 0 && sb == 1) {                                           \
      const float av = a[0];                                                   \
      for (i = 0; i < n; ++i) y[i] = FN(av, b[i]);                             \
    } else {                                                                   \
      for (i = 0; i < n; ++i) y[i] = FN(a[i * sa], b[i * sb]);                 \
    }                                                                          \
  }

/* NaN-propagating max/min (numpy maximum/minimum, which ONNX follows). */
static inline float bin_max(float a, float b) { return (a != a || a > b) ? a : b; }
static inline float bin_min(float a, float b) { return (a != a || a < b) ? a : b; }
static inline float bin_prelu(float a, float b) { return a < 0.0f ? a * b : a; }

DEFINE_BINARY_ROW_FN(binary_row_max, bin_max)
DEFINE_BINARY_ROW_FN(binary_row_min, bin_min)
DEFINE_BINARY_ROW_FN(binary_row_pow, powf)
DEFINE_BINARY_ROW_FN(binary_row_fmod, fmodf)
DEFINE_BINARY_ROW_FN(binary_row_prelu, bin_prelu)

static void binary_row(int64_t op, const float* a, int64_t sa, const float* b,
                       int64_t sb, float* y, int64_t n) {
  switch (op) {
    case KILN_BINARY_ADD: binary_row_add(a, sa, b, sb, y, n); break;
    case KILN_BINARY_SUB: binary_row_sub(a, sa, b, sb, y, n); break;
    case KILN_BINARY_MUL: binary_row_mul(a, sa, b, sb, y, n); break;
    case KILN_BINARY_MAX: binary_row_max(a, sa, b, sb, y, n); break;
    case KILN_BINARY_MIN: binary_row_min(a, sa, b, sb, y, n); break;
    case KILN_BINARY_POW: binary_row_pow(a, sa, b, sb, y, n); break;
    case KILN_BINARY_FMOD: binary_row_fmod(a, sa, b, sb, y, n); break;
    case KILN_BINARY_PRELU: binary_row_prelu(a, sa, b, sb, y, n); break;
    default: binary_row_div(a, sa, b, sb, y, n); break;
  }
}

enum {
  B_OP = KILN_IP_BINARY_F32_OP,
  B_R = KILN_IP_BINARY_F32_R,
  B_HEAD = KILN_IP_BINARY_F32_OUT_DIMS
};

/* Elements of the one output row per task when the whole output is one
 * row (two same-shaped tensors). */
#define BINARY_ROW_BLOCK 16384

/* The merged loop nest of one binary_f32 call: Y's rows (outer of them,
 * inner elements each), dims[0 .. r) the merged dims, the last one the row. */
typedef struct binary_job {
  int64_t op, r, outer, inner;
  const int64_t *dims, *sa, *sb;
  const float* a;
  const float* b;
  float* y;
} binary_job;

/* Tasks [begin, end): rows of Y, or blocks of its one row. Each element is
 * computed alike whatever the partition. */
static void binary_tasks(void* ctx, int64_t begin, int64_t end) {
  const binary_job* j = (const binary_job*)ctx;
  const int64_t last = j->r - 1, sa_in = j->sa[last], sb_in = j->sb[last];
  if (j->outer == 1) {
    const int64_t i0 = begin * BINARY_ROW_BLOCK;
    const int64_t i1 = end * BINARY_ROW_BLOCK < j->inner ? end * BINARY_ROW_BLOCK : j->inner;
    binary_row(j->op, j->a + i0 * sa_in, sa_in, j->b + i0 * sb_in, sb_in, j->y + i0, i1 - i0);
    return;
  }
  int64_t idx[KILN_MAX_RANK] = {0};
  for (int64_t d = last - 1, rest = begin; d >= 0; --d) {
    idx[d] = rest % j->dims[d];
    rest /= j->dims[d];
  }
  for (int64_t o = begin; o < end; ++o) {
    int64_t a_off = 0, b_off = 0;
    for (int64_t d = 0; d < last; ++d) {
      a_off += idx[d] * j->sa[d];
      b_off += idx[d] * j->sb[d];
    }
    binary_row(j->op, j->a + a_off, sa_in, j->b + b_off, sb_in, j->y + o * j->inner, j->inner);
    for (int64_t d = last - 1; d >= 0; --d) {
      if (++idx[d] < j->dims[d]) break;
      idx[d] = 0;
    }
  }
}

int kiln_binary_f32(const int64_t* ip, const float* fp, void* const* bindings,
                    const kiln_host* host) {
  (void)fp;
  const int64_t op = ip[B_OP], R = ip[B_R];
  const float* A = (const float*)bindings[0];
  const float* B = (const float*)bindings[1];
  float* Y = (float*)bindings[2];
  for (int64_t d = 0; d < R; ++d)
    if (ip[B_HEAD + d] == 0) return KILN_OK; /* empty output */

  /* Drop unit dims and merge each dim into the previous one when both
   * inputs step through the pair as one (Y is contiguous), so the row loop
   * runs as long as possible. The checker bounds every product formed here. */
  int64_t dims[KILN_MAX_RANK], sa[KILN_MAX_RANK], sb[KILN_MAX_RANK];
  int64_t r = 0;
  for (int64_t d = 0; d < R; ++d) {
    const int64_t dim = ip[B_HEAD + d], a_s = ip[KILN_IP_BINARY_F32_A_STRIDES(R) + d],
                  b_s = ip[KILN_IP_BINARY_F32_B_STRIDES(R) + d];
    if (dim == 1) continue;
    if (r > 0 && sa[r - 1] == a_s * dim && sb[r - 1] == b_s * dim) {
      dims[r - 1] *= dim;
      sa[r - 1] = a_s;
      sb[r - 1] = b_s;
    } else {
      dims[r] = dim, sa[r] = a_s, sb[r] = b_s;
      ++r;
    }
  }
  if (r == 0) {
    binary_row(op, A, 0, B, 0, Y, 1);
    return KILN_OK;
  }

  binary_job j = {op, r, 1, dims[r - 1], dims, sa, sb, A, B, Y};
  for (int64_t d = 0; d + 1 < r; ++d) j.outer *= dims[d];
  /* On threads, rows in order: each thread takes a run of Y's rows (an SE
   * block's scale: its pixels), the rows the layer before wrote on that
   * thread when it split its rows too, so they are in its own cache. */
  const int64_t tasks =
      j.outer > 1 ? j.outer : (j.inner + BINARY_ROW_BLOCK - 1) / BINARY_ROW_BLOCK;
  kiln_run_tasks(host, tasks, (double)j.outer * (double)j.inner, (double)(1 << 16), binary_tasks,
                 &j);
  return KILN_OK;
}

int kiln_binary_f32_check(const int64_t* ip, uint32_t iparam_count,
                          const float* fp, uint32_t fparam_count,
                          const uint64_t* binding_bytes) {
  if (iparam_count < B_HEAD || ip == NULL) return KILN_ERR_INVALID_ARGUMENT;
  const int64_t R = ip[B_R];
  if (R < 0 || R > KILN_MAX_RANK) return KILN_ERR_INVALID_ARGUMENT;
  KILN_TRY(kiln_check_counts(ip, iparam_count, (uint32_t)KILN_BINARY_F32_IPARAMS(R), fp,
                             fparam_count, 0));
  KILN_TRY(kiln_check_nonneg(ip, KILN_BINARY_F32_IPARAMS(R)));
  KILN_TRY(kiln_check_enum(ip[B_OP], KILN_BINARY_ADD, KILN_BINARY_LAST));
  /* Work is bounded by Y: one pass over its elements, none when it is empty. */
  const int64_t* dims = ip + B_HEAD;
  int64_t bytes, count;
  KILN_TRY(kiln_view_bytes(R, dims, dims + R, 0, 4, &bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[0], bytes));
  KILN_TRY(kiln_view_bytes(R, dims, dims + 2 * R, 0, 4, &bytes));
  KILN_TRY(kiln_check_binding(binding_bytes[1], bytes));
  KILN_TRY(kiln_checked_product(dims, R, &count));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[2], count));
  return KILN_OK;
}

int kiln_unary_f32(const int64_t* ip, const float* fp, void* const* bindings,
                   const kiln_host* host) {
  (void)host;
  kiln_activation_apply((const float*)bindings[0], (float*)bindings[1], ip[KILN_IP_UNARY_F32_COUNT],
                        ip[KILN_IP_UNARY_F32_ACTIVATION], fp[KILN_FP_UNARY_F32_ACT_ALPHA],
                        fp[KILN_FP_UNARY_F32_ACT_BETA]);
  return KILN_OK;
}

int kiln_unary_f32_check(const int64_t* ip, uint32_t iparam_count,
                         const float* fp, uint32_t fparam_count,
                         const uint64_t* binding_bytes) {
  KILN_TRY(kiln_check_counts(ip, iparam_count, KILN_UNARY_F32_IPARAMS, fp, fparam_count,
                             KILN_UNARY_F32_FPARAMS));
  KILN_TRY(kiln_check_nonneg(ip, KILN_UNARY_F32_IPARAMS));
  KILN_TRY(kiln_check_enum(ip[KILN_IP_UNARY_F32_ACTIVATION], KILN_ACT_NONE, KILN_ACT_LAST));
  /* Work is bounded by the bindings: one flat loop over ip[KILN_IP_UNARY_F32_COUNT] elements. */
  KILN_TRY(kiln_check_f32_binding(binding_bytes[0], ip[KILN_IP_UNARY_F32_COUNT]));
  KILN_TRY(kiln_check_f32_binding(binding_bytes[1], ip[KILN_IP_UNARY_F32_COUNT]));
  return KILN_OK;
}
