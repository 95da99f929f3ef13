/* Index-driven data movement: gather, gather_elements, gather_nd,
 * scatter_elements, scatter_nd. Indices arrive at run time, so unlike the
 * other kernels these cannot be proven safe by their checker alone: every
 * index is range-checked as it is read and a bad one stops the kernel with
 * KILN_ERR_OUT_OF_RANGE before anything is read or written through it. */
#include <stdint.h>
#include <string.h>

#include "check_util.h"
#include "kiln/kernel_params.h"
#include "kiln/kernels.h"

/* Index k of an int32 (ib == 4) or int64 (ib == 8) tensor. */
static int64_t load_index(const void* p, int64_t k, int64_t ib) {
  if (ib == 4) {
    int32_t v;
    memcpy(&v, (const unsigned char*)p + k * 4, 4);
    return v;
  }
  int64_t v;
  memcpy(&v, (const unsigned char*)p + k * 8, 8);
  return v;
}

/* Wraps a negative index once; 0 when it lands in [0, len), else an error. */
static int wrap_index(int64_t* j, int64_t len) {
  if (*j < 0) *j += len;
  return (*j < 0 || *j >= len) ? KILN_ERR_OUT_OF_RANGE : KILN_OK;
}

static int check_index_bytes(int64_t ib) {
  return (ib == 4 || ib == 8) ? KILN_OK : KILN_ERR_INVALID_ARGUMENT;
}

/* Bytes of `count` dense elements of `eb` bytes fit binding `have`. */
static int fits(uint64_t have, int64_t count, int64_t eb) {
  int64_t bytes;
  KILN_TRY(kiln_dense_bytes(count, eb, &bytes));
  return kiln_check_binding(have, bytes);
}

/* ---- reductions for scatter: kind 0 raw bytes, 1 f32, 2 f64, 3 i32, 4 i64;
 * reduction 0 none, 1 add, 2 mul, 3 max, 4 min. */
#define SCATTER_APPLY(T)                                                    \
  {                                                                         \
    T a, b;                                                                 \
    memcpy(&a, dst, sizeof(T));                                             \
    memcpy(&b, src, sizeof(T));                                             \
    if (red == 1) a = a + b;                                                \
    else if (red == 2) a = a * b;                                           \
    else if (red == 3) a = b > a ? b : a;                                   \
    else a = b < a ? b : a;                                                 \
    memcpy(dst, &a, sizeof(T));                                             \
    return;                                                                 \
  }

static void scatter_one(unsigned char* dst, const unsigned char* src, int64_t eb,
                        int64_t kind, int64_t red) {
  if (red == 0) {
    memcpy(dst, src, (size_t)eb);
    return;
  }
  switch (kind) {
    case 1: SCATTER_APPLY(float)
    case 2: SCATTER_APPLY(double)
    case 3: SCATTER_APPLY(int32_t)
    default: SCATTER_APPLY(int64_t)
  }
}

static int check_scatter_kind(int64_t eb, int64_t kind, int64_t red) {
  KILN_TRY(kiln_check_enum(kind, 0, 4));
  KILN_TRY(kiln_check_enum(red, 0, 4));
  if (kind == 0 && red != 0) return KILN_ERR_INVALID_ARGUMENT;
  static const int64_t sizes[5] = {0, 4, 8, 4, 8};
  if (kind != 0 && eb != sizes[kind]) return KILN_ERR_INVALID_ARGUMENT;
  return eb > 0 ? KILN_OK : KILN_ERR_INVALID_ARGUMENT;
}

/* ---- gather ------------------------------------------------------------ */

enum {
  GA_EB = KILN_IP_GATHER_ELEM_BYTES,
  GA_IB = KILN_IP_GATHER_IB,
  GA_OUTER = KILN_IP_GATHER_OUTER,
  GA_LEN = KILN_IP_GATHER_LEN,
  GA_INNER = KILN_IP_GATHER_INNER,
  GA_COUNT = KILN_IP_GATHER_COUNT,
  GA_N = KILN_GATHER_IPARAMS
};

