/* The Kiln kernel ABI: how every executable is called, by the VM through a
 * pointer resolved once at load and by AOT output through its symbol.
 *
 *   int kiln_NAME(const int64_t* iparams, const float* fparams,
 *                 void* const* bindings, const kiln_host* host);
 *
 * - iparams/fparams: the executable's static parameters (layout per kernel in
 *   kiln/kernels.h). fparams may be NULL when the kernel takes none.
 * - bindings: the buffers, in the order kiln/kernels.h documents.
 * - host: hooks the embedding program provides (threads); NULL means serial.
 *   Kernels read only parallel_for and user.
 * Returns KILN_OK or a kiln_status_code.
 *
 * Every kernel also has a checker, run once when a module is verified:
 *
 *   int kiln_NAME_check(const int64_t* iparams, uint32_t iparam_count,
 *                       const float* fparams, uint32_t fparam_count,
 *                       const uint64_t* binding_bytes);
 *
 * It returns KILN_OK only when the parameter counts are what the kernel reads,
 * every size is non-negative, no size product overflows, and the bytes the
 * kernel touches in binding k are at most binding_bytes[k]. Once a module's
 * executables pass, the kernel runs without checks of its own.
 */
#ifndef KILN_KERNEL_ABI_H_
#define KILN_KERNEL_ABI_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum kiln_status_code {
  KILN_OK = 0,
  KILN_ERR_INVALID_ARGUMENT = 1, /* parameters or bindings are inconsistent */
  KILN_ERR_OUT_OF_RANGE = 2,     /* a size exceeds a binding or a limit */
  KILN_ERR_UNIMPLEMENTED = 3,    /* a parameter value this kernel does not handle */
  KILN_ERR_ALIGNMENT = 4,        /* a caller buffer is NULL or under-aligned (AOT entry) */
  /* Run-time data refusals: a kernel's run function found that this run's
   * data contradicts what the compiler fixed (checkers never return these). */
  KILN_ERR_SHAPE_MISMATCH = 5,     /* a shape-like or parameter input, a data-dependent
                                      count or a loop's iteration count does not give
                                      the shape the module was compiled for */
  KILN_ERR_INDEX_OUT_OF_RANGE = 6, /* an index, region or batch index in the data lies
                                      outside the tensor it addresses */
  KILN_ERR_BAD_VALUE = 7,          /* a run-time scalar parameter has a value the op
                                      does not accept (a dropout ratio outside [0, 1)) */
  /* Run budget stops: the host's limits on a run, checked before each loop
   * iteration and each kernel call, never inside a kernel (VM run options;
   * AOT kiln_host.should_stop). Kernels and checkers never return these. */
  KILN_ERR_CANCELLED = 8,          /* the host cancelled the run */
  KILN_ERR_DEADLINE = 9,           /* the run passed the deadline the host set */
  KILN_ERR_ITERATION_LIMIT = 10,   /* the run reached the host's limit of loop iterations */
  /* AOT entry of a module whose sizes the run finds without a bound: a
   * caller buffer is smaller than this run needs (kiln_shortfall says which
   * and how large); nothing was written past any buffer. */
  KILN_ERR_BUFFER_TOO_SMALL = 11,
} kiln_status_code;

/* What a run stopped with KILN_ERR_BUFFER_TOO_SMALL needs: grow that buffer
 * to at least `bytes` and run again with the same inputs. */
typedef struct kiln_shortfall {
  int32_t output; /* the output's index, or -1 for the workspace */
  uint64_t bytes;
} kiln_shortfall;

/* A short English phrase for a status code, for error messages of the VM
 * and of AOT runners alike. */
static inline const char* kiln_status_message(int code) {
  switch (code) {
    case KILN_OK: return "success";
    case KILN_ERR_INVALID_ARGUMENT: return "the parameters or bindings are inconsistent";
    case KILN_ERR_OUT_OF_RANGE: return "a size exceeds a binding or a limit";
    case KILN_ERR_UNIMPLEMENTED: return "a parameter value the kernel does not handle";
    case KILN_ERR_ALIGNMENT: return "a caller buffer is NULL or under-aligned";
    case KILN_ERR_SHAPE_MISMATCH:
      return "a run-time shape or parameter input does not give the shape the model declares, "
             "or is a value the op refuses";
    case KILN_ERR_INDEX_OUT_OF_RANGE:
      return "an index or region input is outside the tensor it addresses";
    case KILN_ERR_BAD_VALUE:
      return "a run-time scalar parameter has a value the operator does not accept";
    case KILN_ERR_CANCELLED: return "the host cancelled the run";
    case KILN_ERR_DEADLINE: return "the run passed its deadline";
    case KILN_ERR_ITERATION_LIMIT: return "the run reached its limit of loop iterations";
    case KILN_ERR_BUFFER_TOO_SMALL:
      return "a buffer is smaller than a size found during the run (grow it and run again)";
    default: return "unknown error code";
  }
}

/* Element types, the same numbers as DType in schemas/module.fbs:
 * KILN_DTYPE_F32 = 1, ... KILN_DTYPE_BOOL, ... (the table: kiln/dtypes.def). */
typedef enum kiln_dtype {
#define KILN_DTYPE(name, upper, code, size, text, numpy) KILN_DTYPE_##upper = code,
#include "kiln/dtypes.def"
#undef KILN_DTYPE
} kiln_dtype;

/* Where should_stop is asked (its `at` argument). */
#define KILN_STOP_AT_DISPATCH 0  /* before a kernel call */
#define KILN_STOP_AT_ITERATION 1 /* before a loop iteration (a LOOP body call) */

/* Host hooks; either may be NULL. Threads belong to the host: a kernel that
 * splits work calls parallel_for, which runs body(ctx, begin, end) over a
 * partition of [0, n).
 * should_stop (appended after the original fields, so callers that brace- or
 * zero-initialise the struct leave it NULL) bounds a run the host cannot
 * trust to end: AOT code asks it before every kernel call and every loop
 * iteration, never inside a kernel, with `at` saying which
 * (KILN_STOP_AT_*). It returns 0 to go on, or the status code the run then
 * returns at once (KILN_ERR_CANCELLED, KILN_ERR_DEADLINE,
 * KILN_ERR_ITERATION_LIMIT); the workspace is scratch, so the next run
 * starts afresh. Kernels never call it. */
typedef struct kiln_host {
  void (*parallel_for)(void* user, int64_t n,
                       void (*body)(void* ctx, int64_t begin, int64_t end),
                       void* ctx);
  void* user;
  int (*should_stop)(void* stop_user, int at);
  void* stop_user;
} kiln_host;

typedef int (*kiln_kernel_fn)(const int64_t* iparams, const float* fparams,
                              void* const* bindings, const kiln_host* host);
typedef int (*kiln_kernel_check_fn)(const int64_t* iparams, uint32_t iparam_count,
                                    const float* fparams, uint32_t fparam_count,
                                    const uint64_t* binding_bytes);

/* Marks the entry points an AOT shared library exports; the library is built
 * with -fvisibility=hidden so nothing else leaves it. */
#if defined(__GNUC__) || defined(__clang__)
#define KILN_EXPORT __attribute__((visibility("default")))
#else
#define KILN_EXPORT
#endif

/* Largest tensor rank any kernel accepts. */
#define KILN_MAX_RANK 8

#ifdef __cplusplus
}
#endif

#endif /* KILN_KERNEL_ABI_H_ */
