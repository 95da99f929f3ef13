// Byte movers that rearrange whole tensors, any dtype: Transpose (one
// strided_copy), Concat (a strided_copy per input into its columns; lengths
// may be symbolic, patched at run time), DepthToSpace and SpaceToDepth (a
// reshape and transpose: one strided_copy over 6 dims) and ReverseSequence
// (reverse_sequence). Constant inputs of Transpose and Concat fold
// (passes/fold_eval.cc).
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/ir/graph_util.h"
#include "compiler/ops/op_def.h"
#include "compiler/passes/symbolic_support.h"
#include "kiln/kernel_abi.h"

namespace kiln::compiler {
namespace {

using ir::DType;
using ir::ShapeStr;
using Shape = std::vector<int64_t>;
using emit::ContiguousStrides;

absl::Status TransposeShape(ShapeRuleContext& c) {
  KILN_RETURN_IF_ERROR(c.Need(1));
  const Shape& x = c.S(0);
  Shape def(x.size());
  for (size_t i = 0; i < x.size(); ++i) def[i] = static_cast<int64_t>(x.size() - 1 - i);
  const Shape perm = c.node().GetInts("perm", def);
  Shape sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  Shape iota(x.size());
  for (size_t i = 0; i < x.size(); ++i) iota[i] = static_cast<int64_t>(i);
  if (sorted != iota) {
    return c.Err(absl::StrCat("perm ", ShapeStr(perm), " is not a permutation for input ",
                              ShapeStr(x)));
  }
  Shape out;
  for (int64_t p : perm) out.push_back(x[p]);
  if (!c.node().HasAttr("perm")) c.node().SetInts("perm", perm);
  return c.Set(0, c.T(0), std::move(out));
}

absl::Status ConcatShape(ShapeRuleContext& c) {
  const size_t n = c.node().inputs.size();
  if (n == 0) return c.Err("needs at least one input");
  KILN_RETURN_IF_ERROR(c.Need(n));
  const int64_t r = c.Rank(0);
  int64_t axis = 0;
  KILN_RETURN_IF_ERROR(c.Axis(c.node().GetInt("axis", 0), r, &axis));
  Shape out = c.S(0);
  for (size_t k = 1; k < n; ++k) {
    KILN_RETURN_IF_ERROR(c.SameDType(0, k));
    const Shape& s = c.S(k);
    bool ok = static_cast<int64_t>(s.size()) == r;
    for (int64_t i = 0; ok && i < r; ++i) {
      if (i == axis || s[i] == out[i]) continue;
      // Two lengths the compiler cannot prove equal (H/32*2 against H/16):
      // ONNX requires them equal, so the run checks it.
      ok = ir::IsSymbolic(s[i]) || ir::IsSymbolic(out[i]);
      if (ok) out[i] = c.dims().AssumeEqual(out[i], s[i]);
    }
    if (!ok) {
      return c.Err(absl::StrCat("input shapes ", SymbolicShapeStr(c.graph(), c.S(0)), " and ",
                                SymbolicShapeStr(c.graph(), s),
                                " differ outside axis ", axis));
    }
    out[axis] = c.dims().Add(out[axis], s[axis]);
  }
  return c.Set(0, c.T(0), std::move(out));
}

absl::Status ReverseSequenceShape(ShapeRuleContext& c) {
  ir::Graph& g = c.graph();
  ir::Node& n = c.node();
  if (n.inputs.size() < 2 || n.inputs[0] == ir::kNoValue || n.inputs[1] == ir::kNoValue ||
      !g.value(n.inputs[0]).has_shape || !g.value(n.inputs[1]).has_shape) {
    return c.Err("expects shaped input and sequence_lens");
  }
  const ir::Value& x = g.value(n.inputs[0]);
  const int64_t ba = n.GetInt("batch_axis", 1), ta = n.GetInt("time_axis", 0);
  if (x.shape.size() < 2 || !((ba == 0 && ta == 1) || (ba == 1 && ta == 0))) {
    return c.Err("needs rank >= 2 with batch and time axes 0 and 1");
  }
  const ir::Value& lens = g.value(n.inputs[1]);
  if (lens.dtype != DType::I64 || lens.shape != Shape{x.shape[ba]}) {
    return c.Err(absl::StrCat("sequence_lens must be int64 [", x.shape[ba], "]"));
  }
  KILN_RETURN_IF_ERROR(c.Set(0, x.dtype, x.shape));
  return absl::OkStatus();
}


absl::Status LowerTranspose(emit::LoweringContext& ctx, const ir::Node& node) {
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(auto y, ctx.OutputShape(node, 0));
  const size_t r = x.size();
  if (r > KILN_MAX_RANK) return ctx.Unimplemented(node, absl::StrCat("rank ", r, " is too high"));
  std::vector<int64_t> perm(r);
  for (size_t d = 0; d < r; ++d) perm[d] = static_cast<int64_t>(r - 1 - d);
  perm = node.GetInts("perm", perm);
  if (perm.size() != r || y.size() != r) return ctx.Invalid(node, "perm does not match the rank");
  const std::vector<int64_t> xs = ContiguousStrides(x, ctx.dims());
  const std::vector<int64_t> ys = ContiguousStrides(y, ctx.dims());
  std::vector<int64_t> src(r);
  for (size_t d = 0; d < r; ++d) {
    if (perm[d] < 0 || perm[d] >= static_cast<int64_t>(r) || x[perm[d]] != y[d]) {
      return ctx.Invalid(node, "perm is not a permutation matching the shapes");
    }
    src[d] = xs[perm[d]];
  }
  const int64_t elem = emit::ElemBytes(ctx, node.inputs[0]);
  emit::kernel::StridedCopy copy;
  copy.elem_bytes = elem;
  copy.R = static_cast<int64_t>(r);
  copy.src_offset = 0;
  copy.dst_offset = 0;
  copy.dims = y;
  copy.src_strides = src;
  copy.dst_strides = ys;
  KILN_ASSIGN_OR_RETURN(emit::Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(emit::Binding by, ctx.Bind(node, node.outputs[0]));
  return ctx.Dispatch(node, copy, {bx, by});
}

// Each input is a [outer, len_k * inner] block written at column offset
// (sum of earlier len) * inner of the [outer, len_total * inner] output.
// Any of these may be symbolic (the offsets then are sums of dims): the pool
// does the arithmetic and the dispatch patches them at run time.
// A channel Concat of [N, C, H, W] images where some are stored channels
// last (layout_selection.cc): each input is copied from its layout into
// the output's, channels [at, at + Ck) of every pixel.
absl::Status LowerChannelConcat(emit::LoweringContext& ctx, const ir::Node& node,
                                const std::vector<int64_t>& y) {
  for (int64_t d : y) {
    if (ir::IsSymbolic(d)) return ctx.Invalid(node, "channels-last concat of a symbolic shape");
  }
  const bool y_cl = ctx.value(node.outputs[0]).channels_last;
  const int64_t n = y[0], c = y[1], hw = y[2] * y[3];
  KILN_ASSIGN_OR_RETURN(emit::Binding by, ctx.Bind(node, node.outputs[0]));
  int64_t at = 0;
  for (size_t k = 0; k < node.inputs.size(); ++k) {
    KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, k));
    if (x.size() != 4 || x[0] != y[0] || x[2] != y[2] || x[3] != y[3]) {
      return ctx.Invalid(node, "input shapes differ");
    }
    if (ctx.value(node.inputs[k]).dtype != ctx.value(node.outputs[0]).dtype) {
      return ctx.Invalid(node, "input dtypes differ");
    }
    const bool x_cl = ctx.value(node.inputs[k]).channels_last;
    const int64_t ck = x[1];
    if (ck != 0 && n != 0 && hw != 0) {
      KILN_ASSIGN_OR_RETURN(emit::Binding bx, ctx.Bind(node, node.inputs[k]));
      // Element (image, channel, pixel) of the input and of the output.
      const std::vector<int64_t> x_strides =
          x_cl ? std::vector<int64_t>{hw * ck, 1, ck} : std::vector<int64_t>{ck * hw, hw, 1};
      const std::vector<int64_t> y_strides =
          y_cl ? std::vector<int64_t>{hw * c, 1, c} : std::vector<int64_t>{c * hw, hw, 1};
      emit::kernel::StridedCopy copy;
      copy.elem_bytes = emit::ElemBytes(ctx, node.outputs[0]);
      copy.src_offset = 0;
      copy.dst_offset = at * y_strides[1];
      if (x_cl && y_cl) {  // rows of ck channels, one per pixel
        copy.R = 2;
        copy.dims = {n * hw, ck};
        copy.src_strides = {ck, 1};
        copy.dst_strides = {c, 1};
      } else if (x_cl) {  // pixel-major reads, each channel's plane written strided
        copy.R = 3;
        copy.dims = {n, hw, ck};
        copy.src_strides = {x_strides[0], x_strides[2], x_strides[1]};
        copy.dst_strides = {y_strides[0], y_strides[2], y_strides[1]};
      } else {
        copy.R = 3;
        copy.dims = {n, ck, hw};
        copy.src_strides = x_strides;
        copy.dst_strides = y_strides;
      }
      KILN_RETURN_IF_ERROR(ctx.Dispatch(node, copy, {bx, by}));
    }
    at += ck;
  }
  if (at != c) return ctx.Invalid(node, "input lengths do not add up to the output");
  return absl::OkStatus();
}

absl::Status LowerConcat(emit::LoweringContext& ctx, const ir::Node& node) {
  KILN_ASSIGN_OR_RETURN(auto y, ctx.OutputShape(node, 0));
  const int64_t rank = static_cast<int64_t>(y.size());
  int64_t axis = node.GetInt("axis", 0);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return ctx.Invalid(node, "axis out of range");
  bool any_channels_last = ctx.value(node.outputs[0]).channels_last;
  for (ir::ValueId v : node.inputs) any_channels_last |= ctx.value(v).channels_last;
  if (any_channels_last) {
    // Only static channel concats of images carry NHWC values (layout_selection.cc).
    if (rank != 4 || axis != 1) return ctx.Invalid(node, "channels-last input off the channel axis");
    return LowerChannelConcat(ctx, node, y);
  }
  ir::DimPool& dims = ctx.dims();
  const int64_t outer = dims.Product({y.begin(), y.begin() + axis});
  const int64_t inner = dims.Product({y.begin() + axis + 1, y.end()});
  const int64_t elem = emit::ElemBytes(ctx, node.outputs[0]);
  const int64_t out_row = dims.Mul(y[axis], inner);
  KILN_ASSIGN_OR_RETURN(emit::Binding by, ctx.Bind(node, node.outputs[0]));
  int64_t at = 0;
  for (size_t k = 0; k < node.inputs.size(); ++k) {
    KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, k));
    if (static_cast<int64_t>(x.size()) != rank) return ctx.Invalid(node, "input ranks differ");
    if (ctx.value(node.inputs[k]).dtype != ctx.value(node.outputs[0]).dtype) {
      return ctx.Invalid(node, "input dtypes differ");
    }
    for (int64_t d = 0; d < rank; ++d) {
      if (d != axis && !dims.SameDim(x[d], y[d])) return ctx.Invalid(node, "input shapes differ");
    }
    const int64_t len = x[axis];
    // A static zero: nothing to copy (the kernel copies nothing for a run-time zero).
    if (len != 0 && outer != 0 && inner != 0) {
      KILN_ASSIGN_OR_RETURN(emit::Binding bx, ctx.Bind(node, node.inputs[k]));
      const int64_t row = dims.Mul(len, inner);
      // [outer, row] rows into the output's rows of out_row, from column at*inner.
      emit::kernel::StridedCopy copy;
      copy.elem_bytes = elem;
      copy.R = 2;
      copy.src_offset = 0;
      copy.dst_offset = dims.Mul(at, inner);
      copy.dims = {outer, row};
      copy.src_strides = {row, 1};
      copy.dst_strides = {out_row, 1};
      KILN_RETURN_IF_ERROR(ctx.Dispatch(node, copy, {bx, by}));
    }
    at = dims.Add(at, len);
  }
  if (at != y[axis]) return ctx.Invalid(node, "input lengths do not add up to the output");
  return absl::OkStatus();
}

