// ConvTranspose with 1-D (as H = 1) and 2-D windows → conv_transpose_f32;
// lower_conv3d.cc wraps it for 3-D windows.
#include "compiler/emit/lower_ops.h"

namespace kiln::compiler::emit {
namespace {

using Shape = std::vector<int64_t>;

// [N, C, L] → [N, C, 1, L].
Shape As4D(Shape s) {
  if (s.size() == 3) s.insert(s.begin() + 2, 1);
  return s;
}

absl::Status LowerConvTranspose(LoweringContext& ctx, const ir::Node& node) {
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
  KILN_ASSIGN_OR_RETURN(Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding bw, ctx.Bind(node, node.inputs[1]));
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  Binding bb = bw;
  if (has_bias) {
    KILN_ASSIGN_OR_RETURN(bb, ctx.Bind(node, node.inputs[2]));
  }
  kernel::ConvTransposeF32 conv;
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

}  // namespace

void RegisterConvTransposeLowerings(LoweringTable& table) {
  table["ConvTranspose"] = LowerConvTranspose;
}

}  // namespace kiln::compiler::emit
