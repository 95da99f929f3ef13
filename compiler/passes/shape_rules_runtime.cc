#include "compiler/passes/shape_rules_runtime.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "compiler/ir/graph_util.h"
#include "compiler/ops/op_registry.h"

namespace kiln::compiler {
namespace {

using ir::DType;
using Shape = std::vector<int64_t>;

// The op's rule when it declares a shape-like input at the graph's opset.
const RuntimeShapeRule* RuleFor(const ir::Graph& graph, const ir::Node& node) {
  const OpDef* def = FindOpDef(node);  // compiler/ops/
  if (def == nullptr || def->runtime_shape.input < 0) return nullptr;
  if (graph.opset < def->runtime_shape.since_opset) return nullptr;
  return &def->runtime_shape;
}

}  // namespace

int RuntimeShapeInput(const ir::Graph& graph, const ir::Node& node) {
  const RuntimeShapeRule* rule = RuleFor(graph, node);
  const int k = rule == nullptr ? -1 : rule->input;
  if (k < 0 || static_cast<size_t>(k) >= node.inputs.size() || node.inputs[k] == ir::kNoValue) {
    return -1;
  }
  return graph.value(node.inputs[k]).constant ? -1 : k;
}

bool InferRuntimeShapeInput(ir::Graph& graph, ir::Node& node,
                            const std::vector<ir::ConstantPtr>& known, absl::Status* status) {
  const RuntimeShapeRule* rule = RuleFor(graph, node);
  if (rule == nullptr) return false;
  const int k = rule->input;
  ShapeRuleContext c(graph, node, known);
  if (!c.Has(k) || c.C(k) != nullptr) return false;
  // Only static shapes: the data input's, the shape-like input's own (its
  // length is a kernel parameter) and every output's declaration.
  if (!c.StaticInputs()) return false;
  std::vector<Shape> ys(node.outputs.size());
  bool declared = !ys.empty();
  for (size_t o = 0; o < node.outputs.size(); ++o) declared = declared && c.DeclaredStatic(o, &ys[o]);
  const bool reports = node.GetInt("kiln.result_dims", 0) != 0;
  if (rule->after_run == nullptr && reports) return false;  // another rule reports the dims
  // Without a declaration: dims reported after the run (not inside
  // control-flow bodies yet: their lengths take one int64 slot each).
  const bool after_run =
      rule->after_run != nullptr &&
      (reports || (!declared && graph.scope.empty() &&
                   (node.outputs.size() == 1 || rule->reports_several_outputs)));
  if (!declared && !after_run) return false;
  const DType t = c.T(k);
  if (rule->value != RuntimeShapeRule::Value::kNumber) {
    if (t != DType::I64 && t != DType::I32) {
      *status = c.Err(absl::StrCat("input '", c.In(k).name, "' must be int64, got ",
                                   ir::DTypeName(t)));
      return true;
    }
    if (c.Rank(k) != 1) {
      *status = c.Err(absl::StrCat("input '", c.In(k).name, "' must be 1-D, got ",
                                   ir::ShapeStr(c.S(k))));
      return true;
    }
  } else if (ir::DTypeSize(t) == 0 || t == DType::Bool) {
    *status = c.Err(absl::StrCat("depth has an unsupported dtype ", ir::DTypeName(t)));
    return true;
  }
  if (rule->value == RuntimeShapeRule::Value::kInt64Vector && t != DType::I64) {
    *status = c.Err("sizes must be a 1-D int64 tensor");
    return true;
  }
  if (k != 0 && !c.Has(0)) {
    *status = c.Err("input 0 is required");
    return true;
  }
  const int64_t count = ir::ElementCount(c.S(k));
  *status = after_run ? rule->after_run(c, count) : rule->declared(c, count, ys);
  return true;
}

absl::StatusOr<Shape> ReportedShape(ShapeRuleContext& c, const Shape& fixed) {
  KILN_ASSIGN_OR_RETURN(const ir::ValueId dims,
                        c.ReportedDimsOutput(1, static_cast<int64_t>(fixed.size())));
  Shape y(fixed.size());
  for (size_t d = 0; d < fixed.size(); ++d) {
    const int64_t j = static_cast<int64_t>(d);
    y[d] = fixed[d] >= 0 ? fixed[d] : c.ReportedDim(dims, j, ir::kNoBound, 0, absl::StrCat(".dim", j));
  }
  return y;
}

absl::Status AliasDimsAfterRun(ShapeRuleContext& c, int64_t rank, int64_t bound) {
  const int64_t n = ir::ElementCount(c.S(0));
  // An empty input may take any dims (Reshape with allowzero keeps a 0, so
  // the others are free): lengths without a bound, holding no element.
  if (n == 0) return c.DimsAfterRun(c.T(0), Shape(static_cast<size_t>(rank), ir::kNoBound));
  const int64_t bytes = n * static_cast<int64_t>(ir::DTypeSize(c.T(0)));
  return c.DimsAfterRun(c.T(0), Shape(static_cast<size_t>(rank), bound), bytes);
}

}  // namespace kiln::compiler
