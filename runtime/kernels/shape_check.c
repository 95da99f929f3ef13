/* shape_check: verifies a shape-like run-time input (Reshape's shape,
 * Squeeze/Unsqueeze axes, Expand's shape, Tile's repeats, Split's sizes,
 * ConstantOfShape's dims, OneHot's depth). The compiler fixed the op's
 * output shape from the shape the model declares; this kernel resolves the
 * run-time value with the op's own semantics and fails the call unless it
 * gives exactly that shape, so a different value is an error, never a wrong
 * result. It writes nothing. */
#include <stdint.h>

#include "check_util.h"
#include "kiln/kernel_params.h"
#include "kiln/kernels.h"
#include "kiln/resize_core.h"
#include "typed_util.h"

enum {
  SC_MODE = KILN_IP_SHAPE_CHECK_MODE,
  SC_DTYPE = KILN_IP_SHAPE_CHECK_DTYPE,
  SC_COUNT = KILN_IP_SHAPE_CHECK_COUNT,
  SC_FLAG = KILN_IP_SHAPE_CHECK_FLAG,
  SC_IN_RANK = KILN_IP_SHAPE_CHECK_IR,
  SC_OUT_RANK = KILN_IP_SHAPE_CHECK_OR,
  SC_HEAD = KILN_IP_SHAPE_CHECK_IN_DIMS
};
_Static_assert(KILN_IP_SHAPE_RESOLVE_MODE == (int)SC_MODE &&
                   KILN_IP_SHAPE_RESOLVE_DTYPE == (int)SC_DTYPE &&
                   KILN_IP_SHAPE_RESOLVE_COUNT == (int)SC_COUNT &&
                   KILN_IP_SHAPE_RESOLVE_FLAG == (int)SC_FLAG &&
                   KILN_IP_SHAPE_RESOLVE_IR == (int)SC_IN_RANK &&
                   KILN_IP_SHAPE_RESOLVE_OR == (int)SC_OUT_RANK &&
                   KILN_IP_SHAPE_RESOLVE_IN_DIMS == (int)SC_HEAD,
               "shape_resolve has shape_check's parameters");

/* Element k as int64: integers as they are (uint64 above INT64_MAX fails),
 * floats truncated toward zero as ONNX casts OneHot's depth (NaN and values
 * outside int64 fail). Returns 0 when the value has no int64 meaning. */
static int sc_load(const void* p, int64_t t, int64_t k, int64_t* v) {
  if (kiln_dtype_is_float(t)) {
    const double d = kiln_load_f(p, t, k);
    if (!(d > -9223372036854775808.0 && d < 9223372036854775808.0)) return 0;
    *v = (int64_t)d;
    return 1;
  }
  const uint64_t b = kiln_load_bits(p, t, k);
  if (kiln_dtype_is_unsigned(t) && b > (uint64_t)INT64_MAX) return 0;
  *v = (int64_t)b;
  return 1;
}

/* Product of dims; the checker made every product of non-zero dims fit. */
static int64_t sc_product(const int64_t* d, int64_t n, int64_t skip) {
  int64_t p = 1;
  for (int64_t i = 0; i < n; ++i) {
    if (i != skip) p *= d[i];
  }
  return p;
}

/* ONNX Reshape: 0 copies the input dim (unless allowzero), one -1 is
 * inferred from the element count. */
static int sc_reshape(const void* v, int64_t t, int64_t count, int allowzero, const int64_t* in,
                      int64_t in_rank, const int64_t* out, int64_t out_rank) {
  if (count != out_rank) return 0;
  int64_t infer = -1;
  for (int64_t i = 0; i < count; ++i) {
    int64_t d;
    if (!sc_load(v, t, i, &d)) return 0;
    if (d == 0 && !allowzero) {
      if (i >= in_rank) return 0;
      d = in[i];
    }
    if (d == -1) {
      if (infer >= 0) return 0;
      infer = i;
    } else if (d != out[i]) {
      return 0; /* also every other negative entry */
    }
  }
  const int64_t total = sc_product(in, in_rank, -1);
  if (infer < 0) return sc_product(out, out_rank, -1) == total;
  const int64_t known = sc_product(out, out_rank, infer);
  return known != 0 && known * out[infer] == total;
}

