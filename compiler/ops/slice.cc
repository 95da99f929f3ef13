// Slice: starts, ends, axes and steps (inputs from opset 10, attributes
// before), clamped as ONNX defines; bounds may be symbolic (x[:, :S]) and
// steps negative (read through negative source strides). Lowered to one
// strided_copy, or with bounds known only at run time to slice_rt (which
// checks them against the declared output shape). Constant inputs fold
// (passes/fold_eval.cc).
#include "compiler/ops/slice.h"

#include <algorithm>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "compiler/ops/op_def.h"
#include "compiler/passes/shape_rules_runtime_params.h"

namespace kiln::compiler {
namespace {

using Shape = std::vector<int64_t>;

// One axis of a Slice where the dim or a bound is symbolic: a positive step,
// and bounds that are static or known non-negative (a symbolic bound like S
// is clamped to the dim with a run-time minimum).
absl::Status SymbolicSliceAxis(ir::DimPool& dims, int64_t d, int64_t start, int64_t end,
                               int64_t step, int64_t* start_out, int64_t* len_out) {
  if (step == INT64_MIN) {
    return absl::UnimplementedError("a step of INT64_MIN over a symbolic dim is not supported");
  }
  if (step < 0) {
    // Backwards (x[::-1]): start clamps to [0, d - 1], end to [-1, d - 1],
    // as ONNX defines it; the length is ceil((start - end) / -step), or 0.
    const int64_t last = dims.Sub(d, 1);
    auto clamp_back = [&](int64_t v, int64_t lowest) -> absl::StatusOr<int64_t> {
      if (dims.Known(v)) {
        if (!dims.KnownNonNegative(v)) {
          return absl::UnimplementedError(absl::StrCat("slice bound ", dims.ToString(v),
                                                       " may be negative"));
        }
        return dims.Min(v, last);
      }
      if (v >= ShapeRuleContext::kMaxDim) return last;
      if (v <= -ShapeRuleContext::kMaxDim) return lowest;
      if (v < 0) return dims.Min(dims.Max(dims.Add(d, v), lowest), last);
      return dims.Min(v, last);
    };
    absl::StatusOr<int64_t> s = clamp_back(start, 0), e = clamp_back(end, -1);
    if (!s.ok()) return s.status();
    if (!e.ok()) return e.status();
    *start_out = *s;
    *len_out = dims.Max(dims.CeilDiv(dims.Sub(*s, *e), -step), 0);
    return dims.ok() ? absl::OkStatus()
                     : absl::InvalidArgumentError("symbolic slice arithmetic overflows");
  }
  auto clamp = [&](int64_t v) -> absl::StatusOr<int64_t> {
    if (dims.Known(v)) {
      if (!dims.KnownNonNegative(v)) {
        return absl::UnimplementedError(absl::StrCat("slice bound ", dims.ToString(v),
                                                     " may be negative"));
      }
      return dims.Min(v, d);
    }
    if (v >= ShapeRuleContext::kMaxDim) return d;  // "to the end" (INT64_MAX and the like)
    if (v <= -ShapeRuleContext::kMaxDim) return 0;  // "from the start" (INT64_MIN, ...)
    if (v < 0) return dims.Min(dims.Max(dims.Add(d, v), 0), d);
    return dims.Min(v, d);
  };
  absl::StatusOr<int64_t> s = clamp(start), e = clamp(end);
  if (!s.ok()) return s.status();
  if (!e.ok()) return e.status();
  const int64_t span = dims.Sub(*e, *s);
  const int64_t len = dims.CeilDiv(span, step);
  *start_out = *s;
  *len_out = dims.KnownNonNegative(span) ? len : dims.Max(len, 0);
  return dims.ok() ? absl::OkStatus()
                   : absl::InvalidArgumentError("symbolic slice arithmetic overflows");
}

}  // namespace

absl::Status SliceParams(const ir::Graph& graph, const ir::Node& node,
                         const std::vector<ir::ConstantPtr>& known, const Shape& x,
                         Shape* starts_out, Shape* steps_out, Shape* out_shape) {
  bool symbolic_bounds = false;
  auto get = [&](size_t k, Shape* out) -> bool {
    if (k >= node.inputs.size() || node.inputs[k] == ir::kNoValue) return false;
    const ir::ConstantData* c = KnownValue(graph, node.inputs[k], known);
    if (c != nullptr && c->symbolic && k <= 2) symbolic_bounds = true;
    out->clear();
    for (int64_t i = 0; c && i < c->element_count(); ++i) out->push_back(c->IntAt(i));
    return c != nullptr;
  };
  const int64_t r = static_cast<int64_t>(x.size());
  Shape starts, ends, axes, steps;
  if (!get(1, &starts) || !get(2, &ends)) {
    return absl::InvalidArgumentError("starts and ends must be known at compile time");
  }
  if (!get(3, &axes)) {
    axes.clear();
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  }
  if (!get(4, &steps)) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size()) {
    return absl::InvalidArgumentError("starts, ends, axes and steps must have equal lengths");
  }
  *out_shape = x;
  starts_out->assign(x.size(), 0);
  steps_out->assign(x.size(), 1);
  std::set<int64_t> seen;
  for (size_t i = 0; i < starts.size(); ++i) {
    int64_t a = axes[i];
    if (a < -r || a >= r) {
      return absl::InvalidArgumentError(absl::StrCat("axis ", a, " is out of range for ", ir::ShapeStr(x)));
    }
    if (a < 0) a += r;
    if (!seen.insert(a).second) return absl::InvalidArgumentError(absl::StrCat("axis ", a, " repeats"));
    const int64_t d = x[a], step = steps[i];
    if (step == 0) return absl::InvalidArgumentError("step is zero");
    // Bounds count as symbolic only from a symbolic value (a static bound may
    // be INT64_MIN, inside the encoded range); steps are never symbolic.
    if (ir::IsSymbolic(d) || (symbolic_bounds && (graph.dims.Known(starts[i]) ||
                                                  graph.dims.Known(ends[i])))) {
      KILN_RETURN_IF_ERROR(SymbolicSliceAxis(graph.dims, d, starts[i], ends[i], step,
                                             &(*starts_out)[a], &(*out_shape)[a]));
      (*steps_out)[a] = step;
      continue;
    }
    int64_t s = starts[i], e = ends[i];
    if (s < 0) s += d;
    if (e < 0) e += d;
    int64_t len;
    if (step > 0) {
      s = std::clamp<int64_t>(s, 0, d);
      e = std::clamp<int64_t>(e, 0, d);
      len = e > s ? CeilDiv(e - s, step) : 0;
    } else {
      s = std::clamp<int64_t>(s, 0, d - 1);
      e = std::clamp<int64_t>(e, -1, d - 1);
      // |INT64_MIN| does not fit; any step that large takes one element.
      len = s > e ? CeilDiv(s - e, step == INT64_MIN ? INT64_MAX : -step) : 0;
    }
    (*starts_out)[a] = s;
    (*steps_out)[a] = step;
    (*out_shape)[a] = len;
  }
  return absl::OkStatus();
}

