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
  return ctx.Dispatch(node, "gather",
                      {ElemBytes(ctx, node.inputs[0]), ib,
                       dims.Product({x.begin(), x.begin() + axis}), x[axis],
                       dims.Product({x.begin() + axis + 1, x.end()}), dims.Product(idx)},
                      {}, {bx, bi, by});
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
  std::vector<int64_t> ip = {ElemBytes(ctx, node.inputs[0]), ib, r, axis,
                             red ? KindOf(ctx.value(node.inputs[0]).dtype) : 0, red};
  ip.insert(ip.end(), x.begin(), x.end());
  ip.insert(ip.end(), idx.begin(), idx.end());
  KILN_ASSIGN_OR_RETURN(std::vector<Binding> b,
                        BindAll(ctx, node, scatter ? std::vector<size_t>{0, 1, 2}
                                                   : std::vector<size_t>{0, 1}));
  return ctx.Dispatch(node, scatter ? "scatter_elements" : "gather_elements", std::move(ip), {}, b);
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
  std::vector<int64_t> ip = {ElemBytes(ctx, node.inputs[0]), ib,
                             red ? KindOf(ctx.value(node.inputs[0]).dtype) : 0, red,
                             dims.Product({x.begin(), x.begin() + b}),
                             dims.Product({idx.begin() + b, idx.end() - 1}),
                             static_cast<int64_t>(k),
                             dims.Product({x.begin() + b + k, x.end()})};
  ip.insert(ip.end(), x.begin() + b, x.begin() + b + k);
  std::vector<Binding> bs;
  for (size_t i = 0; i < (scatter ? 3u : 2u); ++i) {
    KILN_ASSIGN_OR_RETURN(Binding bi, ctx.Bind(node, node.inputs[i]));
    bs.push_back(bi);
  }
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  bs.push_back(by);
  return ctx.Dispatch(node, scatter ? "scatter_nd" : "gather_nd", std::move(ip), {}, bs);
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
  return ctx.Dispatch(node, "one_hot",
                      {ElemBytes(ctx, node.outputs[0]), kind, Prod(idx, 0, axis), y[axis],
                       Prod(idx, axis, idx.size())},
                      {}, {bi, bv, by});
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
  return ctx.Dispatch(node, "trilu",
                      {ElemBytes(ctx, node.inputs[0]), ctx.dims().Product(batch), x[r - 2], x[r - 1], k,
                       node.GetInt("upper", 1) != 0 ? 1 : 0, k_binding},
                      {}, {bx, bk, by}, {-1, k_binding ? -1 : 0, -1});
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
  std::vector<int64_t> ip = {kind, axis_ib, node.GetInt("exclusive", 0) != 0 ? 1 : 0,
                             node.GetInt("reverse", 0) != 0 ? 1 : 0, axis,
                             static_cast<int64_t>(x.size())};
  ip.insert(ip.end(), x.begin(), x.end());
  return ctx.Dispatch(node, "cumsum", std::move(ip), {}, {bx, ba, by}, {-1, axis_ib ? -1 : 0, -1});
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
