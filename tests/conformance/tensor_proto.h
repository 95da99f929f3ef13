// Reads the ONNX backend test data: serialized TensorProto files
// (test_data_set_*/input_*.pb, output_*.pb) into NpyArrays.
#ifndef KILN_TESTS_CONFORMANCE_TENSOR_PROTO_H_
#define KILN_TESTS_CONFORMANCE_TENSOR_PROTO_H_

#include <string>

#include "absl/status/statusor.h"
#include "vm/tools/npy.h"

namespace kiln::conformance {

// Parses the TensorProto at `path` (raw_data or the typed repeated fields).
// String tensors and element types Kiln has no dtype for come back as
// kUnimplemented with a reason such as "string tensors".
absl::StatusOr<vm::NpyArray> ReadTensorProto(const std::string& path);

}  // namespace kiln::conformance

#endif  // KILN_TESTS_CONFORMANCE_TENSOR_PROTO_H_
