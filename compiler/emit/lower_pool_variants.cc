// The pools lower_spatial.cc's pool2d_f32 does not take: MaxPool and
// AveragePool with 3-D and deeper windows or non-float32 data (pool_nd),
// MaxPool with its Indices output (maxpool_argmax_f32), and LpPool /
// GlobalLpPool (lp_pool_f32). Shape inference resolved every window into
// kiln.kernel_shape, kiln.strides, kiln.dilations and kiln.pads.
#include <utility>

#include "absl/strings/str_cat.h"
#include "compiler/emit/lower_ops.h"
#include "compiler/ir/graph_util.h"
#include "kiln/kernels.h"

namespace kiln::compiler::emit {
namespace {

using Shape = std::vector<int64_t>;

absl::Status LowerPoolNd(LoweringContext& ctx, const ir::Node& node) {
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
  kernel::PoolNd pool;
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
  KILN_ASSIGN_OR_RETURN(Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
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

bool IndicesUsed(const LoweringContext& ctx, const ir::Node& node) {
  if (node.outputs.size() < 2 || node.outputs[1] == ir::kNoValue) return false;
  return !ctx.graph().Users(node.outputs[1]).empty() ||
         ctx.graph().IsGraphOutput(node.outputs[1]);
}

absl::Status LowerMaxPoolArgmax(LoweringContext& ctx, const ir::Node& node) {
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
  kernel::MaxpoolArgmaxF32 pool;
  SetWindow2d({x[0], x[1], one ? 1 : x[2], x.back(), one ? 1 : y[2], y.back(),
               one ? 1 : kernel[0], kernel.back(), one ? 1 : strides[0], strides.back(),
               one ? 0 : pads[0], pads[sp - 1], one ? 1 : dil[0], dil.back()},
              &pool);
  pool.storage_order = node.GetInt("storage_order", 0) != 0 ? 1 : 0;
  KILN_ASSIGN_OR_RETURN(Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding bi, ctx.Bind(node, node.outputs[1]));
  return ctx.Dispatch(node, pool, {bx, by, bi});
}

absl::Status LowerLpPool(LoweringContext& ctx, const ir::Node& node) {
  KILN_RETURN_IF_ERROR(ctx.RequireF32(node));
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(auto y, ctx.OutputShape(node, 0));
  kernel::LpPoolF32 pool;
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
  KILN_ASSIGN_OR_RETURN(Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  return ctx.Dispatch(node, pool, {bx, by});
}

}  // namespace

void RegisterPoolVariantLowerings(LoweringTable& table) {
  table["LpPool"] = LowerLpPool;
  table["GlobalLpPool"] = LowerLpPool;
  // Wraps lower_spatial.cc's pools: what pool2d_f32 does not fit goes to pool_nd.
  for (const char* op : {"MaxPool", "AveragePool"}) {
    auto it = table.find(op);
    if (it == table.end()) continue;
    LowerFn pool2d = it->second;
    it->second = [pool2d](LoweringContext& ctx, const ir::Node& node) {
      const bool fits_2d = !node.inputs.empty() && node.inputs[0] != ir::kNoValue &&
                           ctx.value(node.inputs[0]).dtype == ir::DType::F32 &&
                           (ctx.value(node.inputs[0]).shape.size() == 3 ||
                            ctx.value(node.inputs[0]).shape.size() == 4);
      return fits_2d ? pool2d(ctx, node) : LowerPoolNd(ctx, node);
    };
  }
  // MaxPool keeps the lowering above unless its Indices output is used.
  auto it = table.find("MaxPool");
  LowerFn other = it != table.end() ? it->second : LowerFn();
  table["MaxPool"] = [other](LoweringContext& ctx, const ir::Node& node) -> absl::Status {
    if (IndicesUsed(ctx, node)) return LowerMaxPoolArgmax(ctx, node);
    if (other) return other(ctx, node);
    return ctx.Unimplemented(node, "no kernel lowers this op");
  };
}

}  // namespace kiln::compiler::emit
