// Compile-time evaluation: nodes whose inputs are all constants, or whose
// result depends only on static shapes (Shape), are replaced by constant
// values. This turns PyTorch's Shape→Gather→Unsqueeze→Concat→Reshape chains
// into a constant shape input.
#ifndef KILN_COMPILER_PASSES_CONSTANT_FOLDING_H_
#define KILN_COMPILER_PASSES_CONSTANT_FOLDING_H_

#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "compiler/ir/graph.h"

namespace kiln::compiler {

// Infers shapes and folds in one walk, then drops folded and dead nodes
// (Graph::Compact). A folded value keeps its ValueId and name and gets
// Value::constant (producer kNoNode), so a folded graph output stays an
// output: the back end copies the constant out. Afterwards every value has a
// shape. Outputs larger than 16M elements are not folded.
absl::Status FoldConstants(ir::Graph& graph);

// The shared walk behind InferShapes (commit=false: folded values live only in
// a side table) and FoldConstants (commit=true).
absl::Status PropagateShapesAndConstants(ir::Graph& graph, bool commit);

// The compile-time value of `v`: `known[v]` (the walk's side table, which may
// hold more than Value::constant), else v's constant, else nullptr.
const ir::ConstantData* KnownValue(const ir::Graph& graph, ir::ValueId v,
                                   const std::vector<ir::ConstantPtr>& known);

// Evaluates one node given compile-time input values (`known`, indexed by
// ValueId) and the node's already-inferred output shapes. Returns an empty
// vector if the op is not foldable or an input is unknown.
absl::StatusOr<std::vector<ir::ConstantPtr>> EvaluateNode(
    const ir::Graph& graph, const ir::Node& node, const std::vector<ir::ConstantPtr>& known);

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_PASSES_CONSTANT_FOLDING_H_
