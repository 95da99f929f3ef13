// Which ONNX ops Kiln compiles. Some ops are accepted only because constant
// folding evaluates them at compile time (PyTorch's shape arithmetic); any of
// those left after folding depend on run-time data and are refused.
#ifndef KILN_COMPILER_PASSES_OP_SUPPORT_H_
#define KILN_COMPILER_PASSES_OP_SUPPORT_H_

#include <string>

#include "absl/status/status.h"
#include "compiler/ir/graph.h"

namespace kiln::compiler {

// Ops declared in compiler/ops/ (OpDef) that the back end runs: by kernels,
// as aliases, or expanded by a pass.
bool IsKernelOp(const std::string& op_type);
// Declared ops accepted only if constant folding removes them (OpDef::fold_only).
bool IsFoldOnlyOp(const std::string& op_type);

// Unimplemented listing every node (`node 'NAME' (OpType)`) whose op is
// neither kernel nor fold-only, or lives in a non-default domain, in one error
// naming graph.source; a subgraph's (If, Loop, Scan) in its own error, first.
absl::Status CheckOpsSupported(const ir::Graph& graph);

// Run after FoldConstants: every remaining fold-only node "depends on
// run-time data"; all are listed in one InvalidArgument error.
absl::Status CheckAllFolded(const ir::Graph& graph);

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_PASSES_OP_SUPPORT_H_