namespace {

absl::Status SliceShape(ShapeRuleContext& c) {
  KILN_RETURN_IF_ERROR(c.Need(3));
  for (size_t k = 1; k < 5; ++k) {
    if (c.Has(k) && !c.C(k)) {
      return c.Err(absl::StrCat("input '", c.In(k).name,
                                "' is not known at compile time (dynamic slices are not supported)"));
    }
  }
  Shape starts, steps, out;
  absl::Status s = SliceParams(c.graph(), c.node(), c.known(), c.S(0), &starts, &steps, &out);
  if (!s.ok()) return c.Err(std::string(s.message()));
  return c.Set(0, c.T(0), std::move(out));
}

absl::Status LowerSlice(emit::LoweringContext& ctx, const ir::Node& node) {
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(auto y, ctx.OutputShape(node, 0));
  Shape starts, steps, out;
  absl::Status s = SliceParams(ctx.graph(), node, {}, x, &starts, &steps, &out);
  if (!s.ok()) return ctx.Invalid(node, std::string(s.message()));
  if (out != y) return ctx.Invalid(node, "slice geometry disagrees with the output shape");
  ir::DimPool& dims = ctx.dims();  // bounds and dims may be symbolic
  const Shape xs = emit::ContiguousStrides(x, dims);
  Shape ss(x.size());
  int64_t off = 0;
  for (size_t d = 0; d < x.size(); ++d) {
    if (ir::IsSymbolic(y[d]) || y[d] > 0) off = dims.Add(off, dims.Mul(starts[d], xs[d]));
    ss[d] = dims.Mul(steps[d], xs[d]);
  }
  KILN_ASSIGN_OR_RETURN(emit::Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(emit::Binding by, ctx.Bind(node, node.outputs[0]));
  return emit::EmitStridedCopy(ctx, node, bx, by, emit::ElemBytes(ctx, node.inputs[0]), off, 0, y, ss,
                     emit::ContiguousStrides(y, dims));
}

// ---- parameter values known only at run time (shape_rules_runtime_params.h)

absl::Status SliceByValue(ShapeRuleContext& c, const Shape& y) {
  KILN_RETURN_IF_ERROR(c.Need(3));
  const Shape& x = c.S(0);
  int64_t n = -1;
  const char* names[] = {"", "starts", "ends", "axes", "steps"};
  for (size_t k = 1; k < 5; ++k) {
    if (c.Has(k)) KILN_RETURN_IF_ERROR(c.IndexVector(k, names[k], &n));
  }
  if (n > c.Rank(0)) return c.Err(absl::StrCat("starts has ", n, " entries for rank ", c.Rank(0)));
  bool ok = y.size() == x.size();
  for (size_t d = 0; ok && d < x.size(); ++d) ok = y[d] <= x[d];
  if (!ok) return c.DeclaredMismatch(y, absl::StrCat("is not a slice of input ", ir::ShapeStr(x)));
  return c.Set(0, c.T(0), y);
}

// Slice shaped after the run: each dim at most the input's.
absl::Status SliceAfterRun(ShapeRuleContext& c) {
  KILN_RETURN_IF_ERROR(SliceByValue(c, c.S(0)));
  return c.DimsAfterRun(c.T(0), c.S(0));
}

absl::Status LowerSliceOp(emit::LoweringContext& ctx, const ir::Node& node) {
  if (HasRuntimeParams(ctx.graph(), node)) return emit::LowerSliceRt(ctx, node);
  return LowerSlice(ctx, node);
}

// The data and its bounds may be shape values (x[:, :S], Shape(x)[1:]).
bool SliceSymbolicValues(size_t input) { return input <= 2; }

}  // namespace

void RegisterSliceOps(std::vector<OpDef>& ops) {
  OpDef slice{"Slice", SliceShape, /*symbolic=*/true, LowerSliceOp};
  slice.symbolic_values = SliceSymbolicValues;
  slice.fold = {FoldSlice, FoldRule::Needs::kKnownInputs, 1};
  // starts, ends, axes, steps: inputs from opset 10.
  slice.runtime_params = {1, 4, 10, SliceByValue, SliceAfterRun, false, false, false};
  ops.push_back(slice);
}

}  // namespace kiln::compiler
