// Ops that read shapes or make tensors from a few numbers: Shape, Size,
// EyeLike, ConstantOfShape and Range (and Constant, which the importer makes
// an initializer). Constant folding evaluates them (passes/fold_eval.cc,
// fold_movement.cc); the shape of symbolic dims becomes a symbolic
// value. ConstantOfShape and Range run as kernels (fill, arange) only when
// sized at run time or by the symbols, and Range with run-time bounds
// (range_count, range).
#include <algorithm>
#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"
#include "compiler/ops/op_def.h"
#include "compiler/passes/constant_folding.h"
#include "compiler/passes/shape_rules_runtime_params.h"
#include "compiler/passes/symbolic_fold.h"

namespace kiln::compiler {
namespace {

using ir::DType;
using Shape = std::vector<int64_t>;

absl::Status ShapeOp(ShapeRuleContext& c) {
  KILN_RETURN_IF_ERROR(c.Need(1));
  const int64_t r = c.Rank(0);
  auto clamp = [r](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + r : v, 0, r); };
  const int64_t start = clamp(c.node().GetInt("start", 0));
  const int64_t end = clamp(c.node().GetInt("end", r));
  return c.Set(0, DType::I64, {std::max<int64_t>(0, end - start)});
}

absl::Status Size(ShapeRuleContext& c) {
  KILN_RETURN_IF_ERROR(c.Need(1));
  return c.Set(0, DType::I64, {});
}

absl::Status EyeLike(ShapeRuleContext& c) {
  KILN_RETURN_IF_ERROR(c.Need(1));
  if (c.Rank(0) != 2) return c.Err("input must be 2-D");
  DType t = c.T(0);
  if (c.node().HasAttr("dtype")) t = ir::DTypeFromOnnx(c.node().GetInt("dtype", 0));
  if (t == DType::Unknown) return c.Err("unsupported dtype");
  return c.Set(0, t, c.S(0));
}

absl::Status ConstantOfShape(ShapeRuleContext& c) {
  KILN_RETURN_IF_ERROR(c.Need(1));
  std::vector<int64_t> shape;
  // The shape may be a symbolic value (torch.zeros(x.shape[0], 4)): its
  // elements are the output's dims.
  KILN_RETURN_IF_ERROR(c.KnownInts(0, "shape", &shape, /*allow_symbolic=*/true));
  // A plain constant may hold a value in the encoded range: never a dim.
  for (int64_t d : shape) {
    if (d < 0 && !c.C(0)->symbolic) {
      return c.Err(absl::StrCat("computed an invalid output shape ", ir::ShapeStr(shape)));
    }
  }
  DType dtype = DType::F32;
  auto it = c.node().attributes.find("value");
  if (it != c.node().attributes.end() && it->second.tensor) {
    if (it->second.tensor->element_count() != 1) return c.Err("value must hold one element");
    dtype = it->second.tensor->dtype;
  }
  return c.Set(0, dtype, std::move(shape));
}

// Range over bounds computed from the symbols (torch.arange(S), or
// arange(P, P + S) past a cache): an integer Range with a constant delta;
// its length max(ceil((limit - start) / delta), 0) is a dim of the pool.
absl::Status SymbolicRange(ShapeRuleContext& c, const ir::ConstantData& start, const ir::ConstantData& limit,
                           const ir::ConstantData& delta) {
  if (start.dtype != DType::I64 && start.dtype != DType::I32) {
    return c.Err("a start or limit computed from symbolic dimensions must be an integer");
  }
  if (delta.symbolic) return c.Err("delta computed from symbolic dimensions is not supported");
  // A plain constant may hold a value in the encoded range: never a dim.
  for (const ir::ConstantData* v : {&start, &limit}) {
    if (!v->symbolic && ir::IsSymbolic(v->IntAt(0))) return c.Err("start or limit is out of range");
  }
  const int64_t d = delta.IntAt(0);
  if (d == 0) return c.Err("delta is zero");
  if (d == INT64_MIN) return c.Err("delta is out of range");
  ir::DimPool& dims = c.dims();
  const int64_t span = d > 0 ? dims.Sub(limit.IntAt(0), start.IntAt(0))
                             : dims.Sub(start.IntAt(0), limit.IntAt(0));
  const int64_t n = dims.Max(dims.CeilDiv(span, d > 0 ? d : -d), 0);
  if (!dims.ok()) return c.Err("symbolic shape arithmetic overflows");
  return c.Set(0, c.T(0), {n});
}

absl::Status Range(ShapeRuleContext& c) {
  KILN_RETURN_IF_ERROR(c.Need(3));
  const ir::ConstantData *start = c.C(0), *limit = c.C(1), *delta = c.C(2);
  // A bound cast to int32 from a symbolic size keeps its dims (marked for
  // the lowering, which sees the cast's input materialized by then).
  if (!start || !limit) {
    if (!start) start = SymbolicSizeThroughCast(c.graph(), c.node().inputs[0], c.known());
    if (!limit) limit = SymbolicSizeThroughCast(c.graph(), c.node().inputs[1], c.known());
    if (start && limit) c.node().SetInt("kiln.bounds_through_cast", 1);
  }
  if (!start || !limit || !delta) {
    return c.Err("start, limit and delta must be known at compile time");
  }
  if (start->element_count() != 1 || limit->element_count() != 1 || delta->element_count() != 1) {
    return c.Err("start, limit and delta must be scalars");
  }
  if (start->symbolic || limit->symbolic || delta->symbolic) {
    return SymbolicRange(c, *start, *limit, *delta);
  }
  const bool is_float = start->dtype == DType::F32 || start->dtype == DType::F64;
  int64_t n;
  if (is_float) {
    const double d = delta->FloatAt(0);
    if (d == 0) return c.Err("delta is zero");
    const double count = std::ceil((limit->FloatAt(0) - start->FloatAt(0)) / d);
    if (std::isnan(count) || count > static_cast<double>(c.kMaxDim)) {
      return c.Err("start, limit and delta give no finite element count within the limits");
    }
    n = count > 0 ? static_cast<int64_t>(count) : 0;
  } else {
    const int64_t d = delta->IntAt(0);
    if (d == 0) return c.Err("delta is zero");
    // In 128 bits: limit - start and its negation overflow int64 at the ends.
    const __int128 span = static_cast<__int128>(limit->IntAt(0)) - start->IntAt(0);
    const __int128 count = d > 0 ? (span + d - 1) / d : (-span + (-static_cast<__int128>(d)) - 1) / -static_cast<__int128>(d);
    if (count > c.kMaxDim) return c.Err("start, limit and delta give more elements than the limits allow");
    n = count > 0 ? static_cast<int64_t>(count) : 0;
  }
  return c.Set(0, c.T(0), {std::max<int64_t>(n, 0)});
}

// ---- a shape input known only at run time (shape_rules_runtime.h)

absl::Status ConstantOfShapeByValue(ShapeRuleContext& c, int64_t count, const RuntimeShapeRule::Shapes& ys) {
  const Shape& y = ys[0];
  if (count != static_cast<int64_t>(y.size())) {
    return c.DeclaredMismatch(y, absl::StrCat("has not the ", count, " dims of the shape input"));
  }
  DType dtype = DType::F32;
  auto it = c.node().attributes.find("value");
  if (it != c.node().attributes.end() && it->second.tensor) {
    if (it->second.tensor->element_count() != 1) return c.Err("value must hold one element");
    dtype = it->second.tensor->dtype;
  }
  return c.Set(0, dtype, y);
}

// Without a declared output shape: every dim a data symbol shape_resolve
// reports (EXACT: the values), without a bound; the tensor goes to the
// workspace's tail.
absl::Status ConstantOfShapeAfterRun(ShapeRuleContext& c, int64_t count) {
  DType dtype = DType::F32;
  auto it = c.node().attributes.find("value");
  if (it != c.node().attributes.end() && it->second.tensor) {
    if (it->second.tensor->element_count() != 1) return c.Err("value must hold one element");
    dtype = it->second.tensor->dtype;
  }
  KILN_ASSIGN_OR_RETURN(Shape y, ReportedShape(c, Shape(static_cast<size_t>(count), -1)));
  return c.Set(0, dtype, std::move(y));
}

// ---- parameter values known only at run time (shape_rules_runtime_params.h)

absl::Status RangeByValue(ShapeRuleContext& c, const Shape& y) {
  KILN_RETURN_IF_ERROR(c.Need(3));
  const DType t = c.T(0);
  if (t != DType::F32 && t != DType::F64 && t != DType::I16 && t != DType::I32 &&
      t != DType::I64) {
    return c.Err(absl::StrCat("unsupported dtype ", ir::DTypeName(t)));
  }
  for (size_t k = 0; k < 3; ++k) {
    if (c.T(k) != t || ir::ElementCount(c.S(k)) != 1 || c.Rank(k) > 1) {
      return c.Err("start, limit and delta must be scalars of one dtype");
    }
  }
  if (y.size() != 1) return c.DeclaredMismatch(y, "is not 1-D");
  return c.Set(0, t, y);
}

// Range without a declared output shape: its length is a data symbol
// range_count reports, without a bound.
absl::Status RangeAfterRun(ShapeRuleContext& c) {
  KILN_RETURN_IF_ERROR(RangeByValue(c, Shape{0}));  // checks the inputs
  const DType t = c.T(0);
  KILN_ASSIGN_OR_RETURN(const ir::ValueId dims, c.ReportedDimsOutput(1, 1));
  return c.Set(0, t, {c.ReportedDim(dims, 0, ir::kNoBound, 0, ".length")});
}

absl::Status LowerRange(emit::LoweringContext& ctx, const ir::Node& node) {
  if (HasRuntimeParams(ctx.graph(), node)) return emit::LowerRangeRt(ctx, node);
  return emit::LowerSymbolicRange(ctx, node);
}

}  // namespace

