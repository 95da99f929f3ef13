/* Element access for the dtype-generic kernels (cast, binary_typed, compare,
 * where, unary_typed): every dtype loaded as int64 / uint64 / double and
 * stored back, float16 and bfloat16 through float with round-to-nearest-even.
 * Internal to runtime/kernels: an AOT bundle copies it beside the kernels. */
#ifndef KILN_KERNELS_TYPED_UTIL_H_
#define KILN_KERNELS_TYPED_UTIL_H_

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check_util.h"
#include "kiln/kernels.h"

/* Bytes per element of a kiln_dtype, 0 for an unknown code. */
static inline int64_t kiln_dtype_size(int64_t t) {
  switch (t) {
#define KILN_DTYPE(name, upper, code, size, text, numpy) \
  case code:                                             \
    return size;
#include "kiln/dtypes.def"
#undef KILN_DTYPE
    default: return 0;
  }
}

static inline int kiln_dtype_is_float(int64_t t) {
  return t == KILN_DTYPE_F32 || t == KILN_DTYPE_F64 || t == KILN_DTYPE_F16 ||
         t == KILN_DTYPE_BF16;
}

static inline int kiln_dtype_is_unsigned(int64_t t) {
  return t == KILN_DTYPE_U8 || t == KILN_DTYPE_U16 || t == KILN_DTYPE_U32 ||
         t == KILN_DTYPE_U64 || t == KILN_DTYPE_BOOL;
}

static inline float kiln_half_to_float(uint16_t h) {
  const uint32_t sign = (uint32_t)(h >> 15) << 31;
  const uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  uint32_t bits;
  if (exp == 0) {
    float v = ldexpf((float)mant, -24); /* zero or subnormal */
    return sign ? -v : v;
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else {
    bits = sign | ((exp + 112) << 23) | (mant << 13);
  }
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

/* float -> IEEE half, round to nearest even; overflow gives infinity. */
static inline uint16_t kiln_float_to_half(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  const uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
  const uint32_t ax = x & 0x7fffffffu;
  if (ax >= 0x7f800000u) return (uint16_t)(sign | 0x7c00 | (ax > 0x7f800000u ? 0x200 : 0));
  if (ax >= 0x477ff000u) return (uint16_t)(sign | 0x7c00); /* rounds past 65504 */
  if (ax < 0x38800000u) {                                  /* half subnormal or zero */
    if (ax < 0x33000000u) return sign;                     /* below half of the least */
    const uint32_t e = ax >> 23, m = (ax & 0x7fffff) | 0x800000;
    const uint32_t shift = 126 - e; /* 14..24 */
    uint32_t r = m >> shift;
    const uint32_t rem = m & ((1u << shift) - 1), halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (r & 1))) ++r;
    return (uint16_t)(sign | r);
  }
  uint32_t r = ((ax >> 13) - (112u << 10));
  const uint32_t rem = ax & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (r & 1))) ++r;
  return (uint16_t)(sign | r);
}

/* bfloat16 is a float32's high half: widening is exact. */
static inline float kiln_bf16_to_float(uint16_t b) {
  const uint32_t bits = (uint32_t)b << 16;
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

/* float -> bfloat16, round to nearest even (a carry into the exponent rounds
 * up to the next power of two or to infinity); NaN stays a quiet NaN. */
static inline uint16_t kiln_float_to_bf16(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40);
  x += 0x7fffu + ((x >> 16) & 1u);
  return (uint16_t)(x >> 16);
}

/* Element k of a dtype `t` buffer as double (floats; exact for integers up
 * to 2^53). */
