/* Runner for the AOT-compiled model @NAME@: the only file of the bundle that
 * touches files. Same flags as `kiln run`:
 *   @NAME@_run --input FILE.npy [...] --output FILE.npy [...] [--repeat N]
 *              [--weights FILE] [--timeout SECONDS] [--max-iterations N]
 * Inputs and outputs are given in signature order, or as NAME=FILE.npy.
 * --weights names the weights file of a bundle built with external weights
 * (default: @NAME@_weights.bin beside the runner).
 * With --repeat N the model runs N times and the latency is printed as
 *   latency_ms median=... min=... max=... runs=N
 * --timeout and --max-iterations bound each run through @NAME@_run_with_host's
 * should_stop hook (a run they stop fails with KILN_ERR_DEADLINE or
 * KILN_ERR_ITERATION_LIMIT); without them the runner calls it with no host.
 * For a model with symbolic dimensions (@UPPER@_HAS_SYMBOLS) the symbols take
 * their values from the input files' shapes, the workspace is sized for them
 * with @NAME@_workspace_size() and the outputs are written with their real
 * shapes.
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* madvise */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

#include "@NAME@.h"

/* NumPy's dtype string for a kiln_dtype code, e.g. "<f4". */
static const char* numpy_descr(int32_t dtype) {
  switch (dtype) {
#define KILN_DTYPE(name, upper, code, size, text, numpy) \
  case code:                                             \
    return numpy;
#include "kiln/dtypes.def"
#undef KILN_DTYPE
    default: return "?";
  }
}

