// TopK → topk (runtime/kernels/topk.c). k comes from the attribute (opset
// < 10), a constant input, or else the model's declared output shape
// (kiln.k_runtime: the kernel re-checks the run-time k); without one, k is a
// data symbol topk_bounded reports. The shape rule
// records kiln.k and kiln.axis for the lowering.
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/ir/graph_util.h"
#include "compiler/ops/op_def.h"

namespace kiln::compiler {
namespace {

using ir::DType;
using Shape = std::vector<int64_t>;

absl::Status TopKShape(ShapeRuleContext& c) {
  KILN_RETURN_IF_ERROR(c.Need(1));
  const Shape& x = c.S(0);
  if (x.empty()) return c.Err("input must have rank >= 1");
  int64_t axis = 0, k = 0;
  KILN_RETURN_IF_ERROR(c.Axis(c.node().GetInt("axis", -1), c.Rank(0), &axis));
  bool runtime = false;
  // A run-time k without a declared output: k is a data symbol topk_bounded
  // reports (at most the axis length), shared by both outputs (not inside
  // control-flow bodies yet).
  const bool after_run =
      c.node().GetInt("kiln.result_dims", 0) != 0 ||
      (c.Has(1) && c.C(1) == nullptr && c.DeclaredDim(0, static_cast<size_t>(axis)) < 0 &&
       c.DeclaredDim(1, static_cast<size_t>(axis)) < 0 && c.graph().scope.empty() &&
       ShapeRuleContext::StaticShape(x) && c.node().outputs.size() >= 2);
  if (after_run) {
    if (c.T(1) != DType::I64 && c.T(1) != DType::I32) return c.Err("k must be int64");
    if (ir::ElementCount(c.S(1)) != 1) return c.Err("k must hold one value");
    if (c.node().GetInt("largest", 1) != 0 && c.node().GetInt("largest", 1) != 1) {
      return c.Err("largest must be 0 or 1");
    }
    Shape out = x;  // a copy: appending the output may move x
    KILN_ASSIGN_OR_RETURN(const ir::ValueId dims, c.ReportedDimsOutput(2, 1));
    c.node().SetInt("kiln.k", out[axis]);
    c.node().SetInt("kiln.k_runtime", 1);
    c.node().SetInt("kiln.axis", axis);
    out[axis] = c.ReportedDim(dims, 0, out[axis], 0, ".k");
    KILN_RETURN_IF_ERROR(c.Set(1, DType::I64, out));
    return c.Set(0, c.T(0), std::move(out));
  }
  const ir::ConstantData* kc = c.Has(1) ? c.C(1) : nullptr;
  const bool symbolic_k = kc != nullptr && kc->symbolic;
  if (symbolic_k) {
    // k computed from dims (torchvision's min(topk_candidates, n)): the
    // output dim is that expression; the kernel gets its run-time value.
    if (c.T(1) != DType::I64 || kc->element_count() != 1) return c.Err("k must be one int64");
    k = kc->IntAt(0);
  } else if (!c.Has(1)) {
    if (!c.node().HasAttr("k")) return c.Err("k is required (attribute or input)");
    k = c.node().GetInt("k", 0);
  } else {
    if (c.T(1) != DType::I64 && c.T(1) != DType::I32) return c.Err("k must be int64");
    runtime = c.C(1) == nullptr;
    KILN_RETURN_IF_ERROR(c.SizeInput(1, "k", static_cast<size_t>(axis), 1, &k));
  }
  // A symbolic axis's length is known at run time only: the kernel's
  // checker refuses k beyond it then.
  if (!symbolic_k && (k < 0 || (!ir::IsSymbolic(x[axis]) && k > x[axis]))) {
    return c.Err(absl::StrCat("k = ", k, " is outside [0, ", x[axis], "]"));
  }
  if (c.node().GetInt("largest", 1) != 0 && c.node().GetInt("largest", 1) != 1) {
    return c.Err("largest must be 0 or 1");
  }
  c.node().SetInt("kiln.k", k);
  c.node().SetInt("kiln.k_runtime", runtime ? 1 : 0);
  c.node().SetInt("kiln.axis", axis);
  Shape out = x;
  out[axis] = k;
  KILN_RETURN_IF_ERROR(c.Set(1, DType::I64, out));
  return c.Set(0, c.T(0), std::move(out));
}

absl::Status LowerTopK(emit::LoweringContext& ctx, const ir::Node& node) {
  KILN_ASSIGN_OR_RETURN(Shape x, ctx.InputShape(node, 0));
  if (!node.HasAttr("kiln.k")) return ctx.Invalid(node, "k was not resolved");
  const bool reports = node.GetInt("kiln.result_dims", 0) != 0;
  const int64_t axis = node.GetInt("kiln.axis", 0), k = node.GetInt("kiln.k", 0);
  const bool runtime_k = node.GetInt("kiln.k_runtime", 0) != 0;
  const int64_t t = emit::DTypeCode(ctx, node.inputs[0]);
  if (ir::DTypeSize(ctx.value(node.inputs[0]).dtype) == 0 ||
      ctx.value(node.inputs[0]).dtype == DType::Bool) {
    return ctx.Unimplemented(node, "unsupported input dtype");
  }
  if (node.outputs.size() < 2 || node.outputs[0] == ir::kNoValue ||
      node.outputs[1] == ir::kNoValue) {
    return ctx.Unimplemented(node, "both outputs (values and indices) must be present");
  }
  KILN_ASSIGN_OR_RETURN(emit::Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(emit::Binding bv, ctx.Bind(node, node.outputs[0]));
  KILN_ASSIGN_OR_RETURN(emit::Binding bi, ctx.Bind(node, node.outputs[1]));
  emit::Binding bk = bx;  // unread when k is static
  if (runtime_k) {
    KILN_ASSIGN_OR_RETURN(bk, ctx.Bind(node, node.inputs[1]));
  }
  // Symbolic dims multiply through the pool; the kernel's checker refuses
  // k beyond a symbolic axis's run-time length.
  ir::DimPool& dims = ctx.dims();
  emit::kernel::Topk topk;
  topk.dtype = t;
  topk.outer = dims.Product(Shape(x.begin(), x.begin() + axis));
  topk.len = x[axis];
  topk.inner = dims.Product(Shape(x.begin() + axis + 1, x.end()));
  topk.K = k;
  topk.largest = node.GetInt("largest", 1) != 0 ? 1 : 0;
  topk.k_dtype = runtime_k ? emit::DTypeCode(ctx, node.inputs[1]) : 0;
  if (reports) {  // k found at run time (kiln.k is the capacity)
    KILN_ASSIGN_OR_RETURN(emit::Binding count, ctx.Bind(node, node.outputs[2]));
    return ctx.Dispatch(node, emit::kernel::TopkBounded(topk), {bx, bk, bv, bi, count});
  }
  return ctx.Dispatch(node, topk, {bx, bk, bv, bi},
                      {-1, runtime_k ? -1 : 0, -1, -1});
}

bool KSymbolicValue(size_t input) { return input == 1; }

}  // namespace

void RegisterTopKOps(std::vector<OpDef>& ops) {
  OpDef topk{"TopK", TopKShape, /*symbolic=*/true, LowerTopK};
  topk.symbolic_values = KSymbolicValue;  // k, read as a dim
  ops.push_back(topk);
}

}  // namespace kiln::compiler
