// The ai.onnx.preview.training optimizers (passes/shape_rules_training.h):
// one adagrad_f32 / adam_f32 / momentum_f32 dispatch per optimized tensor,
// each binding R, T, that tensor's group of inputs and its outputs.
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/emit/lower_ops.h"
#include "compiler/ir/graph.h"
#include "compiler/passes/shape_rules_training.h"

namespace kiln::compiler::emit {
namespace {

// One optimized tensor of `n` elements, with ONNX's attribute defaults
// (Momentum has none; shape inference required them).
absl::Status DispatchOptimizer(LoweringContext& ctx, const ir::Node& node, int64_t n,
                               const std::vector<Binding>& bindings) {
  const float norm = node.GetFloat("norm_coefficient", 0.0f);
  if (node.op_type == "Adagrad") {
    kernel::AdagradF32 p;
    p.n = n;
    p.norm_coefficient = norm;
    p.epsilon = node.GetFloat("epsilon", 1e-6f);
    p.decay_factor = node.GetFloat("decay_factor", 0.0f);
    return ctx.Dispatch(node, p, bindings);
  }
  if (node.op_type == "Adam") {
    kernel::AdamF32 p;
    p.n = n;
    p.norm_coefficient = norm;
    p.norm_coefficient_post = node.GetFloat("norm_coefficient_post", 0.0f);
    p.alpha = node.GetFloat("alpha", 0.9f);
    p.beta = node.GetFloat("beta", 0.999f);
    p.epsilon = node.GetFloat("epsilon", 1e-6f);
    return ctx.Dispatch(node, p, bindings);
  }
  kernel::MomentumF32 p;
  p.n = n;
  p.nesterov = node.GetString("mode", "") == "nesterov" ? 1 : 0;
  p.norm_coefficient = norm;
  p.alpha = node.GetFloat("alpha", 0.0f);
  p.beta = node.GetFloat("beta", 0.0f);
  return ctx.Dispatch(node, p, bindings);
}

absl::Status LowerOptimizer(LoweringContext& ctx, const ir::Node& node) {
  const size_t group = static_cast<size_t>(compiler::TrainingGroupSize(node));
  if (group == 0 || node.inputs.size() < 2 + group || (node.inputs.size() - 2) % group != 0 ||
      node.outputs.size() != (node.inputs.size() - 2) / group * (group - 1)) {
    return ctx.Invalid(node, "the inputs and outputs do not form the op's groups");
  }
  const size_t k = (node.inputs.size() - 2) / group;
  KILN_ASSIGN_OR_RETURN(Binding r, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding t, ctx.Bind(node, node.inputs[1]));
  for (size_t i = 0; i < k; ++i) {
    KILN_ASSIGN_OR_RETURN(auto shape, ctx.InputShape(node, 2 + i));
    KILN_RETURN_IF_ERROR(ctx.RequireStatic(node, shape, "the optimized tensor's shape"));
    std::vector<Binding> bindings = {r, t};
    for (size_t g = 0; g < group; ++g) {
      KILN_ASSIGN_OR_RETURN(Binding b, ctx.Bind(node, node.inputs[2 + g * k + i]));
      bindings.push_back(b);
    }
    for (size_t o = 0; o + 1 < group; ++o) {
      KILN_ASSIGN_OR_RETURN(Binding b, ctx.Bind(node, node.outputs[o * k + i]));
      bindings.push_back(b);
    }
    KILN_RETURN_IF_ERROR(DispatchOptimizer(ctx, node, ir::ElementCount(shape), bindings));
  }
  return absl::OkStatus();
}

}  // namespace

void RegisterTrainingLowerings(LoweringTable& table) {
  for (const char* op : {"Adagrad", "Adam", "Momentum"}) {
    table[absl::StrCat(compiler::kPreviewTrainingDomain, ":", op)] = LowerOptimizer;
  }
}

}  // namespace kiln::compiler::emit
