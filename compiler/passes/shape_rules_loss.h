// Shape rules of NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss
// (opsets 12-17): scores [N, C, d...], target [N, d...], optional weight
// [C]; the loss is [N, d...] for reduction "none" and a scalar otherwise;
// SoftmaxCrossEntropyLoss may also output the log-probabilities [N, C, d...].
#ifndef KILN_COMPILER_PASSES_SHAPE_RULES_LOSS_H_
#define KILN_COMPILER_PASSES_SHAPE_RULES_LOSS_H_

#include <vector>

#include "absl/status/status.h"
#include "compiler/ir/graph.h"

namespace kiln::compiler {

// True if `node`'s op has a rule here; the rule's result is then in *status.
bool InferLossShapes(ir::Graph& graph, ir::Node& node,
                     const std::vector<ir::ConstantPtr>& known, absl::Status* status);

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_PASSES_SHAPE_RULES_LOSS_H_
