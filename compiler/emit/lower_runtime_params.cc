// Ops whose parameter values arrive at run time (passes/
// shape_rules_runtime_params.h): Slice, Pad, Reduce* and Range lowered to
// kernels that read the parameter tensors, check them against the compiled
// (declared) output shape and do the op (slice_rt, pad_rt, reduce_rt_f32,
// range). Each op's lowering (compiler/ops/) calls these when the node has
// run-time parameters and its ordinary lowering otherwise.
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "compiler/emit/lower_ops.h"
#include "compiler/ir/graph.h"
#include "compiler/passes/shape_rules_runtime_params.h"
#include "kiln/kernels.h"

namespace kiln::compiler::emit {
namespace {

using Shape = std::vector<int64_t>;

bool Present(const ir::Node& node, size_t k) {
  return k < node.inputs.size() && node.inputs[k] != ir::kNoValue;
}

// A new int64 constant [values] bound in place of an absent input.
Binding BindInts(LoweringContext& ctx, const ir::Node& node, const char* what,
                 const Shape& values) {
  auto data = std::make_shared<ir::ConstantData>();
  data->dtype = ir::DType::I64;
  data->shape = {static_cast<int64_t>(values.size())};
  data->bytes.resize(values.size() * sizeof(int64_t));
  if (!values.empty()) std::memcpy(data->bytes.data(), values.data(), data->bytes.size());
  return ctx.BindNewConstant(absl::StrCat(node.name, ".", what), data);
}

Shape Iota(int64_t n) {
  Shape v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = i;
  return v;
}

// Whether the output's dims are reported by the kernel after its run
// (shape_rules_runtime_params.cc: no declared output shape): its shape here
// is then the bound, and the *_bounded kernel writes the dims to the last
// output.
bool AfterRun(const ir::Node& node) { return node.GetInt("kiln.result_dims", 0) != 0; }

// The kernel of `params`, or its *_bounded twin with the dims binding
// appended.
template <typename Bounded, typename Params>
absl::Status DispatchRt(LoweringContext& ctx, const ir::Node& node, const Params& params,
                        std::vector<Binding> b) {
  if (!AfterRun(node)) return ctx.Dispatch(node, params, b);
  KILN_ASSIGN_OR_RETURN(Binding dims, ctx.Bind(node, node.outputs.back()));
  b.push_back(dims);
  return ctx.Dispatch(node, Bounded(params), b);
}

absl::Status Shapes(LoweringContext& ctx, const ir::Node& node, Shape* x, Shape* y) {
  KILN_ASSIGN_OR_RETURN(*x, ctx.InputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(*y, ctx.OutputShape(node, 0));
  // Reported dims: their bounds, or without one the symbols themselves
  // (patched into the kernel's parameters).
  bool unbounded = false;
  for (int64_t d : *y) unbounded = unbounded || ctx.dims().HasUnbounded(d);
  if (AfterRun(node) && !unbounded) {
    KILN_ASSIGN_OR_RETURN(*y, ctx.BoundShape(node, *y));
  }
  // Pad with reported dims also patches the input's (symbolic) dims.
  if (!(unbounded && node.op_type == "Pad")) {
    KILN_RETURN_IF_ERROR(ctx.RequireStatic(node, *x, "the input shape"));
  }
  if (!unbounded) KILN_RETURN_IF_ERROR(ctx.RequireStatic(node, *y, "the output shape"));
  if (x->size() > KILN_MAX_RANK) {
    return ctx.Unimplemented(node, absl::StrCat("rank ", x->size(), " is above ", KILN_MAX_RANK));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status LowerRangeRt(LoweringContext& ctx, const ir::Node& node) {
  KILN_ASSIGN_OR_RETURN(auto y, ctx.OutputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(std::vector<Binding> b, BindAll(ctx, node, {0, 1, 2}));
  // Without a declaration: range_count reports the length, patched into n.
  if (node.GetInt("kiln.result_dims", 0) != 0 && y.size() == 1) {
    KILN_ASSIGN_OR_RETURN(Binding n, ctx.Bind(node, node.outputs.back()));
    std::vector<Binding> bc = b;  // start, limit, delta, then n for Y
    bc.back() = n;
    kernel::RangeCount count;
    count.dtype = DTypeCode(ctx, node.inputs[0]);
    KILN_RETURN_IF_ERROR(ctx.Dispatch(node, count, bc));
    kernel::Range range;
    range.dtype = count.dtype;
    range.n = y[0];
    return ctx.Dispatch(node, range, b);
  }
  KILN_RETURN_IF_ERROR(ctx.RequireStatic(node, y, "the output shape"));
  kernel::Range range;
  range.dtype = DTypeCode(ctx, node.inputs[0]);
  range.n = ir::ElementCount(y);
  return ctx.Dispatch(node, range, b);
}

absl::Status LowerSliceRt(LoweringContext& ctx, const ir::Node& node) {
  Shape x, y;
  KILN_RETURN_IF_ERROR(Shapes(ctx, node, &x, &y));
  KILN_ASSIGN_OR_RETURN(auto starts, ctx.InputShape(node, 1));
  const int64_t n = ir::ElementCount(starts);
  const int64_t eb = static_cast<int64_t>(ir::DTypeSize(ctx.value(node.inputs[0]).dtype));
  kernel::SliceRt slice;
  slice.elem_bytes = eb;
  slice.R = static_cast<int64_t>(x.size());
  slice.n = n;
  slice.starts_dtype = DTypeCode(ctx, node.inputs[1]);
  slice.ends_dtype = DTypeCode(ctx, node.inputs[2]);
  slice.axes_dtype = Present(node, 3) ? DTypeCode(ctx, node.inputs[3]) : int64_t{KILN_DTYPE_I64};
  slice.steps_dtype = Present(node, 4) ? DTypeCode(ctx, node.inputs[4]) : int64_t{KILN_DTYPE_I64};
  slice.in_dims = x;
  slice.out_dims = y;
  std::vector<Binding> b(6);
  KILN_ASSIGN_OR_RETURN(b[0], ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(b[1], ctx.Bind(node, node.inputs[1]));
  KILN_ASSIGN_OR_RETURN(b[2], ctx.Bind(node, node.inputs[2]));
  if (Present(node, 3)) {
    KILN_ASSIGN_OR_RETURN(b[3], ctx.Bind(node, node.inputs[3]));
  } else {
    b[3] = BindInts(ctx, node, "axes", Iota(n));
  }
  if (Present(node, 4)) {
    KILN_ASSIGN_OR_RETURN(b[4], ctx.Bind(node, node.inputs[4]));
  } else {
    b[4] = BindInts(ctx, node, "steps", Shape(static_cast<size_t>(n), 1));
  }
  KILN_ASSIGN_OR_RETURN(b[5], ctx.Bind(node, node.outputs[0]));
  return DispatchRt<kernel::SliceRtBounded>(ctx, node, slice, std::move(b));
}

absl::Status LowerPadRt(LoweringContext& ctx, const ir::Node& node) {
  Shape x, y;
  KILN_RETURN_IF_ERROR(Shapes(ctx, node, &x, &y));
  const int64_t r = static_cast<int64_t>(x.size());
  KILN_ASSIGN_OR_RETURN(auto pads, ctx.InputShape(node, 1));
  const int64_t n = ir::ElementCount(pads) / 2;
  const ir::DType dtype = ctx.value(node.inputs[0]).dtype;
  const int64_t eb = static_cast<int64_t>(ir::DTypeSize(dtype));
  const std::string mode = node.GetString("mode", "constant");
  // pad's modes (kiln/kernels.h): constant 0, edge 1, reflect 2, wrap 3.
  const int64_t m = mode == "edge" ? 1 : mode == "reflect" ? 2 : mode == "wrap" ? 3 : 0;
  kernel::PadRtDims pad_dims;
  pad_dims.elem_bytes = eb;
  pad_dims.mode = m;
  pad_dims.R = r;
  pad_dims.n = n;
  pad_dims.pads_dtype = DTypeCode(ctx, node.inputs[1]);
  pad_dims.axes_dtype = Present(node, 3) ? DTypeCode(ctx, node.inputs[3]) : int64_t{KILN_DTYPE_I64};
  pad_dims.in_dims = x;
  kernel::PadRt pad(pad_dims);
  pad.out_dims = y;
  std::vector<Binding> b(5);
  KILN_ASSIGN_OR_RETURN(b[0], ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(b[1], ctx.Bind(node, node.inputs[1]));
  if (Present(node, 2)) {
    KILN_ASSIGN_OR_RETURN(b[2], ctx.Bind(node, node.inputs[2]));
  } else {  // fill with zeros of the data type
    auto zero = std::make_shared<ir::ConstantData>();
    zero->dtype = dtype;
    zero->shape = {};
    zero->bytes.assign(static_cast<size_t>(eb), 0);
    b[2] = ctx.BindNewConstant(absl::StrCat(node.name, ".value"), zero);
  }
  if (Present(node, 3)) {
    KILN_ASSIGN_OR_RETURN(b[3], ctx.Bind(node, node.inputs[3]));
  } else {
    b[3] = BindInts(ctx, node, "axes", Iota(r));
  }
  KILN_ASSIGN_OR_RETURN(b[4], ctx.Bind(node, node.outputs[0]));
  if (node.GetInt("kiln.result_dims", 0) != 0) {  // the dims first, reported
    KILN_ASSIGN_OR_RETURN(Binding dims, ctx.Bind(node, node.outputs.back()));
    KILN_RETURN_IF_ERROR(ctx.Dispatch(node, pad_dims, {b[1], b[3], dims}));
  }
  return ctx.Dispatch(node, pad, b);
}

absl::Status LowerReduceRt(LoweringContext& ctx, const ir::Node& node) {
  Shape x, y;
  KILN_RETURN_IF_ERROR(Shapes(ctx, node, &x, &y));
  if (ctx.value(node.inputs[0]).dtype != ir::DType::F32 ||
      ctx.value(node.outputs[0]).dtype != ir::DType::F32) {
    return ctx.Unimplemented(node, "run-time axes are supported for float32 data only");
  }
  KILN_ASSIGN_OR_RETURN(auto axes, ctx.InputShape(node, 1));
  const int64_t kind = ReduceKind(node.op_type);
  if (kind < 0) return ctx.Unimplemented(node, "no run-time axes kernel for this op");
  kernel::ReduceRtF32 reduce;
  reduce.kind = kind;
  reduce.keepdims = node.GetInt("keepdims", 1) != 0 ? 1 : 0;
  reduce.noop_with_empty_axes = node.GetInt("noop_with_empty_axes", 0) != 0 ? 1 : 0;
  reduce.axes_dtype = DTypeCode(ctx, node.inputs[1]);
  reduce.n = ir::ElementCount(axes);
  reduce.R = static_cast<int64_t>(x.size());
  reduce.RO = static_cast<int64_t>(y.size());
  reduce.in_dims = x;
  reduce.out_dims = y;
  KILN_ASSIGN_OR_RETURN(Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding ba, ctx.Bind(node, node.inputs[1]));
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  return DispatchRt<kernel::ReduceRtF32Bounded>(ctx, node, reduce, {bx, ba, by});
}


}  // namespace kiln::compiler::emit
