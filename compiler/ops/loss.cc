// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (opsets 12-17) →
// nll_loss_f32 (runtime/kernels/loss.c): scores [N, C, d...], target
// [N, d...], optional weight [C]; the loss is [N, d...] for reduction "none"
// and a scalar otherwise; SoftmaxCrossEntropyLoss may also output the
// log-probabilities [N, C, d...]. The kernel views the scores as [N, C, D]
// with D the product of the trailing dims, the target as [N, D].
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/ir/graph_util.h"
#include "compiler/ops/op_def.h"

namespace kiln::compiler {
namespace {

using ir::DType;
using Shape = std::vector<int64_t>;

absl::Status LossShape(ShapeRuleContext& c) {
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


absl::Status LowerLoss(emit::LoweringContext& ctx, const ir::Node& node) {
  if (node.inputs.size() < 2) return ctx.Invalid(node, "expects scores and target");
  const bool sce = node.op_type == "SoftmaxCrossEntropyLoss";
  const bool has_weight = emit::HasInput(node, 2);
  const bool has_log_prob = sce && node.outputs.size() > 1 && node.outputs[1] != ir::kNoValue;
  if (ctx.value(node.inputs[0]).dtype != ir::DType::F32 ||
      (has_weight && ctx.value(node.inputs[2]).dtype != ir::DType::F32)) {
    return ctx.Unimplemented(node, absl::StrCat("tensor '", ctx.value(node.inputs[0]).name, "' is ",
                                                ir::DTypeName(ctx.value(node.inputs[0]).dtype),
                                                "; only float32 kernels exist"));
  }
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  if (x.size() < 2) return ctx.Invalid(node, "scores must have rank >= 2");
  int64_t d = 1;
  for (size_t k = 2; k < x.size(); ++k) d *= x[k];
  const std::string red = node.GetString("reduction", "mean");
  const int64_t reduction = red == "none" ? 0 : red == "sum" ? 1 : 2;
  const ir::DType tt = ctx.value(node.inputs[1]).dtype;
  const int64_t target_bytes = tt == ir::DType::I32 ? 4 : 8;
  // Without the attribute no target is ignored: pick a value no int64 class
  // index can take besides the out-of-range ones the kernel refuses anyway.
  const int64_t ignore = node.GetInt("ignore_index", INT64_MIN);
  KILN_ASSIGN_OR_RETURN(emit::Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(emit::Binding bt, ctx.Bind(node, node.inputs[1]));
  emit::Binding bw = bx;  // unread without weights
  if (has_weight) {
    KILN_ASSIGN_OR_RETURN(bw, ctx.Bind(node, node.inputs[2]));
  }
  KILN_ASSIGN_OR_RETURN(emit::Binding by, ctx.Bind(node, node.outputs[0]));
  emit::Binding bl = by;  // untouched without log_prob
  if (has_log_prob) {
    KILN_ASSIGN_OR_RETURN(bl, ctx.Bind(node, node.outputs[1]));
  }
  emit::kernel::NllLossF32 loss;
  loss.N = x[0];
  loss.C = x[1];
  loss.D = d;
  loss.reduction = reduction;
  loss.ignore_index = ignore;
  loss.has_weight = has_weight ? 1 : 0;
  loss.target_bytes = target_bytes;
  loss.logits = sce ? 1 : 0;
  loss.has_log_prob = has_log_prob ? 1 : 0;
  return ctx.Dispatch(node, loss, {bx, bt, bw, by, bl},
                      {-1, -1, has_weight ? -1 : 0, -1, has_log_prob ? -1 : 0});
}

}  // namespace

void RegisterLossOps(std::vector<OpDef>& ops) {
  ops.push_back({"NegativeLogLikelihoodLoss", LossShape, /*symbolic=*/false, LowerLoss});
  ops.push_back({"SoftmaxCrossEntropyLoss", LossShape, /*symbolic=*/false, LowerLoss});
}

}  // namespace kiln::compiler
