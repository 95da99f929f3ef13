// Ops whose output length depends on the data (passes/
// shape_rules_data_dependent.h): NonZero and Compress, compiled for the
// model's declared output shape and lowered to kernels (nonzero, compress)
// that compute the result and fail the run unless it has that shape.
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/emit/lower_ops.h"
#include "compiler/ir/graph.h"
#include "kiln/kernels.h"

namespace kiln::compiler::emit {
namespace {

using Shape = std::vector<int64_t>;

absl::Status Shapes(LoweringContext& ctx, const ir::Node& node, Shape* x, Shape* y) {
  KILN_ASSIGN_OR_RETURN(*x, ctx.InputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(*y, ctx.OutputShape(node, 0));
  KILN_RETURN_IF_ERROR(ctx.RequireStatic(node, *x, "the input shape"));
  KILN_RETURN_IF_ERROR(ctx.RequireStatic(node, *y, "the output shape"));
  return absl::OkStatus();
}

absl::Status LowerNonZero(LoweringContext& ctx, const ir::Node& node) {
  Shape x, y;
  KILN_RETURN_IF_ERROR(Shapes(ctx, node, &x, &y));
  if (x.empty() || x.size() > KILN_MAX_RANK || y.size() != 2) {
    return ctx.Unimplemented(node, absl::StrCat("rank ", x.size(), " is not in 1..",
                                                KILN_MAX_RANK));
  }
  std::vector<int64_t> ip = {static_cast<int64_t>(ctx.value(node.inputs[0]).dtype),
                             static_cast<int64_t>(x.size()), y[1]};
  ip.insert(ip.end(), x.begin(), x.end());
  KILN_ASSIGN_OR_RETURN(Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  return ctx.Dispatch(node, "nonzero", std::move(ip), {}, {bx, by});
}

absl::Status LowerCompress(LoweringContext& ctx, const ir::Node& node) {
  Shape x, y;
  KILN_RETURN_IF_ERROR(Shapes(ctx, node, &x, &y));
  KILN_ASSIGN_OR_RETURN(Shape cond, ctx.InputShape(node, 1));
  const int64_t eb = static_cast<int64_t>(ir::DTypeSize(ctx.value(node.inputs[0]).dtype));
  int64_t outer = 1, len = ir::ElementCount(x), inner = 1, out = ir::ElementCount(y);
  if (node.HasAttr("axis")) {
    const int64_t r = static_cast<int64_t>(x.size());
    int64_t axis = node.GetInt("axis", 0);
    if (axis < 0) axis += r;  // shape inference checked the range
    outer = 1, inner = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= x[static_cast<size_t>(d)];
    for (int64_t d = axis + 1; d < r; ++d) inner *= x[static_cast<size_t>(d)];
    len = x[static_cast<size_t>(axis)];
    out = y[static_cast<size_t>(axis)];
  }
  std::vector<int64_t> ip = {eb, outer, len, inner, ir::ElementCount(cond), out};
  KILN_ASSIGN_OR_RETURN(Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding bc, ctx.Bind(node, node.inputs[1]));
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  return ctx.Dispatch(node, "compress", std::move(ip), {}, {bx, bc, by});
}

}  // namespace

void RegisterDataDependentLowerings(LoweringTable& table) {
  table["NonZero"] = LowerNonZero;
  table["Compress"] = LowerCompress;
}

}  // namespace kiln::compiler::emit
