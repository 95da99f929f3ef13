// Expand and Tile: copies of the input repeated along its axes, lowered to
// one strided_copy that reads the repeated axes with stride 0. The target
// shape or the repeats may be shape values (x.expand(B, -1), x.repeat(B, 1)),
// read as dims. A shape or repeats input known only at run time is checked
// by a kernel (passes/shape_rules_runtime.cc); constant inputs fold
// (passes/fold_eval.cc, fold_movement.cc).
#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "compiler/ir/graph_util.h"
#include "compiler/ops/op_def.h"
#include "compiler/passes/symbolic_support.h"

namespace kiln::compiler {
namespace {

using Shape = std::vector<int64_t>;

using ir::ShapeStr;

absl::Status Expand(ShapeRuleContext& c) {
  KILN_RETURN_IF_ERROR(c.Need(2));
  std::vector<int64_t> shape;
  // The shape may be a symbolic value (Expand(x, Shape(y))): its elements
  // are dims, broadcast like Add's operands.
  KILN_RETURN_IF_ERROR(c.KnownInts(1, "shape", &shape, /*allow_symbolic=*/true));
  for (int64_t d : shape) {
    if (d < 0 && !(c.C(1)->symbolic && c.dims().Known(d))) {
      return c.Err(absl::StrCat("shape value ", d, " is negative"));
    }
  }
  Shape out;
  if (!ir::BroadcastShapes(c.S(0), shape, &out, &c.dims())) {
    return c.Err(absl::StrCat("cannot expand ", SymbolicShapeStr(c.graph(), c.S(0)), " to ",
                              SymbolicShapeStr(c.graph(), shape)));
  }
  return c.Set(0, c.T(0), std::move(out));
}

absl::Status Tile(ShapeRuleContext& c) {
  KILN_RETURN_IF_ERROR(c.Need(2));
  Shape rep;
  // The repeats may be a value computed from the symbols (x.repeat(B, 1, 1));
  // its elements are dims, multiplied with x's through the pool.
  KILN_RETURN_IF_ERROR(c.KnownInts(1, "repeats", &rep, /*allow_symbolic=*/true));
  const Shape& x = c.S(0);
  if (rep.size() != x.size()) {
    return c.Err(absl::StrCat("repeats ", ShapeStr(rep), " do not match input ", ShapeStr(x)));
  }
  const bool symbolic_rep = c.C(1)->symbolic;
  Shape out;
  bool any_symbolic = false;
  for (size_t d = 0; d < x.size(); ++d) {
    const bool sym_rep = symbolic_rep && c.dims().Known(rep[d]);
    if (!sym_rep && rep[d] < 0) return c.Err("repeats must be non-negative");
    if (sym_rep || ir::IsSymbolic(x[d])) {
      out.push_back(c.dims().Mul(x[d], rep[d]));
      any_symbolic = true;
      continue;
    }
    int64_t o;
    KILN_RETURN_IF_ERROR(c.Narrow(static_cast<__int128>(x[d]) * rep[d], "the tiled size", &o));
    out.push_back(o);
  }
  // The lowering cannot divide symbolic output dims back into repeats.
  if (any_symbolic) c.node().SetInts("kiln.repeats", rep);
  return c.Set(0, c.T(0), std::move(out));
}

absl::Status LowerExpand(emit::LoweringContext& ctx, const ir::Node& node) {
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(auto y, ctx.OutputShape(node, 0));
  if (x.size() > y.size()) return ctx.Invalid(node, "input rank exceeds output rank");
  // Dims may be symbolic: strides through the pool, x's dims matched to y's
  // as broadcasting matched them (stride 0 where x has 1).
  Shape ss;
  if (!emit::BroadcastStrides(x, y, ctx.dims(), &ss)) return ctx.Invalid(node, "input does not broadcast");
  KILN_ASSIGN_OR_RETURN(emit::Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(emit::Binding by, ctx.Bind(node, node.outputs[0]));
  return emit::EmitStridedCopy(ctx, node, bx, by, emit::ElemBytes(ctx, node.inputs[0]), 0, 0, y, ss,
                     emit::ContiguousStrides(y, ctx.dims()));
}

// Output viewed as [rep0, x0, rep1, x1, ...]: the repeat dims read stride 0.
absl::Status LowerTile(emit::LoweringContext& ctx, const ir::Node& node) {
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(auto y, ctx.OutputShape(node, 0));
  // Symbolic dims: the rule left the repeats (kiln.repeats); sizes through the pool.
  const Shape reps = node.GetInts("kiln.repeats", {});
  if (!reps.empty() && reps.size() != x.size()) return ctx.Invalid(node, "repeats are missing");
  ir::DimPool* pool = reps.empty() ? nullptr : &ctx.dims();
  const Shape xs = pool ? emit::ContiguousStrides(x, *pool) : emit::ContiguousStrides(x);
  const Shape ys = pool ? emit::ContiguousStrides(y, *pool) : emit::ContiguousStrides(y);
  Shape dims, ss, ds;
  for (size_t d = 0; d < x.size(); ++d) {
    const int64_t rep = pool ? reps[d] : x[d] == 0 ? 0 : y[d] / x[d];
    dims.insert(dims.end(), {rep, x[d]});
    ss.insert(ss.end(), {0, xs[d]});
    ds.insert(ds.end(), {pool ? pool->Mul(x[d], ys[d]) : x[d] * ys[d], ys[d]});
  }
  KILN_ASSIGN_OR_RETURN(emit::Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(emit::Binding by, ctx.Bind(node, node.outputs[0]));
  return emit::EmitStridedCopy(ctx, node, bx, by, emit::ElemBytes(ctx, node.inputs[0]), 0, 0, dims, ss, ds);
}

// ---- a shape or repeats input known only at run time (shape_rules_runtime.h)

absl::Status ExpandByValue(ShapeRuleContext& c, int64_t count, const RuntimeShapeRule::Shapes& ys) {
  const Shape& y = ys[0];
  const Shape& x = c.S(0);
  bool ok = y.size() == std::max<size_t>(x.size(), static_cast<size_t>(count));
  const size_t off = ok ? y.size() - x.size() : 0;
  for (size_t i = 0; ok && i < x.size(); ++i) ok = x[i] == 1 || x[i] == y[off + i];
  if (!ok) return c.DeclaredMismatch(y, absl::StrCat("is not input ", ir::ShapeStr(x), " expanded"));
  return c.Set(0, c.T(0), y);
}

absl::Status TileByValue(ShapeRuleContext& c, int64_t count, const RuntimeShapeRule::Shapes& ys) {
  const Shape& y = ys[0];
  const Shape& x = c.S(0);
  bool ok = y.size() == x.size() && count == static_cast<int64_t>(x.size());
  for (size_t d = 0; ok && d < x.size(); ++d) ok = x[d] == 0 ? y[d] == 0 : y[d] % x[d] == 0;
  if (!ok) return c.DeclaredMismatch(y, absl::StrCat("is not input ", ir::ShapeStr(x), " tiled"));
  return c.Set(0, c.T(0), y);
}

// Without a declared output shape: the dims shape_resolve reports (EXPAND:
// broadcasting; TILE: dim * repeat), data symbols without a bound where the
// value sets them (an Expand dim the input fixes, a Tile of an empty dim,
// stay static). Their tensors go to the workspace's tail.
absl::Status ExpandAfterRun(ShapeRuleContext& c, int64_t count) {
  const Shape x = c.S(0);
  const int64_t rx = static_cast<int64_t>(x.size()), r = std::max(rx, count);
  Shape fixed;
  for (int64_t p = 0; p < r; ++p) fixed.push_back(p >= r - rx && x[p - (r - rx)] != 1 ? x[p - (r - rx)] : -1);
  const ir::DType dtype = c.T(0);
  KILN_ASSIGN_OR_RETURN(Shape y, ReportedShape(c, fixed));
  return c.Set(0, dtype, std::move(y));
}

absl::Status TileAfterRun(ShapeRuleContext& c, int64_t count) {
  if (count != c.Rank(0)) {
    return c.Err(absl::StrCat("repeats has ", count, " entries for rank ", c.Rank(0)));
  }
  Shape fixed;
  for (int64_t d : c.S(0)) fixed.push_back(d == 0 ? 0 : -1);
  const ir::DType dtype = c.T(0);
  KILN_ASSIGN_OR_RETURN(Shape y, ReportedShape(c, fixed));
  const Shape x = c.S(0);  // the repeats the lowering copies by: y / x, exact
  Shape rep(x.size(), 0);
  for (size_t d = 0; d < x.size(); ++d) {
    if (x[d] != 0) rep[d] = c.graph().dims.FloorDiv(y[d], x[d]);
  }
  c.node().SetInts("kiln.repeats", rep);
  return c.Set(0, dtype, std::move(y));
}

// The shape or repeats input is read as dims.
bool ShapeInputSymbolicValues(size_t input) { return input == 1; }

}  // namespace

void RegisterReplicateOps(std::vector<OpDef>& ops) {
  OpDef expand{"Expand", Expand, /*symbolic=*/true, LowerExpand};
  expand.symbolic_values = ShapeInputSymbolicValues;
  expand.fold = {FoldExpand, FoldRule::Needs::kKnownInputs, 2};
  expand.runtime_shape = {1, 0, RuntimeShapeRule::Value::kIndexVector, ExpandByValue,
                          ExpandAfterRun, false};
  ops.push_back(expand);
  OpDef tile{"Tile", Tile, /*symbolic=*/true, LowerTile};
  tile.symbolic_values = ShapeInputSymbolicValues;
  tile.fold = {FoldTile, FoldRule::Needs::kOwnChecks, 0};
  tile.runtime_shape = {1, 0, RuntimeShapeRule::Value::kIndexVector, TileByValue, TileAfterRun,
                        false};
  ops.push_back(tile);
}

}  // namespace kiln::compiler