int kiln_gather(const int64_t* ip, const float* fp, void* const* bindings,
                const kiln_host* host) {
  (void)fp;
  (void)host;
  const int64_t eb = ip[GA_EB], ib = ip[GA_IB], outer = ip[GA_OUTER];
  const int64_t len = ip[GA_LEN], inner = ip[GA_INNER], count = ip[GA_COUNT];
  const unsigned char* x = (const unsigned char*)bindings[0];
  unsigned char* y = (unsigned char*)bindings[2];
  const int64_t row = inner * eb;
  for (int64_t i = 0; i < count; ++i) {
    int64_t j = load_index(bindings[1], i, ib);
    KILN_TRY(wrap_index(&j, len));
    for (int64_t o = 0; o < outer; ++o) {
      memcpy(y + (o * count + i) * row, x + (o * len + j) * row, (size_t)row);
    }
  }
  return KILN_OK;
}

int kiln_gather_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                      uint32_t fparam_count, const uint64_t* binding_bytes) {
  KILN_TRY(kiln_check_counts(ip, iparam_count, GA_N, fp, fparam_count, 0));
  KILN_TRY(kiln_check_nonneg(ip, GA_N));
  KILN_TRY(check_index_bytes(ip[GA_IB]));
  if (ip[GA_EB] == 0) return KILN_ERR_INVALID_ARGUMENT;
  const int64_t x_dims[3] = {ip[GA_OUTER], ip[GA_LEN], ip[GA_INNER]};
  const int64_t y_dims[3] = {ip[GA_OUTER], ip[GA_COUNT], ip[GA_INNER]};
  /* count x outer row copies: inner == 0 leaves them bounded by no binding
   * (count == 0 runs nothing). */
  if (ip[GA_COUNT] > 0) KILN_TRY(kiln_check_work(y_dims, 3));
  int64_t xn, yn, row;
  /* The kernel forms the row size before it knows the tensors are empty. */
  KILN_TRY(kiln_checked_mul(ip[GA_INNER], ip[GA_EB], &row));
  KILN_TRY(kiln_checked_product(x_dims, 3, &xn));
  KILN_TRY(kiln_checked_product(y_dims, 3, &yn));
  KILN_TRY(fits(binding_bytes[0], xn, ip[GA_EB]));
  KILN_TRY(fits(binding_bytes[1], ip[GA_COUNT], ip[GA_IB]));
  KILN_TRY(fits(binding_bytes[2], yn, ip[GA_EB]));
  return KILN_OK;
}

/* ---- gather_elements / scatter_elements -------------------------------- */

/* Shared layout: eb ib R axis kind reduction  data_dims[R]  index_dims[R].
 * index_dims[d] <= data_dims[d] for d != axis, so only the axis coordinate
 * (the run-time index) can leave the data tensor. */
enum {
  GE_EB = KILN_IP_GATHER_ELEMENTS_ELEM_BYTES,
  GE_IB = KILN_IP_GATHER_ELEMENTS_IB,
  GE_R = KILN_IP_GATHER_ELEMENTS_R,
  GE_AXIS = KILN_IP_GATHER_ELEMENTS_AXIS,
  GE_KIND = KILN_IP_GATHER_ELEMENTS_KIND,
  GE_RED = KILN_IP_GATHER_ELEMENTS_REDUCTION,
  GE_HEAD = KILN_IP_GATHER_ELEMENTS_DATA_DIMS
};
_Static_assert(KILN_IP_SCATTER_ELEMENTS_ELEM_BYTES == (int)GE_EB &&
                   KILN_IP_SCATTER_ELEMENTS_IB == (int)GE_IB &&
                   KILN_IP_SCATTER_ELEMENTS_R == (int)GE_R &&
                   KILN_IP_SCATTER_ELEMENTS_AXIS == (int)GE_AXIS &&
                   KILN_IP_SCATTER_ELEMENTS_KIND == (int)GE_KIND &&
                   KILN_IP_SCATTER_ELEMENTS_REDUCTION == (int)GE_RED &&
                   KILN_IP_SCATTER_ELEMENTS_DATA_DIMS == (int)GE_HEAD,
               "scatter_elements has gather_elements' parameters");