static int fail(const char* what, const char* detail) {
  fprintf(stderr, "@NAME@_run: error: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
  return 1;
}

/* Opens `path`, checks it is a C-order .npy of info's dtype and reads its
 * shape into dims (*rank = -1 when the shape cannot be read); returns the
 * file positioned at the data, or NULL after reporting. */
static FILE* open_npy(const char* path, const kiln_tensor_info* info, int64_t* dims, int* rank) {
  char msg[512];
  const char* want = numpy_descr(info->dtype);
  FILE* f = fopen(path, "rb");
  if (!f) {
    fail("cannot open input", path);
    return NULL;
  }
  unsigned char pre[12];
  if (fread(pre, 1, 10, f) != 10 || memcmp(pre, "\x93NUMPY", 6) != 0) {
    fclose(f);
    fail("not a .npy file", path);
    return NULL;
  }
  size_t header_len = (size_t)pre[8] | ((size_t)pre[9] << 8);
  if (pre[6] >= 2) {
    if (fread(pre + 10, 1, 2, f) != 2) { fclose(f); fail("truncated .npy", path); return NULL; }
    header_len = (size_t)pre[8] | ((size_t)pre[9] << 8) | ((size_t)pre[10] << 16) |
                 ((size_t)pre[11] << 24);
  }
  if (header_len > 65536) { fclose(f); fail("oversized .npy header", path); return NULL; }
  char* header = (char*)malloc(header_len + 1);
  if (!header || fread(header, 1, header_len, f) != header_len) {
    free(header);
    fclose(f);
    fail("truncated .npy header", path);
    return NULL;
  }
  header[header_len] = '\0';
  const char* descr = strstr(header, "'descr'");
  const char* order = strstr(header, "'fortran_order'");
  const char* shape = strstr(header, "'shape'");
  int ok = descr && order && shape;
  if (ok) {
    descr = strchr(descr + 7, '\'');
    ok = descr && strncmp(descr + 1, want, strlen(want)) == 0 && descr[1 + strlen(want)] == '\'';
    if (!ok) {
      snprintf(msg, sizeof msg, "%s: dtype does not match input '%s' (expected %s)", path,
               info->name, want);
    }
  } else {
    snprintf(msg, sizeof msg, "%s: malformed .npy header", path);
  }
  if (ok && strstr(order, "True") != NULL && strstr(order, "True") < shape) {
    ok = 0;
    snprintf(msg, sizeof msg, "%s: Fortran order is not supported", path);
  }
  if (ok) {
    const char* p = strchr(shape, '(');
    *rank = 0;
    if (p == NULL) *rank = -1;
    while (*rank >= 0 && *++p != ')') {
      if (*p == ' ' || *p == ',') continue;
      char* end;
      long long v = strtoll(p, &end, 10);
      if (end == p || *rank >= 8) { *rank = -1; break; }
      dims[(*rank)++] = (int64_t)v;
      p = end - 1;
    }
  }
  free(header);
  if (!ok) {
    fclose(f);
    fail(msg, NULL);
    return NULL;
  }
  return f;
}

/* Reads the `bytes` of data that must be all `f` has left, and closes it. */
static int read_data(FILE* f, const char* path, const kiln_tensor_info* info, uint64_t bytes,
                     void* out) {
  char msg[512];
  size_t got = fread(out, 1, (size_t)bytes, f);
  int extra = fgetc(f);
  fclose(f);
  if (got != bytes || extra != EOF) {
    snprintf(msg, sizeof msg, "%s: data size does not match input '%s'", path, info->name);
    return fail(msg, NULL);
  }
  return 0;
}

#if !@UPPER@_HAS_SYMBOLS
/* Reads `path` and checks it is a C-order .npy holding exactly `info`. */
static int read_npy(const char* path, const kiln_tensor_info* info, void* out) {
  char msg[512];
  int64_t dims[8];
  int rank = -1;
  FILE* f = open_npy(path, info, dims, &rank);
  if (!f) return 1;
  int ok = rank == info->rank;
  for (int i = 0; ok && i < rank; ++i) ok = dims[i] == info->shape[i];
  if (!ok) {
    fclose(f);
    snprintf(msg, sizeof msg, "%s: shape does not match input '%s'", path, info->name);
    return fail(msg, NULL);
  }
  return read_data(f, path, info, info->bytes, out);
}
#endif

static int write_npy(const char* path, const kiln_tensor_info* info, const int64_t* dims,
                     uint64_t bytes, const void* data) {
  char header[256];
  char shape[160] = "(";
  for (int i = 0; i < info->rank; ++i) {
    char dim[32];
    snprintf(dim, sizeof dim, "%lld%s", (long long)dims[i],
             (info->rank == 1 || i + 1 < info->rank) ? "," : "");
    strcat(shape, dim);
  }
  strcat(shape, ")");
  int n = snprintf(header, sizeof header, "{'descr': '%s', 'fortran_order': False, 'shape': %s, }",
                   numpy_descr(info->dtype), shape);
  int total = 10 + n + 1;
  int pad = (64 - total % 64) % 64;
  FILE* f = fopen(path, "wb");
  if (!f) return fail("cannot write output", path);
  size_t len = (size_t)(n + pad + 1);
  unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
                           (unsigned char)(len & 0xff), (unsigned char)(len >> 8)};
  fwrite(pre, 1, 10, f);
  fwrite(header, 1, (size_t)n, f);
  for (int i = 0; i < pad; ++i) fputc(' ', f);
  fputc('\n', f);
  size_t wrote = fwrite(data, 1, (size_t)bytes, f);
  int closed = fclose(f);
  if (wrote != bytes || closed != 0) return fail("short write", path);
  return 0;
}

/* Assigns `arg` (FILE or NAME=FILE) to the next free slot or the named one. */
static int assign(const char* arg, const kiln_tensor_info* infos, int count, const char** paths,
                  int* next) {
  const char* eq = strchr(arg, '=');
  if (eq) {
    for (int i = 0; i < count; ++i) {
      if (strlen(infos[i].name) == (size_t)(eq - arg) && strncmp(arg, infos[i].name, (size_t)(eq - arg)) == 0) {
        paths[i] = eq + 1;
        return 0;
      }
    }
  }
  if (*next >= count) return fail("too many files for the model's signature", arg);
  paths[(*next)++] = arg;
  return 0;
}

static int compare_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

