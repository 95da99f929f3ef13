// Split: parts of one axis, sizes from an input (opset 13), an attribute, or
// equal parts (num_outputs, opset 18: the last may be smaller). Lowered to a
// strided_copy per output. Sizes known only at run time are checked by a
// kernel (passes/shape_rules_runtime.cc); a constant input folds
// (passes/fold_movement.cc).
#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "compiler/ops/op_def.h"

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

// ---- sizes known only at run time (shape_rules_runtime.h)

absl::Status SplitByValue(ShapeRuleContext& c, int64_t count, const RuntimeShapeRule::Shapes& ys) {
  const Shape& x = c.S(0);
  int64_t axis = 0;
  KILN_RETURN_IF_ERROR(c.Axis(c.node().GetInt("axis", 0), c.Rank(0), &axis));
  if (count != static_cast<int64_t>(ys.size())) {
    return c.Err(absl::StrCat("split has ", count, " sizes for ", ys.size(), " outputs"));
  }
  Shape split;
  int64_t total = 0;
  for (size_t k = 0; k < ys.size(); ++k) {
    bool ok = ys[k].size() == x.size();
    for (size_t d = 0; ok && d < x.size(); ++d) ok = static_cast<int64_t>(d) == axis || ys[k][d] == x[d];
    if (!ok) return c.DeclaredMismatch(ys[k], absl::StrCat("is not a part of input ", ir::ShapeStr(x)));
    split.push_back(ys[k][axis]);
    total += ys[k][axis];
  }
  if (total != x[axis]) {
    return c.Err(absl::StrCat("the declared output sizes ", ir::ShapeStr(split), " do not add up to ",
                              x[axis]));
  }
  ir::Attribute a;
  a.kind = ir::Attribute::Kind::kInts;
  a.ints = split;
  c.node().attributes["kiln.split"] = std::move(a);
  for (size_t k = 0; k < ys.size(); ++k) KILN_RETURN_IF_ERROR(c.Set(k, c.T(0), ys[k]));
  return absl::OkStatus();
}

// Split by run-time sizes without declared output shapes: each output's
// length along the axis is a data symbol shape_resolve reports (SPLIT mode:
// the sizes, which must add up to the axis), at most the axis; kiln.split
// holds those symbols, so the copies start at their running sums.
absl::Status SplitAfterRun(ShapeRuleContext& c, int64_t count) {
  const Shape x = c.S(0);  // a copy: appending the dims output may move it
  const size_t n_out = c.node().GetInt("kiln.result_dims", 0) != 0
                           ? static_cast<size_t>(c.node().GetInt("kiln.result_dims", 0))
                           : c.node().outputs.size();
  int64_t axis = 0;
  KILN_RETURN_IF_ERROR(c.Axis(c.node().GetInt("axis", 0), c.Rank(0), &axis));
  if (count != static_cast<int64_t>(n_out)) {
    return c.Err(absl::StrCat("split has ", count, " sizes for ", n_out, " outputs"));
  }
  for (size_t k = 0; k < n_out; ++k) {
    if (!c.HasOut(k)) return c.Err("every output must be present with run-time split sizes");
  }
  KILN_ASSIGN_OR_RETURN(const ir::ValueId dims, c.ReportedDimsOutput(n_out, count));
  Shape split;
  for (size_t k = 0; k < n_out; ++k) {
    Shape y = x;
    y[axis] = c.ReportedDim(dims, static_cast<int64_t>(k), x[axis], k, ".length");
    split.push_back(y[axis]);
    KILN_RETURN_IF_ERROR(c.Set(k, c.T(0), std::move(y)));
  }
  ir::Attribute a;
  a.kind = ir::Attribute::Kind::kInts;
  a.ints = split;
  c.node().attributes["kiln.split"] = std::move(a);
  return absl::OkStatus();
}

}  // namespace

void RegisterSplitOps(std::vector<OpDef>& ops) {
  OpDef split{"Split", Split, /*symbolic=*/true, LowerSplit};
  split.fold = {FoldSplit, FoldRule::Needs::kOwnChecks, 0};
  // Sizes an input from opset 13 (an attribute before), reported per output.
  split.runtime_shape = {1, 13, RuntimeShapeRule::Value::kIndexVector, SplitByValue,
                         SplitAfterRun, true};
  ops.push_back(split);
}

}  // namespace kiln::compiler