absl::Status LowerReverseSequence(emit::LoweringContext& ctx, const ir::Node& node) {
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  const int64_t eb = emit::ElemBytes(ctx, node.inputs[0]);
  if (eb < 1 || eb > 8) return ctx.Unimplemented(node, "unsupported dtype");
  const bool batch_first = node.GetInt("batch_axis", 1) == 0;
  int64_t inner = 1;
  for (size_t d = 2; d < x.size(); ++d) inner *= x[d];
  KILN_ASSIGN_OR_RETURN(emit::Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(emit::Binding bl, ctx.Bind(node, node.inputs[1]));
  KILN_ASSIGN_OR_RETURN(emit::Binding by, ctx.Bind(node, node.outputs[0]));
  const int64_t t = batch_first ? x[1] : x[0], b = batch_first ? x[0] : x[1];
  emit::kernel::ReverseSequence reverse;
  reverse.elem_bytes = eb;
  reverse.batch_first = batch_first ? 1 : 0;
  reverse.T = t;
  reverse.B = b;
  reverse.inner = inner;
  return ctx.Dispatch(node, reverse, {bx, bl, by});
}

absl::Status DepthSpace(ShapeRuleContext& c) {
  KILN_RETURN_IF_ERROR(c.Need(1));
  const Shape& x = c.S(0);
  const int64_t b = c.node().GetInt("blocksize", 0);
  if (x.size() != 4) return c.Err("needs a 4-D input");
  KILN_RETURN_IF_ERROR(c.Scale(b, "blocksize"));
  if (c.node().op_type == "DepthToSpace") {
    if (x[1] % (b * b) != 0) return c.Err("channels are not divisible by blocksize^2");
    return c.Set(0, c.T(0), {x[0], x[1] / (b * b), x[2] * b, x[3] * b});
  }
  if (x[2] % b != 0 || x[3] % b != 0) return c.Err("height/width are not divisible by blocksize");
  int64_t channels = 0;
  KILN_RETURN_IF_ERROR(c.Narrow(static_cast<__int128>(x[1]) * b * b, "the channel count", &channels));
  return c.Set(0, c.T(0), {x[0], channels, x[2] / b, x[3] / b});
}

// Both are a reshape + transpose; the output is walked as 6 dims.
absl::Status LowerDepthSpace(emit::LoweringContext& ctx, const ir::Node& node) {
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  const int64_t b = node.GetInt("blocksize", 1);
  const int64_t N = x[0], C = x[1], H = x[2], W = x[3], hw = H * W;
  Shape dims, ss;
  if (node.op_type == "DepthToSpace") {
    const int64_t c2 = C / (b * b);
    dims = {N, c2, H, b, W, b};  // output [N, c2, H*b, W*b]
    if (node.GetString("mode", "DCR") == "CRD") {
      ss = {C * hw, b * b * hw, W, b * hw, 1, hw};
    } else {
      ss = {C * hw, hw, W, b * c2 * hw, 1, c2 * hw};
    }
  } else {
    dims = {N, b, b, C, H / b, W / b};  // output [N, b*b*C, H/b, W/b]
    ss = {C * hw, W, 1, hw, b * W, b};
  }
  KILN_ASSIGN_OR_RETURN(emit::Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(emit::Binding by, ctx.Bind(node, node.outputs[0]));
  return emit::EmitStridedCopy(ctx, node, bx, by, emit::ElemBytes(ctx, node.inputs[0]), 0, 0, dims, ss,
                     emit::ContiguousStrides(dims));
}

}  // namespace

void RegisterMovementOps(std::vector<OpDef>& ops) {
  OpDef transpose{"Transpose", TransposeShape, /*symbolic=*/true, LowerTranspose};
  transpose.symbolic_values = SymbolicValueAtFirst;  // PyTorch's pads: [n, 2] -> [2, n]
  transpose.fold = {FoldTranspose, FoldRule::Needs::kKnownInputs, 1};
  ops.push_back(transpose);
  OpDef concat{"Concat", ConcatShape, /*symbolic=*/true, LowerConcat};
  concat.symbolic_values = SymbolicValueAnywhere;  // Concat(Shape(x)[:1], [-1])
  concat.fold = {FoldConcat, FoldRule::Needs::kKnownInputs, 1};
  ops.push_back(concat);
  ops.push_back({"DepthToSpace", DepthSpace, /*symbolic=*/false, LowerDepthSpace});
  ops.push_back({"SpaceToDepth", DepthSpace, /*symbolic=*/false, LowerDepthSpace});
  ops.push_back({"ReverseSequence", ReverseSequenceShape, /*symbolic=*/false,
                 LowerReverseSequence});
}

}  // namespace kiln::compiler