// Shape and Size read only the shape of a shape value; ConstantOfShape reads
// its input as dims, Range its start and limit.
void RegisterShapeValueOps(std::vector<OpDef>& ops) {
  OpDef shape{"Shape", ShapeOp, /*symbolic=*/true, nullptr};
  shape.no_kernel = "evaluated at compile time (of symbolic dims: a symbolic value)";
  shape.symbolic_values = SymbolicValueAtFirst;
  shape.fold_only = true;
  shape.fold = {FoldShape, FoldRule::Needs::kShapes, 0};
  ops.push_back(shape);
  OpDef size{"Size", Size, /*symbolic=*/true, nullptr};
  size.no_kernel = "evaluated at compile time (of symbolic dims: a symbolic value)";
  size.symbolic_values = SymbolicValueAtFirst;
  size.fold = {FoldSize, FoldRule::Needs::kOwnChecks, 0};
  ops.push_back(size);
  OpDef eye{"EyeLike", EyeLike, /*symbolic=*/false, nullptr};
  eye.no_kernel = "evaluated at compile time from its input's shape";
  eye.fold = {FoldEyeLike, FoldRule::Needs::kOwnChecks, 0};
  ops.push_back(eye);
  OpDef fill{"ConstantOfShape", ConstantOfShape, /*symbolic=*/true, emit::LowerConstantOfShape};
  fill.symbolic_values = SymbolicValueAtFirst;
  fill.fold_only = true;
  fill.fold = {FoldConstantOfShape, FoldRule::Needs::kKnownInputs, 1};
  fill.runtime_shape = {0, 0, RuntimeShapeRule::Value::kIndexVector, ConstantOfShapeByValue,
                        ConstantOfShapeAfterRun, false};
  ops.push_back(fill);
  OpDef range{"Range", Range, /*symbolic=*/true, LowerRange};
  range.symbolic_values = SymbolicValueAtFirstTwo;
  range.fold_only = true;
  range.fold = {FoldRange, FoldRule::Needs::kKnownInputs, 3};
  range.runtime_params = {0, 2, 0, RangeByValue, RangeAfterRun, false, false,
                          /*bounds_through_cast=*/true};
  ops.push_back(range);
  OpDef constant{"Constant", nullptr, /*symbolic=*/false, nullptr};
  constant.no_kernel = "an initializer once imported (frontend/onnx_importer.cc)";
  ops.push_back(constant);
}

}  // namespace kiln::compiler
