// Static shape and dtype inference with ONNX semantics (opsets 11..17) for
// every op Kiln accepts (passes/op_support.h).
//
// Besides setting Value::dtype/shape/has_shape, the pass resolves the window
// geometry of Conv, MaxPool and AveragePool so later passes never re-derive
// auto_pad or defaults. It sets these int-list attributes on those nodes
// (n = number of spatial dims, e.g. 2):
//   "kiln.kernel_shape"  n entries (for Conv taken from the weight shape)
//   "kiln.strides"       n entries (default 1)
//   "kiln.dilations"     n entries (default 1)
//   "kiln.pads"          2n entries in ONNX order: all begins, then all ends,
//                        i.e. [top, left, bottom, right] for 2-D, with
//                        auto_pad SAME_UPPER/SAME_LOWER/VALID already applied.
// Pool output sizes with ceil_mode=1 follow PyTorch (and ONNX >= 1.15): the
// last window must start inside the input or the begin padding.
#ifndef KILN_COMPILER_PASSES_SHAPE_INFERENCE_H_
#define KILN_COMPILER_PASSES_SHAPE_INFERENCE_H_

#include <vector>

#include "absl/status/status.h"
#include "compiler/ir/graph.h"

namespace kiln::compiler {

// Infers every value's dtype and shape, walking nodes in order. Inputs that
// determine a shape (Reshape's shape, Slice's starts, ...) must be computable
// at compile time: the pass evaluates shape arithmetic (Shape→Gather→Concat)
// on the side without changing the graph; FoldConstants commits it. Errors
// (InvalidArgument) name the file, the node (name and op type) and the shapes.
absl::Status InferShapes(ir::Graph& graph);

// One node: sets its outputs' dtype/shape (and the kiln.* window attributes).
// `known[v]` is the compile-time value of v if known (else null); it may hold
// more than Value::constant. Nodes of ops without a rule pass if their outputs
// already have shapes (nodes formed by later passes).
absl::Status InferNodeShapes(ir::Graph& graph, ir::NodeId node,
                             const std::vector<ir::ConstantPtr>& known);

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_PASSES_SHAPE_INFERENCE_H_
