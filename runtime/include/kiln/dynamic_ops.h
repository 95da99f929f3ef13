/* Run-time checks and integer arithmetic behind the dynamic-shape opcodes
 * (schemas/kiln/opcodes.def: IADD ... DISPATCH_DYN). The VM's interpreter and
 * the AOT tool's generated C both call these, so a module computes the same
 * sizes, and refuses the same symbol values, in either back end.
 *
 * Every function returns KILN_OK or a kiln_status_code; none allocates. */
#ifndef KILN_DYNAMIC_OPS_H_
#define KILN_DYNAMIC_OPS_H_

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kiln/kernel_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Symbols (and so every size derived from them) are positive and at most
 * this, the bound the compiler assumes for static dims too. */
#define KILN_MAX_SYMBOL_VALUE ((int64_t)1 << 40)

static inline int kiln_iadd(int64_t a, int64_t b, int64_t* out) {
  return __builtin_add_overflow(a, b, out) ? KILN_ERR_OUT_OF_RANGE : KILN_OK;
}

static inline int kiln_isub(int64_t a, int64_t b, int64_t* out) {
  return __builtin_sub_overflow(a, b, out) ? KILN_ERR_OUT_OF_RANGE : KILN_OK;
}

static inline int kiln_imul(int64_t a, int64_t b, int64_t* out) {
  return __builtin_mul_overflow(a, b, out) ? KILN_ERR_OUT_OF_RANGE : KILN_OK;
}

/* Floor division by a positive divisor (sizes never divide by anything else). */
static inline int kiln_idiv(int64_t a, int64_t b, int64_t* out) {
  if (b <= 0) return KILN_ERR_OUT_OF_RANGE;
  int64_t q = a / b;
  if (a % b != 0 && a < 0) --q;
  *out = q;
  return KILN_OK;
}

static inline int kiln_imin(int64_t a, int64_t b, int64_t* out) {
  *out = a < b ? a : b;
  return KILN_OK;
}

static inline int kiln_imax(int64_t a, int64_t b, int64_t* out) {
  *out = a > b ? a : b;
  return KILN_OK;
}

/* ILOAD: the length a kernel left as an int64 at byte `offset` of the arena
 * (a result symbol), refused outside 0..bound, the capacity it was given. */
static inline int kiln_iload(const unsigned char* arena, uint64_t offset, int64_t bound,
                             int64_t* out) {
  int64_t v;
  memcpy(&v, arena + offset, sizeof v);
  if (v < 0 || v > bound) return KILN_ERR_OUT_OF_RANGE;
  *out = v;
  return KILN_OK;
}
/* A view of `bytes` bytes at byte `offset` of a buffer of `capacity` bytes:
 * non-negative, inside, and 16-byte aligned as the static verifier demands. */
static inline int kiln_check_view(int64_t offset, int64_t bytes, uint64_t capacity) {
  if (offset < 0 || bytes < 0) return KILN_ERR_OUT_OF_RANGE;
  if ((uint64_t)offset > capacity || (uint64_t)bytes > capacity - (uint64_t)offset) {
    return KILN_ERR_OUT_OF_RANGE;
  }
  return offset % 16 == 0 ? KILN_OK : KILN_ERR_ALIGNMENT;
}

/* The same in a module whose sizes the run finds without a bound: a view
 * past the workspace's end records what the run needs (offset + bytes) in
 * *need and returns KILN_ERR_BUFFER_TOO_SMALL, so the caller can grow the
 * workspace and run again. */
static inline int kiln_check_view_growing(int64_t offset, int64_t bytes, uint64_t capacity,
                                          kiln_shortfall* need) {
  if (offset < 0 || bytes < 0 || bytes > INT64_MAX - offset) return KILN_ERR_OUT_OF_RANGE;
  if ((uint64_t)(offset + bytes) > capacity) {
    need->output = -1;
    need->bytes = (uint64_t)(offset + bytes);
    return KILN_ERR_BUFFER_TOO_SMALL;
  }
  return offset % 16 == 0 ? KILN_OK : KILN_ERR_ALIGNMENT;
}

/* Output k's view of `bytes` bytes in a buffer of `capacity` bytes (the
 * caller's output_bytes[k]), in a module whose sizes the run finds. */
static inline int kiln_check_output_growing(int32_t k, int64_t bytes, uint64_t capacity,
                                            kiln_shortfall* need) {
  if (bytes < 0) return KILN_ERR_OUT_OF_RANGE;
  if ((uint64_t)bytes > capacity) {
    need->output = k;
    need->bytes = (uint64_t)bytes;
    return KILN_ERR_BUFFER_TOO_SMALL;
  }
  return KILN_OK;
}

/* Before a DISPATCH_DYN calls its kernel: the checker accepts the patched
 * parameters for the views' real sizes, and no binding the kernel writes
 * (bit k of `writes`) overlaps another non-empty binding — the run-time form
 * of the verifier's static checks. binding_bytes[k] is the size of the view
 * bound as k, or 0 where the executable marks binding k untouched. */
static inline int kiln_check_dynamic_dispatch(kiln_kernel_check_fn check, const int64_t* iparams,
                                              uint32_t iparam_count, const float* fparams,
                                              uint32_t fparam_count, void* const* bindings,
                                              const uint64_t* binding_bytes, uint32_t count,
                                              uint32_t writes) {
  int rc = check(iparams, iparam_count, fparams, fparam_count, binding_bytes);
  if (rc != KILN_OK) return rc;
  for (uint32_t k = 0; k < count; ++k) {
    if (((writes >> k) & 1u) == 0 || binding_bytes[k] == 0) continue;
    const uintptr_t k_begin = (uintptr_t)bindings[k];
    for (uint32_t j = 0; j < count; ++j) {
      if (j == k || binding_bytes[j] == 0) continue;
      const uintptr_t j_begin = (uintptr_t)bindings[j];
      if (k_begin < j_begin + binding_bytes[j] && j_begin < k_begin + binding_bytes[k]) {
        return KILN_ERR_INVALID_ARGUMENT;
      }
    }
  }
  return KILN_OK;
}

#ifdef __cplusplus
}
#endif

#endif /* KILN_DYNAMIC_OPS_H_ */
