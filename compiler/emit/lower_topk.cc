// TopK (topk): shape inference (passes/shape_rules_topk.cc) resolved the
// axis and k, or marked k as a run-time input.
#include <utility>

#include "compiler/emit/lower_ops.h"
#include "compiler/ir/graph_util.h"

namespace kiln::compiler::emit {
namespace {

using Shape = std::vector<int64_t>;

absl::Status LowerTopK(LoweringContext& ctx, const ir::Node& node) {
  KILN_ASSIGN_OR_RETURN(Shape x, ctx.InputShape(node, 0));
  if (!node.HasAttr("kiln.k")) return ctx.Invalid(node, "k was not resolved");
  const int64_t axis = node.GetInt("kiln.axis", 0), k = node.GetInt("kiln.k", 0);
  const bool runtime_k = node.GetInt("kiln.k_runtime", 0) != 0;
  const int64_t t = DTypeCode(ctx, node.inputs[0]);
  if (ir::DTypeSize(ctx.value(node.inputs[0]).dtype) == 0 ||
      ctx.value(node.inputs[0]).dtype == ir::DType::Bool) {
    return ctx.Unimplemented(node, "unsupported input dtype");
  }
  if (node.outputs.size() < 2 || node.outputs[0] == ir::kNoValue ||
      node.outputs[1] == ir::kNoValue) {
    return ctx.Unimplemented(node, "both outputs (values and indices) must be present");
  }
  KILN_ASSIGN_OR_RETURN(Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding bv, ctx.Bind(node, node.outputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding bi, ctx.Bind(node, node.outputs[1]));
  Binding bk = bx;  // unread when k is static
  if (runtime_k) {
    KILN_ASSIGN_OR_RETURN(bk, ctx.Bind(node, node.inputs[1]));
  }
  // Symbolic dims multiply through the pool; the kernel's checker refuses
  // k beyond a symbolic axis's run-time length.
  ir::DimPool& dims = ctx.dims();
  Shape ip = {t, dims.Product(Shape(x.begin(), x.begin() + axis)), x[axis],
              dims.Product(Shape(x.begin() + axis + 1, x.end())), k,
              node.GetInt("largest", 1) != 0 ? 1 : 0,
              runtime_k ? DTypeCode(ctx, node.inputs[1]) : 0};
  return ctx.Dispatch(node, "topk", std::move(ip), {}, {bx, bk, bv, bi},
                      {-1, runtime_k ? -1 : 0, -1, -1});
}

}  // namespace

void RegisterTopKLowerings(LoweringTable& table) { table["TopK"] = LowerTopK; }

}  // namespace kiln::compiler::emit