#if defined(__arm__) && !defined(__linux__)
/* Bare-metal Cortex-M (--target cortex-m4/m7): SysTick clock from startup.c.
 * Under QEMU's -icount shift=0 this is virtual time at 1 ns per instruction,
 * so latency_ms x 1e6 ~ instructions executed, not real cycles. */
double kiln_mcu_now_ms(void);
static double now_ms(void) { return kiln_mcu_now_ms(); }
#else
static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}
#endif

/* --timeout / --max-iterations: the runner's kiln_host.should_stop. */
typedef struct run_budget {
  double timeout_ms; /* 0: no limit */
  double deadline_ms;
  unsigned long long max_iterations; /* 0: no limit */
  unsigned long long iterations;
} run_budget;

static int budget_should_stop(void* user, int at) {
  run_budget* b = (run_budget*)user;
  if (at == KILN_STOP_AT_ITERATION && b->max_iterations != 0 &&
      b->iterations++ >= b->max_iterations) {
    return KILN_ERR_ITERATION_LIMIT;
  }
  if (b->timeout_ms > 0 && now_ms() >= b->deadline_ms) return KILN_ERR_DEADLINE;
  return 0;
}

/* A buffer of `bytes` aligned to `alignment` (never size 0). From 2 MiB up
 * it is 2 MiB aligned and, on Linux, advised for transparent huge pages, as
 * the VM's workspace and module are (vm/large_buffer.h), so VM and AOT
 * timings compare like for like. */
static void* alloc_aligned(size_t alignment, size_t bytes) {
  const size_t huge = (size_t)2 << 20;
  if (bytes >= huge && alignment < huge) alignment = huge;
  size_t rounded = (bytes + alignment - 1) / alignment * alignment;
  void* p = aligned_alloc(alignment, rounded ? rounded : alignment);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (p && alignment == huge) madvise(p, rounded, MADV_HUGEPAGE); /* a hint only */
#endif
  return p;
}

/* One call of @NAME@_run_with_host with the parameters this model takes. */
static int run_model(const int64_t* symbols, void* const* inputs, void* const* outputs,
                     const uint64_t* output_bytes, void* workspace, size_t workspace_bytes,
                     const void* weights, const kiln_host* host, kiln_shortfall* need) {
  (void)symbols;
  (void)output_bytes;
  (void)workspace_bytes;
  (void)weights;
  (void)need;
  return @NAME@_run_with_host(
#if @UPPER@_HAS_SYMBOLS
      symbols,
#endif
      (const void* const*)inputs, outputs,
#if @UPPER@_GROWS
      output_bytes,
#endif
      workspace,
#if @UPPER@_HAS_SYMBOLS || @UPPER@_GROWS
      workspace_bytes,
#endif
#if @UPPER@_WEIGHTS_EXTERNAL
      weights,
#endif
#if @UPPER@_GROWS
      need,
#endif
      host);
}

#if @UPPER@_HAS_SYMBOLS
/* "[N,3,16,16]": a signature shape with its symbols by name. */
static const char* symbolic_shape(const kiln_model_info* model, const kiln_tensor_info* info,
                                  char* buf, size_t size) {
  size_t used = (size_t)snprintf(buf, size, "[");
  for (int d = 0; d < info->rank && used < size; ++d) {
    const char* sep = d + 1 < info->rank ? "," : "";
    if (info->dim_symbols[d] >= 0) {
      used += (size_t)snprintf(buf + used, size - used, "%s%s",
                               model->symbol_names[info->dim_symbols[d]], sep);
    } else {
      used += (size_t)snprintf(buf + used, size - used, "%lld%s", (long long)info->shape[d], sep);
    }
  }
  if (used < size) snprintf(buf + used, size - used, "]");
  return buf;
}

/* The shape and bytes of `info` with the symbols' values substituted
 * (info->bytes is the size with every symbolic dim 1). 1 on overflow. */