static inline double kiln_load_f(const void* p, int64_t t, int64_t k) {
  const unsigned char* b = (const unsigned char*)p;
  switch (t) {
    case KILN_DTYPE_F32: { float v; memcpy(&v, b + k * 4, 4); return v; }
    case KILN_DTYPE_F64: { double v; memcpy(&v, b + k * 8, 8); return v; }
    case KILN_DTYPE_F16: { uint16_t v; memcpy(&v, b + k * 2, 2); return kiln_half_to_float(v); }
    case KILN_DTYPE_BF16: { uint16_t v; memcpy(&v, b + k * 2, 2); return kiln_bf16_to_float(v); }
    case KILN_DTYPE_I8: return (double)((const int8_t*)p)[k];
    case KILN_DTYPE_U8: return (double)b[k];
    case KILN_DTYPE_BOOL: return b[k] != 0;
    case KILN_DTYPE_I16: { int16_t v; memcpy(&v, b + k * 2, 2); return v; }
    case KILN_DTYPE_U16: { uint16_t v; memcpy(&v, b + k * 2, 2); return v; }
    case KILN_DTYPE_I32: { int32_t v; memcpy(&v, b + k * 4, 4); return v; }
    case KILN_DTYPE_U32: { uint32_t v; memcpy(&v, b + k * 4, 4); return v; }
    case KILN_DTYPE_I64: { int64_t v; memcpy(&v, b + k * 8, 8); return (double)v; }
    case KILN_DTYPE_U64: { uint64_t v; memcpy(&v, b + k * 8, 8); return (double)v; }
    default: return 0;
  }
}

/* Element k of an integer or bool buffer as its 64-bit two's complement
 * pattern (uint64 kept as is; signed types sign-extended). */
static inline uint64_t kiln_load_bits(const void* p, int64_t t, int64_t k) {
  const unsigned char* b = (const unsigned char*)p;
  switch (t) {
    case KILN_DTYPE_I8: return (uint64_t)(int64_t)((const int8_t*)p)[k];
    case KILN_DTYPE_U8: return b[k];
    case KILN_DTYPE_BOOL: return b[k] != 0;
    case KILN_DTYPE_I16: { int16_t v; memcpy(&v, b + k * 2, 2); return (uint64_t)(int64_t)v; }
    case KILN_DTYPE_U16: { uint16_t v; memcpy(&v, b + k * 2, 2); return v; }
    case KILN_DTYPE_I32: { int32_t v; memcpy(&v, b + k * 4, 4); return (uint64_t)(int64_t)v; }
    case KILN_DTYPE_U32: { uint32_t v; memcpy(&v, b + k * 4, 4); return v; }
    case KILN_DTYPE_I64:
    case KILN_DTYPE_U64: { uint64_t v; memcpy(&v, b + k * 8, 8); return v; }
    default: return 0;
  }
}

/* Stores the low bits of `v` as element k of an integer or bool buffer
 * (modular narrowing, like C's conversion to unsigned). */
static inline void kiln_store_bits(void* p, int64_t t, int64_t k, uint64_t v) {
  unsigned char* b = (unsigned char*)p;
  switch (t) {
    case KILN_DTYPE_I8: case KILN_DTYPE_U8: b[k] = (unsigned char)v; break;
    case KILN_DTYPE_BOOL: b[k] = v != 0; break;
    case KILN_DTYPE_I16: case KILN_DTYPE_U16: { uint16_t x = (uint16_t)v; memcpy(b + k * 2, &x, 2); break; }
    case KILN_DTYPE_I32: case KILN_DTYPE_U32: { uint32_t x = (uint32_t)v; memcpy(b + k * 4, &x, 4); break; }
    case KILN_DTYPE_I64: case KILN_DTYPE_U64: memcpy(b + k * 8, &v, 8); break;
    default: break;
  }
}

/* Stores a floating value as element k of a float buffer. */
static inline void kiln_store_f(void* p, int64_t t, int64_t k, double v) {
  unsigned char* b = (unsigned char*)p;
  switch (t) {
    case KILN_DTYPE_F32: { float x = (float)v; memcpy(b + k * 4, &x, 4); break; }
    case KILN_DTYPE_F64: memcpy(b + k * 8, &v, 8); break;
    case KILN_DTYPE_F16: { uint16_t x = kiln_float_to_half((float)v); memcpy(b + k * 2, &x, 2); break; }
    case KILN_DTYPE_BF16: {
      uint16_t x = kiln_float_to_bf16((float)v);
      memcpy(b + k * 2, &x, 2);
      break;
    }
    default: break;
  }
}

