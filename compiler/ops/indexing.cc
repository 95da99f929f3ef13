// Index-driven ops that gather or scatter along given indices or positions:
// Gather (gather) and OneHot (one_hot; a depth known only at run time is
// checked by a kernel: passes/shape_rules_runtime.cc),
// GatherElements / ScatterElements (gather_elements, scatter_elements),
// GatherND / ScatterND (gather_nd, scatter_nd), Trilu (trilu) and CumSum
// (cumsum). All but CumSum move bytes only, so they take any element type;
// scatter reductions and CumSum compute in float32/float64/int32/int64.
// Dims may be symbolic but for ScatterND's (the kernels check indices
// against the patched dims at run time).
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/ir/graph_util.h"
#include "compiler/ops/op_def.h"
#include "compiler/passes/symbolic_support.h"
#include "kiln/kernel_abi.h"

namespace kiln::compiler {
namespace {

using ir::ConstantData;
using ir::DType;
using ir::ShapeStr;
using Shape = std::vector<int64_t>;
using emit::BindAll;
using emit::ElemBytes;
using emit::HasInput;
using emit::IndexBytes;
using emit::TypedArithmeticKind;

absl::Status IndexDType(ShapeRuleContext& c, size_t k) {
  if (c.T(k) != DType::I64 && c.T(k) != DType::I32) return c.Err("indices must be int32 or int64");
  return absl::OkStatus();
}

// Both dims static: symbolic ones are compared by the kernel's checker per
// run (gather_elements / scatter_elements take the dims patched).
bool StaticPair(int64_t a, int64_t b) { return !ir::IsSymbolic(a) && !ir::IsSymbolic(b); }

absl::Status GatherElementsShape(ShapeRuleContext& c) {
  KILN_RETURN_IF_ERROR(c.Need(2));
  KILN_RETURN_IF_ERROR(IndexDType(c, 1));
  if (c.Rank(0) != c.Rank(1) || c.Rank(0) == 0) return c.Err("data and indices ranks must match");
  int64_t axis = 0;
  KILN_RETURN_IF_ERROR(c.Axis(c.node().GetInt("axis", 0), c.Rank(0), &axis));
  for (int64_t d = 0; d < c.Rank(0); ++d) {
    if (d != axis && StaticPair(c.S(1)[d], c.S(0)[d]) && c.S(1)[d] > c.S(0)[d]) {
      return c.Err(absl::StrCat("indices ", ShapeStr(c.S(1)), " exceed data ", ShapeStr(c.S(0))));
    }
  }
  return c.Set(0, c.T(0), c.S(1));
}

absl::Status ScatterElementsShape(ShapeRuleContext& c) {
  KILN_RETURN_IF_ERROR(c.Need(3));
  KILN_RETURN_IF_ERROR(IndexDType(c, 1));
  if (c.S(1) != c.S(2)) return c.Err("indices and updates shapes differ");
  if (c.T(0) != c.T(2)) return c.Err("data and updates dtypes differ");
  if (c.Rank(0) != c.Rank(1) || c.Rank(0) == 0) return c.Err("data and indices ranks must match");
  int64_t axis = 0;
  KILN_RETURN_IF_ERROR(c.Axis(c.node().GetInt("axis", 0), c.Rank(0), &axis));
  for (int64_t d = 0; d < c.Rank(0); ++d) {
    if (d != axis && StaticPair(c.S(1)[d], c.S(0)[d]) && c.S(1)[d] > c.S(0)[d]) {
      return c.Err("indices exceed data");
    }
  }
  return c.Set(0, c.T(0), c.S(0));
}

absl::Status GatherNDShape(ShapeRuleContext& c) {
  KILN_RETURN_IF_ERROR(c.Need(2));
  KILN_RETURN_IF_ERROR(IndexDType(c, 1));
  const Shape& x = c.S(0);
  const Shape& idx = c.S(1);
  const int64_t b = c.node().GetInt("batch_dims", 0);
  if (idx.empty()) return c.Err("indices must have rank >= 1");
  const int64_t k = idx.back();
  // The index depth picks the data dims each tuple addresses: it must be
  // static (the tuple count and the data dims may be symbolic).
  KILN_RETURN_IF_ERROR(c.RequireStatic(k, "the index depth (the last dim of indices)"));
  const int64_t q = static_cast<int64_t>(idx.size()), r = static_cast<int64_t>(x.size());
  if (b < 0 || b >= q || b >= r || k < 1 || b + k > r) {
    return c.Err(absl::StrCat("indices ", ShapeStr(idx), " do not fit data ", ShapeStr(x),
                              " with batch_dims ", b));
  }
  Shape out(idx.begin(), idx.end() - 1);
  for (int64_t d = 0; d < b; ++d) {
    if (x[d] == idx[d]) continue;
    if (!ir::IsSymbolic(x[d]) && !ir::IsSymbolic(idx[d])) {
      return c.Err("batch dimensions of data and indices differ");
    }
    out[d] = c.dims().AssumeEqual(x[d], idx[d]);  // S against T: checked when a run starts
  }
  out.insert(out.end(), x.begin() + b + k, x.end());
  return c.Set(0, c.T(0), std::move(out));
}

absl::Status ScatterNDShape(ShapeRuleContext& c) {
  KILN_RETURN_IF_ERROR(c.Need(3));
  KILN_RETURN_IF_ERROR(IndexDType(c, 1));
  const Shape& x = c.S(0);
  const Shape& idx = c.S(1);
  if (idx.empty()) return c.Err("indices must have rank >= 1");
  const int64_t k = idx.back();
  KILN_RETURN_IF_ERROR(c.RequireStatic(k, "the index depth (the last dim of indices)"));
  if (k < 1 || k > static_cast<int64_t>(x.size())) return c.Err("index depth exceeds data rank");
  Shape want(idx.begin(), idx.end() - 1);
  want.insert(want.end(), x.begin() + k, x.end());
  const Shape& updates = c.S(2);
  const auto mismatch = [&] {
    return c.Err(absl::StrCat("updates ", SymbolicShapeStr(c.graph(), updates), " should be ",
                              SymbolicShapeStr(c.graph(), want)));
  };
  if (updates.size() != want.size()) return mismatch();
  for (size_t d = 0; d < want.size(); ++d) {
    if (updates[d] == want[d]) continue;
    if (!ir::IsSymbolic(updates[d]) && !ir::IsSymbolic(want[d])) return mismatch();
    // A window mask's slice against the padded size (Swin Transformer's
    // shifted windows): checked when a run starts.
    c.dims().AssumeEqual(updates[d], want[d]);
  }
  if (c.T(0) != c.T(2)) return c.Err("data and updates dtypes differ");
  return c.Set(0, c.T(0), x);
}

absl::Status TriluShape(ShapeRuleContext& c) {
  KILN_RETURN_IF_ERROR(c.Need(1));
  if (c.Rank(0) < 2) return c.Err("input must have rank >= 2");
  if (c.Has(1) && (c.T(1) != DType::I64 || ir::ElementCount(c.S(1)) != 1)) {
    return c.Err("k must be an int64 scalar");
  }
  return c.Set(0, c.T(0), c.S(0));
}

// The axis may arrive at run time: it does not change the shape.
absl::Status CumSumShape(ShapeRuleContext& c) {
  KILN_RETURN_IF_ERROR(c.Need(2));
  if (c.Rank(0) == 0) return c.Err("input must have rank >= 1");
  if ((c.T(1) != DType::I64 && c.T(1) != DType::I32) || ir::ElementCount(c.S(1)) != 1) {
    return c.Err("axis must be an int32/int64 scalar");
  }
  if (const ConstantData* a = c.C(1)) {
    int64_t ax = 0;
    KILN_RETURN_IF_ERROR(c.Axis(a->IntAt(0), c.Rank(0), &ax));
  }
  return c.Set(0, c.T(0), c.S(0));
}

absl::StatusOr<int64_t> Reduction(const emit::LoweringContext& ctx, const ir::Node& node) {
  const std::string r = node.GetString("reduction", "none");
  if (r == "none") return 0;
  int64_t code = r == "add" ? 1 : r == "mul" ? 2 : r == "max" ? 3 : r == "min" ? 4 : -1;
  if (code < 0) return ctx.Invalid(node, absl::StrCat("unknown reduction '", r, "'"));
  if (TypedArithmeticKind(ctx.value(node.inputs[0]).dtype) == 0) {
    return ctx.Unimplemented(node, "reductions support float32/float64/int32/int64 only");
  }
  return code;
}

// GatherElements (3 bindings) and ScatterElements (4).
absl::Status LowerElements(emit::LoweringContext& ctx, const ir::Node& node) {
  const bool scatter = node.op_type == "ScatterElements";
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(auto idx, ctx.InputShape(node, 1));
  KILN_ASSIGN_OR_RETURN(int64_t ib, IndexBytes(ctx, node, 1));
  const int64_t r = static_cast<int64_t>(x.size());
  if (r < 1 || r > KILN_MAX_RANK) return ctx.Unimplemented(node, "rank out of range");
  int64_t axis = node.GetInt("axis", 0);
  if (axis < 0) axis += r;
  int64_t red = 0;
  if (scatter) {
    KILN_ASSIGN_OR_RETURN(red, Reduction(ctx, node));
  }
  emit::kernel::GatherElements elements;
  elements.elem_bytes = ElemBytes(ctx, node.inputs[0]);
  elements.ib = ib;
  elements.R = r;
  elements.axis = axis;
  elements.kind = red ? TypedArithmeticKind(ctx.value(node.inputs[0]).dtype) : 0;
  elements.reduction = red;
  elements.data_dims = x;
  elements.index_dims = idx;
  KILN_ASSIGN_OR_RETURN(std::vector<emit::Binding> b,
                        BindAll(ctx, node, scatter ? std::vector<size_t>{0, 1, 2}
                                                   : std::vector<size_t>{0, 1}));
  if (scatter) return ctx.Dispatch(node, emit::kernel::ScatterElements(elements), b);
  return ctx.Dispatch(node, elements, b);
}

absl::Status LowerND(emit::LoweringContext& ctx, const ir::Node& node) {
  const bool scatter = node.op_type == "ScatterND";
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(auto idx, ctx.InputShape(node, 1));
  KILN_ASSIGN_OR_RETURN(int64_t ib, IndexBytes(ctx, node, 1));
  const size_t b = scatter ? 0 : static_cast<size_t>(node.GetInt("batch_dims", 0));
  if (idx.empty()) return ctx.Invalid(node, "indices must have rank >= 1");
  if (idx.size() <= b) return ctx.Invalid(node, "indices must have rank > batch_dims");
  const size_t k = static_cast<size_t>(idx.back());
  if (b + k > x.size() || k > KILN_MAX_RANK) return ctx.Invalid(node, "index depth out of range");
  int64_t red = 0;
  if (scatter) {
    KILN_ASSIGN_OR_RETURN(red, Reduction(ctx, node));
  }
  // Batch, tuple count, slice and the indexed dims may be symbolic: they go
  // through the pool and are patched at run time, where the kernel checks
  // every index against the patched dims.
  ir::DimPool& dims = ctx.dims();
  emit::kernel::GatherNd nd;
  nd.elem_bytes = ElemBytes(ctx, node.inputs[0]);
  nd.ib = ib;
  nd.kind = red ? TypedArithmeticKind(ctx.value(node.inputs[0]).dtype) : 0;
  nd.reduction = red;
  nd.batch = dims.Product({x.begin(), x.begin() + b});
  nd.count = dims.Product({idx.begin() + b, idx.end() - 1});
  nd.k = static_cast<int64_t>(k);
  nd.slice = dims.Product({x.begin() + b + k, x.end()});
  nd.dims = std::vector<int64_t>(x.begin() + b, x.begin() + b + k);
  std::vector<emit::Binding> bs;
  for (size_t i = 0; i < (scatter ? 3u : 2u); ++i) {
    KILN_ASSIGN_OR_RETURN(emit::Binding bi, ctx.Bind(node, node.inputs[i]));
    bs.push_back(bi);
  }
  KILN_ASSIGN_OR_RETURN(emit::Binding by, ctx.Bind(node, node.outputs[0]));
  bs.push_back(by);
  if (scatter) return ctx.Dispatch(node, emit::kernel::ScatterNd(nd), bs);
  return ctx.Dispatch(node, nd, bs);
}

absl::Status LowerTrilu(emit::LoweringContext& ctx, const ir::Node& node) {
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(emit::Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(emit::Binding by, ctx.Bind(node, node.outputs[0]));
  int64_t k = 0, k_binding = 0;
  emit::Binding bk = bx;
  if (HasInput(node, 1)) {
    const ir::ConstantPtr& c = ctx.value(node.inputs[1]).constant;
    if (c) {
      k = c->IntAt(0);
    } else {  // read by the kernel at run time
      KILN_ASSIGN_OR_RETURN(bk, ctx.Bind(node, node.inputs[1]));
      k_binding = 1;
    }
  }
  const size_t r = x.size();
  // Dims may be symbolic (a causal mask over S): the batch through the pool.
  const std::vector<int64_t> batch(x.begin(), x.end() - 2);
  emit::kernel::Trilu trilu;
  trilu.elem_bytes = ElemBytes(ctx, node.inputs[0]);
  trilu.batch = ctx.dims().Product(batch);
  trilu.rows = x[r - 2];
  trilu.cols = x[r - 1];
  trilu.k = k;
  trilu.upper = node.GetInt("upper", 1) != 0 ? 1 : 0;
  trilu.k_binding = k_binding;
  return ctx.Dispatch(node, trilu, {bx, bk, by}, {-1, k_binding ? -1 : 0, -1});
}

absl::Status LowerCumSum(emit::LoweringContext& ctx, const ir::Node& node) {
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  const int64_t kind = TypedArithmeticKind(ctx.value(node.inputs[0]).dtype);
  if (kind == 0) return ctx.Unimplemented(node, "CumSum supports float32/float64/int32/int64");
  if (x.empty() || x.size() > KILN_MAX_RANK) return ctx.Unimplemented(node, "rank out of range");
  KILN_ASSIGN_OR_RETURN(emit::Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(emit::Binding by, ctx.Bind(node, node.outputs[0]));
  const ir::ConstantPtr& c = ctx.value(node.inputs[1]).constant;
  int64_t axis = 0, axis_ib = 0;
  emit::Binding ba = bx;
  if (c) {
    axis = c->IntAt(0);
  } else {  // read (and range-checked) by the kernel at run time
    KILN_ASSIGN_OR_RETURN(axis_ib, IndexBytes(ctx, node, 1));
    KILN_ASSIGN_OR_RETURN(ba, ctx.Bind(node, node.inputs[1]));
  }
  emit::kernel::Cumsum cumsum;
  cumsum.kind = kind;
  cumsum.axis_ib = axis_ib;
  cumsum.exclusive = node.GetInt("exclusive", 0) != 0 ? 1 : 0;
  cumsum.reverse = node.GetInt("reverse", 0) != 0 ? 1 : 0;
  cumsum.axis = axis;
  cumsum.R = static_cast<int64_t>(x.size());
  cumsum.dims = x;
  return ctx.Dispatch(node, cumsum, {bx, ba, by}, {-1, axis_ib ? -1 : 0, -1});
}

// ---- Gather and OneHot: index-driven byte movers (gather, one_hot) -------

absl::Status Gather(ShapeRuleContext& c) {
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
  if (const ir::ConstantData* idx = c.C(1); idx && !ir::IsSymbolic(x[axis])) {
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

absl::Status OneHot(ShapeRuleContext& c) {
  KILN_RETURN_IF_ERROR(c.Need(3));
  Shape depth_v;
  const ConstantData* depth = c.C(1);
  if (!depth) return c.Err("depth depends on run-time data (only compile-time values are supported)");
  if (depth->element_count() != 1) return c.Err("depth must hold one value");
  const int64_t depth_n = ir::SaturateToInt64(depth->FloatAt(0));
  if (depth_n < 0) return c.Err("depth must be non-negative");
  if (ir::ElementCount(c.S(2)) != 2) return c.Err("values must hold [off, on]");
  const int64_t r = c.Rank(0) + 1;
  int64_t axis = 0;
  KILN_RETURN_IF_ERROR(c.Axis(c.node().GetInt("axis", -1), r, &axis));
  Shape out = c.S(0);
  out.insert(out.begin() + axis, depth_n);
  return c.Set(0, c.T(2), std::move(out));
}

// OneHot by a depth known only at run time (shape_rules_runtime.h).
absl::Status OneHotByValue(ShapeRuleContext& c, int64_t count, const RuntimeShapeRule::Shapes& ys) {
  const Shape& y = ys[0];
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
    return c.DeclaredMismatch(y, absl::StrCat("is not indices ", ir::ShapeStr(x), " with a depth axis at ",
                                       axis));
  }
  return c.Set(0, c.T(2), y);
}

// OneHot by a run-time depth without a declared output shape: the depth
// axis's length is a data symbol shape_resolve reports (EXACT: the depth,
// truncated toward zero as ONNX casts it), without a bound.
absl::Status OneHotAfterRun(ShapeRuleContext& c, int64_t count) {
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

int64_t Prod(const std::vector<int64_t>& s, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t i = from; i < to && i < s.size(); ++i) p *= s[i];
  return p;
}

absl::Status LowerGather(emit::LoweringContext& ctx, const ir::Node& node) {
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(auto idx, ctx.InputShape(node, 1));
  KILN_ASSIGN_OR_RETURN(int64_t ib, emit::IndexBytes(ctx, node, 1));
  const int64_t r = static_cast<int64_t>(x.size());
  int64_t axis = node.GetInt("axis", 0);
  if (axis < 0) axis += r;
  if (axis < 0 || axis >= r) return ctx.Invalid(node, "axis out of range");
  KILN_ASSIGN_OR_RETURN(emit::Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(emit::Binding bi, ctx.Bind(node, node.inputs[1]));
  KILN_ASSIGN_OR_RETURN(emit::Binding by, ctx.Bind(node, node.outputs[0]));
  ir::DimPool& dims = ctx.dims();  // sizes may be symbolic (indices checked at run time)
  emit::kernel::Gather gather;
  gather.elem_bytes = emit::ElemBytes(ctx, node.inputs[0]);
  gather.ib = ib;
  gather.outer = dims.Product({x.begin(), x.begin() + axis});
  gather.len = x[axis];
  gather.inner = dims.Product({x.begin() + axis + 1, x.end()});
  gather.count = dims.Product(idx);
  return ctx.Dispatch(node, gather, {bx, bi, by});
}

absl::Status LowerOneHot(emit::LoweringContext& ctx, const ir::Node& node) {
  KILN_ASSIGN_OR_RETURN(auto idx, ctx.InputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(auto y, ctx.OutputShape(node, 0));
  // The depth may be a reported length (patched); the indices' dims not.
  KILN_RETURN_IF_ERROR(ctx.RequireStatic(node, idx, "the indices' shape"));
  const int64_t kind = TypedArithmeticKind(ctx.value(node.inputs[0]).dtype);
  if (kind == 0) return ctx.Unimplemented(node, "indices must be float32/float64/int32/int64");
  const int64_t r = static_cast<int64_t>(y.size());
  int64_t axis = node.GetInt("axis", -1);
  if (axis < 0) axis += r;
  KILN_ASSIGN_OR_RETURN(emit::Binding bi, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(emit::Binding bv, ctx.Bind(node, node.inputs[2]));
  KILN_ASSIGN_OR_RETURN(emit::Binding by, ctx.Bind(node, node.outputs[0]));
  emit::kernel::OneHot one_hot;
  one_hot.elem_bytes = emit::ElemBytes(ctx, node.outputs[0]);
  one_hot.idx_kind = kind;
  one_hot.outer = Prod(idx, 0, axis);
  one_hot.depth = y[axis];
  one_hot.inner = Prod(idx, axis, idx.size());
  return ctx.Dispatch(node, one_hot, {bi, bv, by});
}

}  // namespace

void RegisterIndexingOps(std::vector<OpDef>& ops) {
  OpDef gather{"Gather", Gather, /*symbolic=*/true, LowerGather};
  gather.symbolic_values = SymbolicValueAtFirst;  // Shape(x)[0]
  gather.fold = {FoldGather, FoldRule::Needs::kKnownInputs, 2};
  ops.push_back(gather);
  OpDef one_hot{"OneHot", OneHot, /*symbolic=*/true, LowerOneHot};
  one_hot.runtime_shape = {1, 0, RuntimeShapeRule::Value::kNumber, OneHotByValue, OneHotAfterRun,
                           false};
  ops.push_back(one_hot);
  ops.push_back({"GatherElements", GatherElementsShape, /*symbolic=*/true, LowerElements});
  ops.push_back({"ScatterElements", ScatterElementsShape, /*symbolic=*/true, LowerElements});
  ops.push_back({"GatherND", GatherNDShape, /*symbolic=*/true, LowerND});
  ops.push_back({"ScatterND", ScatterNDShape, /*symbolic=*/true, LowerND});
  ops.push_back({"Trilu", TriluShape, /*symbolic=*/true, LowerTrilu});
  ops.push_back({"CumSum", CumSumShape, /*symbolic=*/true, LowerCumSum});
}

}  // namespace kiln::compiler
