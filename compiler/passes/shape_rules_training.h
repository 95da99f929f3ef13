// The optimizers of the ai.onnx.preview.training domain that Kiln runs at
// inference time: Adagrad, Adam and Momentum (mode "standard" or
// "nesterov"), version 1. Each takes a learning rate R (float32 scalar), an
// update count T (int64 scalar) and variadic groups of float32 tensors
// (X..., G..., then H... for Adagrad, V... for Momentum, V... and H... for
// Adam), and gives the updated tensors in the same group order. Every other
// op of that domain, and every other non-default domain, stays refused.
#ifndef KILN_COMPILER_PASSES_SHAPE_RULES_TRAINING_H_
#define KILN_COMPILER_PASSES_SHAPE_RULES_TRAINING_H_

#include <vector>

#include "absl/status/status.h"
#include "compiler/ir/graph.h"

namespace kiln::compiler {

inline constexpr char kPreviewTrainingDomain[] = "ai.onnx.preview.training";

// True for Adagrad, Adam and Momentum of kPreviewTrainingDomain.
bool IsTrainingOp(const ir::Node& node);

// Tensors per optimized variable (X, G and the state inputs): 3 for
// Adagrad and Momentum, 4 for Adam; 0 for any other op.
int TrainingGroupSize(const ir::Node& node);

// True if `node` is a training op (IsTrainingOp); the rule's result is then
// in *status: the output shapes, or an error naming the node when the inputs,
// outputs or attributes do not fit the op.
bool InferTrainingShapes(ir::Graph& graph, ir::Node& node,
                         const std::vector<ir::ConstantPtr>& known, absl::Status* status);

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_PASSES_SHAPE_RULES_TRAINING_H_