/* Row-wise walk over a broadcast output: calls the caller's loop once per
 * innermost row with each operand's element offset. Operands are addressed
 * as in binary_f32: out_dims, then one stride array per operand. */
typedef struct kiln_bcast {
  int64_t rank;
  const int64_t* dims;
  const int64_t* strides[3];
  int64_t operands;
} kiln_bcast;

/* Number of innermost rows and their length; rank 0 is one row of one. */
static inline void kiln_bcast_rows(const kiln_bcast* b, int64_t* rows, int64_t* inner) {
  *inner = b->rank > 0 ? b->dims[b->rank - 1] : 1;
  int64_t r = 1;
  for (int64_t d = 0; d + 1 < b->rank; ++d) r *= b->dims[d];
  *rows = r;
}

/* Sets up the walk over out_dims followed by `operands` (<= 3) stride arrays,
 * the layout every broadcasting kernel's iparams use. Returns 0 when the
 * output is empty, so there is nothing to walk. */
static inline int kiln_bcast_init(kiln_bcast* b, int64_t rank, const int64_t* dims,
                                  int64_t operands, int64_t* rows, int64_t* inner) {
  b->rank = rank;
  b->dims = dims;
  b->operands = operands;
  for (int64_t o = 0; o < 3; ++o) b->strides[o] = o < operands ? dims + (o + 1) * rank : NULL;
  for (int64_t d = 0; d < rank; ++d)
    if (dims[d] == 0) return 0;
  kiln_bcast_rows(b, rows, inner);
  return 1;
}

/* Offsets of row `idx` (multi-index over all but the last dim) per operand. */
static inline void kiln_bcast_offsets(const kiln_bcast* b, const int64_t* idx, int64_t* off) {
  for (int64_t o = 0; o < b->operands; ++o) {
    int64_t s = 0;
    for (int64_t d = 0; d + 1 < b->rank; ++d) s += idx[d] * b->strides[o][d];
    off[o] = s;
  }
}

static inline void kiln_bcast_next(const kiln_bcast* b, int64_t* idx) {
  for (int64_t d = b->rank - 2; d >= 0; --d) {
    if (++idx[d] < b->dims[d]) return;
    idx[d] = 0;
  }
}

/* Parameter counts of a broadcasting kernel: `head` scalars, the rank R at
 * ip[r_index] (0..KILN_MAX_RANK), then out_dims and two stride arrays (3R),
 * all non-negative, no fparams. Sets *rank on success. */
static inline int kiln_check_bcast_params(const int64_t* ip, uint32_t iparam_count, int64_t head,
                                          int64_t r_index, const float* fp,
                                          uint32_t fparam_count, int64_t* rank) {
  if (iparam_count < head || ip == NULL) return KILN_ERR_INVALID_ARGUMENT;
  const int64_t R = ip[r_index];
  if (R < 0 || R > KILN_MAX_RANK) return KILN_ERR_INVALID_ARGUMENT;
  KILN_TRY(kiln_check_counts(ip, iparam_count, (uint32_t)(head + 3 * R), fp, fparam_count, 0));
  KILN_TRY(kiln_check_nonneg(ip, head + 3 * R));
  *rank = R;
  return KILN_OK;
}

/* Checker for a broadcast layout: `operands` inputs of elem bytes in_eb[o]
 * each, output dense of out_eb bytes; bindings 0..operands-1 then output. */
static inline int kiln_check_bcast(const int64_t* dims, int64_t rank, const int64_t* strides,
                                   int64_t operands, const int64_t* in_eb, int64_t out_eb,
                                   const uint64_t* binding_bytes) {
  int64_t bytes, count;
  for (int64_t o = 0; o < operands; ++o) {
    KILN_TRY(kiln_view_bytes(rank, dims, strides + o * rank, 0, in_eb[o], &bytes));
    KILN_TRY(kiln_check_binding(binding_bytes[o], bytes));
  }
  KILN_TRY(kiln_checked_product(dims, rank, &count));
  KILN_TRY(kiln_dense_bytes(count, out_eb, &bytes));
  return kiln_check_binding(binding_bytes[operands], bytes);
}

#endif /* KILN_KERNELS_TYPED_UTIL_H_ */