/* Axis k of `count` normalised into [0, rank), or -1 when out of range or
 * repeated (an earlier entry names the same axis). */
static int64_t sc_axis(const void* v, int64_t t, int64_t k, int64_t rank) {
  int64_t a, b;
  if (!sc_load(v, t, k, &a) || a < -rank || a >= rank) return -1;
  if (a < 0) a += rank;
  for (int64_t j = 0; j < k; ++j) {
    if (!sc_load(v, t, j, &b)) return -1;
    if ((b < 0 ? b + rank : b) == a) return -1;
  }
  return a;
}

/* Whether axis `a` is among the `count` entries (all already validated). */
static int sc_has_axis(const void* v, int64_t t, int64_t count, int64_t rank, int64_t a) {
  for (int64_t k = 0; k < count; ++k) {
    int64_t b;
    if (sc_load(v, t, k, &b) && (b < 0 ? b + rank : b) == a) return 1;
  }
  return 0;
}

/* ONNX Squeeze: the named unit axes go; an empty axes tensor drops every
 * unit axis (as onnxruntime reads it). */
static int sc_squeeze(const void* v, int64_t t, int64_t count, const int64_t* in,
                      int64_t in_rank, const int64_t* out, int64_t out_rank) {
  if (count > in_rank) return 0;
  for (int64_t k = 0; k < count; ++k) {
    const int64_t a = sc_axis(v, t, k, in_rank);
    if (a < 0 || in[a] != 1) return 0;
  }
  int64_t o = 0;
  for (int64_t i = 0; i < in_rank; ++i) {
    const int drop = count == 0 ? in[i] == 1 : sc_has_axis(v, t, count, in_rank, i);
    if (drop) continue;
    if (o >= out_rank || out[o] != in[i]) return 0;
    ++o;
  }
  return o == out_rank;
}

/* ONNX Unsqueeze: unit axes inserted at the named positions of the output. */
static int sc_unsqueeze(const void* v, int64_t t, int64_t count, const int64_t* in,
                        int64_t in_rank, const int64_t* out, int64_t out_rank) {
  if (in_rank + count != out_rank) return 0;
  for (int64_t k = 0; k < count; ++k) {
    if (sc_axis(v, t, k, out_rank) < 0) return 0;
  }
  int64_t i = 0;
  for (int64_t p = 0; p < out_rank; ++p) {
    const int64_t want = sc_has_axis(v, t, count, out_rank, p) ? 1 : in[i++];
    if (out[p] != want) return 0;
  }
  return 1;
}

/* ONNX Expand: numpy broadcasting of the input with the given shape. */
static int sc_expand(const void* v, int64_t t, int64_t count, const int64_t* in,
                     int64_t in_rank, const int64_t* out, int64_t out_rank) {
  const int64_t r = in_rank > count ? in_rank : count;
  if (r != out_rank) return 0;
  for (int64_t p = 0; p < r; ++p) {
    const int64_t a = p >= r - in_rank ? in[p - (r - in_rank)] : 1;
    int64_t b = 1;
    if (p >= r - count && !sc_load(v, t, p - (r - count), &b)) return 0;
    if (b < 0) return 0;
    const int64_t d = a == b ? a : a == 1 ? b : b == 1 ? a : -1;
    if (d != out[p]) return 0;
  }
  return 1;
}

/* ONNX Tile: out[d] = in[d] * repeats[d], repeats non-negative. */
static int sc_tile(const void* v, int64_t t, int64_t count, const int64_t* in, int64_t in_rank,
                   const int64_t* out, int64_t out_rank) {
  if (count != in_rank || out_rank != in_rank) return 0;
  for (int64_t d = 0; d < count; ++d) {
    int64_t rep, prod;
    if (!sc_load(v, t, d, &rep) || rep < 0) return 0;
    if (kiln_checked_mul(in[d], rep, &prod) != KILN_OK || prod != out[d]) return 0;
  }
  return 1;
}

