// Conv and ConvTranspose with 3-D windows (rank-5 input) → conv3d_f32 and
// conv_transpose3d_f32 (runtime/kernels/conv3d.c). 1-D and 2-D windows keep
// their own lowerings (conv2d_f32's GEMM path, conv_transpose_f32): this
// wraps them and only takes rank-5 nodes.
#include <utility>

#include "absl/strings/str_cat.h"
#include "compiler/emit/lower_ops.h"
#include "kiln/kernels.h"

namespace kiln::compiler::emit {
namespace {

using Shape = std::vector<int64_t>;

// The window shape inference resolved (auto_pad, output_shape and
// output_padding already folded into kiln.pads and the output size), as
// kernel[3] strides[3] begin-pads[3] dilations[3].
absl::StatusOr<Shape> Window3d(const LoweringContext& ctx, const ir::Node& node,
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

absl::Status LowerConv3d(LoweringContext& ctx, const ir::Node& node) {
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
  kernel::Conv3dF32 conv;
  SetWindow3d(x, y, geo, &conv);
  conv.groups = groups;
  conv.activation = act.kind;
  conv.has_bias = has_bias ? 1 : 0;
  conv.has_residual = has_res ? 1 : 0;
  conv.act_alpha = act.alpha;
  conv.act_beta = act.beta;
  KILN_ASSIGN_OR_RETURN(Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding bw, ctx.Bind(node, node.inputs[1]));
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  Binding bb = bw, br = bx;  // unread when absent
  if (has_bias) {
    KILN_ASSIGN_OR_RETURN(bb, ctx.Bind(node, node.inputs[2]));
  }
  if (has_res) {
    KILN_ASSIGN_OR_RETURN(br, ctx.Bind(node, node.inputs[3]));
  }
  return ctx.Dispatch(node, conv, {bx, bw, bb, br, by},
                      {-1, -1, has_bias ? -1 : 0, has_res ? -1 : 0, -1});
}

absl::Status LowerConvTranspose3d(LoweringContext& ctx, const ir::Node& node) {
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
  kernel::ConvTranspose3dF32 conv;
  SetWindow3d(x, y, geo, &conv);
  conv.groups = groups;
  conv.has_bias = has_bias ? 1 : 0;
  KILN_ASSIGN_OR_RETURN(Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding bw, ctx.Bind(node, node.inputs[1]));
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  Binding bb = bw;  // unread without a bias
  if (has_bias) {
    KILN_ASSIGN_OR_RETURN(bb, ctx.Bind(node, node.inputs[2]));
  }
  return ctx.Dispatch(node, conv, {bx, bw, bb, by},
                      {-1, -1, has_bias ? -1 : 0, -1});
}

bool IsRank5(const LoweringContext& ctx, const ir::Node& node) {
  return !node.inputs.empty() && node.inputs[0] != ir::kNoValue &&
         ctx.value(node.inputs[0]).shape.size() == 5;
}

// Sends rank-5 nodes of `op` to `lower3d`, everything else to the existing
// lowering (or, when there is none, reports the 3-D-only support).
void Wrap(LoweringTable& table, const char* op, LowerFn lower3d) {
  auto it = table.find(op);
  LowerFn other = it != table.end() ? it->second : LowerFn();
  table[op] = [other, lower3d](LoweringContext& ctx, const ir::Node& node) -> absl::Status {
    if (IsRank5(ctx, node)) return lower3d(ctx, node);
    if (other) return other(ctx, node);
    return ctx.Unimplemented(node, "only 3-D windows are lowered here");
  };
}

}  // namespace

void RegisterConv3dLowerings(LoweringTable& table) {
  Wrap(table, "Conv", LowerConv3d);
  Wrap(table, "ConvTranspose", LowerConvTranspose3d);
}

}  // namespace kiln::compiler::emit