static int substitute(const kiln_tensor_info* info, const int64_t* symbols, int64_t* dims,
                      uint64_t* bytes) {
  uint64_t total = info->bytes;
  for (int d = 0; d < info->rank; ++d) {
    dims[d] = info->dim_symbols[d] >= 0 ? symbols[info->dim_symbols[d]] : info->shape[d];
    if (info->dim_symbols[d] >= 0 && __builtin_mul_overflow(total, (uint64_t)dims[d], &total)) {
      return 1;
    }
  }
  *bytes = total;
  return (uint64_t)(size_t)total == total ? 0 : 1;
}

/* Binds every symbol from the input files' shapes (the first input naming a
 * symbol gives its value; every other dim naming it must agree; static dims
 * must match), then reads each input into a buffer of its real size. */
static int read_inputs_binding_symbols(const kiln_model_info* model, const char* const* paths,
                                       int64_t* symbols, void** inputs) {
  char msg[1024], shape[256];
  int bound_by[@UPPER@_SYMBOL_COUNT + 1];
  /* Each input's file, open from its header check until its data is read;
   * whatever stops the reading closes those still open. */
  FILE* files[@UPPER@_INPUT_COUNT + 1] = {0};
  int64_t dims[8];
  int rc = 0;
  for (int k = 0; k < @UPPER@_SYMBOL_COUNT; ++k) bound_by[k] = -1;
  for (int i = 0; i < @UPPER@_INPUT_COUNT && rc == 0; ++i) {
    const kiln_tensor_info* info = &model->inputs[i];
    int rank = -1;
    files[i] = open_npy(paths[i], info, dims, &rank);
    if (!files[i]) {
      rc = 1;
      break;
    }
    symbolic_shape(model, info, shape, sizeof shape);
    if (rank != info->rank) {
      snprintf(msg, sizeof msg, "%s: shape does not match input '%s' %s (rank %d, expected %d)",
               paths[i], info->name, shape, rank, (int)info->rank);
      rc = fail(msg, NULL);
      break;
    }
    for (int d = 0; d < rank; ++d) {
      const int k = info->dim_symbols[d];
      const long long v = (long long)dims[d];
      msg[0] = '\0';
      if (k < 0 && dims[d] != info->shape[d]) {
        snprintf(msg, sizeof msg,
                 "%s: shape does not match input '%s' %s: dim %d is %lld, expected %lld", paths[i],
                 info->name, shape, d, v, (long long)info->shape[d]);
      } else if (k >= 0 && (dims[d] < 1 || dims[d] > KILN_MAX_SYMBOL_VALUE)) {
        snprintf(msg, sizeof msg,
                 "%s: dim %d of input '%s' %s sets symbol '%s' = %lld, outside 1..2^40", paths[i],
                 d, info->name, shape, model->symbol_names[k], v);
      } else if (k >= 0 && bound_by[k] >= 0 && symbols[k] != dims[d]) {
        snprintf(msg, sizeof msg,
                 "%s: dim %d of input '%s' %s sets symbol '%s' = %lld, but input '%s' set it to "
                 "%lld",
                 paths[i], d, info->name, shape, model->symbol_names[k], v,
                 model->inputs[bound_by[k]].name, (long long)symbols[k]);
      } else if (k >= 0) {
        symbols[k] = dims[d];
        bound_by[k] = i;
      }
      if (msg[0] != '\0') {
        rc = fail(msg, NULL);
        break;
      }
    }
  }
  for (int k = 0; k < @UPPER@_SYMBOL_COUNT && rc == 0; ++k) {
    if (bound_by[k] < 0) rc = fail("no input dim sets symbol", model->symbol_names[k]);
  }
  for (int i = 0; i < @UPPER@_INPUT_COUNT && rc == 0; ++i) {
    uint64_t bytes = 0;
    if (substitute(&model->inputs[i], symbols, dims, &bytes)) {
      rc = fail("the input's size overflows", paths[i]);
      break;
    }
    inputs[i] = malloc((size_t)bytes + 1);
    if (!inputs[i]) {
      rc = fail("out of memory for", paths[i]);
      break;
    }
    rc = read_data(files[i], paths[i], &model->inputs[i], bytes, inputs[i]);
    files[i] = NULL; /* read_data closed it */
  }
  for (int i = 0; i < @UPPER@_INPUT_COUNT; ++i) {
    if (files[i]) fclose(files[i]);
  }
  return rc;
}
#endif