/* Split sizes, ConstantOfShape dims, OneHot depth: the values themselves. */
static int sc_exact(const void* v, int64_t t, int64_t count, const int64_t* out,
                    int64_t out_rank) {
  if (count != out_rank) return 0;
  for (int64_t k = 0; k < count; ++k) {
    int64_t d;
    if (!sc_load(v, t, k, &d) || d != out[k]) return 0;
  }
  return 1;
}

/* Split sizes: non-negative, adding up to the axis length in[0]. */
static int sc_split(const void* v, int64_t t, int64_t count, const int64_t* in, int64_t in_rank,
                    const int64_t* out, int64_t out_rank) {
  if (in_rank != 1 || !sc_exact(v, t, count, out, out_rank)) return 0;
  int64_t sum = 0;
  for (int64_t k = 0; k < count; ++k) {
    if (out[k] < 0 || kiln_checked_add(sum, out[k], &sum) != KILN_OK) return 0;
  }
  return sum == in[0];
}

/* Resize's float32 scales: out[d] = floor(in[d] * scales[d]). */
static int sc_resize_scales(const void* v, int64_t count, const int64_t* in, int64_t in_rank,
                            const int64_t* out, int64_t out_rank) {
  if (count != in_rank || out_rank != in_rank) return 0;
  for (int64_t d = 0; d < count; ++d) {
    int64_t len;
    if (!kiln_resize_scaled_length(in[d], (double)((const float*)v)[d], &len) || len != out[d]) {
      return 0;
    }
  }
  return 1;
}

/* Whether the value gives exactly the dims `out` (OR of them) under the
 * mode's rules. */
static int sc_valid(const int64_t* ip, const void* v, const int64_t* out) {
  const int64_t t = ip[SC_DTYPE], count = ip[SC_COUNT];
  const int64_t in_rank = ip[SC_IN_RANK], out_rank = ip[SC_OUT_RANK];
  const int64_t* in = ip + SC_HEAD;
  switch (ip[SC_MODE]) {
    case KILN_SHAPE_CHECK_RESHAPE:
      return sc_reshape(v, t, count, ip[SC_FLAG] != 0, in, in_rank, out, out_rank);
    case KILN_SHAPE_CHECK_SQUEEZE: return sc_squeeze(v, t, count, in, in_rank, out, out_rank);
    case KILN_SHAPE_CHECK_UNSQUEEZE: return sc_unsqueeze(v, t, count, in, in_rank, out, out_rank);
    case KILN_SHAPE_CHECK_EXPAND: return sc_expand(v, t, count, in, in_rank, out, out_rank);
    case KILN_SHAPE_CHECK_TILE: return sc_tile(v, t, count, in, in_rank, out, out_rank);
    case KILN_SHAPE_CHECK_EXACT: return sc_exact(v, t, count, out, out_rank);
    case KILN_SHAPE_CHECK_SPLIT: return sc_split(v, t, count, in, in_rank, out, out_rank);
    case KILN_SHAPE_CHECK_RESIZE_SCALES:
      return sc_resize_scales(v, count, in, in_rank, out, out_rank);
    default: return 0;
  }
}

int kiln_shape_check(const int64_t* ip, const float* fp, void* const* bindings,
                     const kiln_host* host) {
  (void)fp;
  (void)host;
  const int64_t* out = ip + SC_HEAD + ip[SC_IN_RANK];
  return sc_valid(ip, bindings[0], out) ? KILN_OK : KILN_ERR_SHAPE_MISMATCH;
}

/* The parameters of either kernel; with `caps` (shape_resolve) out_dims
 * may be SR_NO_CAP. */
