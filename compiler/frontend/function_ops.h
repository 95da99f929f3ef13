// ONNX ops that the standard defines as functions of other ops, expanded
// into those ops while they are imported (as a runtime inlines a function
// body), so that every later pass and lowering sees only the ops Kiln
// implements: GroupNormalization (opsets 18 and 21).
#ifndef KILN_COMPILER_FRONTEND_FUNCTION_OPS_H_
#define KILN_COMPILER_FRONTEND_FUNCTION_OPS_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "compiler/ir/graph.h"

namespace kiln::compiler {

// If `node` (not yet added to `graph`) is such an op, adds the nodes of its
// expansion but the last to `graph` and turns `node` into the last one, which
// keeps the node's outputs. Other nodes are left alone. `where` prefixes
// error messages.
absl::Status ExpandFunctionOp(int64_t opset, const std::string& where, ir::Node* node,
                              ir::Graph* graph);

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_FRONTEND_FUNCTION_OPS_H_