#if @UPPER@_WEIGHTS_EXTERNAL
/* The weights file, checked to hold exactly the bytes the model expects. */
static void* load_weights(const char* path) {
  void* weights = alloc_aligned(@UPPER@_WEIGHTS_ALIGNMENT, @UPPER@_WEIGHTS_SIZE);
  FILE* f = fopen(path, "rb");
  if (!weights || !f) {
    if (f) fclose(f);
    free(weights);
    fail("cannot open weights", path);
    return NULL;
  }
  size_t got = fread(weights, 1, @UPPER@_WEIGHTS_SIZE, f);
  int extra = fgetc(f);
  fclose(f);
  if (got != @UPPER@_WEIGHTS_SIZE || extra != EOF) {
    free(weights);
    fail("weights file does not hold " @UPPER@_WEIGHTS_FILE "'s bytes", path);
    return NULL;
  }
  return weights;
}
#endif

int main(int argc, char** argv) {
  const kiln_model_info* model = @NAME@_metadata();
  const char* in_paths[@UPPER@_INPUT_COUNT + 1] = {0};
  const char* out_paths[@UPPER@_OUTPUT_COUNT + 1] = {0};
  const char* weights_path = NULL;
  int n_in = 0, n_out = 0;
  long repeat = 1;
  run_budget budget = {0, 0, 0, 0};
  const kiln_host budget_host = {NULL, NULL, budget_should_stop, &budget};
  const kiln_host* host = NULL; /* with --timeout or --max-iterations: &budget_host */
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      printf("usage: %s --input FILE.npy [...] --output FILE.npy [...] [--repeat N] [--weights FILE]\n"
             "       [--timeout SECONDS] [--max-iterations N]\n",
             argv[0]);
      return 0;
    }
    if (i + 1 >= argc) return fail("missing value after", argv[i]);
    if (strcmp(argv[i], "--input") == 0) {
      if (assign(argv[++i], model->inputs, @UPPER@_INPUT_COUNT, in_paths, &n_in)) return 1;
    } else if (strcmp(argv[i], "--output") == 0) {
      if (assign(argv[++i], model->outputs, @UPPER@_OUTPUT_COUNT, out_paths, &n_out)) return 1;
    } else if (strcmp(argv[i], "--repeat") == 0) {
      repeat = strtol(argv[++i], NULL, 10);
      if (repeat < 1 || repeat > 1000000) return fail("--repeat must be in 1..1000000", argv[i]);
    } else if (strcmp(argv[i], "--weights") == 0) {
      weights_path = argv[++i];
    } else if (strcmp(argv[i], "--timeout") == 0) {
      char* end;
      const double seconds = strtod(argv[++i], &end);
      if (*end != '\0' || !(seconds > 0 && seconds <= 1e9)) {
        return fail("--timeout must be a number of seconds in (0, 1e9]", argv[i]);
      }
      budget.timeout_ms = seconds * 1e3;
      host = &budget_host;
    } else if (strcmp(argv[i], "--max-iterations") == 0) {
      char* end;
      budget.max_iterations = strtoull(argv[++i], &end, 10);
      if (*end != '\0' || argv[i][0] == '-' || budget.max_iterations < 1) {
        return fail("--max-iterations must be a whole number >= 1", argv[i]);
      }
      host = &budget_host;
    } else {
      return fail("unknown flag", argv[i]);
    }
  }
  /* Everything the run allocates, freed at `finish` whichever way it ends
   * (so that a bundle built with -fsanitize=address reports no leak when it
   * refuses an input). */
  void* inputs[@UPPER@_INPUT_COUNT + 1] = {0};
  void* outputs[@UPPER@_OUTPUT_COUNT + 1] = {0};
  void* workspace = NULL;
  double* times = NULL;
  int status = 1;
  int64_t out_dims[@UPPER@_OUTPUT_COUNT + 1][8];
  uint64_t out_bytes[@UPPER@_OUTPUT_COUNT + 1];
  uint64_t out_capacity[@UPPER@_OUTPUT_COUNT + 1]; /* each output buffer's bytes */
