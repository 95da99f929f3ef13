// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss → nll_loss_f32
// (runtime/kernels/loss.c): the scores are viewed as [N, C, D] with D the
// product of the trailing dims, the target as [N, D].
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "compiler/emit/lower_ops.h"
#include "compiler/ir/graph_util.h"

namespace kiln::compiler::emit {
namespace {

absl::Status LowerLoss(LoweringContext& ctx, const ir::Node& node) {
  if (node.inputs.size() < 2) return ctx.Invalid(node, "expects scores and target");
  const bool sce = node.op_type == "SoftmaxCrossEntropyLoss";
  const bool has_weight = HasInput(node, 2);
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
  KILN_ASSIGN_OR_RETURN(Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding bt, ctx.Bind(node, node.inputs[1]));
  Binding bw = bx;  // unread without weights
  if (has_weight) {
    KILN_ASSIGN_OR_RETURN(bw, ctx.Bind(node, node.inputs[2]));
  }
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  Binding bl = by;  // untouched without log_prob
  if (has_log_prob) {
    KILN_ASSIGN_OR_RETURN(bl, ctx.Bind(node, node.outputs[1]));
  }
  return ctx.Dispatch(node, "nll_loss_f32",
                      {x[0], x[1], d, reduction, ignore, has_weight ? 1 : 0, target_bytes,
                       sce ? 1 : 0, has_log_prob ? 1 : 0},
                      {}, {bx, bt, bw, by, bl},
                      {-1, -1, has_weight ? -1 : 0, -1, has_log_prob ? -1 : 0});
}

}  // namespace

void RegisterLossLowerings(LoweringTable& table) {
  table["NegativeLogLikelihoodLoss"] = LowerLoss;
  table["SoftmaxCrossEntropyLoss"] = LowerLoss;
}

}  // namespace kiln::compiler::emit
