/* What an AOT-compiled model reports about itself through NAME_metadata():
 * the same facts NAME.h states as macros, as data a program can walk (for
 * example a host that loads several model libraries and sizes buffers). */
#ifndef KILN_MODEL_INFO_H_
#define KILN_MODEL_INFO_H_

#include <stdint.h>

#include "kiln/kernel_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped when a field changes meaning or layout. 2: symbolic dimensions
 * (dim_symbols, symbol_count, symbol_names), appended. 3: `grows`, appended. */
#define KILN_MODEL_INFO_VERSION 3

typedef struct kiln_tensor_info {
  const char* name;       /* the ONNX graph input/output name */
  int32_t dtype;          /* a kiln_dtype code */
  const char* dtype_name; /* NumPy-style: "float32", "int64", ... */
  int32_t rank;
  int64_t shape[KILN_MAX_RANK]; /* dims beyond rank are 0; -1 for a symbolic dim */
  /* Dense C-order size. With symbolic dims: the size with each of them 1,
   * so the real size is bytes times the product of their symbols' values. */
  uint64_t bytes;
  /* Per dim, the ordinal of the symbol (kiln_model_info.symbol_names) that
   * gives its size at run time, or -1 for a static dim (and beyond rank), or
   * -2 for an output dim that is an expression of the symbols (S + T; the
   * bundle's NAME_output_dims computes it), or -3 for a dim the run finds
   * without a bound (NAME_output_shape gives it after the run). */
  int32_t dim_symbols[KILN_MAX_RANK];
} kiln_tensor_info;

typedef struct kiln_model_info {
  uint32_t version; /* KILN_MODEL_INFO_VERSION */
  const char* name; /* the --name of kiln aot, prefix of every symbol */
  /* With symbols, the static part only: NAME_workspace_size() gives the
   * bytes a run with given symbol values needs (at least this). */
  uint64_t workspace_bytes;
  uint32_t workspace_alignment;
  uint64_t weights_bytes;
  uint32_t weights_alignment;
  int32_t weights_external; /* 1: NAME_run takes the weights from the caller */
  uint32_t input_count;
  uint32_t output_count;
  const kiln_tensor_info* inputs;
  const kiln_tensor_info* outputs;
  /* Symbolic dimensions (0 and NULL for a model without them): the names,
   * in the order NAME_run takes their values. */
  uint32_t symbol_count;
  const char* const* symbol_names;
  /* 1 when the run finds sizes without a bound (NAME_GROWS): NAME_run then
   * also takes each output buffer's bytes and the workspace's, and a run
   * they are too small for returns KILN_ERR_BUFFER_TOO_SMALL with a
   * kiln_shortfall naming the buffer to grow. */
  int32_t grows;
} kiln_model_info;

#ifdef __cplusplus
}
#endif

#endif /* KILN_MODEL_INFO_H_ */
