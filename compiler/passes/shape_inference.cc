#include "compiler/passes/shape_inference.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/ir/graph_util.h"
#include "compiler/ops/op_registry.h"
#include "compiler/passes/shape_rule_context.h"
#include "compiler/passes/constant_folding.h"
#include "compiler/passes/shape_rules_math.h"
#include "compiler/passes/shape_rules_movement.h"
#include "compiler/passes/shape_rules_runtime.h"
#include "compiler/passes/shape_rules_runtime_params.h"
#include "compiler/passes/shape_rules_resize_rt.h"
#include "compiler/passes/control_flow.h"
#include "compiler/passes/shape_rules_data_dependent.h"
#include "compiler/passes/shape_rules_dropout.h"
#include "compiler/passes/symbolic_fold.h"
#include "compiler/passes/symbolic_support.h"
#include "compiler/passes/norm_expand.h"
#include "compiler/passes/shape_rules_training.h"

namespace kiln::compiler {
namespace {

using ir::ConstantData;
using ir::DType;
using ir::ShapeStr;
using Shape = std::vector<int64_t>;

// Per-node view with the helpers every rule needs.
using Ctx = ShapeRuleContext;

absl::Status Dropout(Ctx& c) { return InferDropout(c); }  // shape_rules_dropout.cc

// ---- shape manipulation ---------------------------------------------------

absl::Status Flatten(Ctx& c) {
  KILN_RETURN_IF_ERROR(c.Need(1));
  const Shape& x = c.S(0);
  const int64_t r = c.Rank(0);
  int64_t axis = c.node().GetInt("axis", 1);
  if (axis < -r || axis > r) return c.Err(absl::StrCat("axis ", axis, " is out of range for rank ", r));
  if (axis < 0) axis += r;
  return c.Set(0, c.T(0), {c.dims().Product(Shape(x.begin(), x.begin() + axis)),
                           c.dims().Product(Shape(x.begin() + axis, x.end()))});
}

absl::Status Reshape(Ctx& c) {
  KILN_RETURN_IF_ERROR(c.Need(2));
  std::vector<int64_t> spec;
  KILN_RETURN_IF_ERROR(c.KnownInts(1, "shape", &spec, /*allow_symbolic=*/true));
  const Shape& x = c.S(0);
  const bool allowzero = c.node().GetInt("allowzero", 0) != 0;
  ir::DimPool& dims = c.dims();
  const std::string spec_text = SymbolicShapeStr(c.graph(), spec);
  Shape out;
  int64_t infer_at = -1, known = 1;
  for (size_t i = 0; i < spec.size(); ++i) {
    int64_t d = spec[i];
    if (d == 0 && !allowzero) {
      if (i >= x.size()) {
        return c.Err(absl::StrCat("shape ", spec_text, " copies dimension ", i,
                                  " which input ", SymbolicShapeStr(c.graph(), x), " lacks"));
      }
      d = x[i];
    }
    if (d == -1) {
      if (infer_at >= 0) return c.Err(absl::StrCat("shape ", spec_text, " has two -1"));
      infer_at = static_cast<int64_t>(i);
    } else if (d < 0 && !dims.Known(d)) {
      return c.Err(absl::StrCat("shape ", spec_text, " has invalid entry ", d));
    } else {
      if (!dims.Known(d) && !dims.Known(known) && d != 0 &&
          known > std::numeric_limits<int64_t>::max() / d) {
        return c.Err(absl::StrCat("shape ", spec_text, " has more elements than int64 holds"));
      }
      known = dims.Mul(known, d);
    }
    out.push_back(d);
  }
  // Element counts compare exactly, symbolic ones as canonical expressions.
  const int64_t total = dims.Product(x);
  if (infer_at >= 0) {
    const int64_t inferred = known == 0 ? 0 : dims.FloorDiv(total, known);
    if (known == 0 || dims.Mul(inferred, known) != total) {
      return c.Err(absl::StrCat("cannot reshape ", SymbolicShapeStr(c.graph(), x), " to ",
                                spec_text));
    }
    out[infer_at] = inferred;
  } else if (known != total) {
    return c.Err(absl::StrCat("cannot reshape ", SymbolicShapeStr(c.graph(), x), " (",
                              dims.ToString(total), " elements) to ", spec_text));
  }
  return c.Set(0, c.T(0), std::move(out));
}

absl::Status AxesFor(Ctx& c, std::vector<int64_t>* axes, bool* present) {
  if (c.opset() >= 13) {
    *present = c.Has(1);
    if (*present) return c.KnownInts(1, "axes", axes);
    return absl::OkStatus();
  }
  *present = c.node().HasAttr("axes");
  *axes = c.node().GetInts("axes", {});
  return absl::OkStatus();
}

absl::Status Squeeze(Ctx& c) {
  KILN_RETURN_IF_ERROR(c.Need(1));
  std::vector<int64_t> axes;
  bool present;
  KILN_RETURN_IF_ERROR(AxesFor(c, &axes, &present));
  const Shape& x = c.S(0);
  std::set<int64_t> drop;
  if (!present) {
    for (size_t i = 0; i < x.size(); ++i) if (x[i] == 1) drop.insert(static_cast<int64_t>(i));
  }
  for (int64_t a : axes) {
    int64_t ax = 0;
    KILN_RETURN_IF_ERROR(c.Axis(a, c.Rank(0), &ax));
    if (x[ax] != 1 && !ir::IsSymbolic(x[ax])) {
      return c.Err(absl::StrCat("cannot squeeze axis ", a, " of size ", c.dims().ToString(x[ax]),
                                " in ", SymbolicShapeStr(c.graph(), x)));
    }
    // A symbolic length: it must be 1, checked at run time.
    if (x[ax] != 1) c.dims().AssumeEqual(x[ax], 1);
    drop.insert(ax);
  }
  Shape out;
  for (size_t i = 0; i < x.size(); ++i) if (!drop.count(static_cast<int64_t>(i))) out.push_back(x[i]);
  return c.Set(0, c.T(0), std::move(out));
}

absl::Status Unsqueeze(Ctx& c) {
  KILN_RETURN_IF_ERROR(c.Need(1));
  std::vector<int64_t> axes;
  bool present;
  KILN_RETURN_IF_ERROR(AxesFor(c, &axes, &present));
  if (!present) return c.Err("axes are required");
  const Shape& x = c.S(0);
  const int64_t r = static_cast<int64_t>(x.size() + axes.size());
  std::set<int64_t> add;
  for (int64_t a : axes) {
    int64_t ax = 0;
    KILN_RETURN_IF_ERROR(c.Axis(a, r, &ax));
    if (!add.insert(ax).second) return c.Err(absl::StrCat("axis ", a, " is repeated"));
  }
  Shape out;
  size_t next = 0;
  for (int64_t i = 0; i < r; ++i) out.push_back(add.count(i) ? 1 : x[next++]);
  return c.Set(0, c.T(0), std::move(out));
}

absl::Status ShapeOp(Ctx& c) {
  KILN_RETURN_IF_ERROR(c.Need(1));
  const int64_t r = c.Rank(0);
  auto clamp = [r](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + r : v, 0, r); };
  const int64_t start = clamp(c.node().GetInt("start", 0));
  const int64_t end = clamp(c.node().GetInt("end", r));
  return c.Set(0, DType::I64, {std::max<int64_t>(0, end - start)});
}

absl::Status Gather(Ctx& c) {
  KILN_RETURN_IF_ERROR(c.Need(2));
  if (c.T(1) != DType::I64 && c.T(1) != DType::I32) return c.Err("indices must be int32/int64");
  if (c.Rank(0) == 0) return c.Err("data must have rank >= 1");
  int64_t axis = 0;
  KILN_RETURN_IF_ERROR(c.Axis(c.node().GetInt("axis", 0), c.Rank(0), &axis));
  const Shape& x = c.S(0);
  Shape out(x.begin(), x.begin() + axis);
  out.insert(out.end(), c.S(1).begin(), c.S(1).end());
  out.insert(out.end(), x.begin() + axis + 1, x.end());
  // Constant indices are checked now when the axis is static (the kernel
  // checks every index at run time anyway).
  if (const ConstantData* idx = c.C(1); idx && !ir::IsSymbolic(x[axis])) {
    for (int64_t i = 0; i < idx->element_count(); ++i) {
      const int64_t v = idx->IntAt(i);
      if (v < -x[axis] || v >= x[axis]) {
        return c.Err(absl::StrCat("index ", v, " is out of range for axis ", axis, " of ",
                                  ShapeStr(x)));
      }
    }
  }
  return c.Set(0, c.T(0), std::move(out));
}

absl::Status Slice(Ctx& c, const ir::Graph& g, const std::vector<ir::ConstantPtr>& known) {
  KILN_RETURN_IF_ERROR(c.Need(3));
  for (size_t k = 1; k < 5; ++k) {
    if (c.Has(k) && !c.C(k)) {
      return c.Err(absl::StrCat("input '", c.In(k).name,
                                "' is not known at compile time (dynamic slices are not supported)"));
    }
  }
  Shape starts, steps, out;
  absl::Status s = SliceParams(g, c.node(), known, c.S(0), &starts, &steps, &out);
  if (!s.ok()) return c.Err(std::string(s.message()));
  return c.Set(0, c.T(0), std::move(out));
}

absl::Status ConstantOfShape(Ctx& c) {
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
absl::Status SymbolicRange(Ctx& c, const ConstantData& start, const ConstantData& limit,
                           const ConstantData& delta) {
  if (start.dtype != DType::I64 && start.dtype != DType::I32) {
    return c.Err("a start or limit computed from symbolic dimensions must be an integer");
  }
  if (delta.symbolic) return c.Err("delta computed from symbolic dimensions is not supported");
  // A plain constant may hold a value in the encoded range: never a dim.
  for (const ConstantData* v : {&start, &limit}) {
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

absl::Status Range(Ctx& c) {
  KILN_RETURN_IF_ERROR(c.Need(3));
  const ConstantData *start = c.C(0), *limit = c.C(1), *delta = c.C(2);
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

absl::Status Expand(Ctx& c) {
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

using Rule = std::function<absl::Status(Ctx&)>;

const std::map<std::string, Rule>& Rules() {
  static const auto* rules = new std::map<std::string, Rule>{
      {"Identity", ElementwiseSameShape}, {"Dropout", Dropout},
      {"Flatten", Flatten}, {"Reshape", Reshape},
      {"Squeeze", Squeeze}, {"Unsqueeze", Unsqueeze},
      {"Shape", ShapeOp}, {"Gather", Gather}, {"ConstantOfShape", ConstantOfShape},
      {"Range", Range}, {"Expand", Expand},
  };
  return *rules;
}

}  // namespace

namespace {

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
    const ConstantData* c = KnownValue(graph, node.inputs[k], known);
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
      return absl::InvalidArgumentError(absl::StrCat("axis ", a, " is out of range for ", ShapeStr(x)));
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

absl::Status InferNodeShapes(ir::Graph& graph, ir::NodeId id,
                             const std::vector<ir::ConstantPtr>& known) {
  ir::Node& node = graph.nodes[id];
  Ctx c(graph, node, known);
  if (absl::Status s; InferTrainingShapes(graph, node, known, &s)) return s;  // shape_rules_training.cc
  if (!node.domain.empty() && node.domain != "ai.onnx") {
    return c.Err("ops outside the default ONNX domain are not supported");
  }
  if (absl::Status s; InferControlFlowShapes(graph, node, known, &s)) return s;  // control_flow.cc
  KILN_RETURN_IF_ERROR(CheckSymbolicSupport(graph, node, &known));
  if (absl::Status s; InferRuntimeResize(graph, node, known, &s)) return s;  // shape_rules_resize_rt.cc
  if (absl::Status s; InferRuntimeShapeInput(graph, node, known, &s)) return s;  // shape_rules_runtime.cc
  if (absl::Status s; InferRuntimeParams(graph, node, known, &s)) return s;  // shape_rules_runtime_params.cc
  if (absl::Status s; InferDataDependent(graph, node, known, &s)) return s;  // shape_rules_data_dependent.cc
  if (node.op_type == "Slice") return Slice(c, graph, known);
  if (const OpDef* def = FindOpDef(node); def != nullptr && def->shape != nullptr) {
    return def->shape(c);  // compiler/ops/
  }
  if (absl::Status s; InferMathShapes(graph, node, known, &s)) return s;  // shape_rules_math.cc
  if (absl::Status s; InferMovementShapes(graph, node, known, &s)) return s;  // shape_rules_movement.cc
  auto it = Rules().find(node.op_type);
  if (it == Rules().end()) {
    for (ir::ValueId out : node.outputs) {
      if (out != ir::kNoValue && !graph.value(out).has_shape) {
        return c.Err("no shape inference rule for this op");
      }
    }
    return absl::OkStatus();
  }
  return it->second(c);
}

absl::Status InferShapes(ir::Graph& graph) {
  return PropagateShapesAndConstants(graph, /*commit=*/false);
}

}  // namespace kiln::compiler
