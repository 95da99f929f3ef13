// ONNX TensorProto → ir::ConstantData (initializers, Constant nodes, tensor
// attributes). Internal to the frontend: includes the protobuf headers.
#ifndef KILN_COMPILER_FRONTEND_ONNX_TENSOR_H_
#define KILN_COMPILER_FRONTEND_ONNX_TENSOR_H_

#include <string>

#include "absl/status/statusor.h"
#include "compiler/ir/graph.h"
#include "onnx/onnx_pb.h"

namespace kiln::compiler {

// `where` names the tensor's context for errors (file, node). Supports raw_data
// and the typed float/int32/int64/double fields; external data is refused.
absl::StatusOr<ir::ConstantPtr> ConstantFromTensorProto(const onnx::TensorProto& tensor,
                                                        const std::string& where);

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_FRONTEND_ONNX_TENSOR_H_