static int elements_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                          uint32_t fparam_count, int64_t* data_n, int64_t* idx_n) {
  if (ip == NULL || iparam_count < GE_HEAD) return KILN_ERR_INVALID_ARGUMENT;
  const int64_t R = ip[GE_R];
  if (R < 1 || R > KILN_MAX_RANK) return KILN_ERR_INVALID_ARGUMENT;
  KILN_TRY(kiln_check_counts(ip, iparam_count, (uint32_t)KILN_GATHER_ELEMENTS_IPARAMS(R), fp,
                             fparam_count, 0));
  KILN_TRY(kiln_check_nonneg(ip, KILN_GATHER_ELEMENTS_IPARAMS(R)));
  KILN_TRY(check_index_bytes(ip[GE_IB]));
  KILN_TRY(check_scatter_kind(ip[GE_EB], ip[GE_KIND], ip[GE_RED]));
  if (ip[GE_AXIS] >= R) return KILN_ERR_INVALID_ARGUMENT;
  const int64_t* dd = ip + GE_HEAD;
  const int64_t* id = dd + R;
  for (int64_t d = 0; d < R; ++d)
    if (d != ip[GE_AXIS] && id[d] > dd[d]) return KILN_ERR_INVALID_ARGUMENT;
  KILN_TRY(kiln_checked_product(dd, R, data_n));
  KILN_TRY(kiln_checked_product(id, R, idx_n));
  return KILN_OK;
}

/* Calls body(k, data_offset) for every index element k; stops on a bad index. */
#define FOR_EACH_ELEMENT(BODY)                                               \
  const int64_t R = ip[GE_R], axis = ip[GE_AXIS], ib = ip[GE_IB];           \
  const int64_t* dd = ip + GE_HEAD;                                          \
  const int64_t* id = dd + R;                                                \
  int64_t n = 1, dstr[KILN_MAX_RANK], pos[KILN_MAX_RANK] = {0};              \
  for (int64_t d = 0; d < R; ++d) n *= id[d];                                \
  dstr[R - 1] = 1;                                                           \
  for (int64_t d = R - 1; d > 0; --d) dstr[d - 1] = dstr[d] * dd[d];         \
  for (int64_t k = 0; k < n; ++k) {                                          \
    int64_t j = load_index(bindings[1], k, ib);                              \
    KILN_TRY(wrap_index(&j, dd[axis]));                                      \
    int64_t off = 0;                                                         \
    for (int64_t d = 0; d < R; ++d) off += (d == axis ? j : pos[d]) * dstr[d]; \
    BODY;                                                                    \
    for (int64_t d = R - 1; d >= 0; --d) {                                   \
      if (++pos[d] < id[d]) break;                                           \
      pos[d] = 0;                                                            \
    }                                                                        \
  }

/* bindings: [0] data  [1] indices  [2] out (index shape). */
int kiln_gather_elements(const int64_t* ip, const float* fp, void* const* bindings,
                         const kiln_host* host) {
  (void)fp;
  (void)host;
  const int64_t eb = ip[GE_EB];
  const unsigned char* x = (const unsigned char*)bindings[0];
  unsigned char* y = (unsigned char*)bindings[2];
  FOR_EACH_ELEMENT(memcpy(y + k * eb, x + off * eb, (size_t)eb))
  return KILN_OK;
}

int kiln_gather_elements_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                               uint32_t fparam_count, const uint64_t* binding_bytes) {
  int64_t data_n, idx_n;
  KILN_TRY(elements_check(ip, iparam_count, fp, fparam_count, &data_n, &idx_n));
  if (ip[GE_RED] != 0) return KILN_ERR_INVALID_ARGUMENT;
  /* Work is bounded by the indices: one step per index element. */
  KILN_TRY(fits(binding_bytes[0], data_n, ip[GE_EB]));
  KILN_TRY(fits(binding_bytes[1], idx_n, ip[GE_IB]));
  KILN_TRY(fits(binding_bytes[2], idx_n, ip[GE_EB]));
  return KILN_OK;
}

/* bindings: [0] data  [1] indices  [2] updates (index shape)  [3] out (data shape). */
int kiln_scatter_elements(const int64_t* ip, const float* fp, void* const* bindings,
                          const kiln_host* host) {
  (void)fp;
  (void)host;
  const int64_t eb = ip[GE_EB], kind = ip[GE_KIND], red = ip[GE_RED];
  const unsigned char* u = (const unsigned char*)bindings[2];
  unsigned char* y = (unsigned char*)bindings[3];
  int64_t total = 1;
  for (int64_t d = 0; d < ip[GE_R]; ++d) total *= ip[GE_HEAD + d];
  memcpy(y, bindings[0], (size_t)(total * eb));
  FOR_EACH_ELEMENT(scatter_one(y + off * eb, u + k * eb, eb, kind, red))
  return KILN_OK;
}

