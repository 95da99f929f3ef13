// Split: parts of one axis, sizes from an input (opset 13), an attribute, or
// equal parts (num_outputs, opset 18: the last may be smaller). Lowered to a
// strided_copy per output. Sizes known only at run time are checked by a
// kernel (passes/shape_rules_runtime.cc); a constant input folds
// (passes/fold_movement.cc).
#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/runtime_rules.h"

namespace kiln::compiler {
namespace {

using Shape = std::vector<int64_t>;

using ir::ShapeStr;

absl::Status Split(ShapeRuleContext& c) {
  KILN_RETURN_IF_ERROR(c.Need(1));
  const Shape& x = c.S(0);
  int64_t axis = 0;
  KILN_RETURN_IF_ERROR(c.Axis(c.node().GetInt("axis", 0), c.Rank(0), &axis));
  KILN_RETURN_IF_ERROR(c.RequireStatic(x[axis], "the split axis"));
  const int64_t n = static_cast<int64_t>(c.node().outputs.size());
  Shape split;
  if (c.opset() >= 13 && c.Has(1)) {
    KILN_RETURN_IF_ERROR(c.KnownInts(1, "split", &split));
  } else if (c.node().HasAttr("split")) {
    split = c.node().GetInts("split", {});
  } else {
    const int64_t parts = c.node().GetInt("num_outputs", n);
    if (parts <= 0) return c.Err("needs at least one output");
    // Equal parts; opset 18 lets the last one be smaller.
    const int64_t each = (x[axis] + parts - 1) / parts;
    if (c.opset() < 18 && x[axis] % parts != 0) {
      return c.Err(absl::StrCat("axis length ", x[axis], " does not split into ", parts,
                                " equal parts"));
    }
    for (int64_t k = 0; k < parts; ++k) {
      split.push_back(std::max<int64_t>(0, std::min(each, x[axis] - k * each)));
    }
  }
  if (static_cast<int64_t>(split.size()) != n) {
    return c.Err(absl::StrCat("split ", ShapeStr(split), " does not match ", n, " outputs"));
  }
  int64_t total = 0;
  for (int64_t s : split) {
    if (s < 0) return c.Err("split sizes must be non-negative");
    total += s;
  }
  if (total != x[axis]) {
    return c.Err(absl::StrCat("split ", ShapeStr(split), " does not add up to ", x[axis]));
  }
  for (int64_t k = 0; k < n; ++k) {
    Shape out = x;
    out[axis] = split[k];
    KILN_RETURN_IF_ERROR(c.Set(k, c.T(0), std::move(out)));
  }
  c.node().SetInts("kiln.split", split);
  return absl::OkStatus();
}

absl::Status LowerSplit(emit::LoweringContext& ctx, const ir::Node& node) {
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  const int64_t r = static_cast<int64_t>(x.size());
  int64_t axis = node.GetInt("axis", 0);
  if (axis < 0) axis += r;
  const Shape split = node.GetInts("kiln.split", {});
  // Sizes reported at run time add their dims output after the parts.
  const size_t parts = node.GetInt("kiln.result_dims", 0) != 0
                           ? static_cast<size_t>(node.GetInt("kiln.result_dims", 0))
                           : node.outputs.size();
  if (split.size() != parts) return ctx.Invalid(node, "split sizes are missing");
  const Shape xs = emit::ContiguousStrides(x, ctx.dims());
  KILN_ASSIGN_OR_RETURN(emit::Binding bx, ctx.Bind(node, node.inputs[0]));
  int64_t at = 0;
  for (size_t k = 0; k < parts; ++k) {
    if (node.outputs[k] != ir::kNoValue) {
      KILN_ASSIGN_OR_RETURN(auto y, ctx.OutputShape(node, k));
      KILN_ASSIGN_OR_RETURN(emit::Binding by, ctx.Bind(node, node.outputs[k]));
      KILN_RETURN_IF_ERROR(emit::EmitStridedCopy(ctx, node, bx, by, emit::ElemBytes(ctx, node.inputs[0]),
                                       ctx.dims().Mul(at, xs[axis]), 0, y, xs,
                                       emit::ContiguousStrides(y, ctx.dims())));
    }
    at = ctx.dims().Add(at, split[k]);  // symbols when the sizes are reported
  }
  return absl::OkStatus();
}

}  // namespace

void RegisterSplitOps(std::vector<OpDef>& ops) {
  OpDef split{"Split", WithRuntimeShapeInput<Split>, /*symbolic=*/true, LowerSplit};
  split.fold = {FoldSplit, FoldRule::Needs::kOwnChecks, 0};
  ops.push_back(split);
}

}  // namespace kiln::compiler
