/* iteration_slice_read / iteration_slice_write: move slice i of a tensor
 * viewed as [outer, count, inner bytes], i being the iteration a LOOP wrote
 * (how a Scan body reads its scan inputs and how Loop and Scan bodies
 * store their scan outputs). */
#include <stdint.h>
#include <string.h>

#include "check_util.h"
#include "kiln/kernel_params.h"
#include "kiln/kernels.h"

enum {
  I_OUTER = KILN_IP_ITERATION_SLICE_READ_OUTER,
  I_COUNT = KILN_IP_ITERATION_SLICE_READ_COUNT,
  I_INNER_BYTES = KILN_IP_ITERATION_SLICE_READ_INNER_BYTES,
  I_REVERSE = KILN_IP_ITERATION_SLICE_READ_REVERSE,
  I_PARAMS = KILN_ITERATION_SLICE_READ_IPARAMS
};
_Static_assert(KILN_IP_ITERATION_SLICE_WRITE_OUTER == (int)I_OUTER &&
                   KILN_IP_ITERATION_SLICE_WRITE_COUNT == (int)I_COUNT &&
                   KILN_IP_ITERATION_SLICE_WRITE_INNER_BYTES == (int)I_INNER_BYTES &&
                   KILN_IP_ITERATION_SLICE_WRITE_REVERSE == (int)I_REVERSE &&
                   KILN_ITERATION_SLICE_WRITE_IPARAMS == (int)I_PARAMS,
               "iteration_slice_write has iteration_slice_read's parameters");

/* The slice index for the iteration in `counter`; a counter outside
 * [0, count) (a loop running longer than the tensor) is refused. */
static int slice_index(const void* counter, const int64_t* ip, int64_t* k) {
  int64_t i;
  memcpy(&i, counter, sizeof i);
  if (i < 0 || i >= ip[I_COUNT]) return KILN_ERR_SHAPE_MISMATCH;
  *k = ip[I_REVERSE] ? ip[I_COUNT] - 1 - i : i;
  return KILN_OK;
}

int kiln_iteration_slice_read(const int64_t* ip, const float* fp, void* const* bindings,
                              const kiln_host* host) {
  (void)fp;
  (void)host;
  int64_t k;
  KILN_TRY(slice_index(bindings[0], ip, &k));
  const unsigned char* whole = (const unsigned char*)bindings[1];
  unsigned char* slice = (unsigned char*)bindings[2];
  const int64_t inner = ip[I_INNER_BYTES];
  for (int64_t o = 0; o < ip[I_OUTER]; ++o) {
    memcpy(slice + o * inner, whole + (o * ip[I_COUNT] + k) * inner, (size_t)inner);
  }
  return KILN_OK;
}

int kiln_iteration_slice_write(const int64_t* ip, const float* fp, void* const* bindings,
                               const kiln_host* host) {
  (void)fp;
  (void)host;
  int64_t k;
  KILN_TRY(slice_index(bindings[0], ip, &k));
  const unsigned char* slice = (const unsigned char*)bindings[1];
  unsigned char* whole = (unsigned char*)bindings[2];
  const int64_t inner = ip[I_INNER_BYTES];
  for (int64_t o = 0; o < ip[I_OUTER]; ++o) {
    memcpy(whole + (o * ip[I_COUNT] + k) * inner, slice + o * inner, (size_t)inner);
  }
  return KILN_OK;
}

/* Both directions bind [counter, whole, slice] or [counter, slice, whole]. */
static int check_slices(const int64_t* ip, uint32_t iparam_count, const float* fp,
                        uint32_t fparam_count, uint64_t counter_bytes, uint64_t whole_bytes,
                        uint64_t slice_bytes) {
  KILN_TRY(kiln_check_counts(ip, iparam_count, I_PARAMS, fp, fparam_count, 0));
  KILN_TRY(kiln_check_nonneg(ip, I_PARAMS));
  KILN_TRY(kiln_check_enum(ip[I_REVERSE], 0, 1));
  KILN_TRY(kiln_check_binding(counter_bytes, (int64_t)sizeof(int64_t)));
  /* Empty slices keep every binding tiny however many outer rows the copy
   * loop runs: bound the rows (fuzzer find). */
  const int64_t extents[2] = {ip[I_OUTER], ip[I_INNER_BYTES]};
  KILN_TRY(kiln_check_work(extents, 2));
  int64_t slice, whole;
  KILN_TRY(kiln_checked_mul(ip[I_OUTER], ip[I_INNER_BYTES], &slice));
  KILN_TRY(kiln_checked_mul(slice, ip[I_COUNT], &whole));
  KILN_TRY(kiln_check_binding(whole_bytes, whole));
  KILN_TRY(kiln_check_binding(slice_bytes, slice));
  return KILN_OK;
}

int kiln_iteration_slice_read_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                                    uint32_t fparam_count, const uint64_t* binding_bytes) {
  return check_slices(ip, iparam_count, fp, fparam_count, binding_bytes[0], binding_bytes[1],
                      binding_bytes[2]);
}

int kiln_iteration_slice_write_check(const int64_t* ip, uint32_t iparam_count, const float* fp,
                                     uint32_t fparam_count, const uint64_t* binding_bytes) {
  return check_slices(ip, iparam_count, fp, fparam_count, binding_bytes[0], binding_bytes[2],
                      binding_bytes[1]);
}
