// Shape rules for ops whose shape-like input is only known at run time:
// Reshape's shape, Squeeze/Unsqueeze axes, Expand's shape, Tile's repeats,
// Split's sizes, ConstantOfShape's dims, OneHot's depth and Resize's sizes. When that input
// has no compile-time value and the model declares a fully static shape for
// every output, the output shapes come from the declaration (checked against
// the data input here); lowering then adds a shape_check dispatch that
// verifies the run-time value resolves to exactly those shapes, so a
// different value fails the run instead of giving a wrong result.
#ifndef KILN_COMPILER_PASSES_SHAPE_RULES_RUNTIME_H_
#define KILN_COMPILER_PASSES_SHAPE_RULES_RUNTIME_H_

#include <vector>

#include "absl/status/status.h"
#include "compiler/ir/graph.h"

namespace kiln::compiler {

// The index of `node`'s shape-like input when the op is one of the above,
// the input is present and it has no compile-time value; -1 otherwise.
int RuntimeShapeInput(const ir::Graph& graph, const ir::Node& node);

// True if the rule here applies to `node` (run-time shape-like input, static
// declared output shapes); the rule's result is then in *status. False
// leaves the node to the op's ordinary rule, whose error stands.
bool InferRuntimeShapeInput(ir::Graph& graph, ir::Node& node,
                            const std::vector<ir::ConstantPtr>& known, absl::Status* status);

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_PASSES_SHAPE_RULES_RUNTIME_H_
