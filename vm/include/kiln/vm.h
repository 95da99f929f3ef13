/* The Kiln VM embedding API (C). Load a .kiln module, look at its signature,
 * bind caller-owned input and output buffers, run. Handles are opaque; every
 * fallible call returns NULL on success or a kiln_vm_error the caller reads
 * and frees. A successful run allocates nothing.
 *
 *   kiln_vm_module* m; kiln_vm_instance* vm; kiln_vm_error* e;
 *   if ((e = kiln_vm_module_load_file("model.kiln", &m))) { puts(kiln_vm_error_message(e)); ... }
 *   e = kiln_vm_instance_create(m, &vm);
 *   e = kiln_vm_instance_bind_input(vm, 0, in, in_bytes);
 *   e = kiln_vm_instance_bind_output(vm, 0, out, out_bytes);
 *   e = kiln_vm_instance_run(vm);
 *   kiln_vm_instance_release(vm); kiln_vm_module_release(m);
 *
 * An instance owns its arena and is used by one thread at a time; create one
 * instance per thread to run a module concurrently. Instances keep their
 * module alive, so the module handle may be released first.
 */
#ifndef KILN_VM_H_
#define KILN_VM_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kiln_vm_module kiln_vm_module;
typedef struct kiln_vm_instance kiln_vm_instance;
typedef struct kiln_vm_error kiln_vm_error;

typedef enum kiln_vm_code {
  KILN_VM_OK = 0,
  KILN_VM_INVALID_ARGUMENT = 1,   /* bad module, buffer, index or argument */
  KILN_VM_NOT_FOUND = 2,          /* a file or name that does not exist */
  KILN_VM_FAILED_PRECONDITION = 3,/* e.g. running with unbound buffers */
  KILN_VM_RESOURCE_EXHAUSTED = 4, /* out of memory */
  KILN_VM_INTERNAL = 5,           /* a kernel reported an error */
  /* A run that its run options stopped (kiln_vm_instance_run_with_options): */
  KILN_VM_CANCELLED = 6,          /* the host cancelled it (kiln_vm_run_options_cancel) */
  KILN_VM_DEADLINE_EXCEEDED = 7,  /* it ran past its timeout */
  KILN_VM_ITERATION_LIMIT = 8,    /* it reached its limit of loop iterations */
  /* A run that found the workspace or an output buffer too small for a size
   * it found (kiln_vm_instance_shortfall says which and how large): */
  KILN_VM_BUFFER_TOO_SMALL = 9,
} kiln_vm_code;

/* Element types; the values are the module format's (schemas/module.fbs):
 * KILN_VM_DTYPE_F32 = 1, ... KILN_VM_DTYPE_BOOL, ... (kiln/dtypes.def, installed
 * beside this header, has the whole table: name, code, size). */
typedef enum kiln_vm_dtype {
  KILN_VM_DTYPE_UNKNOWN = 0,
#define KILN_DTYPE(name, upper, code, size, text, numpy) KILN_VM_DTYPE_##upper = code,
#include "kiln/dtypes.def"
#undef KILN_DTYPE
} kiln_vm_dtype;

/* One signature tensor. Pointers stay valid while the module lives. */
typedef struct kiln_vm_tensor_info {
  const char* name;
  kiln_vm_dtype dtype;
  size_t rank;
  const int64_t* shape;   /* rank dimensions; -1 for a symbolic one */
  size_t element_count;
  size_t byte_size;       /* the bytes a bound buffer must hold */
} kiln_vm_tensor_info;

/* Errors. */
kiln_vm_code kiln_vm_error_code(const kiln_vm_error* error);
const char* kiln_vm_error_message(const kiln_vm_error* error);
void kiln_vm_error_free(kiln_vm_error* error);

/* Modules: mapped from a file, or copied from memory; verified before use. */
kiln_vm_error* kiln_vm_module_load_file(const char* path, kiln_vm_module** out_module);
kiln_vm_error* kiln_vm_module_load_memory(const void* data, size_t size,
                                          kiln_vm_module** out_module);
void kiln_vm_module_release(kiln_vm_module* module);

size_t kiln_vm_module_input_count(const kiln_vm_module* module);
size_t kiln_vm_module_output_count(const kiln_vm_module* module);
kiln_vm_error* kiln_vm_module_input_info(const kiln_vm_module* module, size_t index,
                                         kiln_vm_tensor_info* out_info);
kiln_vm_error* kiln_vm_module_output_info(const kiln_vm_module* module, size_t index,
                                          kiln_vm_tensor_info* out_info);
/* The signature index of the input or output called `name`. */
kiln_vm_error* kiln_vm_module_find_input(const kiln_vm_module* module, const char* name,
                                         size_t* out_index);
kiln_vm_error* kiln_vm_module_find_output(const kiln_vm_module* module, const char* name,
                                          size_t* out_index);
/* Scratch memory an instance allocates once. */
uint64_t kiln_vm_module_arena_bytes(const kiln_vm_module* module);

/* Instances: the arena and register file for running one module. */
kiln_vm_error* kiln_vm_instance_create(const kiln_vm_module* module,
                                       kiln_vm_instance** out_instance);
void kiln_vm_instance_release(kiln_vm_instance* instance);

