// Compile-time evaluation of Size, EyeLike, Tile and Split (fold_eval.cc
// asks here first): Size of symbolic dims gives a symbolic value; EyeLike
// needs only its input's shape; Tile and Split need a known input.
#ifndef KILN_COMPILER_PASSES_FOLD_MOVEMENT_H_
#define KILN_COMPILER_PASSES_FOLD_MOVEMENT_H_

#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "compiler/ir/graph.h"

namespace kiln::compiler {

// Compile-time evaluation of Size, EyeLike (both need only shapes), and of
// Tile and Split on constant inputs. True if handled; results in *out (empty
// when not foldable).
bool EvaluateMovementNode(const ir::Graph& graph, const ir::Node& node,
                          const std::vector<ir::ConstantPtr>& known,
                          absl::StatusOr<std::vector<ir::ConstantPtr>>* out);

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_PASSES_FOLD_MOVEMENT_H_
