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
  std::vector<int64_t> ip = {win.n,        win.c,        win.h,       win.w,
                             oc,           win.oh,       win.ow,      win.kh,
                             win.kw,       win.stride_h, win.stride_w, win.pad_top,
                             win.pad_left, win.dil_h,    win.dil_w,   groups,
                             act.kind,     has_bias ? 1 : 0};
  // Every residual kernel reads the residual in y's layout.
  if (HasInput(node, 3) && ctx.value(node.inputs[3]).channels_last != (y_cl != 0)) {
    return ctx.Error(absl::StatusCode::kInternal, node,
                     "the residual's layout differs from the output's");
  }
  if (node.GetInt("kiln.winograd", 0) != 0) {  // chosen by passes/conv_algorithm
    ip.push_back(x_cl);
    ip.push_back(y_cl);
    return LowerWinogradConv(ctx, node, std::move(ip), {act.alpha, act.beta}, bx, by);
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
  if (packed && any_cl) {
    ip.push_back(x_cl);
    ip.push_back(y_cl);
  }
  if (has_residual) {
    if (depthwise_cl) {
      return ctx.Error(absl::StatusCode::kInternal, node,
                       "a channels-last depthwise conv has a residual");
    }
    KILN_ASSIGN_OR_RETURN(Binding br, ctx.Bind(node, node.inputs[3]));
    const char* kernel_name = !packed ? "conv2d_res_f32"
                         : any_cl ? "conv2d_packed_cl_res_f32"
                                  : "conv2d_packed_res_f32";
    return ctx.Dispatch(node, kernel_name, std::move(ip), {act.alpha, act.beta}, {bx, bw, bb, br, by},
                        {-1, -1, has_bias ? -1 : 0, -1, -1});
  }
  const char* kernel_name = depthwise_cl ? "conv2d_dw_nhwc_f32"
                       : !packed    ? "conv2d_f32"
                       : any_cl     ? "conv2d_packed_cl_f32"
                                    : "conv2d_packed_f32";
  return ctx.Dispatch(node, kernel_name, std::move(ip), {act.alpha, act.beta}, {bx, bw, bb, by},
                      {-1, -1, has_bias ? -1 : 0, -1});
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
  std::vector<int64_t> ip = {is_max ? KILN_POOL_MAX : KILN_POOL_AVG,
                             win.n, win.c, win.h, win.w, win.oh, win.ow, win.kh, win.kw,
                             win.stride_h, win.stride_w, win.pad_top, win.pad_left,
                             win.pad_bottom, win.pad_right, win.dil_h, win.dil_w,
                             is_max ? 0 : node.GetInt("count_include_pad", 0)};
  // passes/layout_selection keeps a pool between channels-last neighbours
  // channels last in and out.
  const bool x_cl = ctx.value(node.inputs[0]).channels_last;
  if (x_cl != ctx.value(node.outputs[0]).channels_last) {
    return ctx.Error(absl::StatusCode::kInternal, node,
                     "a pool's input and output layouts differ");
  }
  return ctx.Dispatch(node, x_cl ? "pool2d_nhwc_f32" : "pool2d_f32", std::move(ip), {}, {bx, by});
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
    return ctx.Dispatch(node, "global_pool_nhwc_f32", {kind, x[0], spatial, x[1]}, {}, {bx, by});
  }
  return ctx.Dispatch(node, "global_pool_f32", {kind, ctx.dims().Mul(x[0], x[1]), spatial}, {},
                      {bx, by});
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
