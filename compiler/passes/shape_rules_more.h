// Shape and dtype rules for TopK, the integer (quantized) ops MatMulInteger,
// ConvInteger, QLinearMatMul and QLinearConv, MaxUnpool, and the signal
// constants HannWindow, HammingWindow, BlackmanWindow and MelWeightMatrix.
//
// Sizes that ONNX takes from inputs (TopK's k, a window's length, the mel
// matrix's bins) come from compile-time constants, or else from the model's
// declared output shape: the kernel then re-checks the run-time input and
// fails the call when it disagrees. The rules record what lowering needs as
// kiln.* attributes (kiln.k, kiln.k_runtime, kiln.axis, the conv window).
#ifndef KILN_COMPILER_PASSES_SHAPE_RULES_MORE_H_
#define KILN_COMPILER_PASSES_SHAPE_RULES_MORE_H_

#include <vector>

#include "absl/status/status.h"
#include "compiler/ir/graph.h"

namespace kiln::compiler {

// True if `node`'s op has a rule here; the rule's result is then in *status.
bool InferMoreShapes(ir::Graph& graph, ir::Node& node,
                     const std::vector<ir::ConstantPtr>& known, absl::Status* status);

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_PASSES_SHAPE_RULES_MORE_H_
