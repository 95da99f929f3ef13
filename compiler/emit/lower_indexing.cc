// Gather and OneHot: index-driven byte movers, for any element type (the
// other index-driven ops: compiler/ops/indexing.cc).
#include "absl/strings/str_cat.h"
#include "compiler/emit/lower_ops.h"
#include "compiler/ir/graph.h"
#include "kiln/kernel_abi.h"

namespace kiln::compiler::emit {
namespace {

int64_t Prod(const std::vector<int64_t>& s, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t i = from; i < to && i < s.size(); ++i) p *= s[i];
  return p;
}

absl::Status LowerGather(LoweringContext& ctx, const ir::Node& node) {
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(auto idx, ctx.InputShape(node, 1));
  KILN_ASSIGN_OR_RETURN(int64_t ib, IndexBytes(ctx, node, 1));
  const int64_t r = static_cast<int64_t>(x.size());
  int64_t axis = node.GetInt("axis", 0);
  if (axis < 0) axis += r;
  if (axis < 0 || axis >= r) return ctx.Invalid(node, "axis out of range");
  KILN_ASSIGN_OR_RETURN(Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding bi, ctx.Bind(node, node.inputs[1]));
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  ir::DimPool& dims = ctx.dims();  // sizes may be symbolic (indices checked at run time)
  kernel::Gather gather;
  gather.elem_bytes = ElemBytes(ctx, node.inputs[0]);
  gather.ib = ib;
  gather.outer = dims.Product({x.begin(), x.begin() + axis});
  gather.len = x[axis];
  gather.inner = dims.Product({x.begin() + axis + 1, x.end()});
  gather.count = dims.Product(idx);
  return ctx.Dispatch(node, gather, {bx, bi, by});
}

absl::Status LowerOneHot(LoweringContext& ctx, const ir::Node& node) {
  KILN_ASSIGN_OR_RETURN(auto idx, ctx.InputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(auto y, ctx.OutputShape(node, 0));
  // The depth may be a reported length (patched); the indices' dims not.
  KILN_RETURN_IF_ERROR(ctx.RequireStatic(node, idx, "the indices' shape"));
  const int64_t kind = TypedArithmeticKind(ctx.value(node.inputs[0]).dtype);
  if (kind == 0) return ctx.Unimplemented(node, "indices must be float32/float64/int32/int64");
  const int64_t r = static_cast<int64_t>(y.size());
  int64_t axis = node.GetInt("axis", -1);
  if (axis < 0) axis += r;
  KILN_ASSIGN_OR_RETURN(Binding bi, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding bv, ctx.Bind(node, node.inputs[2]));
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  kernel::OneHot one_hot;
  one_hot.elem_bytes = ElemBytes(ctx, node.outputs[0]);
  one_hot.idx_kind = kind;
  one_hot.outer = Prod(idx, 0, axis);
  one_hot.depth = y[axis];
  one_hot.inner = Prod(idx, axis, idx.size());
  return ctx.Dispatch(node, one_hot, {bi, bv, by});
}

}  // namespace

void RegisterIndexingLowerings(LoweringTable& table) {
  table["Gather"] = LowerGather;
  table["OneHot"] = LowerOneHot;
}

}  // namespace kiln::compiler::emit
