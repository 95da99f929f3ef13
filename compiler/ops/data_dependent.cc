#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "compiler/ir/graph_util.h"
#include "compiler/ops/op_def.h"
#include "compiler/passes/symbolic_support.h"

namespace kiln::compiler {
namespace {

using ir::DType;
using ir::ShapeStr;
using Shape = std::vector<int64_t>;
using Ctx = ShapeRuleContext;

// The largest value `dim` takes: itself when static, else the bound its data
// symbols give (a length an earlier kernel reported); false for a model
// symbol, which nothing bounds.
bool DimBound(Ctx& c, int64_t dim, int64_t* bound) {
  if (!ir::IsSymbolic(dim)) return *bound = dim, true;
  return c.graph().dims.UpperBound(dim, bound);
}

// Whether the op takes inputs sized by reported lengths (planned at their
// bounds, the sizes patched into the kernel per run): NonZero and
// NonMaxSuppression without a declared output, as detection post-processing
// chains them (torchvision's score filter, then its batched NMS).
bool TakesBoundedInputs(const std::string& op) {
  return op == "NonZero" || op == "NonMaxSuppression";
}

absl::Status Mismatch(Ctx& c, const Shape& y, const std::string& why) {
  return c.Err(absl::StrCat("the declared output shape ", ShapeStr(y), " ", why));
}

// Y [R, count] of int64 indices; count <= elements of X.
absl::Status NonZero(Ctx& c, const Shape& y) {
  const Shape& x = c.S(0);
  if (x.empty()) return c.Err("NonZero of a rank-0 input is not supported");
  if (ir::DTypeSize(c.T(0)) < 1 || ir::DTypeSize(c.T(0)) > 8) {
    return c.Err(absl::StrCat("unsupported dtype ", ir::DTypeName(c.T(0))));
  }
  if (y.size() != 2 || y[0] != c.Rank(0) || y[1] > ir::ElementCount(x)) {
    return Mismatch(c, y, absl::StrCat("is not [rank, count] of the non-zero elements of ",
                                       ShapeStr(x)));
  }
  return c.Set(0, DType::I64, y);
}

// Y is X with the axis (or X flattened) cut to the selected slices.
absl::Status Compress(Ctx& c, const Shape& y) {
  if (!c.Has(1) || !c.In(1).has_shape) return c.Err("input 1 (condition) is required");
  const Shape& x = c.S(0);
  if (c.T(1) != DType::Bool || c.Rank(1) != 1) {
    return c.Err(absl::StrCat("condition '", c.In(1).name, "' must be a 1-D bool tensor, got ",
                              ir::DTypeName(c.T(1)), " ", ShapeStr(c.S(1))));
  }
  if (ir::DTypeSize(c.T(0)) < 1 || ir::DTypeSize(c.T(0)) > 8) {
    return c.Err(absl::StrCat("unsupported dtype ", ir::DTypeName(c.T(0))));
  }
  const int64_t n = c.S(1)[0];
  bool ok;
  if (!c.node().HasAttr("axis")) {
    ok = y.size() == 1 && y[0] <= ir::ElementCount(x) && y[0] <= n;
  } else {
    int64_t axis = 0;
    KILN_RETURN_IF_ERROR(c.Axis(c.node().GetInt("axis", 0), c.Rank(0), &axis));
    ok = y.size() == x.size();
    for (size_t d = 0; ok && d < x.size(); ++d) {
      const int64_t a = static_cast<int64_t>(d);
      ok = a == axis ? y[d] <= x[d] && y[d] <= n : y[d] == x[d];
    }
  }
  if (!ok) {
    return Mismatch(c, y, absl::StrCat("is not a selection of input ", ShapeStr(x),
                                       " by a condition of ", n, " entries"));
  }
  return c.Set(0, c.T(0), y);
}

// Output k, when the model declares it fully static, must be `want`.
absl::Status CheckDeclared(Ctx& c, size_t k, const Shape& want) {
  Shape d;
  if (!c.DeclaredStatic(k, &d) || d == want) return absl::OkStatus();
  return c.Err(absl::StrCat("output ", k, " is declared ", ShapeStr(d), " but Y's declared shape "
                            "makes it ", ShapeStr(want)));
}

// Y holds `count` distinct elements of X ([count]), or distinct slices
// along the axis (X's shape with count at the axis); indices and counts
// [count], inverse_indices one per element or slice of X. The kernel's
// scratch (sort order and group of each slice) is 2 int64 per slice.
absl::Status Unique(Ctx& c, const Shape& y) {
  const Shape& x = c.S(0);
  if (ir::DTypeSize(c.T(0)) < 1 || ir::DTypeSize(c.T(0)) > 8) {
    return c.Err(absl::StrCat("unsupported dtype ", ir::DTypeName(c.T(0))));
  }
  const int64_t sorted = c.node().GetInt("sorted", 1);
  if (sorted != 0 && sorted != 1) return c.Err(absl::StrCat("sorted must be 0 or 1, got ", sorted));
  int64_t n = ir::ElementCount(x), count = y.empty() ? -1 : y[0];
  bool ok = y.size() == 1;
  if (c.node().HasAttr("axis")) {
    int64_t axis = 0;
    KILN_RETURN_IF_ERROR(c.Axis(c.node().GetInt("axis", 0), c.Rank(0), &axis));
    const size_t a = static_cast<size_t>(axis);
    n = x[a];
    ok = y.size() == x.size();
    for (size_t d = 0; ok && d < x.size(); ++d) ok = d == a || y[d] == x[d];
    count = ok ? y[a] : -1;
  }
  // Some slice is distinct unless there are none.
  if (!ok || count > n || (count == 0) != (n == 0)) {
    return Mismatch(c, y, absl::StrCat("is not a set of distinct ",
                                       c.node().HasAttr("axis") ? "slices" : "elements", " of ",
                                       ShapeStr(x)));
  }
  KILN_RETURN_IF_ERROR(c.Set(0, c.T(0), y));
  const Shape per_unique = {count}, per_slice = {n};
  for (size_t k = 1; k < 4; ++k) {
    const Shape& s = k == 2 ? per_slice : per_unique;
    KILN_RETURN_IF_ERROR(CheckDeclared(c, k, s));
    KILN_RETURN_IF_ERROR(c.Set(k, DType::I64, s));
  }
  return c.SetScratch(4, DType::I64, {2 * n});
}

// NonMaxSuppression's inputs checked; *most = the most boxes it can keep:
// one per box and class (at most max_output_boxes_per_class each, when that
// is constant).
absl::Status NmsMost(Ctx& c, int64_t* most) {
  if (!c.Has(1)) return c.Err("input 1 (scores) is required");
  const Shape& boxes = c.S(0);
  const Shape& scores = c.S(1);
  if (c.T(0) != DType::F32 || c.T(1) != DType::F32) {
    return c.Err("boxes and scores must be float32");
  }
  if (boxes.size() != 3 || boxes[2] != 4 || scores.size() != 3 || scores[0] != boxes[0] ||
      scores[2] != boxes[1]) {
    return c.Err(absl::StrCat("boxes ", ShapeStr(boxes), " and scores ", ShapeStr(scores),
                              " are not [batch, boxes, 4] and [batch, classes, boxes]"));
  }
  static const char* const kNames[] = {"max_output_boxes_per_class", "iou_threshold",
                                       "score_threshold"};
  for (size_t k = 2; k < 5; ++k) {
    if (!c.Has(k)) continue;
    const bool want_int = k == 2;
    const bool dtype_ok = want_int ? c.T(k) == DType::I64 : c.T(k) == DType::F32;
    if (!dtype_ok || ir::ElementCount(c.S(k)) != 1) {
      return c.Err(absl::StrCat(kNames[k - 2], " must be one ", want_int ? "int64" : "float32",
                                " value, got ", ir::DTypeName(c.T(k)), " ", ShapeStr(c.S(k))));
    }
  }
  const int64_t center = c.node().GetInt("center_point_box", 0);
  if (center != 0 && center != 1) {
    return c.Err(absl::StrCat("center_point_box must be 0 or 1, got ", center));
  }
  int64_t batches = 0, classes = 0, per_class = 0;
  if (!DimBound(c, boxes[0], &batches) || !DimBound(c, scores[1], &classes) ||
      !DimBound(c, boxes[1], &per_class)) {
    return c.Err(absl::StrCat("boxes ", SymbolicShapeStr(c.graph(), boxes), " and scores ",
                              SymbolicShapeStr(c.graph(), scores),
                              " must have static sizes or lengths with a bound"));
  }
  if (const ir::ConstantData* m = c.C(2); m && !m->symbolic) {
    per_class = std::min(per_class, std::max<int64_t>(m->IntAt(0), 0));
  }
  *most = ir::ElementCount({batches, classes, per_class});
  if (*most < 0) return c.Err("the number of boxes kept is beyond the limits");
  return absl::OkStatus();
}

// selected_indices [count, 3] of int64, count at most NmsMost's.
// Scratch: candidate order, sort buffer and kept boxes, N int64 each.
absl::Status NonMaxSuppression(Ctx& c, const Shape& y) {
  int64_t most = 0;
  KILN_RETURN_IF_ERROR(NmsMost(c, &most));
  if (y.size() != 2 || y[1] != 3 || y[0] > most) {
    return Mismatch(c, y, absl::StrCat("is not [count, 3] with count <= ", most,
                                       " (batches x classes x boxes kept per class)"));
  }
  KILN_RETURN_IF_ERROR(c.Set(0, DType::I64, y));
  return c.SetScratch(1, DType::I64, {3 * c.S(0)[1]});
}

// A data symbol for the length output `k`'s dim `dim` turns out to have
// during the run, at most its `bound`: the kernel writes it as the int64
// value `count`, kept until the run ends (the VM and AOT code read it for
// the output's shape; later dispatches load it for their sizes).
int64_t DataLength(Ctx& c, size_t k, int64_t bound, ir::ValueId count) {
  c.graph().value(count).live_to_end = true;
  const ir::Graph& g = c.graph();
  return g.dims.Data(g.scope + g.value(c.node().outputs[k]).name + ".length", bound,
                     static_cast<int32_t>(count), g.scope);
}

// An output `bound` whose dim `dim` is the length a kernel reports after
// the run, in a scratch int64.
absl::Status SetAfterRun(Ctx& c, Shape bound, int64_t dim) {
  KILN_RETURN_IF_ERROR(c.SetScratch(1, DType::I64, {1}));
  ir::Node& n = c.node();
  n.SetInt("kiln.result_count", 1);
  bound[dim] = DataLength(c, 0, bound[dim], n.outputs[1]);
  return c.Set(0, n.op_type == "NonZero" ? DType::I64 : c.T(0), std::move(bound));
}

// NonZero with no declared shape: [R, at most the elements of X].
// Compress: X with the axis (or X flattened) cut to at most the condition's
// length.
absl::Status AfterRun(Ctx& c) {
  const Shape& x = c.S(0);
  if (x.empty()) return c.Err(c.node().op_type + " of a rank-0 input is not supported");
  if (ir::DTypeSize(c.T(0)) < 1 || ir::DTypeSize(c.T(0)) > 8) {
    return c.Err(absl::StrCat("unsupported dtype ", ir::DTypeName(c.T(0))));
  }
  if (c.node().op_type == "NonZero") {
    int64_t elements = 0;
    if (!DimBound(c, c.graph().dims.Product(x), &elements)) {
      return c.Err(absl::StrCat("input ", SymbolicShapeStr(c.graph(), x),
                                " must have static sizes or lengths with a bound"));
    }
    return SetAfterRun(c, {c.Rank(0), elements}, 1);
  }
  if (!c.Has(1) || !c.In(1).has_shape || c.T(1) != DType::Bool || c.Rank(1) != 1) {
    return c.Err("input 1 (condition) must be a 1-D bool tensor");
  }
  const int64_t n = c.S(1)[0];
  if (!c.node().HasAttr("axis")) return SetAfterRun(c, {std::min(ir::ElementCount(x), n)}, 0);
  int64_t axis = 0;
  KILN_RETURN_IF_ERROR(c.Axis(c.node().GetInt("axis", 0), c.Rank(0), &axis));
  Shape y = x;
  y[axis] = std::min(x[axis], n);
  return SetAfterRun(c, std::move(y), axis);
}

// Unique and NonMaxSuppression report their length in an int64 of their
// own, output `slot` (appended once after the scratch, as rules may run
// more than once); outputs `shaped` (present ones) have it at dim
// `dims[k]`, where their shape holds its bound.
absl::Status ResultSlot(Ctx& c, size_t slot, const std::vector<size_t>& shaped,
                        const std::vector<int32_t>& dims) {
  ir::Node& n = c.node();
  if (n.GetInt("kiln.result_count", 0) == 0) {
    if (n.outputs.size() != slot) return c.Err("has an unexpected number of outputs");
    const ir::ValueId s = c.graph().AddValue("");
    n.outputs.push_back(s);
    for (size_t k = 0; k < c.graph().nodes.size(); ++k) {
      if (&c.graph().nodes[k] == &n) c.graph().value(s).producer = static_cast<ir::NodeId>(k);
    }
    n.SetInt("kiln.result_count", static_cast<int64_t>(slot));
  }
  if (n.outputs.size() != slot + 1) return c.Err("has an unexpected number of outputs");
  const ir::ValueId count = n.outputs[slot];
  ir::Value& v = c.graph().value(count);
  v.dtype = DType::I64;
  v.shape = {1};
  v.has_shape = true;
  int64_t length = -1;  // one symbol, named after the first present output
  for (size_t j = 0; j < shaped.size(); ++j) {
    if (!c.HasOut(shaped[j])) continue;
    ir::Value& out = c.graph().value(n.outputs[shaped[j]]);
    if (length == -1) length = DataLength(c, shaped[j], out.shape[dims[j]], count);
    out.shape[dims[j]] = length;
  }
  return absl::OkStatus();
}

// Unique with no declared shape: Y, indices and counts share one length,
// at most the elements of X (without an axis) or X's length along the
// axis; inverse_indices keeps its static shape, one per element or slice.
absl::Status UniqueAfterRun(Ctx& c) {
  const Shape& x = c.S(0);
  if (ir::DTypeSize(c.T(0)) < 1 || ir::DTypeSize(c.T(0)) > 8) {
    return c.Err(absl::StrCat("unsupported dtype ", ir::DTypeName(c.T(0))));
  }
  const int64_t sorted = c.node().GetInt("sorted", 1);
  if (sorted != 0 && sorted != 1) return c.Err(absl::StrCat("sorted must be 0 or 1, got ", sorted));
  int64_t n = ir::ElementCount(x), axis = 0;
  Shape y = {n};
  if (c.node().HasAttr("axis")) {
    KILN_RETURN_IF_ERROR(c.Axis(c.node().GetInt("axis", 0), c.Rank(0), &axis));
    n = x[static_cast<size_t>(axis)];
    y = x;
  }
  KILN_RETURN_IF_ERROR(CheckDeclared(c, 2, {n}));
  const DType t = c.T(0);
  KILN_RETURN_IF_ERROR(c.Set(0, t, std::move(y)));
  for (size_t k = 1; k < 4; ++k) KILN_RETURN_IF_ERROR(c.Set(k, DType::I64, {n}));
  KILN_RETURN_IF_ERROR(c.SetScratch(4, DType::I64, {2 * n}));
  return ResultSlot(c, 5, {0, 1, 3}, {static_cast<int32_t>(axis), 0, 0});
}

// NonMaxSuppression with no declared shape: [at most NmsMost's, 3].
absl::Status NmsAfterRun(Ctx& c) {
  int64_t most = 0;
  KILN_RETURN_IF_ERROR(NmsMost(c, &most));
  KILN_RETURN_IF_ERROR(c.Set(0, DType::I64, {most, 3}));
  KILN_RETURN_IF_ERROR(c.SetScratch(1, DType::I64, {c.graph().dims.Mul(3, c.S(0)[1])}));
  return ResultSlot(c, 2, {0}, {0});
}

// The rule of all four: with a declared static output shape, checked against
// it; without one, the length becomes a data symbol known after the node ran.
absl::Status DataDependentShape(Ctx& c) {
  KILN_RETURN_IF_ERROR(c.Need(1));
  const ir::Node& node = c.node();
  const std::string& op = node.op_type;
  Shape y;
  const bool declared = c.DeclaredStatic(0, &y);
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    if (!c.Has(i)) continue;
    if (c.In(i).has_shape && Ctx::StaticShape(c.S(i))) continue;
    if (c.In(i).has_shape && !declared && TakesBoundedInputs(op)) continue;  // checked below
    return c.Err(absl::StrCat("input '", c.In(i).name, "' must have a static shape"));
  }
  if (!declared) {
    return op == "NonZero" || op == "Compress" ? AfterRun(c)
           : op == "Unique"                   ? UniqueAfterRun(c)
                                              : NmsAfterRun(c);
  }
  return op == "NonZero"   ? NonZero(c, y)
         : op == "Compress" ? Compress(c, y)
         : op == "Unique"   ? Unique(c, y)
                            : NonMaxSuppression(c, y);
}

}  // namespace

void RegisterDataDependentOps(std::vector<OpDef>& ops) {
  ops.push_back({"NonZero", DataDependentShape, /*symbolic=*/true, emit::LowerNonZero});
  ops.push_back({"Compress", DataDependentShape, /*symbolic=*/true, emit::LowerCompress});
  ops.push_back({"Unique", DataDependentShape, /*symbolic=*/true, emit::LowerUnique});
  ops.push_back({"NonMaxSuppression", DataDependentShape, /*symbolic=*/true,
                 emit::LowerNonMaxSuppression});
}

}  // namespace kiln::compiler