int kiln_scatter_elements_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                                uint32_t fparam_count, const uint64_t* binding_bytes) {
  int64_t data_n, idx_n;
  KILN_TRY(elements_check(ip, iparam_count, fp, fparam_count, &data_n, &idx_n));
  /* Work is bounded by the bindings: one data copy, one step per index. */
  KILN_TRY(fits(binding_bytes[0], data_n, ip[GE_EB]));
  KILN_TRY(fits(binding_bytes[1], idx_n, ip[GE_IB]));
  KILN_TRY(fits(binding_bytes[2], idx_n, ip[GE_EB]));
  KILN_TRY(fits(binding_bytes[3], data_n, ip[GE_EB]));
  return KILN_OK;
}

/* ---- gather_nd / scatter_nd --------------------------------------------
 * Layout: eb ib kind reduction batch count k slice dims[k].
 * Data is [batch, dims[0..k), slice], indices [batch, count, k], and the
 * gathered (or scattered) blocks are [batch, count, slice]. */
enum {
  ND_EB = KILN_IP_GATHER_ND_ELEM_BYTES,
  ND_IB = KILN_IP_GATHER_ND_IB,
  ND_KIND = KILN_IP_GATHER_ND_KIND,
  ND_RED = KILN_IP_GATHER_ND_REDUCTION,
  ND_BATCH = KILN_IP_GATHER_ND_BATCH,
  ND_COUNT = KILN_IP_GATHER_ND_COUNT,
  ND_K = KILN_IP_GATHER_ND_K,
  ND_SLICE = KILN_IP_GATHER_ND_SLICE,
  ND_HEAD = KILN_IP_GATHER_ND_DIMS
};
_Static_assert(KILN_IP_SCATTER_ND_ELEM_BYTES == (int)ND_EB && KILN_IP_SCATTER_ND_IB == (int)ND_IB &&
                   KILN_IP_SCATTER_ND_KIND == (int)ND_KIND &&
                   KILN_IP_SCATTER_ND_REDUCTION == (int)ND_RED &&
                   KILN_IP_SCATTER_ND_BATCH == (int)ND_BATCH &&
                   KILN_IP_SCATTER_ND_COUNT == (int)ND_COUNT && KILN_IP_SCATTER_ND_K == (int)ND_K &&
                   KILN_IP_SCATTER_ND_SLICE == (int)ND_SLICE &&
                   KILN_IP_SCATTER_ND_DIMS == (int)ND_HEAD,
               "scatter_nd has gather_nd's parameters");

static int nd_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                    uint32_t fparam_count, int64_t* data_n, int64_t* idx_n,
                    int64_t* block_n) {
  if (ip == NULL || iparam_count < ND_HEAD) return KILN_ERR_INVALID_ARGUMENT;
  const int64_t k = ip[ND_K];
  if (k < 0 || k > KILN_MAX_RANK) return KILN_ERR_INVALID_ARGUMENT;
  KILN_TRY(kiln_check_counts(ip, iparam_count, (uint32_t)(ND_HEAD + k), fp, fparam_count, 0));
  KILN_TRY(kiln_check_nonneg(ip, ND_HEAD + k));
  KILN_TRY(check_index_bytes(ip[ND_IB]));
  KILN_TRY(check_scatter_kind(ip[ND_EB], ip[ND_KIND], ip[ND_RED]));
  int64_t cells;
  KILN_TRY(kiln_checked_product(ip + ND_HEAD, k, &cells));
  const int64_t d3[3] = {ip[ND_BATCH], cells, ip[ND_SLICE]};
  const int64_t i3[3] = {ip[ND_BATCH], ip[ND_COUNT], k};
  const int64_t b3[3] = {ip[ND_BATCH], ip[ND_COUNT], ip[ND_SLICE]};
  KILN_TRY(kiln_checked_product(d3, 3, data_n));
  KILN_TRY(kiln_checked_product(i3, 3, idx_n));
  KILN_TRY(kiln_checked_product(b3, 3, block_n));
  /* batch x count blocks, each reading k indices (twice) and moving slice
   * elements: with k and slice 0 every tensor is empty and bounds nothing. */
  int64_t per_block;
  KILN_TRY(kiln_checked_add(2 * k, ip[ND_SLICE], &per_block));
  const int64_t loops[3] = {ip[ND_BATCH], ip[ND_COUNT], per_block};
  KILN_TRY(kiln_check_work(loops, 3));
  return KILN_OK;
}