#define SR_NO_CAP (-1)
static int sc_check_params(const int64_t* ip, uint32_t iparam_count, uint32_t fparam_count,
                           const uint64_t* binding_bytes, int caps) {
  if (iparam_count < SC_HEAD || ip == NULL || fparam_count != 0) return KILN_ERR_INVALID_ARGUMENT;
  KILN_TRY(kiln_check_nonneg(ip, SC_HEAD));
  KILN_TRY(kiln_check_enum(ip[SC_MODE], KILN_SHAPE_CHECK_RESHAPE, KILN_SHAPE_CHECK_RESIZE_SCALES));
  KILN_TRY(kiln_check_enum(ip[SC_FLAG], 0, 1));
  /* Ranks and counts bound the loops (squeeze/unsqueeze are quadratic). */
  const int64_t in_rank = ip[SC_IN_RANK], out_rank = ip[SC_OUT_RANK], count = ip[SC_COUNT];
  if (in_rank > KILN_SHAPE_CHECK_MAX_LEN || out_rank > KILN_SHAPE_CHECK_MAX_LEN ||
      count > KILN_SHAPE_CHECK_MAX_LEN)
    return KILN_ERR_OUT_OF_RANGE;
  if ((int64_t)iparam_count != SC_HEAD + in_rank + out_rank) return KILN_ERR_INVALID_ARGUMENT;
  /* Dims are sizes; every product of the non-zero ones fits in int64. */
  int64_t n;
  KILN_TRY(kiln_checked_product(ip + SC_HEAD, in_rank, &n));
  if (caps) {
    for (int64_t d = 0; d < out_rank; ++d) {
      if (ip[SC_HEAD + in_rank + d] < SR_NO_CAP) return KILN_ERR_OUT_OF_RANGE;
    }
  } else {
    KILN_TRY(kiln_checked_product(ip + SC_HEAD + in_rank, out_rank, &n));
  }
  const int64_t t = ip[SC_DTYPE];
  const int64_t eb = kiln_dtype_size(t);
  if (ip[SC_MODE] == KILN_SHAPE_CHECK_RESIZE_SCALES) {
    if (t != KILN_DTYPE_F32) return KILN_ERR_INVALID_ARGUMENT;
  } else if (ip[SC_MODE] == KILN_SHAPE_CHECK_EXACT) {
    if (eb == 0 || t == KILN_DTYPE_BOOL) return KILN_ERR_INVALID_ARGUMENT;
  } else if (t != KILN_DTYPE_I64 && t != KILN_DTYPE_I32) {
    return KILN_ERR_INVALID_ARGUMENT;
  }
  KILN_TRY(kiln_dense_bytes(count, eb, &n));
  return kiln_check_binding(binding_bytes[0], n);
}

int kiln_shape_check_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                           uint32_t fparam_count, const uint64_t* binding_bytes) {
  (void)fp;
  return sc_check_params(ip, iparam_count, fparam_count, binding_bytes, 0);
}

/* shape_resolve: the dims the value gives (every mode), validated by the
 * same rules as shape_check, each within its cap (out_dims; SR_NO_CAP:
 * none, a length the compiler has no bound for), written to binding 1. */
