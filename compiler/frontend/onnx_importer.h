// ONNX model file → graph IR.
//
// Typical use (the pipeline): ImportOnnx → FoldConstants (infers shapes as it
// goes and evaluates shape arithmetic) → InferShapes (checks every value has
// a shape) → CheckAllFolded → back-end passes.
#ifndef KILN_COMPILER_FRONTEND_ONNX_IMPORTER_H_
#define KILN_COMPILER_FRONTEND_ONNX_IMPORTER_H_

#include <string>

#include "absl/status/statusor.h"
#include "compiler/ir/graph.h"

namespace kiln::compiler {

// Reads and checks the model at `path`: opset 1..17 for the default domain
// (opsets below 11 upgraded to opset-11 node forms, see legacy_opset.h),
// static input shapes, topologically sorted nodes, every op supported (see
// passes/op_support.h). Initializers and Constant nodes become constant values
// (no node); unnamed nodes are named "<OpType>_<index>". Values have no shapes
// yet except graph inputs and constants. Errors name the file and, where one
// is at fault, the node or tensor.
absl::StatusOr<ir::Graph> ImportOnnx(const std::string& path);

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_FRONTEND_ONNX_IMPORTER_H_
