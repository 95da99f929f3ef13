// The shape rule of TopK: k from the attribute (opset < 10), a constant
// input, or else the model's declared output shape (kiln.k_runtime: the
// kernel re-checks the run-time k). Records kiln.k and kiln.axis.
#ifndef KILN_COMPILER_PASSES_SHAPE_RULES_TOPK_H_
#define KILN_COMPILER_PASSES_SHAPE_RULES_TOPK_H_

#include <vector>

#include "absl/status/status.h"
#include "compiler/ir/graph.h"

namespace kiln::compiler {

// True if `node`'s op has a rule here; the rule's result is then in *status.
bool InferTopKShapes(ir::Graph& graph, ir::Node& node,
                     const std::vector<ir::ConstantPtr>& known, absl::Status* status);

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_PASSES_SHAPE_RULES_TOPK_H_