static int sr_candidate(const int64_t* ip, const void* v, int64_t* got) {
  const int64_t t = ip[SC_DTYPE], count = ip[SC_COUNT];
  const int64_t in_rank = ip[SC_IN_RANK], out_rank = ip[SC_OUT_RANK];
  const int64_t* in = ip + SC_HEAD;
  switch (ip[SC_MODE]) {
    case KILN_SHAPE_CHECK_RESHAPE: {
      if (count != out_rank) return 0;
      int64_t infer = -1, known = 1;
      for (int64_t i = 0; i < count; ++i) {
        if (!sc_load(v, t, i, &got[i])) return 0;
        if (got[i] == 0 && ip[SC_FLAG] == 0 && i < in_rank) got[i] = in[i];
        if (got[i] == -1) {
          if (infer >= 0) return 0;
          infer = i;
        } else if (got[i] < 0 || kiln_checked_mul(known, got[i], &known) != KILN_OK) {
          return 0;
        }
      }
      if (infer >= 0) {
        if (known == 0) return 0;
        got[infer] = sc_product(in, in_rank, -1) / known;
      }
      return 1;
    }
    case KILN_SHAPE_CHECK_SQUEEZE: {
      if (count > in_rank) return 0;
      int64_t o = 0;
      for (int64_t i = 0; i < in_rank; ++i) {
        if (sc_has_axis(v, t, count, in_rank, i)) continue;
        if (o >= out_rank) return 0;
        got[o++] = in[i];
      }
      return o == out_rank;
    }
    case KILN_SHAPE_CHECK_SPLIT:
    case KILN_SHAPE_CHECK_EXACT: {
      if (count != out_rank) return 0;
      for (int64_t k = 0; k < count; ++k) {
        if (!sc_load(v, t, k, &got[k]) || got[k] < 0) return 0;
      }
      return 1;
    }
    case KILN_SHAPE_CHECK_EXPAND: {
      const int64_t r = in_rank > count ? in_rank : count;
      if (r != out_rank) return 0;
      for (int64_t p = 0; p < r; ++p) {
        const int64_t a = p >= r - in_rank ? in[p - (r - in_rank)] : 1;
        int64_t b = 1;
        if (p >= r - count && !sc_load(v, t, p - (r - count), &b)) return 0;
        got[p] = a == 1 ? b : a;  /* sc_expand refuses b other than a or 1 */
      }
      return 1;
    }
    case KILN_SHAPE_CHECK_RESIZE_SCALES: {
      if (count != in_rank || out_rank != in_rank) return 0;
      for (int64_t d = 0; d < count; ++d) {
        if (!kiln_resize_scaled_length(in[d], (double)((const float*)v)[d], &got[d])) return 0;
      }
      return 1;
    }
    case KILN_SHAPE_CHECK_TILE: {
      if (count != in_rank || out_rank != in_rank) return 0;
      for (int64_t d = 0; d < count; ++d) {
        int64_t rep;
        if (!sc_load(v, t, d, &rep) || rep < 0) return 0;
        if (kiln_checked_mul(in[d], rep, &got[d]) != KILN_OK) return 0;
      }
      return 1;
    }
    case KILN_SHAPE_CHECK_UNSQUEEZE: {
      if (in_rank + count != out_rank) return 0;
      int64_t i = 0;
      for (int64_t p = 0; p < out_rank; ++p) {
        if (sc_has_axis(v, t, count, out_rank, p)) {
          got[p] = 1;
        } else {
          if (i >= in_rank) return 0;
          got[p] = in[i++];
        }
      }
      return i == in_rank;
    }
    default: return 0;
  }
}

int kiln_shape_resolve(const int64_t* ip, const float* fp, void* const* bindings,
                       const kiln_host* host) {
  (void)fp;
  (void)host;
  const int64_t out_rank = ip[SC_OUT_RANK];
  const int64_t* cap = ip + SC_HEAD + ip[SC_IN_RANK];
  const void* v = bindings[0];
  int64_t got[KILN_SHAPE_CHECK_MAX_LEN];
  if (!sr_candidate(ip, v, got) || !sc_valid(ip, v, got)) return KILN_ERR_SHAPE_MISMATCH;
  for (int64_t d = 0; d < out_rank; ++d) {
    if (cap[d] != SR_NO_CAP && got[d] > cap[d]) return KILN_ERR_SHAPE_MISMATCH;
  }
  /* Without a cap the dims still describe a tensor whose size fits int64. */
  int64_t n;
  if (kiln_checked_product(got, out_rank, &n) != KILN_OK) return KILN_ERR_SHAPE_MISMATCH;
  int64_t* dims = (int64_t*)bindings[1];
  for (int64_t d = 0; d < out_rank; ++d) dims[d] = got[d];
  return KILN_OK;
}

int kiln_shape_resolve_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                             uint32_t fparam_count, const uint64_t* binding_bytes) {
  (void)fp;
  KILN_TRY(sc_check_params(ip, iparam_count, fparam_count, binding_bytes, 1));
  const int64_t out_rank = ip[SC_OUT_RANK];
  return kiln_check_binding(binding_bytes[1], (out_rank > 0 ? out_rank : 1) * 8);
}
