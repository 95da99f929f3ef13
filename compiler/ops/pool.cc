// Pools: MaxPool and AveragePool (pool2d_f32 or pool2d_nhwc_f32 for 1-D and
// 2-D float32 windows; pool_nd for deeper windows and other dtypes;
// maxpool_argmax_f32 when MaxPool's Indices output is used), the global
// pools (global_pool_f32 / _nhwc_f32), and LpPool / GlobalLpPool
// (lp_pool_f32, 2-D).
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/ir/graph_util.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/window.h"
#include "kiln/kernels.h"

namespace kiln::compiler {
namespace {

using ir::ShapeStr;
using Shape = std::vector<int64_t>;
using emit::KernelDTypeCode;

absl::Status PoolShape(ShapeRuleContext& c) {
  KILN_RETURN_IF_ERROR(c.Need(1));
  const Shape& x = c.S(0);
  const Shape kernel = c.node().GetInts("kernel_shape", {});
  if (kernel.empty() || x.size() != kernel.size() + 2) {
    return c.Err(absl::StrCat("kernel_shape ", ShapeStr(kernel), " does not fit input ",
                              ShapeStr(x)));
  }
  Shape spatial;
  KILN_RETURN_IF_ERROR(WindowShape(c, x, kernel, /*allow_ceil=*/true, &spatial));
  Shape out = {x[0], x[1]};
  out.insert(out.end(), spatial.begin(), spatial.end());
  KILN_RETURN_IF_ERROR(c.Set(1, ir::DType::I64, out));  // MaxPool's Indices (maxpool_argmax_f32 below)
  return c.Set(0, c.T(0), std::move(out));
}

absl::Status GlobalPoolShape(ShapeRuleContext& c) {
  KILN_RETURN_IF_ERROR(c.Need(1));
  if (c.Rank(0) < 3) return c.Err(absl::StrCat("input ", ShapeStr(c.S(0)), " must have rank >= 3"));
  Shape out = c.S(0);
  std::fill(out.begin() + 2, out.end(), 1);
  return c.Set(0, c.T(0), std::move(out));
}

absl::Status LpPoolShape(ShapeRuleContext& c) {
  KILN_RETURN_IF_ERROR(c.Need(1));
  const Shape& x = c.S(0);
  if (c.node().op_type == "GlobalLpPool") {
    if (x.size() < 3) return c.Err("input must have rank >= 3");
    Shape out = x;
    std::fill(out.begin() + 2, out.end(), 1);
    return c.Set(0, c.T(0), std::move(out));
  }
  const Shape kernel = c.node().GetInts("kernel_shape", {});
  if (x.size() != 4 || kernel.size() != 2) return c.Err("only 2-D LpPool is supported");
  Shape spatial;
  KILN_RETURN_IF_ERROR(WindowShape(c, x, kernel, /*allow_ceil=*/true, &spatial));
  Shape out = {x[0], x[1]};
  out.insert(out.end(), spatial.begin(), spatial.end());
  return c.Set(0, c.T(0), std::move(out));
}

absl::Status LowerPool2d(emit::LoweringContext& ctx, const ir::Node& node) {
  KILN_RETURN_IF_ERROR(ctx.RequireF32(node));
  if (node.outputs.size() > 1 && node.outputs[1] != ir::kNoValue &&
      (!ctx.graph().Users(node.outputs[1]).empty() || ctx.graph().IsGraphOutput(node.outputs[1]))) {
    return ctx.Unimplemented(node, "the Indices output is not supported");
  }
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(auto y, ctx.OutputShape(node, 0));
  const std::vector<int64_t> kernel =
      node.GetInts("kiln.kernel_shape", node.GetInts("kernel_shape", {}));
  WindowGeometry win;
  KILN_RETURN_IF_ERROR(ResolveWindow(ctx, node, x, y, kernel, &win));
  const bool is_max = node.op_type == "MaxPool";
  KILN_ASSIGN_OR_RETURN(emit::Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(emit::Binding by, ctx.Bind(node, node.outputs[0]));
  emit::kernel::Pool2dF32 pool;
  pool.kind = is_max ? KILN_POOL_MAX : KILN_POOL_AVG;
  pool.N = win.n;
  pool.C = win.c;
  pool.H = win.h;
  pool.W = win.w;
  pool.OH = win.oh;
  pool.OW = win.ow;
  pool.KH = win.kh;
  pool.KW = win.kw;
  pool.stride_h = win.stride_h;
  pool.stride_w = win.stride_w;
  pool.pad_top = win.pad_top;
  pool.pad_left = win.pad_left;
  pool.pad_bottom = win.pad_bottom;
  pool.pad_right = win.pad_right;
  pool.dilation_h = win.dil_h;
  pool.dilation_w = win.dil_w;
  pool.count_include_pad = is_max ? 0 : node.GetInt("count_include_pad", 0);
  // passes/layout_selection keeps a pool between channels-last neighbours
  // channels last in and out.
  const bool x_cl = ctx.value(node.inputs[0]).channels_last;
  if (x_cl != ctx.value(node.outputs[0]).channels_last) {
    return ctx.Error(absl::StatusCode::kInternal, node,
                     "a pool's input and output layouts differ");
  }
  if (x_cl) return ctx.Dispatch(node, emit::kernel::Pool2dNhwcF32(pool), {bx, by});
  return ctx.Dispatch(node, pool, {bx, by});
}

absl::Status LowerGlobalPool(emit::LoweringContext& ctx, const ir::Node& node) {
  KILN_RETURN_IF_ERROR(ctx.RequireF32(node));
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  if (x.size() < 2) return ctx.Invalid(node, "input rank must be at least 2");
  const int64_t spatial = ctx.dims().Product(std::vector<int64_t>(x.begin() + 2, x.end()));
  KILN_ASSIGN_OR_RETURN(emit::Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(emit::Binding by, ctx.Bind(node, node.outputs[0]));
  const int64_t kind = node.op_type == "GlobalMaxPool" ? KILN_POOL_MAX : KILN_POOL_AVG;
  if (ctx.value(node.inputs[0]).channels_last) {
    // [N,C,1,1] is the same bytes in either layout.
    emit::kernel::GlobalPoolNhwcF32 pool;
    pool.kind = kind;
    pool.N = x[0];
    pool.spatial = spatial;
    pool.C = x[1];
    return ctx.Dispatch(node, pool, {bx, by});
  }
  emit::kernel::GlobalPoolF32 pool;
  pool.kind = kind;
  pool.rows = ctx.dims().Mul(x[0], x[1]);
  pool.spatial = spatial;
  return ctx.Dispatch(node, pool, {bx, by});
}

absl::Status LowerPoolNd(emit::LoweringContext& ctx, const ir::Node& node) {
  if (node.outputs.size() > 1 && node.outputs[1] != ir::kNoValue) {
    return ctx.Unimplemented(node, "the Indices output is not supported");
  }
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(auto y, ctx.OutputShape(node, 0));
  if (x.size() < 3 || y.size() != x.size()) return ctx.Invalid(node, "input rank must be >= 3");
  const size_t s = x.size() - 2;
  if (s > KILN_MAX_RANK) return ctx.Unimplemented(node, "too many spatial dims");
  const ir::DType t = ctx.value(node.inputs[0]).dtype;
  const bool is_max = node.op_type == "MaxPool";
  const bool float_t = t == ir::DType::F32 || t == ir::DType::F64 || t == ir::DType::F16;
  const bool small_int = t == ir::DType::I8 || t == ir::DType::U8 || t == ir::DType::I16 ||
                         t == ir::DType::U16 || t == ir::DType::I32 || t == ir::DType::U32;
  if (!float_t && !(is_max && small_int)) {
    return ctx.Unimplemented(node, absl::StrCat("tensor '", ctx.value(node.inputs[0]).name,
                                                "' is ", ir::DTypeName(t),
                                                "; only float32 kernels exist"));
  }
  // Shape inference resolved auto_pad into kiln.pads (and the rest).
  if (!node.HasAttr("kiln.pads")) return ctx.Invalid(node, "the window was not resolved");
  const std::vector<int64_t> kernel =
      node.GetInts("kiln.kernel_shape", node.GetInts("kernel_shape", {}));
  const std::vector<int64_t> strides =
      node.GetInts("kiln.strides", node.GetInts("strides", std::vector<int64_t>(s, 1)));
  const std::vector<int64_t> dil =
      node.GetInts("kiln.dilations", node.GetInts("dilations", std::vector<int64_t>(s, 1)));
  const std::vector<int64_t> pads = node.GetInts("kiln.pads", {});
  if (kernel.size() != s || strides.size() != s || dil.size() != s || pads.size() != 2 * s) {
    return ctx.Invalid(node, "kernel/strides/dilations/pads do not match the spatial rank");
  }
  emit::kernel::PoolNd pool;
  pool.kind = is_max ? KILN_POOL_MAX : KILN_POOL_AVG;
  pool.dtype = KernelDTypeCode(t);
  pool.S = static_cast<int64_t>(s);
  pool.count_include_pad = is_max ? 0 : (node.GetInt("count_include_pad", 0) != 0 ? 1 : 0);
  pool.NC = ctx.dims().Mul(x[0], x[1]);  // N and C may be symbolic
  pool.in = std::vector<int64_t>(x.begin() + 2, x.end());
  pool.out = std::vector<int64_t>(y.begin() + 2, y.end());
  pool.kernel = kernel;
  pool.stride = strides;
  pool.dilation = dil;
  pool.pad_begin = std::vector<int64_t>(pads.begin(), pads.begin() + s);
  pool.pad_end = std::vector<int64_t>(pads.begin() + s, pads.end());
  KILN_ASSIGN_OR_RETURN(emit::Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(emit::Binding by, ctx.Bind(node, node.outputs[0]));
  return ctx.Dispatch(node, pool, {bx, by});
}

// A 2-D window as maxpool_argmax_f32 and lp_pool_f32 both take it.
struct Window2d {
  int64_t N, C, H, W, OH, OW, KH, KW, stride_h, stride_w, pad_top, pad_left, dilation_h,
      dilation_w;
};

template <typename Params>
void SetWindow2d(const Window2d& w, Params* p) {
  p->N = w.N;
  p->C = w.C;
  p->H = w.H;
  p->W = w.W;
  p->OH = w.OH;
  p->OW = w.OW;
  p->KH = w.KH;
  p->KW = w.KW;
  p->stride_h = w.stride_h;
  p->stride_w = w.stride_w;
  p->pad_top = w.pad_top;
  p->pad_left = w.pad_left;
  p->dilation_h = w.dilation_h;
  p->dilation_w = w.dilation_w;
}

bool IndicesUsed(const emit::LoweringContext& ctx, const ir::Node& node) {
  if (node.outputs.size() < 2 || node.outputs[1] == ir::kNoValue) return false;
  return !ctx.graph().Users(node.outputs[1]).empty() ||
         ctx.graph().IsGraphOutput(node.outputs[1]);
}

absl::Status LowerMaxPoolArgmax(emit::LoweringContext& ctx, const ir::Node& node) {
  KILN_ASSIGN_OR_RETURN(Shape x, ctx.InputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(Shape y, ctx.OutputShape(node, 0));
  if (ctx.value(node.inputs[0]).dtype != ir::DType::F32) {
    return ctx.Unimplemented(node, "MaxPool with Indices supports float32 only");
  }
  if ((x.size() != 3 && x.size() != 4) || y.size() != x.size()) {
    return ctx.Unimplemented(node, "MaxPool with Indices supports 1-D and 2-D windows only");
  }
  const size_t sp = x.size() - 2;
  const Shape kernel = node.GetInts("kiln.kernel_shape", {});
  const Shape strides = node.GetInts("kiln.strides", {});
  const Shape dil = node.GetInts("kiln.dilations", {});
  const Shape pads = node.GetInts("kiln.pads", {});
  if (kernel.size() != sp || strides.size() != sp || dil.size() != sp || pads.size() != 2 * sp) {
    return ctx.Invalid(node, "the window was not resolved");
  }
  // 1-D pools as 2-D with a unit height.
  const bool one = sp == 1;
  emit::kernel::MaxpoolArgmaxF32 pool;
  SetWindow2d({x[0], x[1], one ? 1 : x[2], x.back(), one ? 1 : y[2], y.back(),
               one ? 1 : kernel[0], kernel.back(), one ? 1 : strides[0], strides.back(),
               one ? 0 : pads[0], pads[sp - 1], one ? 1 : dil[0], dil.back()},
              &pool);
  pool.storage_order = node.GetInt("storage_order", 0) != 0 ? 1 : 0;
  KILN_ASSIGN_OR_RETURN(emit::Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(emit::Binding by, ctx.Bind(node, node.outputs[0]));
  KILN_ASSIGN_OR_RETURN(emit::Binding bi, ctx.Bind(node, node.outputs[1]));
  return ctx.Dispatch(node, pool, {bx, by, bi});
}

absl::Status LowerLpPool(emit::LoweringContext& ctx, const ir::Node& node) {
  KILN_RETURN_IF_ERROR(ctx.RequireF32(node));
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(auto y, ctx.OutputShape(node, 0));
  emit::kernel::LpPoolF32 pool;
  pool.p = node.GetInt("p", 2);
  if (node.op_type == "GlobalLpPool") {
    int64_t spatial = 1;
    for (size_t i = 2; i < x.size(); ++i) spatial *= x[i];
    // One window over the flattened spatial dims.
    SetWindow2d({x[0], x[1], 1, spatial, 1, 1, 1, spatial, 1, 1, 0, 0, 1, 1}, &pool);
  } else {
    const Shape k = node.GetInts("kiln.kernel_shape", {}), s = node.GetInts("kiln.strides", {});
    const Shape d = node.GetInts("kiln.dilations", {}), pads = node.GetInts("kiln.pads", {});
    if (x.size() != 4 || k.size() != 2 || pads.size() != 4) return ctx.Invalid(node, "window attributes are missing");
    SetWindow2d({x[0], x[1], x[2], x[3], y[2], y[3], k[0], k[1], s[0], s[1], pads[0], pads[1],
                 d[0], d[1]},
                &pool);
  }
  KILN_ASSIGN_OR_RETURN(emit::Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(emit::Binding by, ctx.Bind(node, node.outputs[0]));
  return ctx.Dispatch(node, pool, {bx, by});
}

// What pool2d_f32 takes: float32 with a 1-D or 2-D window.
bool Fits2d(const emit::LoweringContext& ctx, const ir::Node& node) {
  return !node.inputs.empty() && node.inputs[0] != ir::kNoValue &&
         ctx.value(node.inputs[0]).dtype == ir::DType::F32 &&
         (ctx.value(node.inputs[0]).shape.size() == 3 ||
          ctx.value(node.inputs[0]).shape.size() == 4);
}

absl::Status LowerAveragePool(emit::LoweringContext& ctx, const ir::Node& node) {
  return Fits2d(ctx, node) ? LowerPool2d(ctx, node) : LowerPoolNd(ctx, node);
}

absl::Status LowerMaxPool(emit::LoweringContext& ctx, const ir::Node& node) {
  if (IndicesUsed(ctx, node)) return LowerMaxPoolArgmax(ctx, node);
  return LowerAveragePool(ctx, node);
}

}  // namespace

void RegisterPoolOps(std::vector<OpDef>& ops) {
  ops.push_back({"MaxPool", PoolShape, /*symbolic=*/true, LowerMaxPool});
  ops.push_back({"AveragePool", PoolShape, /*symbolic=*/true, LowerAveragePool});
  ops.push_back({"GlobalAveragePool", GlobalPoolShape, /*symbolic=*/true, LowerGlobalPool});
  ops.push_back({"GlobalMaxPool", GlobalPoolShape, /*symbolic=*/true, LowerGlobalPool});
  ops.push_back({"LpPool", LpPoolShape, /*symbolic=*/false, LowerLpPool});
  ops.push_back({"GlobalLpPool", LpPoolShape, /*symbolic=*/false, LowerLpPool});
}

}  // namespace kiln::compiler
