// Index-driven ops: Gather, GatherElements, GatherND, ScatterElements,
// ScatterND, OneHot, plus the position-rule ops Trilu and CumSum. All but
// CumSum move bytes only, so they work for any element type.
#include "absl/strings/str_cat.h"
#include "compiler/emit/lower_ops.h"
#include "compiler/ir/graph.h"
#include "kiln/kernel_abi.h"

namespace kiln::compiler::emit {
namespace {

int64_t Prod(const std::vector<int64_t>& s, size_t from, size_t to) {
  int64_t p = 1;
  for (size_t i = from; i < to && i < s.size(); ++i) p *= s[i];
  return p;
}

int64_t ElemBytes(const LoweringContext& ctx, ir::ValueId v) {
  return static_cast<int64_t>(ir::DTypeSize(ctx.value(v).dtype));
}

absl::StatusOr<int64_t> IndexBytes(const LoweringContext& ctx, const ir::Node& node, size_t k) {
  const ir::DType t = ctx.value(node.inputs[k]).dtype;
  if (t == ir::DType::I64) return 8;
  if (t == ir::DType::I32) return 4;
  return ctx.Invalid(node, "indices must be int32 or int64");
}

// Typed-arithmetic code shared by scatter reductions and cumsum:
// 1 f32, 2 f64, 3 i32, 4 i64; 0 for anything else.
int64_t KindOf(ir::DType t) {
  switch (t) {
    case ir::DType::F32: return 1;
    case ir::DType::F64: return 2;
    case ir::DType::I32: return 3;
    case ir::DType::I64: return 4;
    default: return 0;
  }
}

absl::Status LowerGather(LoweringContext& ctx, const ir::Node& node) {
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(auto idx, ctx.InputShape(node, 1));
  KILN_ASSIGN_OR_RETURN(int64_t ib, IndexBytes(ctx, node, 1));
  const int64_t r = static_cast<int64_t>(x.size());
  int64_t axis = node.GetInt("axis", 0);
  if (axis < 0) axis += r;
  if (axis < 0 || axis >= r) return ctx.Invalid(node, "axis out of range");
  KILN_ASSIGN_OR_RETURN(Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding bi, ctx.Bind(node, node.inputs[1]));
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  ir::DimPool& dims = ctx.dims();  // sizes may be symbolic (indices checked at run time)
  kernel::Gather gather;
  gather.elem_bytes = ElemBytes(ctx, node.inputs[0]);
  gather.ib = ib;
  gather.outer = dims.Product({x.begin(), x.begin() + axis});
  gather.len = x[axis];
  gather.inner = dims.Product({x.begin() + axis + 1, x.end()});
  gather.count = dims.Product(idx);
  return ctx.Dispatch(node, gather, {bx, bi, by});
}

absl::StatusOr<int64_t> Reduction(const LoweringContext& ctx, const ir::Node& node) {
  const std::string r = node.GetString("reduction", "none");
  if (r == "none") return 0;
  int64_t code = r == "add" ? 1 : r == "mul" ? 2 : r == "max" ? 3 : r == "min" ? 4 : -1;
  if (code < 0) return ctx.Invalid(node, absl::StrCat("unknown reduction '", r, "'"));
  if (KindOf(ctx.value(node.inputs[0]).dtype) == 0) {
    return ctx.Unimplemented(node, "reductions support float32/float64/int32/int64 only");
  }
  return code;
}

// GatherElements (3 bindings) and ScatterElements (4).
absl::Status LowerElements(LoweringContext& ctx, const ir::Node& node) {
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
  kernel::GatherElements elements;
  elements.elem_bytes = ElemBytes(ctx, node.inputs[0]);
  elements.ib = ib;
  elements.R = r;
  elements.axis = axis;
  elements.kind = red ? KindOf(ctx.value(node.inputs[0]).dtype) : 0;
  elements.reduction = red;
  elements.data_dims = x;
  elements.index_dims = idx;
  KILN_ASSIGN_OR_RETURN(std::vector<Binding> b,
                        BindAll(ctx, node, scatter ? std::vector<size_t>{0, 1, 2}
                                                   : std::vector<size_t>{0, 1}));
  if (scatter) return ctx.Dispatch(node, kernel::ScatterElements(elements), b);
  return ctx.Dispatch(node, elements, b);
}

absl::Status LowerND(LoweringContext& ctx, const ir::Node& node) {
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
  kernel::GatherNd nd;
  nd.elem_bytes = ElemBytes(ctx, node.inputs[0]);
  nd.ib = ib;
  nd.kind = red ? KindOf(ctx.value(node.inputs[0]).dtype) : 0;
  nd.reduction = red;
  nd.batch = dims.Product({x.begin(), x.begin() + b});
  nd.count = dims.Product({idx.begin() + b, idx.end() - 1});
  nd.k = static_cast<int64_t>(k);
  nd.slice = dims.Product({x.begin() + b + k, x.end()});
  nd.dims = std::vector<int64_t>(x.begin() + b, x.begin() + b + k);
  std::vector<Binding> bs;
  for (size_t i = 0; i < (scatter ? 3u : 2u); ++i) {
    KILN_ASSIGN_OR_RETURN(Binding bi, ctx.Bind(node, node.inputs[i]));
    bs.push_back(bi);
  }
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  bs.push_back(by);
  if (scatter) return ctx.Dispatch(node, kernel::ScatterNd(nd), bs);
  return ctx.Dispatch(node, nd, bs);
}

absl::Status LowerOneHot(LoweringContext& ctx, const ir::Node& node) {
  KILN_ASSIGN_OR_RETURN(auto idx, ctx.InputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(auto y, ctx.OutputShape(node, 0));
  // The depth may be a reported length (patched); the indices' dims not.
  KILN_RETURN_IF_ERROR(ctx.RequireStatic(node, idx, "the indices' shape"));
  const int64_t kind = KindOf(ctx.value(node.inputs[0]).dtype);
  if (kind == 0) return ctx.Unimplemented(node, "indices must be float32/float64/int32/int64");
  const int64_t r = static_cast<int64_t>(y.size());
  int64_t axis = node.GetInt("axis", -1);
  if (axis < 0) axis += r;
  KILN_ASSIGN_OR_RETURN(Binding bi, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding bv, ctx.Bind(node, node.inputs[2]));
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  kernel::OneHot one_hot;
  one_hot.elem_bytes = ElemBytes(ctx, node.outputs[0]);
  one_hot.idx_kind = kind;
  one_hot.outer = Prod(idx, 0, axis);
  one_hot.depth = y[axis];
  one_hot.inner = Prod(idx, axis, idx.size());
  return ctx.Dispatch(node, one_hot, {bi, bv, by});
}

absl::Status LowerTrilu(LoweringContext& ctx, const ir::Node& node) {
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  int64_t k = 0, k_binding = 0;
  Binding bk = bx;
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
  kernel::Trilu trilu;
  trilu.elem_bytes = ElemBytes(ctx, node.inputs[0]);
  trilu.batch = ctx.dims().Product(batch);
  trilu.rows = x[r - 2];
  trilu.cols = x[r - 1];
  trilu.k = k;
  trilu.upper = node.GetInt("upper", 1) != 0 ? 1 : 0;
  trilu.k_binding = k_binding;
  return ctx.Dispatch(node, trilu, {bx, bk, by}, {-1, k_binding ? -1 : 0, -1});
}

absl::Status LowerCumSum(LoweringContext& ctx, const ir::Node& node) {
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  const int64_t kind = KindOf(ctx.value(node.inputs[0]).dtype);
  if (kind == 0) return ctx.Unimplemented(node, "CumSum supports float32/float64/int32/int64");
  if (x.empty() || x.size() > KILN_MAX_RANK) return ctx.Unimplemented(node, "rank out of range");
  KILN_ASSIGN_OR_RETURN(Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  const ir::ConstantPtr& c = ctx.value(node.inputs[1]).constant;
  int64_t axis = 0, axis_ib = 0;
  Binding ba = bx;
  if (c) {
    axis = c->IntAt(0);
  } else {  // read (and range-checked) by the kernel at run time
    KILN_ASSIGN_OR_RETURN(axis_ib, IndexBytes(ctx, node, 1));
    KILN_ASSIGN_OR_RETURN(ba, ctx.Bind(node, node.inputs[1]));
  }
  kernel::Cumsum cumsum;
  cumsum.kind = kind;
  cumsum.axis_ib = axis_ib;
  cumsum.exclusive = node.GetInt("exclusive", 0) != 0 ? 1 : 0;
  cumsum.reverse = node.GetInt("reverse", 0) != 0 ? 1 : 0;
  cumsum.axis = axis;
  cumsum.R = static_cast<int64_t>(x.size());
  cumsum.dims = x;
  return ctx.Dispatch(node, cumsum, {bx, ba, by}, {-1, axis_ib ? -1 : 0, -1});
}

}  // namespace

void RegisterIndexingLowerings(LoweringTable& table) {
  table["Gather"] = LowerGather;
  table["GatherElements"] = LowerElements;
  table["ScatterElements"] = LowerElements;
  table["GatherND"] = LowerND;
  table["ScatterND"] = LowerND;
  table["OneHot"] = LowerOneHot;
  table["Trilu"] = LowerTrilu;
  table["CumSum"] = LowerCumSum;
}

}  // namespace kiln::compiler::emit
