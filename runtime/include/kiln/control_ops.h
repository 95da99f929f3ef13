/* The structured control flow of the bytecode (schemas/kiln/opcodes.def: IF,
 * LOOP, LOOP_DYN), shared by the VM's interpreter and the AOT tool's
 * generated C so a module branches and counts iterations the same way in
 * either back end. None of these allocates; values are read with memcpy
 * because a condition or trip count may sit in a caller's buffer of any
 * alignment. */
#ifndef KILN_CONTROL_OPS_H_
#define KILN_CONTROL_OPS_H_

#include <stdint.h>
#include <string.h>

#include "kiln/kernel_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An 'R' operand that names no register. */
#define KILN_NO_REGISTER 0xFFFFFFFFu
/* LOOP's iteration count operand when any count is allowed. */
#define KILN_ANY_ITERATION_COUNT UINT64_MAX

/* An ONNX bool (one byte) as a branch condition. */
static inline int kiln_condition(const void* p) {
  unsigned char b;
  memcpy(&b, p, 1);
  return b != 0;
}

/* An ONNX int64 trip count. */
static inline int64_t kiln_trip_count(const void* p) {
  int64_t v;
  memcpy(&v, p, sizeof v);
  return v;
}

static inline void kiln_write_iteration(void* p, uint64_t i) {
  const int64_t v = (int64_t)i;
  memcpy(p, &v, sizeof v);
}

/* Whether LOOP runs iteration i (*run = 1) or is over (*run = 0), given the
 * trip count and the current condition. A loop whose iteration count must be
 * `expected` (its scan outputs hold that many slices) fails with
 * KILN_ERR_SHAPE_MISMATCH before a slice too many or when it ends short. */
static inline int kiln_loop_next(uint64_t i, int64_t trip, int cond, uint64_t expected,
                                 int* run) {
  const int more = cond && trip > 0 && i < (uint64_t)trip;
  const int fixed = expected != KILN_ANY_ITERATION_COUNT;
  if (fixed && (more ? i >= expected : i != expected)) return KILN_ERR_SHAPE_MISMATCH;
  *run = more;
  return KILN_OK;
}

/* LOOP_DYN's expected iteration count, held in an integer register: a
 * negative value allows any count (KILN_ANY_ITERATION_COUNT for
 * kiln_loop_next), any other value is the count the loop must run. */
static inline uint64_t kiln_loop_expected(int64_t expected) {
  return expected < 0 ? KILN_ANY_ITERATION_COUNT : (uint64_t)expected;
}

#ifdef __cplusplus
}
#endif

#endif /* KILN_CONTROL_OPS_H_ */
