#include "compiler/passes/shape_rules_runtime.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "compiler/ir/graph_util.h"
#include "compiler/ops/resize.h"
#include "compiler/passes/shape_rule_context.h"

namespace kiln::compiler {
namespace {

using ir::DType;
using ir::ShapeStr;
using Shape = std::vector<int64_t>;
using Ctx = ShapeRuleContext;

// Which input carries the shape-like value, or -1 for other ops. Squeeze,
// Unsqueeze and Split take it as an input from opset 13 (an attribute before).
int ShapeLikeIndex(const ir::Graph& graph, const ir::Node& node) {
  if (!node.domain.empty() && node.domain != "ai.onnx") return -1;
  const std::string& op = node.op_type;
  if (op == "ConstantOfShape") return 0;
  if (op == "Reshape" || op == "Expand" || op == "Tile" || op == "OneHot") return 1;
  if ((op == "Squeeze" || op == "Unsqueeze" || op == "Split") && graph.opset >= 13) return 1;
  // Resize's sizes (opset 11+: X, roi, scales, sizes); with sizes the scales
  // are output/input, so the declared output fixes the whole op.
  if (op == "Resize" && graph.opset >= 11) return 3;
  return -1;
}

// `small` is `big` with some dims removed, every removed dim 1; *removed
// counts them. Greedy matching finds an embedding whenever one exists.
bool DropsUnitDims(const Shape& big, const Shape& small, int64_t* removed) {
  size_t j = 0;
  *removed = 0;
  for (int64_t d : big) {
    if (j < small.size() && small[j] == d) {
      ++j;
    } else if (d == 1) {
      ++*removed;
    } else {
      return false;
    }
  }
  return j == small.size();
}

absl::Status Mismatch(Ctx& c, const Shape& y, const std::string& why) {
  return c.Err(absl::StrCat("the declared output shape ", ShapeStr(y), " ", why));
}

absl::Status Reshape(Ctx& c, int64_t count, const Shape& y) {
  const Shape& x = c.S(0);
  if (ir::ElementCount(x) != ir::ElementCount(y)) {
    return Mismatch(c, y, absl::StrCat("does not hold the ", ir::ElementCount(x),
                                       " elements of input ", ShapeStr(x)));
  }
  if (count != static_cast<int64_t>(y.size())) {
    return Mismatch(c, y, absl::StrCat("has not the ", count, " dims of input 'shape'"));
  }
  return c.Set(0, c.T(0), y);
}

absl::Status Squeeze(Ctx& c, int64_t count, const Shape& y) {
  const Shape& x = c.S(0);
  int64_t removed = 0;
  if (!DropsUnitDims(x, y, &removed) || (count > 0 && removed != count) ||
      (count == 0 && std::count(y.begin(), y.end(), 1) != 0)) {
    return Mismatch(c, y, absl::StrCat("is not input ", ShapeStr(x), " without ", count,
                                       " unit axes"));
  }
  return c.Set(0, c.T(0), y);
}

absl::Status Unsqueeze(Ctx& c, int64_t count, const Shape& y) {
  const Shape& x = c.S(0);
  int64_t added = 0;
  if (!DropsUnitDims(y, x, &added) || added != count ||
      static_cast<int64_t>(y.size()) != static_cast<int64_t>(x.size()) + count) {
    return Mismatch(c, y, absl::StrCat("is not input ", ShapeStr(x), " with ", count,
                                       " unit axes inserted"));
  }
  return c.Set(0, c.T(0), y);
}

absl::Status Expand(Ctx& c, int64_t count, const Shape& y) {
  const Shape& x = c.S(0);
  bool ok = y.size() == std::max<size_t>(x.size(), static_cast<size_t>(count));
  const size_t off = ok ? y.size() - x.size() : 0;
  for (size_t i = 0; ok && i < x.size(); ++i) ok = x[i] == 1 || x[i] == y[off + i];
  if (!ok) return Mismatch(c, y, absl::StrCat("is not input ", ShapeStr(x), " expanded"));
  return c.Set(0, c.T(0), y);
}

absl::Status Tile(Ctx& c, int64_t count, const Shape& y) {
  const Shape& x = c.S(0);
  bool ok = y.size() == x.size() && count == static_cast<int64_t>(x.size());
  for (size_t d = 0; ok && d < x.size(); ++d) ok = x[d] == 0 ? y[d] == 0 : y[d] % x[d] == 0;
  if (!ok) return Mismatch(c, y, absl::StrCat("is not input ", ShapeStr(x), " tiled"));
  return c.Set(0, c.T(0), y);
}

absl::Status Split(Ctx& c, int64_t count, const std::vector<Shape>& ys) {
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
    if (!ok) return Mismatch(c, ys[k], absl::StrCat("is not a part of input ", ShapeStr(x)));
    split.push_back(ys[k][axis]);
    total += ys[k][axis];
  }
  if (total != x[axis]) {
    return c.Err(absl::StrCat("the declared output sizes ", ShapeStr(split), " do not add up to ",
                              x[axis]));
  }
  ir::Attribute a;
  a.kind = ir::Attribute::Kind::kInts;
  a.ints = split;
  c.node().attributes["kiln.split"] = std::move(a);
  for (size_t k = 0; k < ys.size(); ++k) KILN_RETURN_IF_ERROR(c.Set(k, c.T(0), ys[k]));
  return absl::OkStatus();
}

absl::Status ConstantOfShape(Ctx& c, int64_t count, const Shape& y) {
  if (count != static_cast<int64_t>(y.size())) {
    return Mismatch(c, y, absl::StrCat("has not the ", count, " dims of the shape input"));
  }
  DType dtype = DType::F32;
  auto it = c.node().attributes.find("value");
  if (it != c.node().attributes.end() && it->second.tensor) {
    if (it->second.tensor->element_count() != 1) return c.Err("value must hold one element");
    dtype = it->second.tensor->dtype;
  }
  return c.Set(0, dtype, y);
}

// Resize by run-time sizes: the declared output, the same rank as X; the
// op's own rule then runs on those sizes (its attribute checks included).
absl::Status ResizeBySizes(Ctx& c, int64_t count, const Shape& y,
                           const std::vector<ir::ConstantPtr>& known) {
  if (count != c.Rank(0) || static_cast<int64_t>(y.size()) != c.Rank(0)) {
    return Mismatch(c, y, absl::StrCat("has not the ", c.Rank(0), " dims of the input"));
  }
  for (size_t k = 1; k < 3; ++k) {
    if (c.Has(k) && (c.C(k) == nullptr || c.C(k)->element_count() != 0)) {
      return c.Err("run-time sizes need empty or absent roi and scales inputs");
    }
  }
  std::vector<ir::ConstantPtr> with_sizes = known;
  const ir::ValueId sizes = c.node().inputs[3];
  if (with_sizes.size() <= static_cast<size_t>(sizes)) with_sizes.resize(sizes + 1);
  with_sizes[sizes] = ir::MakeI64Constant({static_cast<int64_t>(y.size())}, y);
  ShapeRuleContext with(c.graph(), c.node(), with_sizes);
  return ResizeShape(with);  // compiler/ops/resize.cc
}

absl::Status OneHot(Ctx& c, int64_t count, const Shape& y) {
  KILN_RETURN_IF_ERROR(c.Need(3));
  if (count != 1) return c.Err("depth must hold one value");
  if (ir::ElementCount(c.S(2)) != 2) return c.Err("values must hold [off, on]");
  const Shape& x = c.S(0);
  const int64_t r = c.Rank(0) + 1;
  int64_t axis = 0;
  KILN_RETURN_IF_ERROR(c.Axis(c.node().GetInt("axis", -1), r, &axis));
  Shape rest = y;
  if (static_cast<int64_t>(y.size()) == r) rest.erase(rest.begin() + axis);
  if (static_cast<int64_t>(y.size()) != r || rest != x) {
    return Mismatch(c, y, absl::StrCat("is not indices ", ShapeStr(x), " with a depth axis at ",
                                       axis));
  }
  return c.Set(0, c.T(2), y);
}

// Reshape, Squeeze and Unsqueeze without a declared output shape: the dims
// are data symbols shape_resolve reports after its run (the data is the
// input's, aliased). Each is at most the element count (Reshape) or the
// largest input dim; the output takes the input's bytes whatever the dims.
// An empty input's dims have no bound (Reshape with allowzero could then take
// any dims).
absl::Status MovesAfterRun(Ctx& c, int64_t count) {
  const std::string& op = c.node().op_type;
  const Shape& x = c.S(0);
  const int64_t n = ir::ElementCount(x);
  // An empty input may take any dims (Reshape with allowzero keeps a 0, so
  // the others are free): lengths without a bound, holding no element.
  if (n == 0) {
    const int64_t r = c.Rank(0);
    const int64_t rank = op == "Reshape" ? count : op == "Squeeze" ? r - count : r + count;
    if (rank < 0 || (op == "Squeeze" && count == 0)) {
      return c.Err("a run-time squeeze of an empty input needs a declared output shape");
    }
    return c.DimsAfterRun(c.T(0), Shape(static_cast<size_t>(rank), ir::kNoBound));
  }
  int64_t largest = 1;
  for (int64_t d : x) largest = std::max(largest, d);
  const int64_t r = c.Rank(0);
  Shape bound;
  if (op == "Reshape") {
    bound.assign(static_cast<size_t>(count), n);
  } else if (op == "Squeeze") {
    if (count == 0 || count > r) {
      return c.Err(absl::StrCat("run-time axes of ", count, " entries for rank ", r,
                                " need a declared output shape"));
    }
    bound.assign(static_cast<size_t>(r - count), largest);
  } else {
    bound.assign(static_cast<size_t>(r + count), largest);
  }
  const int64_t bytes = n * static_cast<int64_t>(ir::DTypeSize(c.T(0)));
  return c.DimsAfterRun(c.T(0), bound, bytes);
}

// ConstantOfShape, Expand and Tile without a declared output shape: the
// dims shape_resolve reports (EXACT: the values; EXPAND: broadcasting;
// TILE: dim * repeat), data symbols without a bound where the value sets
// them (an Expand dim the input fixes, a Tile of an empty dim, stay
// static). Their tensors go to the workspace's tail.
absl::Status ShapedAfterRun(Ctx& c, int64_t count) {
  const std::string& op = c.node().op_type;
  Shape fixed;  // per output dim: the static value, or -1 where the value sets it
  DType dtype = DType::F32;
  if (op == "ConstantOfShape") {
    fixed.assign(static_cast<size_t>(count), -1);
    auto it = c.node().attributes.find("value");
    if (it != c.node().attributes.end() && it->second.tensor) {
      if (it->second.tensor->element_count() != 1) return c.Err("value must hold one element");
      dtype = it->second.tensor->dtype;
    }
  } else if (op == "Tile") {
    if (count != c.Rank(0)) {
      return c.Err(absl::StrCat("repeats has ", count, " entries for rank ", c.Rank(0)));
    }
    for (int64_t d : c.S(0)) fixed.push_back(d == 0 ? 0 : -1);
    dtype = c.T(0);
  } else {
    const Shape x = c.S(0);
    const int64_t rx = static_cast<int64_t>(x.size()), r = std::max(rx, count);
    for (int64_t p = 0; p < r; ++p) fixed.push_back(p >= r - rx && x[p - (r - rx)] != 1 ? x[p - (r - rx)] : -1);
    dtype = c.T(0);
  }
  KILN_ASSIGN_OR_RETURN(const ir::ValueId dims,
                        c.ReportedDimsOutput(1, static_cast<int64_t>(fixed.size())));
  Shape y(fixed.size());
  for (size_t d = 0; d < fixed.size(); ++d) {
    const int64_t j = static_cast<int64_t>(d);
    y[d] = fixed[d] >= 0 ? fixed[d] : c.ReportedDim(dims, j, ir::kNoBound, 0, absl::StrCat(".dim", j));
  }
  if (op == "Tile") {  // the repeats the lowering copies by: y / x, exact
    const Shape x = c.S(0);
    Shape rep(x.size(), 0);
    for (size_t d = 0; d < x.size(); ++d) {
      if (x[d] != 0) rep[d] = c.graph().dims.FloorDiv(y[d], x[d]);
    }
    c.node().SetInts("kiln.repeats", rep);
  }
  return c.Set(0, dtype, std::move(y));
}

// OneHot by a run-time depth without a declared output shape: the depth
// axis's length is a data symbol shape_resolve reports (EXACT: the depth,
// truncated toward zero as ONNX casts it), without a bound.
absl::Status OneHotAfterRun(Ctx& c, int64_t count) {
  KILN_RETURN_IF_ERROR(c.Need(3));
  if (count != 1) return c.Err("depth must hold one value");
  if (ir::ElementCount(c.S(2)) != 2) return c.Err("values must hold [off, on]");
  Shape y = c.S(0);  // a copy: appending the dims output may move it
  const DType t = c.T(2);
  int64_t axis = 0;
  KILN_RETURN_IF_ERROR(c.Axis(c.node().GetInt("axis", -1), c.Rank(0) + 1, &axis));
  KILN_ASSIGN_OR_RETURN(const ir::ValueId dims, c.ReportedDimsOutput(1, 1));
  y.insert(y.begin() + axis, c.ReportedDim(dims, 0, ir::kNoBound, 0, ".depth"));
  return c.Set(0, t, std::move(y));
}

// Split by run-time sizes without declared output shapes: each output's
// length along the axis is a data symbol shape_resolve reports (SPLIT mode:
// the sizes, which must add up to the axis), at most the axis; kiln.split
// holds those symbols, so the copies start at their running sums.
absl::Status SplitAfterRun(Ctx& c, int64_t count) {
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

int RuntimeShapeInput(const ir::Graph& graph, const ir::Node& node) {
  const int k = ShapeLikeIndex(graph, node);
  if (k < 0 || static_cast<size_t>(k) >= node.inputs.size() || node.inputs[k] == ir::kNoValue) {
    return -1;
  }
  return graph.value(node.inputs[k]).constant ? -1 : k;
}

bool InferRuntimeShapeInput(ir::Graph& graph, ir::Node& node,
                            const std::vector<ir::ConstantPtr>& known, absl::Status* status) {
  const int k = ShapeLikeIndex(graph, node);
  Ctx c(graph, node, known);
  if (k < 0 || !c.Has(k) || c.C(k) != nullptr) return false;
  // Only static shapes: the data input's, the shape-like input's own (its
  // length is a kernel parameter) and every output's declaration.
  if (!c.StaticInputs()) return false;
  const std::string& op = node.op_type;
  std::vector<Shape> ys(node.outputs.size());
  bool declared = !ys.empty();
  for (size_t o = 0; o < node.outputs.size(); ++o) declared = declared && c.DeclaredStatic(o, &ys[o]);
  // Resize without a declaration: shape_rules_resize_rt.cc reports its dims.
  if (op == "Resize" && (!declared || node.GetInt("kiln.result_dims", 0) != 0)) return false;
  // Without a declaration: dims reported after the run (not inside
  // control-flow bodies yet: their lengths take one int64 slot each).
  const bool after_run =
      node.GetInt("kiln.result_dims", 0) != 0 ||
      (!declared && graph.scope.empty() &&
       ((node.outputs.size() == 1 && (op == "Reshape" || op == "Squeeze" || op == "Unsqueeze" ||
                                       op == "ConstantOfShape" || op == "Expand" ||
                                       op == "Tile" || op == "OneHot")) ||
        op == "Split"));
  if (!declared && !after_run) return false;
  const DType t = c.T(k);
  if (op != "OneHot") {
    if (t != DType::I64 && t != DType::I32) {
      *status = c.Err(absl::StrCat("input '", c.In(k).name, "' must be int64, got ",
                                   ir::DTypeName(t)));
      return true;
    }
    if (c.Rank(k) != 1) {
      *status = c.Err(absl::StrCat("input '", c.In(k).name, "' must be 1-D, got ",
                                   ShapeStr(c.S(k))));
      return true;
    }
  } else if (ir::DTypeSize(t) == 0 || t == DType::Bool) {
    *status = c.Err(absl::StrCat("depth has an unsupported dtype ", ir::DTypeName(t)));
    return true;
  }
  if (op == "Resize" && (t != DType::I64 || c.Rank(k) != 1)) {
    *status = c.Err("sizes must be a 1-D int64 tensor");
    return true;
  }
  if (op != "ConstantOfShape" && !c.Has(0)) {
    *status = c.Err("input 0 is required");
    return true;
  }
  const int64_t count = ir::ElementCount(c.S(k));
  if (after_run) {
    *status = op == "Split"                                ? SplitAfterRun(c, count)
              : op == "ConstantOfShape" || op == "Expand" || op == "Tile"
                  ? ShapedAfterRun(c, count)
              : op == "OneHot"                            ? OneHotAfterRun(c, count)
                                                          : MovesAfterRun(c, count);
    return true;
  }
  if (op == "Reshape") *status = Reshape(c, count, ys[0]);
  else if (op == "Squeeze") *status = Squeeze(c, count, ys[0]);
  else if (op == "Unsqueeze") *status = Unsqueeze(c, count, ys[0]);
  else if (op == "Expand") *status = Expand(c, count, ys[0]);
  else if (op == "Tile") *status = Tile(c, count, ys[0]);
  else if (op == "Split") *status = Split(c, count, ys);
  else if (op == "ConstantOfShape") *status = ConstantOfShape(c, count, ys[0]);
  else if (op == "Resize") *status = ResizeBySizes(c, count, ys[0], known);
  else *status = OneHot(c, count, ys[0]);
  return true;
}

}  // namespace kiln::compiler
