// If, Loop and Scan: each subgraph becomes a function of the module that
// the IF and LOOP opcodes call (passes/control_flow.h analyses them: output
// types, a branch's lengths, carried values). Their inputs may be shape
// values; the subgraphs take them as constants, and the ops reading them
// there are checked when the subgraph compiles.
#include "compiler/ops/op_def.h"
#include "compiler/passes/control_flow.h"

namespace kiln::compiler {
namespace {

absl::Status ControlFlowShape(ShapeRuleContext& c) {
  absl::Status status;
  InferControlFlowShapes(c.graph(), c.node(), c.known(), &status);
  return status;
}

}  // namespace

void RegisterControlFlowOps(std::vector<OpDef>& ops) {
  for (const char* op : {"If", "Loop", "Scan"}) {
    OpDef def{op, ControlFlowShape, /*symbolic=*/true, emit::LowerControlFlow};
    def.symbolic_values = SymbolicValueAnywhere;
    ops.push_back(def);
  }
}

}  // namespace kiln::compiler