/* Binds caller memory (dense C order, aligned to its element size, at least
 * byte_size bytes of the tensor) until rebound; nothing is copied. */
kiln_vm_error* kiln_vm_instance_bind_input(kiln_vm_instance* instance, size_t index,
                                           const void* data, size_t byte_size);
kiln_vm_error* kiln_vm_instance_bind_output(kiln_vm_instance* instance, size_t index, void* data,
                                            size_t byte_size);

/* Runs the module on the bound buffers. */
kiln_vm_error* kiln_vm_instance_run(kiln_vm_instance* instance);

/* Run options: limits on runs of a module the host may not trust to end (a
 * loop whose trip count or condition is data runs as long as the data says;
 * constant trip counts are already bounded when a module loads). They are
 * checked before every loop iteration and every kernel call, never inside a
 * kernel; without limits that costs one predictable branch. A stopped run
 * returns KILN_VM_CANCELLED, KILN_VM_DEADLINE_EXCEEDED or
 * KILN_VM_ITERATION_LIMIT with a message naming where it stopped, its
 * outputs are unspecified, and the instance runs again normally.
 *
 *   kiln_vm_run_options* o;  kiln_vm_run_options_create(&o);
 *   kiln_vm_run_options_set_timeout(o, 0.5);          -- seconds per run
 *   kiln_vm_run_options_set_max_iterations(o, 100000);
 *   e = kiln_vm_instance_run_with_options(vm, o);     -- another thread may
 *                                                     -- kiln_vm_run_options_cancel(o)
 *   kiln_vm_run_options_release(o);
 *
 * One options object may serve many runs, on any instances, at the same
 * time; set the limits before the runs that use them. */
typedef struct kiln_vm_run_options kiln_vm_run_options;
kiln_vm_error* kiln_vm_run_options_create(kiln_vm_run_options** out_options);
void kiln_vm_run_options_release(kiln_vm_run_options* options);
/* Each run stops once it has run `seconds` (0: no limit; at most 1e9). */
kiln_vm_error* kiln_vm_run_options_set_timeout(kiln_vm_run_options* options, double seconds);
/* Each run stops before it would start loop iteration number n + 1, counting
 * the iterations of every loop of the run, nested ones included (0: no limit). */
kiln_vm_error* kiln_vm_run_options_set_max_iterations(kiln_vm_run_options* options, uint64_t n);
/* Thread-safe, callable while runs use the options: each of them stops at
 * its next check, and so does every later run until the flag is cleared. */
void kiln_vm_run_options_cancel(kiln_vm_run_options* options);
void kiln_vm_run_options_clear_cancel(kiln_vm_run_options* options);
/* kiln_vm_instance_run within the limits of `options` (NULL: none). */
kiln_vm_error* kiln_vm_instance_run_with_options(kiln_vm_instance* instance,
                                                 const kiln_vm_run_options* options);

/* Symbolic dimensions (a module compiled from a model with a dynamic batch or
 * sequence axis): the signature's shape holds -1 for such a dim, and
 * element_count/byte_size count it as 1. Before running, set each input's
 * actual shape, bind buffers of that size, and reserve the workspace (the
 * one allocation; repeat it when the shapes grow). The symbols take their
 * values from the shapes; kiln_vm_instance_run refuses shapes needing more
 * workspace than was reserved, and output_shape gives each output's shape
 * for the shapes set (bind output buffers that large). */
kiln_vm_error* kiln_vm_instance_set_input_shape(kiln_vm_instance* instance, size_t index,
                                                const int64_t* shape, size_t rank);
kiln_vm_error* kiln_vm_instance_reserve(kiln_vm_instance* instance);
kiln_vm_error* kiln_vm_instance_output_shape(kiln_vm_instance* instance, size_t index,
                                             int64_t* dims, size_t capacity, size_t* rank);

/* Sizes found during the run without a bound (a ConstantOfShape or Expand
 * whose shape is input data, with no declared output shape): such an output
 * dim is -1 in the signature, output_shape gives 0 for it before a run, and
 * its buffer may be of any size when bound. A run that finds the workspace
 * or an output buffer too small stops with KILN_VM_BUFFER_TOO_SMALL, writing
 * nothing past any buffer; kiln_vm_instance_shortfall then gives the output's
 * index (-1 for the workspace) and the bytes it needs. Grow that (bind a
 * larger output buffer, or kiln_vm_instance_reserve_workspace) and run again;
 * once a run succeeds, output_shape gives the dims it found.
 *   while ((e = kiln_vm_instance_run(vm)) &&
 *          kiln_vm_error_code(e) == KILN_VM_BUFFER_TOO_SMALL) {
 *     kiln_vm_instance_shortfall(vm, &k, &bytes);  -- grow, rebind, retry
 *   } */
kiln_vm_error* kiln_vm_instance_shortfall(const kiln_vm_instance* instance, int64_t* output,
                                          uint64_t* bytes);
kiln_vm_error* kiln_vm_instance_reserve_workspace(kiln_vm_instance* instance, uint64_t bytes);

const char* kiln_vm_dtype_name(kiln_vm_dtype dtype);

#ifdef __cplusplus
}
#endif

#endif /* KILN_VM_H_ */
