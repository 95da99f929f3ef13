#include "compiler/passes/shape_rules_runtime_params.h"

#include <string>

#include "compiler/ir/graph_util.h"
#include "compiler/ops/op_registry.h"
#include "compiler/passes/symbolic_fold.h"

namespace kiln::compiler {
namespace {

using Shape = std::vector<int64_t>;

// The op's rule when it declares parameter inputs at the graph's opset.
const RuntimeParamsRule* RuleFor(const ir::Graph& graph, const ir::Node& node) {
  const OpDef* def = FindOpDef(node);  // compiler/ops/
  if (def == nullptr || def->runtime_params.first < 0) return nullptr;
  if (graph.opset < def->runtime_params.since_opset) return nullptr;
  return &def->runtime_params;
}

// The first parameter input is present with a known shape of no elements.
bool EmptyParam(const ir::Graph& graph, const ir::Node& node, size_t k) {
  if (node.inputs.size() <= k || node.inputs[k] == ir::kNoValue) return false;
  const ir::Value& v = graph.value(node.inputs[k]);
  return v.has_shape && ir::ElementCount(v.shape) == 0;
}

// Start or limit cast to int32 from a symbolic size: the ordinary
// (symbolic) rule takes it.
bool SizeThroughCast(const RuntimeParamsRule& rule, const ir::Graph& graph, const ir::Node& node,
                     size_t k, const std::vector<ir::ConstantPtr>& known) {
  return rule.bounds_through_cast && k <= 1 &&
         SymbolicSizeThroughCast(graph, node.inputs[k], known) != nullptr;
}

}  // namespace

bool HasRuntimeParams(const ir::Graph& graph, const ir::Node& node) {
  const RuntimeParamsRule* rule = RuleFor(graph, node);
  if (rule == nullptr) return false;
  const size_t first = static_cast<size_t>(rule->first), last = static_cast<size_t>(rule->last);
  if (rule->empty_is_known && EmptyParam(graph, node, first)) return false;
  for (size_t k = first; k <= last && k < node.inputs.size(); ++k) {
    if (node.inputs[k] != ir::kNoValue && !graph.value(node.inputs[k]).constant &&
        !(k <= 1 && node.GetInt("kiln.bounds_through_cast", 0) != 0)) {
      return true;
    }
  }
  return false;
}

bool InferRuntimeParams(ir::Graph& graph, ir::Node& node,
                        const std::vector<ir::ConstantPtr>& known, absl::Status* status) {
  const RuntimeParamsRule* rule = RuleFor(graph, node);
  if (rule == nullptr) return false;
  const size_t first = static_cast<size_t>(rule->first), last = static_cast<size_t>(rule->last);
  ShapeRuleContext c(graph, node, known);
  bool runtime = false;
  for (size_t k = first; k <= last; ++k) {
    runtime = runtime ||
              (c.Has(k) && c.C(k) == nullptr && !SizeThroughCast(*rule, graph, node, k, known));
  }
  if (!runtime) return false;
  if (rule->empty_is_known && EmptyParam(graph, node, first)) return false;  // as above
  // Only static shapes: every input's and the declared output's, or,
  // without a declaration, output dims that the kernel reports (not inside
  // control-flow bodies yet: their lengths take one int64 slot each).
  Shape y;
  const bool static_inputs = c.StaticInputs();
  if (!static_inputs &&
      (!rule->symbolic_data_after_run || !c.In(0).has_shape || !c.StaticInputs(first, last))) {
    return false;
  }
  if (rule->after_run != nullptr &&
      (node.GetInt("kiln.result_dims", 0) != 0 ||
       (node.outputs.size() == 1 && !(static_inputs && c.DeclaredStatic(0, &y)) &&
        graph.scope.empty()))) {
    *status = rule->after_run(c);
    return true;
  }
  if (node.outputs.size() != 1 || !c.DeclaredStatic(0, &y)) return false;
  *status = rule->declared(c, y);
  return true;
}

}  // namespace kiln::compiler
