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

using Rule = std::function<absl::Status(Ctx&)>;

const std::map<std::string, Rule>& Rules() {
  static const auto* rules = new std::map<std::string, Rule>{
      {"Dropout", Dropout},
      {"Shape", ShapeOp}, {"Gather", Gather}, {"ConstantOfShape", ConstantOfShape},
      {"Range", Range},
  };
  return *rules;
}

}  // namespace

namespace {

}  // namespace

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
