/* Error paths of an AOT bundle with symbolic dimensions, built with
 * `kiln aot --name dyn` from a module whose single input's first dim is the
 * only symbol (tests/models/dynamic/cnn_dynbatch): symbols out of range, NULL
 * arguments, a misaligned workspace, and a workspace one alignment unit too
 * small, which must return KILN_ERR_OUT_OF_RANGE and leave every byte of the
 * caller's buffers untouched. Also checks the metadata against dyn.h.
 * Prints one line per failed check; exit status 0 when all pass. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dyn.h"

static int failures = 0;

static void expect(int ok, const char* what) {
  if (!ok) {
    fprintf(stderr, "dynamic_workspace_check: FAILED: %s\n", what);
    ++failures;
  }
}

static int untouched(const unsigned char* p, size_t n, unsigned char fill) {
  for (size_t i = 0; i < n; ++i) {
    if (p[i] != fill) return 0;
  }
  return 1;
}

int main(void) {
  const int64_t batch = 3;
  const int64_t symbols[1] = {batch};
  size_t need = 0;
  expect(DYN_HAS_SYMBOLS == 1 && DYN_SYMBOL_COUNT == 1, "DYN_HAS_SYMBOLS / DYN_SYMBOL_COUNT");
  expect(dyn_workspace_size(symbols, &need) == KILN_OK, "workspace size for N=3");
  const size_t min_size = DYN_WORKSPACE_MIN_SIZE; /* a variable: 0u would trip -Wtype-limits */
  expect(need >= min_size && need > 0, "a non-empty workspace for N=3");
  size_t need_more = 0;
  const int64_t more[1] = {2 * batch};
  expect(dyn_workspace_size(more, &need_more) == KILN_OK && need_more > need,
         "the workspace grows with N");

  const int64_t zero[1] = {0}, huge[1] = {KILN_MAX_SYMBOL_VALUE + 1}, negative[1] = {-5};
  size_t unused = 12345;
  expect(dyn_workspace_size(zero, &unused) == KILN_ERR_OUT_OF_RANGE, "N=0 is refused");
  expect(dyn_workspace_size(huge, &unused) == KILN_ERR_OUT_OF_RANGE, "N=2^40+1 is refused");
  expect(dyn_workspace_size(negative, &unused) == KILN_ERR_OUT_OF_RANGE, "N=-5 is refused");
  expect(unused == 12345, "a refused size leaves *bytes alone");
  expect(dyn_workspace_size(NULL, &unused) == KILN_ERR_INVALID_ARGUMENT, "NULL symbols");
  expect(dyn_workspace_size(symbols, NULL) == KILN_ERR_INVALID_ARGUMENT, "NULL bytes");

  const size_t in_bytes = DYN_INPUT0_STATIC_BYTES * (size_t)batch;
  const size_t out_bytes = DYN_OUTPUT0_STATIC_BYTES * (size_t)batch;
  const size_t alignment = DYN_WORKSPACE_ALIGNMENT;
  float* input = (float*)calloc(in_bytes / sizeof(float), sizeof(float));
  unsigned char* output = (unsigned char*)malloc(out_bytes);
  unsigned char* workspace = (unsigned char*)aligned_alloc(alignment, (need + 2 * alignment) / alignment * alignment);
  if (!input || !output || !workspace) return 2;
  for (size_t i = 0; i < in_bytes / sizeof(float); ++i) input[i] = (float)(i % 7) * 0.25f;
  const void* inputs[1] = {input};
  void* outputs[1] = {output};

  /* One alignment unit short: refused before anything runs. */
  memset(workspace, 0xAB, need + alignment);
  memset(output, 0xCD, out_bytes);
  expect(need > alignment, "the workspace is larger than one alignment unit");
  expect(dyn_run(symbols, inputs, outputs, workspace, need - alignment) == KILN_ERR_OUT_OF_RANGE,
         "a too-small workspace returns KILN_ERR_OUT_OF_RANGE");
  expect(untouched(workspace, need + alignment, 0xAB), "a too-small workspace is not written");
  expect(untouched(output, out_bytes, 0xCD), "a refused run leaves the output alone");
  /* The symbol out of range, NULL symbols, a misaligned workspace. */
  expect(dyn_run(zero, inputs, outputs, workspace, need) == KILN_ERR_OUT_OF_RANGE, "run with N=0");
  expect(dyn_run(NULL, inputs, outputs, workspace, need) == KILN_ERR_INVALID_ARGUMENT,
         "run with NULL symbols");
  expect(dyn_run(symbols, inputs, outputs, workspace + 16, need) == KILN_ERR_ALIGNMENT,
         "run with a misaligned workspace");
  expect(dyn_run(symbols, inputs, outputs, NULL, need) == KILN_ERR_ALIGNMENT,
         "run with a NULL workspace");
  expect(untouched(output, out_bytes, 0xCD), "refused runs leave the output alone");
  /* The exact size works and writes the whole output. */
  expect(dyn_run(symbols, inputs, outputs, workspace, need) == KILN_OK, "run with the exact workspace");
  expect(!untouched(output, out_bytes, 0xCD), "a good run writes the output");

  const kiln_model_info* info = dyn_metadata();
  expect(info->version == KILN_MODEL_INFO_VERSION && KILN_MODEL_INFO_VERSION == 3 && info->grows == 0,
         "metadata version 3, a module that does not grow");
  expect(info->symbol_count == 1 && strcmp(info->symbol_names[0], DYN_SYMBOL0_NAME) == 0,
         "metadata symbol names");
  expect(info->inputs[0].dim_symbols[0] == 0 && info->inputs[0].dim_symbols[1] == -1 &&
             info->inputs[0].shape[0] == -1 && info->inputs[0].bytes == DYN_INPUT0_STATIC_BYTES,
         "metadata input dims");
  expect(info->workspace_bytes == DYN_WORKSPACE_MIN_SIZE, "metadata workspace is the static part");
  free(input);
  free(output);
  free(workspace);
  if (failures == 0) printf("dynamic_workspace_check: all checks passed (N=3 needs %zu bytes)\n", need);
  return failures == 0 ? 0 : 1;
}
