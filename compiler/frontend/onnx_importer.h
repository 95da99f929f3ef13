// ONNX model file → graph IR.
//
// The importer only imports; compiler/pipeline.cc runs the passes after it
// (ResolveSequences → CheckOpsSupported → FoldConstants, which infers shapes
// as it goes → InferShapes → CheckAllFolded → back-end passes).
#ifndef KILN_COMPILER_FRONTEND_ONNX_IMPORTER_H_
#define KILN_COMPILER_FRONTEND_ONNX_IMPORTER_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/graph.h"

namespace kiln::compiler {

// Reads and checks the model at `path`: opset 1..21 for the default domain
// (opsets below 11 upgraded to opset-11 node forms, see legacy_opset.h),
// static input shapes, topologically sorted nodes, attributes of the kinds
// the ONNX schema gives (whether each op is supported is the pipeline's
// check-ops-supported pass, passes/op_support.h). Initializers and Constant nodes become constant values
// (no node); unnamed nodes are named "<OpType>_<index>". Values have no shapes
// yet except graph inputs and constants. Errors name the file and, where one
// is at fault, the node or tensor.
struct ImportOptions {
  // Input name -> dims replacing the ones the model declares (kiln compile
  // --input-shape, kiln.compile(input_shapes=...)): a symbolic dim becomes a
  // number before shape inference sees it. The rank must be the declared
  // one, every dim >= 1, and every name a graph input.
  std::map<std::string, std::vector<int64_t>> input_shapes;
  // Symbolic dim name -> value (kiln compile --dim NAME=VALUE): every input
  // dim of that name (its dim_param, or INPUT_dimK, the name Kiln gives an
  // unnamed one) becomes the number; each name must be one the inputs use.
  std::map<std::string, int64_t> dims;
  // Input name -> its value as text (kiln compile --input-value; the input
  // becomes a constant, frontend/input_binding.h).
  std::map<std::string, std::string> input_values;
};

absl::StatusOr<ir::Graph> ImportOnnx(const std::string& path, const ImportOptions& options = {});

// The same from a serialized ModelProto in memory; `origin` stands for the
// file in messages.
absl::StatusOr<ir::Graph> ImportOnnxBytes(const std::string& bytes, const std::string& origin,
                                          const ImportOptions& options = {});

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_FRONTEND_ONNX_IMPORTER_H_