#if @UPPER@_WEIGHTS_EXTERNAL
  char default_weights[4096];
  if (!weights_path) { /* beside the runner */
    const char* slash = strrchr(argv[0], '/');
    int dir_len = slash ? (int)(slash - argv[0] + 1) : 0;
    snprintf(default_weights, sizeof default_weights, "%.*s%s", dir_len, argv[0],
             @UPPER@_WEIGHTS_FILE);
    weights_path = default_weights;
  }
  void* weights = load_weights(weights_path);
  if (!weights) return 1;
#else
  if (weights_path) return fail("this model's weights are compiled in; no --weights", weights_path);
  void* const weights = NULL;
#endif
  for (int i = 0; i < @UPPER@_INPUT_COUNT; ++i) {
    if (!in_paths[i]) {
      fail("missing --input for", model->inputs[i].name);
      goto finish;
    }
  }
#if @UPPER@_HAS_SYMBOLS
  int64_t symbols[@UPPER@_SYMBOL_COUNT + 1];
  size_t workspace_bytes = 0;
  if (read_inputs_binding_symbols(model, in_paths, symbols, inputs)) goto finish;
  for (int i = 0; i < @UPPER@_OUTPUT_COUNT; ++i) {
    const int dims_rc = @NAME@_output_dims(symbols, i, out_dims[i], &out_bytes[i]);
    if (dims_rc != 0) {
      /* A requirement of the model these symbols break, or a size that overflows. */
      const char* broken = @NAME@_broken_requirement(symbols);
      if (broken) {
        fprintf(stderr, "@NAME@_run: error: these input shapes (");
        for (int k = 0; k < @UPPER@_SYMBOL_COUNT; ++k) {
          fprintf(stderr, "%s%s = %lld", k ? ", " : "", model->symbol_names[k],
                  (long long)symbols[k]);
        }
        fprintf(stderr, ") break the model's requirement %s\n", broken);
        goto finish;
      }
      fprintf(stderr,
              "@NAME@_run: error: these input shapes give output '%s' no shape (error code %d: "
              "%s)\n",
              model->outputs[i].name, dims_rc, kiln_status_message(dims_rc));
      goto finish;
    }
  }
  int size_rc = @NAME@_workspace_size(symbols, &workspace_bytes);
  if (size_rc != 0) {
    fprintf(stderr, "@NAME@_run: error: no workspace size for these symbols (error code %d)\n",
            size_rc);
    goto finish;
  }
#else
  for (int i = 0; i < @UPPER@_INPUT_COUNT; ++i) {
    inputs[i] = malloc(model->inputs[i].bytes + 1);
    if (!inputs[i]) {
      fail("out of memory for", in_paths[i]);
      goto finish;
    }
    if (read_npy(in_paths[i], &model->inputs[i], inputs[i])) goto finish;
  }
  for (int i = 0; i < @UPPER@_OUTPUT_COUNT; ++i) {
    memcpy(out_dims[i], model->outputs[i].shape, sizeof out_dims[i]);
    out_bytes[i] = model->outputs[i].bytes;
  }
  size_t workspace_bytes = @UPPER@_WORKSPACE_SIZE;
  const int64_t* const symbols = NULL;
