#include "compiler/passes/shape_inference.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/ir/graph_util.h"
#include "compiler/ops/op_registry.h"
#include "compiler/passes/shape_rule_context.h"
#include "compiler/passes/constant_folding.h"
#include "compiler/passes/shape_rules_math.h"
#include "compiler/passes/shape_rules_movement.h"
#include "compiler/passes/shape_rules_runtime.h"
#include "compiler/passes/shape_rules_runtime_params.h"
#include "compiler/passes/shape_rules_resize_rt.h"
#include "compiler/passes/control_flow.h"
#include "compiler/passes/symbolic_fold.h"
#include "compiler/passes/symbolic_support.h"
#include "compiler/passes/norm_expand.h"
#include "compiler/passes/shape_rules_training.h"

namespace kiln::compiler {
namespace {

using ir::ConstantData;
using ir::DType;
using ir::ShapeStr;
using Shape = std::vector<int64_t>;

// Per-node view with the helpers every rule needs.
using Ctx = ShapeRuleContext;

// ---- shape manipulation ---------------------------------------------------

using Rule = std::function<absl::Status(Ctx&)>;

const std::map<std::string, Rule>& Rules() {
  static const auto* rules = new std::map<std::string, Rule>{

  };
  return *rules;
}

}  // namespace

namespace {

}  // namespace

absl::Status InferNodeShapes(ir::Graph& graph, ir::NodeId id,
                             const std::vector<ir::ConstantPtr>& known) {
  ir::Node& node = graph.nodes[id];
  Ctx c(graph, node, known);
  if (absl::Status s; InferTrainingShapes(graph, node, known, &s)) return s;  // shape_rules_training.cc
  if (!node.domain.empty() && node.domain != "ai.onnx") {
    return c.Err("ops outside the default ONNX domain are not supported");
  }
  KILN_RETURN_IF_ERROR(CheckSymbolicSupport(graph, node, &known));
  if (absl::Status s; InferRuntimeResize(graph, node, known, &s)) return s;  // shape_rules_resize_rt.cc
  if (absl::Status s; InferRuntimeShapeInput(graph, node, known, &s)) return s;  // shape_rules_runtime.cc
  if (absl::Status s; InferRuntimeParams(graph, node, known, &s)) return s;  // shape_rules_runtime_params.cc
  if (const OpDef* def = FindOpDef(node); def != nullptr && def->shape != nullptr) {
    return def->shape(c);  // compiler/ops/
  }
  if (absl::Status s; InferMovementShapes(graph, node, known, &s)) return s;  // shape_rules_movement.cc
  auto it = Rules().find(node.op_type);
  if (it == Rules().end()) {
    for (ir::ValueId out : node.outputs) {
      if (out != ir::kNoValue && !graph.value(out).has_shape) {
        return c.Err("no shape inference rule for this op");
      }
    }
    return absl::OkStatus();
  }
  return it->second(c);
}

absl::Status InferShapes(ir::Graph& graph) {
  return PropagateShapesAndConstants(graph, /*commit=*/false);
}

}  // namespace kiln::compiler
