// An If whose condition is known at compile time (a constant, or folded from
// inputs bound with kiln compile --input-value) is replaced by the nodes of
// the branch it takes, so nothing of the other branch is compiled and the
// branches need not agree in type or rank. Constant folding calls this as it
// meets each If, before the If's own shape rule (which compiles both
// branches).
#ifndef KILN_COMPILER_PASSES_IF_INLINING_H_
#define KILN_COMPILER_PASSES_IF_INLINING_H_

#include <cstddef>

#include "absl/status/statusor.h"
#include "compiler/ir/graph.h"

namespace kiln::compiler {

// If graph.nodes[n] is a default-domain If whose condition `cond` (its
// known value, or null) holds one element, replaces the node by its taken
// branch's nodes (inserted at n, writing the If's outputs) and returns true;
// otherwise leaves the graph alone and returns false. Producers are
// recomputed; the new values have no shape yet.
absl::StatusOr<bool> InlineKnownIf(ir::Graph& graph, size_t n, const ir::ConstantPtr& cond);

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_PASSES_IF_INLINING_H_