#endif
  for (int i = 0; i < @UPPER@_OUTPUT_COUNT; ++i) {
    out_capacity[i] = out_bytes[i];
    outputs[i] = malloc((size_t)out_bytes[i] + 1);
    if (!outputs[i]) {
      fail("out of memory for output", model->outputs[i].name);
      goto finish;
    }
  }
  workspace = alloc_aligned(@UPPER@_WORKSPACE_ALIGNMENT, workspace_bytes);
  times = (double*)malloc(sizeof(double) * (size_t)repeat);
  if (!workspace || !times) {
    fail("out of memory", NULL);
    goto finish;
  }
  kiln_shortfall need = {-1, 0};
#if @UPPER@_GROWS
  /* Sizes found during the run: untimed runs until every buffer is large
   * enough, growing the one each short run names (another error is left
   * for the timed runs to report). */
  for (int attempt = 0;; ++attempt) {
    budget.deadline_ms = now_ms() + budget.timeout_ms;
    budget.iterations = 0;
    const int rc = run_model(symbols, inputs, outputs, out_capacity, workspace, workspace_bytes,
                             weights, host, &need);
    if (rc != KILN_ERR_BUFFER_TOO_SMALL) break;
    const char* stop = NULL;
    if (attempt == 64) stop = "buffers still too small after 64 runs";
    else if (need.bytes > (uint64_t)SIZE_MAX - 64) stop = "a buffer too large for this machine";
    else if (need.output >= @UPPER@_OUTPUT_COUNT) stop = "the model named no buffer to grow";
    if (stop) {
      fail(stop, NULL);
      goto finish;
    }
    if (need.output < 0) {
      free(workspace);
      workspace_bytes = (size_t)need.bytes;
      workspace = alloc_aligned(@UPPER@_WORKSPACE_ALIGNMENT, workspace_bytes);
      if (!workspace) stop = "out of memory";
    } else {
      free(outputs[need.output]);
      out_capacity[need.output] = need.bytes;
      outputs[need.output] = malloc((size_t)need.bytes + 1);
      if (!outputs[need.output]) stop = "out of memory";
    }
    if (stop) {
      fail(stop, NULL);
      goto finish;
    }
  }
#endif
  for (long k = 0; k < repeat; ++k) {
    double t0 = now_ms();
    budget.deadline_ms = t0 + budget.timeout_ms;
    budget.iterations = 0;
    int rc = run_model(symbols, inputs, outputs, out_capacity, workspace, workspace_bytes, weights,
                       host, &need);
    times[k] = now_ms() - t0;
    if (rc != 0) {
      fprintf(stderr, "@NAME@_run: error: @NAME@_run failed with code %d: %s\n", rc,
              kiln_status_message(rc));
      goto finish;
    }
  }
  if (repeat > 1) {
    qsort(times, (size_t)repeat, sizeof(double), compare_double);
    printf("latency_ms median=%.4f min=%.4f max=%.4f runs=%ld\n", times[repeat / 2], times[0],
           times[repeat - 1], repeat);
  }
#if @UPPER@_RESULT_COUNT > 0
  /* Lengths known only after the run: each output's real shape and bytes. */
  for (int i = 0; i < @UPPER@_OUTPUT_COUNT; ++i) {
    const int rc = @NAME@_output_shape(workspace, i, out_dims[i], &out_bytes[i]);
    if (rc != 0) {
      fprintf(stderr, "@NAME@_run: error: @NAME@_output_shape failed with code %d: %s\n", rc,
              kiln_status_message(rc));
      goto finish;
    }
  }
#endif
  for (int i = 0; i < @UPPER@_OUTPUT_COUNT; ++i) {
    if (out_paths[i] &&
        write_npy(out_paths[i], &model->outputs[i], out_dims[i], out_bytes[i], outputs[i])) {
      goto finish;
    }
  }
  status = 0;
finish:
  for (int i = 0; i < @UPPER@_INPUT_COUNT; ++i) free(inputs[i]);
  for (int i = 0; i < @UPPER@_OUTPUT_COUNT; ++i) free(outputs[i]);
#if @UPPER@_WEIGHTS_EXTERNAL
  free(weights);
#endif
  free(workspace);
  free(times);
  return status;
}
