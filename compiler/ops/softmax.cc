// Ops over one axis, the rest as independent rows: Softmax and LogSoftmax
// (softmax_f32; symbolic dims for Softmax) and Hardmax (hardmax_f32). Before
// opset 13 the axis coerces the input to 2-D: every dim from it on is one row.
#include <algorithm>
#include <vector>

#include "compiler/ops/op_def.h"

namespace kiln::compiler {
namespace {

using emit::AxisView;

// The output is the input; the axis (default -1, 1 before opset 13) must be
// in range.
absl::Status AxisShape(ShapeRuleContext& c) {
  KILN_RETURN_IF_ERROR(c.Need(1));
  int64_t axis = 0;
  KILN_RETURN_IF_ERROR(c.Axis(c.node().GetInt("axis", c.opset() >= 13 ? -1 : 1),
                              std::max<int64_t>(c.Rank(0), 1), &axis));
  return c.Set(0, c.T(0), c.S(0));
}

absl::Status LowerSoftmax(emit::LoweringContext& ctx, const ir::Node& node) {
  KILN_RETURN_IF_ERROR(ctx.RequireF32(node));
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  const int64_t rank = static_cast<int64_t>(x.size());
  const int64_t opset = ctx.graph().opset;
  int64_t axis = node.GetInt("axis", opset >= 13 ? -1 : 1);
  if (axis < 0) axis += rank;
  if (rank == 0 || axis < 0 || axis >= rank) return ctx.Invalid(node, "axis out of range");
  int64_t outer = 1, len = 1, inner = 1;
  ir::DimPool& dims = ctx.dims();
  for (int64_t d = 0; d < rank; ++d) {
    if (d < axis) {
      outer = dims.Mul(outer, x[d]);
    } else if (d == axis || opset < 13) {
      len = dims.Mul(len, x[d]);  // before opset 13 the input is coerced to 2-D at `axis`
    } else {
      inner = dims.Mul(inner, x[d]);
    }
  }
  KILN_ASSIGN_OR_RETURN(emit::Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(emit::Binding by, ctx.Bind(node, node.outputs[0]));
  const int64_t log = node.op_type == "LogSoftmax" ? 1 : 0;
  emit::kernel::SoftmaxF32 softmax;
  softmax.outer = outer;
  softmax.axis_len = len;
  softmax.inner = inner;
  softmax.log = log;
  return ctx.Dispatch(node, softmax, {bx, by});
}

absl::Status LowerHardmax(emit::LoweringContext& ctx, const ir::Node& node) {
  KILN_RETURN_IF_ERROR(ctx.RequireF32(node));
  const bool v13 = ctx.graph().opset >= 13;
  int64_t v[3];
  KILN_RETURN_IF_ERROR(AxisView(ctx, node, v13 ? -1 : 1, !v13, v));
  KILN_ASSIGN_OR_RETURN(emit::Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(emit::Binding by, ctx.Bind(node, node.outputs[0]));
  emit::kernel::HardmaxF32 hardmax;
  hardmax.outer = v[0];
  hardmax.n = v[1];
  hardmax.inner = v[2];
  return ctx.Dispatch(node, hardmax, {bx, by});
}

}  // namespace

void RegisterSoftmaxOps(std::vector<OpDef>& ops) {
  ops.push_back({"Softmax", AxisShape, /*symbolic=*/true, LowerSoftmax});
  ops.push_back({"LogSoftmax", AxisShape, /*symbolic=*/false, LowerSoftmax});
  ops.push_back({"Hardmax", AxisShape, /*symbolic=*/false, LowerHardmax});
}

}  // namespace kiln::compiler
