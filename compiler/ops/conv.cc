// Convolutions: Conv and ConvTranspose with 1-D (as H = 1), 2-D and 3-D
// windows. 2-D Conv lowers to conv2d_f32 (im2col GEMM; direct for an image
// stem), conv2d_packed_f32 (weights packed in 16-channel panels) or its
// channels-last form, conv2d_dw_nhwc_f32 (depthwise NHWC) or Winograd, as
// passes/layout_selection and passes/conv_algorithm chose; a fused residual
// selects the *_res_* form. 3-D windows lower to conv3d_f32 /
// conv_transpose3d_f32, 1-D and 2-D ConvTranspose to conv_transpose_f32.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/emit/lower_winograd.h"
#include "compiler/emit/panel_packing.h"
#include "compiler/ir/graph_util.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/window.h"
#include "compiler/passes/layout_selection.h"
#include "kiln/kernels.h"

namespace kiln::compiler {
namespace {

using ir::DType;
using ir::ShapeStr;
using Shape = std::vector<int64_t>;
using Ctx = ShapeRuleContext;
using emit::Epilogue;
using emit::EpilogueOf;
using emit::HasInput;
using emit::LowerWinogradConv;
using emit::PackConvPanels16;
using emit::TransposeF32;

absl::Status ConvShape(ShapeRuleContext& c) {
  KILN_RETURN_IF_ERROR(c.Need(2));
  KILN_RETURN_IF_ERROR(c.SameDType(0, 1));
  const Shape& x = c.S(0);
  const Shape& w = c.S(1);
  if (x.size() < 3 || w.size() != x.size()) {
    return c.Err(absl::StrCat("input ", ShapeStr(x), " and weight ", ShapeStr(w),
                              " must have the same rank >= 3"));
  }
  const int64_t group = c.node().GetInt("group", 1);
  if (group <= 0 || w[0] % group != 0 || x[1] % group != 0 || x[1] / group != w[1]) {
    return c.Err(absl::StrCat("input ", ShapeStr(x), " has ", x[1], " channels but weight ",
                              ShapeStr(w), " with group=", group, " expects ",
                              static_cast<double>(w[1]) * static_cast<double>(group)));
  }
  const Shape kernel(w.begin() + 2, w.end());
  const Shape declared = c.node().GetInts("kernel_shape", kernel);
  if (declared != kernel) {
    return c.Err(absl::StrCat("kernel_shape ", ShapeStr(declared),
                              " does not match the weight shape ", ShapeStr(w)));
  }
  if (c.Has(2) && c.S(2) != Shape{w[0]}) {
    return c.Err(absl::StrCat("bias shape ", ShapeStr(c.S(2)), " should be [", w[0], "]"));
  }
  Shape spatial;
  KILN_RETURN_IF_ERROR(WindowShape(c, x, kernel, /*allow_ceil=*/false, &spatial));
  Shape out = {x[0], w[0]};
  out.insert(out.end(), spatial.begin(), spatial.end());
  return c.Set(0, c.T(0), std::move(out));
}

// One spatial axis of a ConvTranspose whose input size `in` is symbolic:
// full = stride*(in - 1) + output_padding + ek. SAME pads by full - in*stride,
// which does not depend on `in`, so every pad stays a number; an explicit
// output_shape would make them symbolic and is refused.
absl::Status SymbolicTransposeSize(Ctx& c, int64_t in, int64_t stride, int64_t ek,
                                   int64_t outpad, const std::string& auto_pad,
                                   bool has_output_shape, int64_t* pad_begin, int64_t* pad_end,
                                   Shape* spatial) {
  if (has_output_shape) {
    return c.Err(absl::StrCat("output_shape with a symbolic input size (",
                              c.dims().ToString(in), ") is not supported; give pads instead"));
  }
  if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    const int64_t total = std::max<int64_t>(0, outpad + ek - stride);
    *pad_begin = auto_pad == "SAME_LOWER" ? total - total / 2 : total / 2;
    *pad_end = total - *pad_begin;
  } else if (auto_pad == "VALID") {
    *pad_begin = *pad_end = 0;
  }
  // The smallest output (in = 1) must be positive for every size.
  const int64_t least = outpad + ek - *pad_begin - *pad_end;
  if (least <= 0) {
    return c.Err(absl::StrCat("pads leave no output for an input size of 1 (",
                              c.dims().ToString(in), " is symbolic)"));
  }
  ir::DimPool& dims = c.dims();
  spatial->push_back(dims.Add(dims.Mul(stride, dims.Sub(in, 1)), least));
  return absl::OkStatus();
}

absl::Status ConvTransposeShape(ShapeRuleContext& c) {
  KILN_RETURN_IF_ERROR(c.Need(2));
  const Shape& x = c.S(0);
  const Shape& w = c.S(1);
  if (x.size() < 3 || x.size() > 5 || w.size() != x.size()) {
    return c.Err(absl::StrCat("only 1-D to 3-D ConvTranspose are supported; input ",
                              ShapeStr(x), ", weight ", ShapeStr(w)));
  }
  const size_t nd = x.size() - 2;
  const int64_t g = c.node().GetInt("group", 1);
  if (g <= 0 || x[1] != w[0] || x[1] % g != 0) {
    return c.Err(absl::StrCat("input ", ShapeStr(x), " does not match weight ", ShapeStr(w)));
  }
  int64_t oc = 0;  // g divides x[1], so g <= 2^40
  KILN_RETURN_IF_ERROR(c.Narrow(static_cast<__int128>(w[1]) * g, "the output channel count", &oc));
  const Shape kernel(w.begin() + 2, w.end());
  const Shape strides = c.node().GetInts("strides", Shape(nd, 1));
  const Shape dil = c.node().GetInts("dilations", Shape(nd, 1));
  const Shape outpad = c.node().GetInts("output_padding", Shape(nd, 0));
  Shape pads = c.node().GetInts("pads", Shape(2 * nd, 0));
  const Shape out_shape = c.node().GetInts("output_shape", {});
  const std::string auto_pad = c.node().GetString("auto_pad", "NOTSET");
  if (strides.size() != nd || dil.size() != nd || outpad.size() != nd || pads.size() != 2 * nd) {
    return c.Err("strides/dilations/output_padding/pads do not match the rank");
  }
  if (c.Has(2) && c.S(2) != Shape{oc}) return c.Err("bias must have one entry per output channel");
  Shape spatial;
  for (size_t i = 0; i < nd; ++i) {
    KILN_RETURN_IF_ERROR(c.Scale(strides[i], "strides"));
    KILN_RETURN_IF_ERROR(c.Scale(dil[i], "dilations"));
    if (!c.Within(outpad[i]) || !c.Within(pads[i]) ||
        !c.Within(pads[i + nd]) ||
        (!out_shape.empty() && i < out_shape.size() && !c.Within(out_shape[i]))) {
      return c.Err("pads, output_padding and output_shape must be within 2^40");
    }
    const int64_t in = x[2 + i], ek = (kernel[i] - 1) * dil[i] + 1;
    if (ir::IsSymbolic(in)) {
      KILN_RETURN_IF_ERROR(SymbolicTransposeSize(c, in, strides[i], ek, outpad[i], auto_pad,
                                                 !out_shape.empty(), &pads[i], &pads[i + nd],
                                                 &spatial));
      continue;
    }
    const int64_t full = strides[i] * (in - 1) + outpad[i] + ek;
    int64_t o;
    if (!out_shape.empty() || auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      if (!out_shape.empty() && out_shape.size() != nd) return c.Err("output_shape has the wrong length");
      o = !out_shape.empty() ? out_shape[i] : in * strides[i];
      const int64_t total = std::max<int64_t>(0, full - o);
      // ONNX: SAME_UPPER puts the extra pad at the end, SAME_LOWER at the start.
      const bool lower = auto_pad == "SAME_LOWER";
      pads[i] = lower ? total - total / 2 : total / 2;
      pads[i + nd] = total - pads[i];
    } else if (auto_pad == "VALID") {
      pads[i] = pads[i + nd] = 0;
      o = full;
    } else {
      o = full - pads[i] - pads[i + nd];
    }
    if (o <= 0) return c.Err("computed a non-positive output size");
    spatial.push_back(o);
  }
  // Canonical 2-D form: a 1-D op has H = 1.
  if (nd == 1) {
    c.node().SetInts("kiln.kernel_shape", {1, kernel[0]});
    c.node().SetInts("kiln.strides", {1, strides[0]});
    c.node().SetInts("kiln.dilations", {1, dil[0]});
    c.node().SetInts("kiln.pads", {0, pads[0], 0, pads[1]});
  } else {
    c.node().SetInts("kiln.kernel_shape", kernel);
    c.node().SetInts("kiln.strides", strides);
    c.node().SetInts("kiln.dilations", dil);
    c.node().SetInts("kiln.pads", pads);
  }
  Shape out = {x[0], oc};
  out.insert(out.end(), spatial.begin(), spatial.end());
  return c.Set(0, c.T(0), std::move(out));
}

// Output planes from which conv2d_f32 runs an NCHW 1x1 stride-1 layer (one
// GEMM reading x in place) faster than the packed tiles, whose rows then
// gather each channel a plane apart and store transposed: 1.05-1.5x at 28 x 28
// and 56 x 56 on AVX-512 and AVX2 (ResNeXt-50's layers between its grouped
// ones, BM_Conv2d against BM_Conv2dPacked), slower at 14 x 14 and 7 x 7.
constexpr int64_t kPointwiseGemmMinPlane = 28 * 28;

// conv2d_packed_f32 (output channels in the vector lanes, weights packed
// here) beats conv2d_f32 on one-group layers with enough channels to stream
// and a K long enough to pay for its transposed store; on a 3-channel stem, a
// short pointwise layer or a pointwise layer over a large plane conv2d_f32
// is faster (benchmarks/kernels_benchmark.cc, BM_Conv2d against
// BM_Conv2dPacked).
bool UsePackedConv(const ir::Value& w, const WindowGeometry& win, int64_t groups, int64_t oc) {
  const int64_t taps = win.kh * win.kw;
  const bool pointwise_gemm = taps == 1 && win.stride_h == 1 && win.stride_w == 1 &&
                              win.pad_top == 0 && win.pad_left == 0 && win.oh == win.h &&
                              win.ow == win.w;
  if (pointwise_gemm && !ir::IsSymbolic(win.oh) && !ir::IsSymbolic(win.ow) &&
      win.oh * win.ow >= kPointwiseGemmMinPlane) {
    return false;
  }
  return w.constant != nullptr && w.constant->dtype == ir::DType::F32 && groups == 1 &&
         !ir::IsSymbolic(win.c) && taps <= kMaxPackedConvTaps &&
         win.c >= 16 && win.c * taps >= 256 && oc >= 32;
}

absl::Status LowerConv2d(emit::LoweringContext& ctx, const ir::Node& node) {
  KILN_RETURN_IF_ERROR(ctx.RequireF32(node));
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(auto w, ctx.InputShape(node, 1));
  KILN_ASSIGN_OR_RETURN(auto y, ctx.OutputShape(node, 0));
  if (w.size() != x.size() || w.size() < 3) return ctx.Invalid(node, "weight rank differs from input rank");
  const std::vector<int64_t> kernel(w.begin() + 2, w.end());
  WindowGeometry win;
  KILN_RETURN_IF_ERROR(ResolveWindow(ctx, node, x, y, kernel, &win));
  const int64_t groups = node.GetInt("group", 1);
  const bool has_bias = HasInput(node, 2);
  const int64_t oc = w[0];
  if (groups <= 0 || win.c != w[1] * groups || oc % groups != 0 || y[1] != oc) {
    return ctx.Invalid(node, "channel counts do not match the weight and group");
  }
  KILN_ASSIGN_OR_RETURN(emit::Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(emit::Binding by, ctx.Bind(node, node.outputs[0]));
  // Layouts chosen by passes/layout_selection: only the packed and the
  // depthwise NHWC kernels take channels-last tensors.
  const int64_t x_cl = ctx.value(node.inputs[0]).channels_last ? 1 : 0;
  const int64_t y_cl = ctx.value(node.outputs[0]).channels_last ? 1 : 0;
  const Epilogue act = EpilogueOf(node);
  emit::kernel::Conv2dF32 conv;
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
  emit::kernel::Conv2dPackedClF32 conv_cl(conv);
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
  // Channels-last grouped convs: depthwise ones (conv2d_dw_nhwc_f32) and
  // those whose groups are whole 16-channel panels (the packed tiles).
  const bool depthwise = groups > 1 && groups == win.c && groups == oc;
  const bool depthwise_cl = depthwise && (x_cl || y_cl);
  if (depthwise_cl && (!x_cl || !y_cl)) {
    return ctx.Error(absl::StatusCode::kInternal, node,
                     "a channels-last depthwise conv must be NHWC in and out");
  }
  if ((x_cl || y_cl) && groups > 1 && !depthwise && !PanelGroups(groups, oc)) {
    return ctx.Error(absl::StatusCode::kInternal, node,
                     "a channels-last grouped conv must be depthwise or have whole panels per "
                     "group");
  }
  const bool packed =
      !depthwise_cl && (x_cl || y_cl || UsePackedConv(ctx.value(node.inputs[1]), win, groups, oc));
  emit::Binding bw;
  const ir::Value& wv = ctx.value(node.inputs[1]);
  const int64_t taps = win.kh * win.kw;
  if (packed) {
    // Weights as panels of 16 output channels, K ordered tap-major
    // (kernels.h conv2d_packed_f32); the plain weights are not bound.
    bw = ctx.BindNewConstant(absl::StrCat(wv.name, ".packed_oc"),
                             PackConvPanels16(*wv.constant, taps, win.c / groups, oc),
                             /*layout=PackedPanel16*/ 1);
  } else if (depthwise_cl) {
    // [C,1,KH,KW] as [KH*KW, C]: a tap's weights for every channel together.
    bw = ctx.BindNewConstant(absl::StrCat(wv.name, ".taps_c"),
                             TransposeF32(*wv.constant, oc, taps));
  } else {
    KILN_ASSIGN_OR_RETURN(bw, ctx.Bind(node, node.inputs[1]));
  }
  emit::Binding bb = bw;  // unread when there is no bias
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
    KILN_ASSIGN_OR_RETURN(emit::Binding br, ctx.Bind(node, node.inputs[3]));
    const std::vector<emit::Binding> b = {bx, bw, bb, br, by};
    const std::vector<int64_t> bytes = {-1, -1, has_bias ? -1 : 0, -1, -1};
    if (!packed) return ctx.Dispatch(node, emit::kernel::Conv2dResF32(conv), b, bytes);
    if (any_cl) return ctx.Dispatch(node, emit::kernel::Conv2dPackedClResF32(conv_cl), b, bytes);
    return ctx.Dispatch(node, emit::kernel::Conv2dPackedResF32(conv), b, bytes);
  }
  const std::vector<emit::Binding> b = {bx, bw, bb, by};
  if (depthwise_cl) return ctx.Dispatch(node, emit::kernel::Conv2dDwNhwcF32(conv), b, bias_unread);
  if (!packed) return ctx.Dispatch(node, conv, b, bias_unread);
  if (any_cl) return ctx.Dispatch(node, conv_cl, b, bias_unread);
  return ctx.Dispatch(node, emit::kernel::Conv2dPackedF32(conv), b, bias_unread);
}

// The window shape inference resolved (auto_pad, output_shape and
// output_padding already folded into kiln.pads and the output size), as
// kernel[3] strides[3] begin-pads[3] dilations[3].
absl::StatusOr<Shape> Window3d(const emit::LoweringContext& ctx, const ir::Node& node,
                               const Shape& kernel) {
  if (!node.HasAttr("kiln.pads")) return ctx.Invalid(node, "the window was not resolved");
  const Shape strides = node.GetInts("kiln.strides", {});
  const Shape dil = node.GetInts("kiln.dilations", {});
  const Shape pads = node.GetInts("kiln.pads", {});
  if (kernel.size() != 3 || strides.size() != 3 || dil.size() != 3 || pads.size() != 6) {
    return ctx.Invalid(node, "kernel/strides/dilations/pads do not match 3 spatial dims");
  }
  for (size_t d = 0; d < 6; ++d) {
    if (pads[d] < 0) return ctx.Unimplemented(node, "negative pads are not supported");
  }
  Shape geo = kernel;
  geo.insert(geo.end(), strides.begin(), strides.end());
  geo.insert(geo.end(), pads.begin(), pads.begin() + 3);
  geo.insert(geo.end(), dil.begin(), dil.end());
  return geo;
}

// The shapes and window that conv3d_f32 and conv_transpose3d_f32 share.
template <typename Params>
void SetWindow3d(const Shape& x, const Shape& y, const Shape& geo, Params* p) {
  p->N = x[0];
  p->C = x[1];
  p->D = x[2];
  p->H = x[3];
  p->W = x[4];
  p->OC = y[1];
  p->OD = y[2];
  p->OH = y[3];
  p->OW = y[4];
  p->KD = geo[0];
  p->KH = geo[1];
  p->KW = geo[2];
  p->stride_d = geo[3];
  p->stride_h = geo[4];
  p->stride_w = geo[5];
  p->pad_front = geo[6];
  p->pad_top = geo[7];
  p->pad_left = geo[8];
  p->dilation_d = geo[9];
  p->dilation_h = geo[10];
  p->dilation_w = geo[11];
}

absl::Status LowerConv3d(emit::LoweringContext& ctx, const ir::Node& node) {
  KILN_RETURN_IF_ERROR(ctx.RequireF32(node));
  KILN_ASSIGN_OR_RETURN(Shape x, ctx.InputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(Shape w, ctx.InputShape(node, 1));
  KILN_ASSIGN_OR_RETURN(Shape y, ctx.OutputShape(node, 0));
  if (w.size() != 5 || y.size() != 5) return ctx.Invalid(node, "weight and output must have rank 5");
  const int64_t groups = node.GetInt("group", 1);
  if (groups <= 0 || x[1] != w[1] * groups || w[0] % groups != 0 || y[1] != w[0]) {
    return ctx.Invalid(node, "channel counts do not match the weight and group");
  }
  KILN_ASSIGN_OR_RETURN(Shape geo, Window3d(ctx, node, Shape(w.begin() + 2, w.end())));
  const bool has_bias = HasInput(node, 2);
  // A residual Add fused by dispatch formation arrives as input 3.
  const bool has_res = HasInput(node, 3);
  const Epilogue act = EpilogueOf(node);
  emit::kernel::Conv3dF32 conv;
  SetWindow3d(x, y, geo, &conv);
  conv.groups = groups;
  conv.activation = act.kind;
  conv.has_bias = has_bias ? 1 : 0;
  conv.has_residual = has_res ? 1 : 0;
  conv.act_alpha = act.alpha;
  conv.act_beta = act.beta;
  KILN_ASSIGN_OR_RETURN(emit::Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(emit::Binding bw, ctx.Bind(node, node.inputs[1]));
  KILN_ASSIGN_OR_RETURN(emit::Binding by, ctx.Bind(node, node.outputs[0]));
  emit::Binding bb = bw, br = bx;  // unread when absent
  if (has_bias) {
    KILN_ASSIGN_OR_RETURN(bb, ctx.Bind(node, node.inputs[2]));
  }
  if (has_res) {
    KILN_ASSIGN_OR_RETURN(br, ctx.Bind(node, node.inputs[3]));
  }
  return ctx.Dispatch(node, conv, {bx, bw, bb, br, by},
                      {-1, -1, has_bias ? -1 : 0, has_res ? -1 : 0, -1});
}

absl::Status LowerConvTranspose3d(emit::LoweringContext& ctx, const ir::Node& node) {
  KILN_RETURN_IF_ERROR(ctx.RequireF32(node));
  KILN_ASSIGN_OR_RETURN(Shape x, ctx.InputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(Shape w, ctx.InputShape(node, 1));
  KILN_ASSIGN_OR_RETURN(Shape y, ctx.OutputShape(node, 0));
  if (w.size() != 5 || y.size() != 5) return ctx.Invalid(node, "weight and output must have rank 5");
  const int64_t groups = node.GetInt("group", 1);
  if (groups <= 0 || x[1] != w[0] || x[1] % groups != 0 || y[1] != w[1] * groups) {
    return ctx.Invalid(node, "channel counts do not match the weight and group");
  }
  KILN_ASSIGN_OR_RETURN(Shape geo, Window3d(ctx, node, Shape(w.begin() + 2, w.end())));
  const bool has_bias = HasInput(node, 2);
  emit::kernel::ConvTranspose3dF32 conv;
  SetWindow3d(x, y, geo, &conv);
  conv.groups = groups;
  conv.has_bias = has_bias ? 1 : 0;
  KILN_ASSIGN_OR_RETURN(emit::Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(emit::Binding bw, ctx.Bind(node, node.inputs[1]));
  KILN_ASSIGN_OR_RETURN(emit::Binding by, ctx.Bind(node, node.outputs[0]));
  emit::Binding bb = bw;  // unread without a bias
  if (has_bias) {
    KILN_ASSIGN_OR_RETURN(bb, ctx.Bind(node, node.inputs[2]));
  }
  return ctx.Dispatch(node, conv, {bx, bw, bb, by},
                      {-1, -1, has_bias ? -1 : 0, -1});
}

bool IsRank5(const emit::LoweringContext& ctx, const ir::Node& node) {
  return !node.inputs.empty() && node.inputs[0] != ir::kNoValue &&
         ctx.value(node.inputs[0]).shape.size() == 5;
}

// [N, C, L] → [N, C, 1, L].
Shape As4D(Shape s) {
  if (s.size() == 3) s.insert(s.begin() + 2, 1);
  return s;
}

absl::Status LowerConvTranspose2d(emit::LoweringContext& ctx, const ir::Node& node) {
  KILN_RETURN_IF_ERROR(ctx.RequireF32(node));
  KILN_ASSIGN_OR_RETURN(auto x0, ctx.InputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(auto w0, ctx.InputShape(node, 1));
  KILN_ASSIGN_OR_RETURN(auto y0, ctx.OutputShape(node, 0));
  const Shape x = As4D(x0), w = As4D(w0), y = As4D(y0);
  const Shape k = node.GetInts("kiln.kernel_shape", {}), s = node.GetInts("kiln.strides", {});
  const Shape d = node.GetInts("kiln.dilations", {}), p = node.GetInts("kiln.pads", {});
  if (x.size() != 4 || k.size() != 2 || s.size() != 2 || d.size() != 2 || p.size() != 4) {
    return ctx.Invalid(node, "window attributes are missing");
  }
  const bool has_bias = HasInput(node, 2);
  KILN_ASSIGN_OR_RETURN(emit::Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(emit::Binding bw, ctx.Bind(node, node.inputs[1]));
  KILN_ASSIGN_OR_RETURN(emit::Binding by, ctx.Bind(node, node.outputs[0]));
  emit::Binding bb = bw;
  if (has_bias) {
    KILN_ASSIGN_OR_RETURN(bb, ctx.Bind(node, node.inputs[2]));
  }
  emit::kernel::ConvTransposeF32 conv;
  conv.N = x[0];
  conv.C = x[1];
  conv.H = x[2];
  conv.W = x[3];
  conv.OC = y[1];
  conv.OH = y[2];
  conv.OW = y[3];
  conv.KH = k[0];
  conv.KW = k[1];
  conv.stride_h = s[0];
  conv.stride_w = s[1];
  conv.pad_top = p[0];
  conv.pad_left = p[1];
  conv.dilation_h = d[0];
  conv.dilation_w = d[1];
  conv.groups = node.GetInt("group", 1);
  conv.has_bias = has_bias ? 1 : 0;
  return ctx.Dispatch(node, conv, {bx, bw, bb, by}, {-1, -1, has_bias ? -1 : 0, -1});
}

absl::Status LowerConv(emit::LoweringContext& ctx, const ir::Node& node) {
  return IsRank5(ctx, node) ? LowerConv3d(ctx, node) : LowerConv2d(ctx, node);
}

absl::Status LowerConvTranspose(emit::LoweringContext& ctx, const ir::Node& node) {
  return IsRank5(ctx, node) ? LowerConvTranspose3d(ctx, node) : LowerConvTranspose2d(ctx, node);
}

}  // namespace

void RegisterConvOps(std::vector<OpDef>& ops) {
  ops.push_back({"Conv", ConvShape, /*symbolic=*/true, LowerConv});
  ops.push_back({"ConvTranspose", ConvTransposeShape, /*symbolic=*/true, LowerConvTranspose});
}

}  // namespace kiln::compiler
