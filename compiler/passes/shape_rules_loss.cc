#include "compiler/passes/shape_rules_loss.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/ir/graph_util.h"
#include "compiler/passes/shape_rule_context.h"

namespace kiln::compiler {
namespace {

using ir::DType;
using Shape = std::vector<int64_t>;
using Ctx = ShapeRuleContext;

absl::Status Loss(Ctx& c) {
  ir::Graph& g = c.graph();
  ir::Node& n = c.node();
  if (n.inputs.size() < 2 || n.inputs[0] == ir::kNoValue || n.inputs[1] == ir::kNoValue) {
    return c.Err("expects scores and target inputs");
  }
  for (ir::ValueId in : n.inputs) {
    if (in != ir::kNoValue && !g.value(in).has_shape) {
      return c.Err(absl::StrCat("input '", g.value(in).name, "' has no shape"));
    }
  }
  const ir::Value& x = g.value(n.inputs[0]);
  const ir::Value& t = g.value(n.inputs[1]);
  if (x.shape.size() < 2) return c.Err("scores must have rank >= 2 ([N, C, ...])");
  Shape want = {x.shape[0]};
  want.insert(want.end(), x.shape.begin() + 2, x.shape.end());
  if (t.shape != want) {
    return c.Err(absl::StrCat("target ", ir::ShapeStr(t.shape), " should be ",
                                  ir::ShapeStr(want), " for scores ", ir::ShapeStr(x.shape)));
  }
  if (t.dtype != DType::I32 && t.dtype != DType::I64) return c.Err("target must be int32 or int64");
  if (n.inputs.size() > 2 && n.inputs[2] != ir::kNoValue) {
    const ir::Value& w = g.value(n.inputs[2]);
    if (w.shape != Shape{x.shape[1]} || w.dtype != x.dtype) {
      return c.Err(absl::StrCat("weight ", ir::ShapeStr(w.shape), " should be [",
                                    x.shape[1], "] of the scores' dtype"));
    }
  }
  const std::string red = n.GetString("reduction", "mean");
  if (red != "none" && red != "sum" && red != "mean") {
    return c.Err(absl::StrCat("unknown reduction '", red, "'"));
  }
  KILN_RETURN_IF_ERROR(c.Set(0, x.dtype, red == "none" ? want : Shape{}));
  if (n.op_type == "SoftmaxCrossEntropyLoss") KILN_RETURN_IF_ERROR(c.Set(1, x.dtype, x.shape));
  return absl::OkStatus();
}

}  // namespace

bool InferLossShapes(ir::Graph& graph, ir::Node& node, const std::vector<ir::ConstantPtr>& known,
                     absl::Status* status) {
  if (node.op_type != "NegativeLogLikelihoodLoss" && node.op_type != "SoftmaxCrossEntropyLoss") {
    return false;
  }
  Ctx c(graph, node, known);
  *status = Loss(c);
  return true;
}

}  // namespace kiln::compiler
