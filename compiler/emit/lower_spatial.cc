// Conv, MaxPool/AveragePool and the global pools.
#include "absl/strings/str_cat.h"
#include "compiler/emit/lower_ops.h"
#include "compiler/emit/lower_winograd.h"
#include "compiler/emit/panel_packing.h"
#include "compiler/passes/layout_selection.h"
#include "kiln/kernels.h"

namespace kiln::compiler::emit {
namespace {

// 2-D window geometry; a 1-D op (rank-3 input) is the H = 1 case.
struct Window {
  int64_t n = 0, c = 0, h = 1, w = 0, oh = 1, ow = 0;
  int64_t kh = 1, kw = 0;
  int64_t stride_h = 1, stride_w = 1, dil_h = 1, dil_w = 1;
  int64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
};

// Fills the window from x/y shapes, the kernel size (spatial dims) and the
// ONNX attributes strides/dilations/pads/auto_pad.
absl::Status ResolveWindow(const LoweringContext& ctx, const ir::Node& node,
                           const std::vector<int64_t>& x, const std::vector<int64_t>& y,
                           const std::vector<int64_t>& kernel, Window* win) {
  const size_t rank = x.size();
  if ((rank != 3 && rank != 4) || y.size() != rank || kernel.size() != rank - 2) {
    return ctx.Unimplemented(node, absl::StrCat("only 1-D to 3-D windows are supported (input rank ",
                                                rank, ")"));
  }
  const size_t sp = rank - 2;
  // Shape inference records the resolved geometry as kiln.* attributes;
  // graphs built without it fall back to the ONNX attributes.
  const bool resolved = node.HasAttr("kiln.pads");
  const std::vector<int64_t> strides =
      node.GetInts("kiln.strides", node.GetInts("strides", std::vector<int64_t>(sp, 1)));
  const std::vector<int64_t> dil =
      node.GetInts("kiln.dilations", node.GetInts("dilations", std::vector<int64_t>(sp, 1)));
  std::vector<int64_t> pads =
      node.GetInts("kiln.pads", node.GetInts("pads", std::vector<int64_t>(2 * sp, 0)));
  if (strides.size() != sp || dil.size() != sp || pads.size() != 2 * sp) {
    return ctx.Invalid(node, "strides/dilations/pads do not match the spatial rank");
  }
  const std::string auto_pad = resolved ? "NOTSET" : node.GetString("auto_pad", "NOTSET");
  for (size_t d = 0; d < sp; ++d) {
    const int64_t in = x[2 + d], out = y[2 + d];
    if (auto_pad == "VALID") {
      pads[d] = 0;
      pads[sp + d] = 0;
    } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      const int64_t extent = (kernel[d] - 1) * dil[d] + 1;
      const int64_t total = std::max<int64_t>(0, (out - 1) * strides[d] + extent - in);
      const int64_t small = total / 2;
      pads[d] = auto_pad == "SAME_UPPER" ? small : total - small;
      pads[sp + d] = total - pads[d];
    } else if (auto_pad != "NOTSET") {
      return ctx.Invalid(node, absl::StrCat("unknown auto_pad '", auto_pad, "'"));
    }
  }
  win->n = x[0];
  win->c = x[1];
  win->w = x[rank - 1];
  win->ow = y[rank - 1];
  win->kw = kernel[sp - 1];
  win->stride_w = strides[sp - 1];
  win->dil_w = dil[sp - 1];
  win->pad_left = pads[sp - 1];
  win->pad_right = pads[2 * sp - 1];
  if (sp == 2) {
    win->h = x[2];
    win->oh = y[2];
    win->kh = kernel[0];
    win->stride_h = strides[0];
    win->dil_h = dil[0];
    win->pad_top = pads[0];
    win->pad_bottom = pads[2];
  }
  return absl::OkStatus();
}

// conv2d_packed_f32 (output channels in the vector lanes, weights packed
// here) beats conv2d_f32 on one-group layers with enough channels to stream
// and a K long enough to pay for its transposed store; on a 3-channel stem or
// a short pointwise layer conv2d_f32 is faster (benchmarks/kernels_benchmark.cc,
// BM_Conv2d against BM_Conv2dPacked).
bool UsePackedConv(const ir::Value& w, const Window& win, int64_t groups, int64_t oc) {
  const int64_t taps = win.kh * win.kw;
  return w.constant != nullptr && w.constant->dtype == ir::DType::F32 && groups == 1 &&
         !ir::IsSymbolic(win.c) && taps <= kMaxPackedConvTaps &&
         win.c >= 16 && win.c * taps >= 256 && oc >= 32;
}

absl::Status LowerConv(LoweringContext& ctx, const ir::Node& node) {
  KILN_RETURN_IF_ERROR(ctx.RequireF32(node));
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(auto w, ctx.InputShape(node, 1));
  KILN_ASSIGN_OR_RETURN(auto y, ctx.OutputShape(node, 0));
  if (w.size() != x.size() || w.size() < 3) return ctx.Invalid(node, "weight rank differs from input rank");
  const std::vector<int64_t> kernel(w.begin() + 2, w.end());
  Window win;
  KILN_RETURN_IF_ERROR(ResolveWindow(ctx, node, x, y, kernel, &win));
  const int64_t groups = node.GetInt("group", 1);
  const bool has_bias = HasInput(node, 2);
  const int64_t oc = w[0];
  if (groups <= 0 || win.c != w[1] * groups || oc % groups != 0 || y[1] != oc) {
    return ctx.Invalid(node, "channel counts do not match the weight and group");
  }
  KILN_ASSIGN_OR_RETURN(Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  // Layouts chosen by passes/layout_selection: only the packed and the
  // depthwise NHWC kernels take channels-last tensors.
  const int64_t x_cl = ctx.value(node.inputs[0]).channels_last ? 1 : 0;
  const int64_t y_cl = ctx.value(node.outputs[0]).channels_last ? 1 : 0;
  const Epilogue act = EpilogueOf(node);
  kernel::Conv2dF32 conv;
  conv.N = win.n;
  conv.C = win.c;
  conv.H = win.h;
  conv.W = win.w;
  conv.OC = oc;
  conv.OH = win.oh;
  conv.OW = win.ow;
  conv.KH = win.kh;
  conv.KW = win.kw;
  conv.stride_h = win.stride_h;
  conv.stride_w = win.stride_w;
  conv.pad_top = win.pad_top;
  conv.pad_left = win.pad_left;
  conv.dilation_h = win.dil_h;
  conv.dilation_w = win.dil_w;
  conv.groups = groups;
  conv.activation = act.kind;
  conv.has_bias = has_bias ? 1 : 0;
  conv.act_alpha = act.alpha;
  conv.act_beta = act.beta;
  // The packed kernels' channels-last forms also take the two layouts.
  kernel::Conv2dPackedClF32 conv_cl(conv);
  conv_cl.x_channels_last = x_cl;
  conv_cl.y_channels_last = y_cl;
  // Every residual kernel reads the residual in y's layout.
  if (HasInput(node, 3) && ctx.value(node.inputs[3]).channels_last != (y_cl != 0)) {
    return ctx.Error(absl::StatusCode::kInternal, node,
                     "the residual's layout differs from the output's");
  }
  if (node.GetInt("kiln.winograd", 0) != 0) {  // chosen by passes/conv_algorithm
    return LowerWinogradConv(ctx, node, conv_cl, bx, by);
  }
  const bool depthwise_cl = groups > 1 && (x_cl || y_cl);
  if (depthwise_cl && (!x_cl || !y_cl || groups != win.c || groups != oc)) {
    return ctx.Error(absl::StatusCode::kInternal, node,
                     "a channels-last grouped conv must be depthwise, NHWC in and out");
  }
  const bool packed =
      !depthwise_cl && (x_cl || y_cl || UsePackedConv(ctx.value(node.inputs[1]), win, groups, oc));
  Binding bw;
  const ir::Value& wv = ctx.value(node.inputs[1]);
  const int64_t taps = win.kh * win.kw;
  if (packed) {
    // Weights as panels of 16 output channels, K ordered tap-major
    // (kernels.h conv2d_packed_f32); the plain weights are not bound.
    const int64_t c = win.c;
    bw = ctx.BindNewConstant(absl::StrCat(wv.name, ".packed_oc"),
                             PackPanels16(*wv.constant, taps * c, oc,
                                          [&](int64_t k, int64_t o) {
                                            return (o * c + k % c) * taps + k / c;
                                          }),
                             /*layout=PackedPanel16*/ 1);
  } else if (depthwise_cl) {
    // [C,1,KH,KW] as [KH*KW, C]: a tap's weights for every channel together.
    bw = ctx.BindNewConstant(absl::StrCat(wv.name, ".taps_c"),
                             TransposeF32(*wv.constant, oc, taps));
  } else {
    KILN_ASSIGN_OR_RETURN(bw, ctx.Bind(node, node.inputs[1]));
  }
  Binding bb = bw;  // unread when there is no bias
  if (has_bias) {
    KILN_ASSIGN_OR_RETURN(bb, ctx.Bind(node, node.inputs[2]));
  }
  // A residual fused by dispatch formation (input 3) selects conv2d_res_f32.
  const bool has_residual = HasInput(node, 3);
  const bool any_cl = x_cl || y_cl;
  const std::vector<int64_t> bias_unread = {-1, -1, has_bias ? -1 : 0, -1};
  if (has_residual) {
    if (depthwise_cl) {
      return ctx.Error(absl::StatusCode::kInternal, node,
                       "a channels-last depthwise conv has a residual");
    }
    KILN_ASSIGN_OR_RETURN(Binding br, ctx.Bind(node, node.inputs[3]));
    const std::vector<Binding> b = {bx, bw, bb, br, by};
    const std::vector<int64_t> bytes = {-1, -1, has_bias ? -1 : 0, -1, -1};
    if (!packed) return ctx.Dispatch(node, kernel::Conv2dResF32(conv), b, bytes);
    if (any_cl) return ctx.Dispatch(node, kernel::Conv2dPackedClResF32(conv_cl), b, bytes);
    return ctx.Dispatch(node, kernel::Conv2dPackedResF32(conv), b, bytes);
  }
  const std::vector<Binding> b = {bx, bw, bb, by};
  if (depthwise_cl) return ctx.Dispatch(node, kernel::Conv2dDwNhwcF32(conv), b, bias_unread);
  if (!packed) return ctx.Dispatch(node, conv, b, bias_unread);
  if (any_cl) return ctx.Dispatch(node, conv_cl, b, bias_unread);
  return ctx.Dispatch(node, kernel::Conv2dPackedF32(conv), b, bias_unread);
}

absl::Status LowerPool(LoweringContext& ctx, const ir::Node& node) {
  KILN_RETURN_IF_ERROR(ctx.RequireF32(node));
  if (node.outputs.size() > 1 && node.outputs[1] != ir::kNoValue &&
      (!ctx.graph().Users(node.outputs[1]).empty() || ctx.graph().IsGraphOutput(node.outputs[1]))) {
    return ctx.Unimplemented(node, "the Indices output is not supported");
  }
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(auto y, ctx.OutputShape(node, 0));
  const std::vector<int64_t> kernel =
      node.GetInts("kiln.kernel_shape", node.GetInts("kernel_shape", {}));
  Window win;
  KILN_RETURN_IF_ERROR(ResolveWindow(ctx, node, x, y, kernel, &win));
  const bool is_max = node.op_type == "MaxPool";
  KILN_ASSIGN_OR_RETURN(Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  kernel::Pool2dF32 pool;
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
  if (x_cl) return ctx.Dispatch(node, kernel::Pool2dNhwcF32(pool), {bx, by});
  return ctx.Dispatch(node, pool, {bx, by});
}

absl::Status LowerGlobalPool(LoweringContext& ctx, const ir::Node& node) {
  KILN_RETURN_IF_ERROR(ctx.RequireF32(node));
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  if (x.size() < 2) return ctx.Invalid(node, "input rank must be at least 2");
  const int64_t spatial = ctx.dims().Product(std::vector<int64_t>(x.begin() + 2, x.end()));
  KILN_ASSIGN_OR_RETURN(Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  const int64_t kind = node.op_type == "GlobalMaxPool" ? KILN_POOL_MAX : KILN_POOL_AVG;
  if (ctx.value(node.inputs[0]).channels_last) {
    // [N,C,1,1] is the same bytes in either layout.
    kernel::GlobalPoolNhwcF32 pool;
    pool.kind = kind;
    pool.N = x[0];
    pool.spatial = spatial;
    pool.C = x[1];
    return ctx.Dispatch(node, pool, {bx, by});
  }
  kernel::GlobalPoolF32 pool;
  pool.kind = kind;
  pool.rows = ctx.dims().Mul(x[0], x[1]);
  pool.spatial = spatial;
  return ctx.Dispatch(node, pool, {bx, by});
}

}  // namespace

void RegisterSpatialLowerings(LoweringTable& table) {
  table["Conv"] = LowerConv;
  table["MaxPool"] = LowerPool;
  table["AveragePool"] = LowerPool;
  table["GlobalAveragePool"] = LowerGlobalPool;
  table["GlobalMaxPool"] = LowerGlobalPool;
}

}  // namespace kiln::compiler::emit
