#include "compiler/passes/shape_rules_runtime_params.h"

#include <algorithm>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "compiler/ir/graph_util.h"
#include "compiler/passes/known_elements.h"
#include "compiler/passes/shape_rule_context.h"
#include "compiler/passes/symbolic_fold.h"

namespace kiln::compiler {
namespace {

using ir::DType;
using ir::ShapeStr;
using Shape = std::vector<int64_t>;
using Ctx = ShapeRuleContext;

bool IsReduce(const std::string& op) {
  return op == "ReduceSum" || op == "ReduceMean" || op == "ReduceMax" || op == "ReduceMin" ||
         op == "ReduceProd" || op == "ReduceL1" || op == "ReduceL2" || op == "ReduceLogSum" ||
         op == "ReduceLogSumExp" || op == "ReduceSumSquare";
}

// The parameter inputs [first, last] of the ops handled here; false for
// other ops. Pad takes its pads as an input from opset 11.
bool ParamRange(const ir::Graph& graph, const ir::Node& node, size_t* first, size_t* last) {
  if (!node.domain.empty() && node.domain != "ai.onnx") return false;
  const std::string& op = node.op_type;
  if (op == "Slice" && graph.opset >= 10) *first = 1, *last = 4;
  else if (op == "Pad" && graph.opset >= 11) *first = 1, *last = 3;
  else if (IsReduce(op)) *first = 1, *last = 1;
  else if (op == "Range") *first = 0, *last = 2;
  else return false;
  return true;
}

// A Reduce*'s axes input is present with a known shape of no elements.
bool EmptyAxes(const ir::Graph& graph, const ir::Node& node) {
  if (node.inputs.size() < 2 || node.inputs[1] == ir::kNoValue) return false;
  const ir::Value& v = graph.value(node.inputs[1]);
  return v.has_shape && ir::ElementCount(v.shape) == 0;
}

bool IsIndex(DType t) { return t == DType::I64 || t == DType::I32; }

// Input k, when present, is a 1-D int32/int64 tensor of `count` entries
// (count < 0: any length, returned in *count).
absl::Status IndexVector(Ctx& c, size_t k, const char* what, int64_t* count) {
  if (!IsIndex(c.T(k)) || c.Rank(k) != 1) {
    return c.Err(absl::StrCat(what, " input '", c.In(k).name, "' must be a 1-D int64/int32 "
                              "tensor, got ", ir::DTypeName(c.T(k)), " ", ShapeStr(c.S(k))));
  }
  const int64_t n = c.S(k)[0];
  if (*count >= 0 && n != *count) {
    return c.Err(absl::StrCat(what, " input '", c.In(k).name, "' has ", n, " entries, not ",
                              *count));
  }
  *count = n;
  return absl::OkStatus();
}

absl::Status Mismatch(Ctx& c, const Shape& y, const std::string& why) {
  return c.Err(absl::StrCat("the declared output shape ", ShapeStr(y), " ", why));
}

absl::Status Slice(Ctx& c, const Shape& y) {
  KILN_RETURN_IF_ERROR(c.Need(3));
  const Shape& x = c.S(0);
  int64_t n = -1;
  const char* names[] = {"", "starts", "ends", "axes", "steps"};
  for (size_t k = 1; k < 5; ++k) {
    if (c.Has(k)) KILN_RETURN_IF_ERROR(IndexVector(c, k, names[k], &n));
  }
  if (n > c.Rank(0)) return c.Err(absl::StrCat("starts has ", n, " entries for rank ", c.Rank(0)));
  bool ok = y.size() == x.size();
  for (size_t d = 0; ok && d < x.size(); ++d) ok = y[d] <= x[d];
  if (!ok) return Mismatch(c, y, absl::StrCat("is not a slice of input ", ShapeStr(x)));
  return c.Set(0, c.T(0), y);
}

absl::Status Pad(Ctx& c, const Shape& y) {
  KILN_RETURN_IF_ERROR(c.Need(2));
  const Shape& x = c.S(0);
  int64_t n = c.Has(3) ? -1 : c.Rank(0), pads = -1;
  if (c.Has(3)) KILN_RETURN_IF_ERROR(IndexVector(c, 3, "axes", &n));
  KILN_RETURN_IF_ERROR(IndexVector(c, 1, "pads", &pads));
  if (pads != 2 * n) return c.Err(absl::StrCat("pads has ", pads, " entries for ", n, " axes"));
  if (n > c.Rank(0)) return c.Err(absl::StrCat("axes has ", n, " entries for rank ", c.Rank(0)));
  if (c.Has(2) && (c.T(2) != c.T(0) || ir::ElementCount(c.S(2)) != 1)) {
    return c.Err("constant_value must be one element of the data type");
  }
  const size_t eb = ir::DTypeSize(c.T(0));
  if (eb < 1 || eb > 8) return c.Err("unsupported data type");
  const std::string mode = c.node().GetString("mode", "constant");
  if (mode != "constant" && mode != "edge" && mode != "reflect" && mode != "wrap") {
    return c.Err(absl::StrCat("unsupported mode '", mode, "'"));
  }
  if (y.size() != x.size()) return Mismatch(c, y, absl::StrCat("has not the rank of ", ShapeStr(x)));
  if (mode != "constant" && ir::ElementCount(y) > 0) {
    for (int64_t d : x) {
      if (d == 0) return c.Err(absl::StrCat(mode, " padding of an empty input"));
    }
  }
  return c.Set(0, c.T(0), y);
}

absl::Status Reduce(Ctx& c, const Shape& y) {
  KILN_RETURN_IF_ERROR(c.Need(2));
  const Shape& x = c.S(0);
  int64_t n = -1;
  KILN_RETURN_IF_ERROR(IndexVector(c, 1, "axes", &n));
  if (n > c.Rank(0)) return c.Err(absl::StrCat("axes has ", n, " entries for rank ", c.Rank(0)));
  if (c.T(0) != DType::F32) {
    return c.Err(absl::StrCat("run-time axes are supported for float32 data, got ",
                              ir::DTypeName(c.T(0))));
  }
  // keepdims: every dim kept or 1; otherwise the kept dims in order.
  bool ok;
  if (c.node().GetInt("keepdims", 1) != 0) {
    ok = y.size() == x.size();
    for (size_t d = 0; ok && d < x.size(); ++d) ok = y[d] == x[d] || y[d] == 1;
  } else {
    size_t j = 0;
    for (size_t d = 0; d < x.size() && j < y.size(); ++d) {
      if (x[d] == y[j]) ++j;
    }
    ok = j == y.size();
  }
  if (!ok) return Mismatch(c, y, absl::StrCat("is not a reduction of input ", ShapeStr(x)));
  return c.Set(0, DType::F32, y);
}

absl::Status Range(Ctx& c, const Shape& y) {
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
  if (y.size() != 1) return Mismatch(c, y, "is not 1-D");
  return c.Set(0, t, y);
}

// Range without a declared output shape: its length is a data symbol
// range_count reports, without a bound.
absl::Status RangeAfterRun(Ctx& c) {
  KILN_RETURN_IF_ERROR(Range(c, Shape{0}));  // checks the inputs
  const DType t = c.T(0);
  KILN_ASSIGN_OR_RETURN(const ir::ValueId dims, c.ReportedDimsOutput(1, 1));
  return c.Set(0, t, {c.ReportedDim(dims, 0, ir::kNoBound, 0, ".length")});
}

// Pad without a declared output shape: each dim a data symbol pad_rt_dims
// reports (in + begin + end, or in), without a bound.
// An axis whose two pads are known at compile time (zeros beside computed
// pads, as torchvision pads an image to a multiple of 32) keeps its dim.
absl::Status PadAfterRun(Ctx& c, const std::vector<ir::ConstantPtr>& known) {
  KILN_RETURN_IF_ERROR(Pad(c, c.S(0)));  // checks the inputs
  const Shape x = c.S(0);  // a copy: appending the dims output may move it
  const int64_t r = static_cast<int64_t>(x.size());
  std::vector<int64_t> axes;
  if (!c.Has(3)) {
    for (int64_t d = 0; d < r; ++d) axes.push_back(d);
  } else if (const ir::ConstantData* a = c.C(3)) {
    for (int64_t k = 0; k < a->element_count(); ++k) axes.push_back(a->IntAt(k) < 0 ? a->IntAt(k) + r : a->IntAt(k));
  }
  const std::vector<std::optional<int64_t>> pads = KnownElements(c.graph(), c.node().inputs[1], known);
  std::vector<std::optional<int64_t>> fixed(x.size());
  const size_t n = axes.size();
  if (pads.size() == 2 * n) {
    for (size_t i = 0; i < n; ++i) {
      const int64_t d = axes[i];
      if (d < 0 || d >= r || !pads[i] || !pads[i + n]) continue;
      const int64_t grow = *pads[i] + *pads[i + n];
      if (!ir::IsSymbolic(x[d]) && x[d] + grow < 0) {
        return c.Err(absl::StrCat("pads remove ", -grow, " entries from axis ", d, " of ",
                                  ShapeStr(x)));
      }
      fixed[d] = grow == 0 ? x[d] : c.dims().Add(x[d], grow);
    }
  }
  KILN_ASSIGN_OR_RETURN(const ir::ValueId dims, c.ReportedDimsOutput(1, r));
  Shape y(x.size());
  for (int64_t d = 0; d < r; ++d) {
    y[d] = fixed[d] ? *fixed[d] : c.ReportedDim(dims, d, ir::kNoBound, 0, absl::StrCat(".dim", d));
  }
  return c.Set(0, c.T(0), std::move(y));
}

// Slice shaped after the run: each dim at most the input's.
absl::Status SliceAfterRun(Ctx& c) {
  KILN_RETURN_IF_ERROR(Slice(c, c.S(0)));
  return c.DimsAfterRun(c.T(0), c.S(0));
}

// Reduce* shaped after the run: with keepdims every dim is the input's or
// 1; without, rank - (number of axes) dims, each at most the largest input
// dim.
absl::Status ReduceAfterRun(Ctx& c) {
  const Shape& x = c.S(0);
  Shape bound = x;
  if (c.node().GetInt("keepdims", 1) == 0) {
    int64_t n = -1;
    KILN_RETURN_IF_ERROR(IndexVector(c, 1, "axes", &n));
    if (n > c.Rank(0)) return c.Err(absl::StrCat("axes has ", n, " entries for rank ", c.Rank(0)));
    int64_t largest = 0;
    for (int64_t d : x) largest = std::max(largest, d);
    bound.assign(x.size() - static_cast<size_t>(n), largest);
    KILN_RETURN_IF_ERROR(Reduce(c, Shape(x.begin() + n, x.end())));  // checks the inputs
  } else {
    KILN_RETURN_IF_ERROR(Reduce(c, x));
  }
  return c.DimsAfterRun(DType::F32, bound);
}

}  // namespace

// Range's start or limit cast to int32 from a symbolic size: the ordinary
// (symbolic) rule takes it.
bool SizeThroughCast(const ir::Graph& graph, const ir::Node& node, size_t k,
                     const std::vector<ir::ConstantPtr>& known) {
  return node.op_type == "Range" && k <= 1 &&
         SymbolicSizeThroughCast(graph, node.inputs[k], known) != nullptr;
}

bool HasRuntimeParams(const ir::Graph& graph, const ir::Node& node) {
  size_t first = 0, last = 0;
  if (!ParamRange(graph, node, &first, &last)) return false;
  // An empty axes tensor's value is known from its shape (the ordinary rule).
  if (IsReduce(node.op_type) && EmptyAxes(graph, node)) return false;
  for (size_t k = first; k <= last && k < node.inputs.size(); ++k) {
    if (node.inputs[k] != ir::kNoValue && !graph.value(node.inputs[k]).constant &&
        !(k <= 1 && node.GetInt("kiln.bounds_through_cast", 0) != 0)) {
      return true;
    }
  }
  return false;
}

bool InferRuntimeParams(ir::Graph& graph, ir::Node& node,
                        const std::vector<ir::ConstantPtr>& known, absl::Status* status) {
  size_t first = 0, last = 0;
  if (!ParamRange(graph, node, &first, &last)) return false;
  Ctx c(graph, node, known);
  bool runtime = false;
  for (size_t k = first; k <= last; ++k) {
    runtime = runtime || (c.Has(k) && c.C(k) == nullptr && !SizeThroughCast(graph, node, k, known));
  }
  if (!runtime) return false;
  if (IsReduce(node.op_type) && EmptyAxes(graph, node)) return false;  // as above
  // Only static shapes: every input's and the declared output's, or,
  // without a declaration, output dims that the kernel reports (not inside
  // control-flow bodies yet: their lengths take one int64 slot each).
  // Pad reporting its dims may also take data of symbolic dims (pad_rt_dims
  // and pad_rt patch them), as a resized image of run-time size.
  Shape y;
  const std::string& op = node.op_type;
  const bool static_inputs = c.StaticInputs();
  if (!static_inputs && (op != "Pad" || !c.In(0).has_shape || !c.StaticInputs(first, last))) {
    return false;
  }
  if (node.GetInt("kiln.result_dims", 0) != 0 ||
      (node.outputs.size() == 1 && !(static_inputs && c.DeclaredStatic(0, &y)) &&
       graph.scope.empty() && (op == "Slice" || op == "Range" || op == "Pad" || IsReduce(op)))) {
    *status = op == "Slice"   ? SliceAfterRun(c)
              : op == "Range" ? RangeAfterRun(c)
              : op == "Pad"   ? PadAfterRun(c, known)
                              : ReduceAfterRun(c);
    return true;
  }
  if (node.outputs.size() != 1 || !c.DeclaredStatic(0, &y)) return false;
  if (op == "Slice") *status = Slice(c, y);
  else if (op == "Pad") *status = Pad(c, y);
  else if (op == "Range") *status = Range(c, y);
  else *status = Reduce(c, y);
  return true;
}

}  // namespace kiln::compiler
