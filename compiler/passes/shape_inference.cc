#include "compiler/passes/shape_inference.h"

#include <vector>

#include "absl/status/status.h"
#include "compiler/ops/op_registry.h"
#include "compiler/passes/constant_folding.h"
#include "compiler/passes/shape_rule_context.h"
#include "compiler/passes/shape_rules_runtime.h"
#include "compiler/passes/shape_rules_runtime_params.h"
#include "compiler/passes/shape_rules_training.h"
#include "compiler/passes/symbolic_support.h"

namespace kiln::compiler {

// The training ops (another domain) have their rule beside their lowering;
// every default-domain op declares its rule in compiler/ops/.
absl::Status InferNodeShapes(ir::Graph& graph, ir::NodeId id,
                             const std::vector<ir::ConstantPtr>& known) {
  ir::Node& node = graph.nodes[id];
  ShapeRuleContext c(graph, node, known);
  if (absl::Status s; InferTrainingShapes(graph, node, known, &s)) return s;  // shape_rules_training.cc
  if (!node.domain.empty() && node.domain != "ai.onnx") {
    return c.Err("ops outside the default ONNX domain are not supported");
  }
  KILN_RETURN_IF_ERROR(CheckSymbolicSupport(graph, node, &known));
  if (const OpDef* def = FindOpDef(node); def != nullptr) {  // compiler/ops/
    // Inputs known only at run time first: the op's own rule, a shape-like
    // input, parameter inputs (each declared by the op).
    absl::Status s;
    if (def->runtime_first != nullptr && def->runtime_first(c, &s)) return s;
    if (InferRuntimeShapeInput(graph, node, known, &s)) return s;
    if (InferRuntimeParams(graph, node, known, &s)) return s;
    if (def->shape != nullptr) return def->shape(c);
  }
  // Nodes formed by later passes come with their outputs' shapes.
  for (ir::ValueId out : node.outputs) {
    if (out != ir::kNoValue && !graph.value(out).has_shape) {
      return c.Err("no shape inference rule for this op");
    }
  }
  return absl::OkStatus();
}

absl::Status InferShapes(ir::Graph& graph) {
  return PropagateShapesAndConstants(graph, /*commit=*/false);
}

}  // namespace kiln::compiler