/* Data element offset (in elements) of block (b, i); error on a bad index. */
static int nd_offset(const int64_t* ip, const void* indices, int64_t b, int64_t i,
                     int64_t* out) {
  const int64_t k = ip[ND_K], ib = ip[ND_IB];
  const int64_t* dims = ip + ND_HEAD;
  int64_t cell = 0, cells = 1;
  for (int64_t d = 0; d < k; ++d) cells *= dims[d];
  for (int64_t d = 0; d < k; ++d) {
    int64_t j = load_index(indices, (b * ip[ND_COUNT] + i) * k + d, ib);
    KILN_TRY(wrap_index(&j, dims[d]));
    cell = cell * dims[d] + j;
  }
  *out = (b * cells + cell) * ip[ND_SLICE];
  return KILN_OK;
}

/* bindings: [0] data  [1] indices  [2] out [batch, count, slice]. */
int kiln_gather_nd(const int64_t* ip, const float* fp, void* const* bindings,
                   const kiln_host* host) {
  (void)fp;
  (void)host;
  const int64_t eb = ip[ND_EB], slice = ip[ND_SLICE], count = ip[ND_COUNT];
  const unsigned char* x = (const unsigned char*)bindings[0];
  unsigned char* y = (unsigned char*)bindings[2];
  for (int64_t b = 0; b < ip[ND_BATCH]; ++b) {
    for (int64_t i = 0; i < count; ++i) {
      int64_t off;
      KILN_TRY(nd_offset(ip, bindings[1], b, i, &off));
      memcpy(y + (b * count + i) * slice * eb, x + off * eb, (size_t)(slice * eb));
    }
  }
  return KILN_OK;
}

int kiln_gather_nd_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                         uint32_t fparam_count, const uint64_t* binding_bytes) {
  int64_t data_n, idx_n, block_n;
  KILN_TRY(nd_check(ip, iparam_count, fp, fparam_count, &data_n, &idx_n, &block_n));
  if (ip[ND_RED] != 0) return KILN_ERR_INVALID_ARGUMENT;
  KILN_TRY(fits(binding_bytes[0], data_n, ip[ND_EB]));
  KILN_TRY(fits(binding_bytes[1], idx_n, ip[ND_IB]));
  KILN_TRY(fits(binding_bytes[2], block_n, ip[ND_EB]));
  return KILN_OK;
}

/* bindings: [0] data  [1] indices  [2] updates [batch, count, slice]  [3] out. */
int kiln_scatter_nd(const int64_t* ip, const float* fp, void* const* bindings,
                    const kiln_host* host) {
  (void)fp;
  (void)host;
  const int64_t eb = ip[ND_EB], slice = ip[ND_SLICE], count = ip[ND_COUNT];
  const int64_t kind = ip[ND_KIND], red = ip[ND_RED];
  const unsigned char* u = (const unsigned char*)bindings[2];
  unsigned char* y = (unsigned char*)bindings[3];
  int64_t cells = 1;
  for (int64_t d = 0; d < ip[ND_K]; ++d) cells *= ip[ND_HEAD + d];
  memcpy(y, bindings[0], (size_t)(ip[ND_BATCH] * cells * slice * eb));
  for (int64_t b = 0; b < ip[ND_BATCH]; ++b) {
    for (int64_t i = 0; i < count; ++i) {
      int64_t off;
      KILN_TRY(nd_offset(ip, bindings[1], b, i, &off));
      const unsigned char* src = u + (b * count + i) * slice * eb;
      for (int64_t e = 0; e < slice; ++e)
        scatter_one(y + (off + e) * eb, src + e * eb, eb, kind, red);
    }
  }
  return KILN_OK;
}

int kiln_scatter_nd_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                          uint32_t fparam_count, const uint64_t* binding_bytes) {
  int64_t data_n, idx_n, block_n;
  KILN_TRY(nd_check(ip, iparam_count, fp, fparam_count, &data_n, &idx_n, &block_n));
  KILN_TRY(fits(binding_bytes[0], data_n, ip[ND_EB]));
  KILN_TRY(fits(binding_bytes[1], idx_n, ip[ND_IB]));
  KILN_TRY(fits(binding_bytes[2], block_n, ip[ND_EB]));
  KILN_TRY(fits(binding_bytes[3], data_n, ip[ND_EB]));
  return KILN_OK;
}
