// The quantized ops: MatMulInteger / QLinearMatMul (qmatmul; batch-broadcast
// matrices of rank >= 2), ConvInteger / QLinearConv (qconv2d; 1-D and 2-D
// windows, which the shape rule resolves into kiln.strides, kiln.dilations,
// kiln.pads), QuantizeLinear / DequantizeLinear (quantize_linear,
// dequantize_linear; same shape, scale and zero point a scalar or one entry
// per element of `axis`) and DynamicQuantizeLinear
// (dynamic_quantize_linear). Operands are uint8 or int8, scales float32.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/ir/graph_util.h"
#include "compiler/ops/op_def.h"
#include "kiln/kernels.h"

namespace kiln::compiler {
namespace {

using emit::Binding;
using emit::DTypeCode;
using emit::HasInput;
using emit::LoweringContext;
using ir::DType;
using Shape = std::vector<int64_t>;
using Ctx = ShapeRuleContext;

bool Is8(DType t) { return t == DType::U8 || t == DType::I8; }

absl::Status Need8(Ctx& c, size_t k) {
  if (!Is8(c.T(k))) {
    return c.Err(absl::StrCat("input '", c.In(k).name, "' must be uint8 or int8, got ",
                              ir::DTypeName(c.T(k))));
  }
  return absl::OkStatus();
}

// MatMulInteger (a, b, a_zp, b_zp) and QLinearMatMul (a, a_scale, a_zp, b,
// b_scale, b_zp, y_scale, y_zp): matrices of rank >= 2, batch broadcast.
absl::Status QMatMul(Ctx& c) {
  const bool qlinear = c.node().op_type == "QLinearMatMul";
  const size_t ai = 0, bi = qlinear ? 3 : 1;
  KILN_RETURN_IF_ERROR(c.Need(qlinear ? 8 : 2));
  KILN_RETURN_IF_ERROR(Need8(c, ai));
  KILN_RETURN_IF_ERROR(Need8(c, bi));
  const Shape &a = c.S(ai), &b = c.S(bi);
  if (a.size() < 2 || b.size() < 2) return c.Err("both operands must have rank >= 2");
  const int64_t M = a[a.size() - 2], K = a.back(), N = b.back();
  if (b[b.size() - 2] != K) {
    return c.Err(absl::StrCat("cannot multiply ", ir::ShapeStr(a), " by ", ir::ShapeStr(b)));
  }
  Shape batch;
  if (!ir::BroadcastShapes(Shape(a.begin(), a.end() - 2), Shape(b.begin(), b.end() - 2), &batch)) {
    return c.Err(absl::StrCat("batch dims of ", ir::ShapeStr(a), " and ", ir::ShapeStr(b),
                              " do not broadcast"));
  }
  batch.push_back(M);
  batch.push_back(N);
  DType out = DType::I32;
  if (qlinear) {
    KILN_RETURN_IF_ERROR(Need8(c, 7));
    out = c.T(7);
  }
  return c.Set(0, out, std::move(batch));
}

// ConvInteger (x, w, x_zp, w_zp) and QLinearConv (x, x_scale, x_zp, w,
// w_scale, w_zp, y_scale, y_zp, bias): 1-D and 2-D windows.
absl::Status QConv(Ctx& c) {
  const bool qlinear = c.node().op_type == "QLinearConv";
  const size_t wi = qlinear ? 3 : 1;
  KILN_RETURN_IF_ERROR(c.Need(qlinear ? 8 : 2));
  KILN_RETURN_IF_ERROR(Need8(c, 0));
  KILN_RETURN_IF_ERROR(Need8(c, wi));
  const Shape &x = c.S(0), &w = c.S(wi);
  if ((x.size() != 3 && x.size() != 4) || w.size() != x.size()) {
    return c.Err(absl::StrCat("only 1-D and 2-D windows are supported; input ", ir::ShapeStr(x),
                              ", weight ", ir::ShapeStr(w)));
  }
  ir::Node& n = c.node();
  const size_t nd = x.size() - 2;
  const int64_t group = n.GetInt("group", 1);
  if (group <= 0 || w[0] % group != 0 || x[1] % group != 0 || x[1] / group != w[1]) {
    return c.Err(absl::StrCat("input ", ir::ShapeStr(x), " does not match weight ",
                              ir::ShapeStr(w), " with group=", group));
  }
  const Shape kernel(w.begin() + 2, w.end());
  if (n.GetInts("kernel_shape", kernel) != kernel) {
    return c.Err("kernel_shape does not match the weight shape");
  }
  const Shape strides = n.GetInts("strides", Shape(nd, 1));
  const Shape dil = n.GetInts("dilations", Shape(nd, 1));
  Shape pads = n.GetInts("pads", Shape(2 * nd, 0));
  const std::string auto_pad = n.GetString("auto_pad", "NOTSET");
  if (strides.size() != nd || dil.size() != nd || pads.size() != 2 * nd) {
    return c.Err("strides/dilations/pads do not match the spatial rank");
  }
  Shape out = {x[0], w[0]};
  for (size_t i = 0; i < nd; ++i) {
    KILN_RETURN_IF_ERROR(c.Scale(strides[i], "strides"));
    KILN_RETURN_IF_ERROR(c.Scale(dil[i], "dilations"));
    if (pads[i] < 0 || pads[i + nd] < 0 || pads[i] > Ctx::kMaxDim || pads[i + nd] > Ctx::kMaxDim ||
        kernel[i] <= 0 || kernel[i] > Ctx::kMaxDim) {
      return c.Err("kernel and pads must be in range (pads non-negative)");
    }
    const int64_t in = x[2 + i], s = strides[i], dk = (kernel[i] - 1) * dil[i] + 1;
    int64_t o;
    if (auto_pad == "NOTSET" || auto_pad.empty()) {
      const int64_t span = in + pads[i] + pads[i + nd] - dk;
      if (span < 0) return c.Err("the (dilated) kernel is larger than the padded input");
      o = span / s + 1;
    } else if (auto_pad == "VALID") {
      pads[i] = pads[i + nd] = 0;
      if (in < dk) return c.Err("the (dilated) kernel is larger than the input");
      o = (in - dk) / s + 1;
    } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      o = CeilDiv(in, s);
      const int64_t total = std::max<int64_t>(0, (o - 1) * s + dk - in);
      const int64_t small = total / 2;
      pads[i] = auto_pad == "SAME_UPPER" ? small : total - small;
      pads[i + nd] = total - pads[i];
    } else {
      return c.Err(absl::StrCat("unknown auto_pad '", auto_pad, "'"));
    }
    out.push_back(o);
  }
  n.SetInts("kiln.strides", strides);
  n.SetInts("kiln.dilations", dil);
  n.SetInts("kiln.pads", pads);
  DType ty = DType::I32;
  if (qlinear) {
    KILN_RETURN_IF_ERROR(Need8(c, 7));
    ty = c.T(7);
    if (c.Has(8) && (c.T(8) != DType::I32 || c.S(8) != Shape{w[0]})) {
      return c.Err(absl::StrCat("bias must be int32 [", w[0], "]"));
    }
  }
  return c.Set(0, ty, std::move(out));
}

// QuantizeLinear / DequantizeLinear: same shape; scale (and zero point) a
// scalar or one entry per element of `axis`.
absl::Status Quantize(Ctx& c) {
  ir::Graph& g = c.graph();
  ir::Node& n = c.node();
  const bool q = n.op_type == "QuantizeLinear";
  if (n.inputs.size() < 2 || n.inputs[0] == ir::kNoValue || n.inputs[1] == ir::kNoValue) {
    return c.Err("expects x and scale inputs");
  }
  const ir::Value& x = g.value(n.inputs[0]);
  const ir::Value& s = g.value(n.inputs[1]);
  if (!x.has_shape || !s.has_shape) return c.Err("inputs have no shape");
  if (n.GetInt("block_size", 0) != 0) {
    return c.Err("block_size (opset 21 blocked quantization) is not supported");
  }
  const bool has_zp = n.inputs.size() > 2 && n.inputs[2] != ir::kNoValue;
  // Opset 21: without a zero point, output_dtype names the quantized type.
  DType qt = x.dtype;
  if (q) {
    qt = has_zp ? g.value(n.inputs[2]).dtype : DType::U8;
    if (const int64_t out = n.GetInt("output_dtype", 0); out != 0) {
      const DType named = ir::DTypeFromOnnx(out);
      if (has_zp && named != qt) {
        return c.Err("output_dtype differs from the zero point's type");
      }
      qt = named;
    }
  }
  if (qt != DType::U8 && qt != DType::I8 && (q || qt != DType::I32)) {
    return c.Err(absl::StrCat("quantized type ", ir::DTypeName(qt), " is not supported"));
  }
  if ((q ? x.dtype : s.dtype) != DType::F32 || s.dtype != DType::F32) {
    return c.Err("only float32 data and scales are supported");
  }
  if (s.shape.size() > 1) return c.Err("scale must be a scalar or 1-D");
  if (s.shape.size() == 1) {
    const int64_t r = static_cast<int64_t>(x.shape.size());
    int64_t axis = n.GetInt("axis", 1);
    if (axis < 0) axis += r;
    if (axis < 0 || axis >= r || x.shape[axis] != s.shape[0]) {
      return c.Err(absl::StrCat("scale ", ir::ShapeStr(s.shape), " does not fit axis ",
                                    n.GetInt("axis", 1), " of ", ir::ShapeStr(x.shape)));
    }
  }
  if (has_zp && (g.value(n.inputs[2]).shape != s.shape || g.value(n.inputs[2]).dtype != qt)) {
    return c.Err("zero point must match the scale's shape and the quantized type");
  }
  KILN_RETURN_IF_ERROR(c.Set(0, q ? qt : DType::F32, x.shape));
  return absl::OkStatus();
}

absl::Status DynamicQuantize(Ctx& c) {
  ir::Graph& g = c.graph();
  ir::Node& n = c.node();
  if (n.inputs.empty() || n.inputs[0] == ir::kNoValue || !g.value(n.inputs[0]).has_shape) {
    return c.Err("expects a shaped input");
  }
  const ir::Value& x = g.value(n.inputs[0]);
  if (x.dtype != DType::F32) return c.Err("only float32 input is supported");
  KILN_RETURN_IF_ERROR(c.Set(0, DType::U8, x.shape));
  KILN_RETURN_IF_ERROR(c.Set(1, DType::F32, {}));
  KILN_RETURN_IF_ERROR(c.Set(2, DType::U8, {}));
  return absl::OkStatus();
}

// How a zero-point / scale input is read: absent, one value, or one per
// row/column of length `len`.
absl::StatusOr<int64_t> QMode(const LoweringContext& ctx, const ir::Node& node, size_t k,
                              int64_t len, const char* what) {
  if (!HasInput(node, k)) return int64_t{0};
  const ir::Value& v = ctx.value(node.inputs[k]);
  const int64_t count = ir::ElementCount(v.shape);
  if (v.shape.size() <= 1 && count == 1) return int64_t{1};
  if (v.shape.size() == 1 && count == len) return int64_t{2};
  return ctx.Unimplemented(node, absl::StrCat(what, " '", v.name, "' has shape ",
                                              ir::ShapeStr(v.shape), "; expected one value or ",
                                              len));
}

absl::StatusOr<Binding> BindOr(LoweringContext& ctx, const ir::Node& node, size_t k,
                               const Binding& fallback) {
  if (!HasInput(node, k)) return fallback;
  return ctx.Bind(node, node.inputs[k]);
}

absl::Status LowerQMatMul(LoweringContext& ctx, const ir::Node& node) {
  const bool q = node.op_type == "QLinearMatMul";
  // Input positions: A, B, a_zp, b_zp, a_scale, b_scale, y_scale, y_zp.
  const size_t pos[8] = {0, q ? 3u : 1u, q ? 2u : 2u, q ? 5u : 3u, 1, 4, 6, 7};
  KILN_ASSIGN_OR_RETURN(Shape a, ctx.InputShape(node, pos[0]));
  KILN_ASSIGN_OR_RETURN(Shape b, ctx.InputShape(node, pos[1]));
  KILN_ASSIGN_OR_RETURN(Shape y, ctx.OutputShape(node, 0));
  const int64_t M = a[a.size() - 2], K = a.back(), N = b.back();
  for (size_t zp : {pos[2], pos[3], pos[7]}) {
    const size_t src = zp == pos[2] ? pos[0] : zp == pos[3] ? pos[1] : 0;
    if (HasInput(node, zp) && zp != pos[7] &&
        ctx.value(node.inputs[zp]).dtype != ctx.value(node.inputs[src]).dtype) {
      return ctx.Invalid(node, "a zero point's dtype differs from its operand's");
    }
  }
  int64_t modes[4] = {0, 0, 0, 0};
  KILN_ASSIGN_OR_RETURN(modes[0], QMode(ctx, node, pos[2], M, "a_zero_point"));
  KILN_ASSIGN_OR_RETURN(modes[1], QMode(ctx, node, pos[3], N, "b_zero_point"));
  if (q) {
    KILN_ASSIGN_OR_RETURN(modes[2], QMode(ctx, node, pos[4], M, "a_scale"));
    KILN_ASSIGN_OR_RETURN(modes[3], QMode(ctx, node, pos[5], N, "b_scale"));
    KILN_ASSIGN_OR_RETURN(int64_t ys, QMode(ctx, node, pos[6], 1, "y_scale"));
    KILN_ASSIGN_OR_RETURN(int64_t yz, QMode(ctx, node, pos[7], 1, "y_zero_point"));
    if (ys != 1 || yz != 1 || modes[2] == 0 || modes[3] == 0) {
      return ctx.Unimplemented(node, "scales and y_zero_point must be given (y per tensor)");
    }
    for (size_t s : {pos[4], pos[5], pos[6]}) {
      if (ctx.value(node.inputs[s]).dtype != ir::DType::F32) {
        return ctx.Unimplemented(node, "scales must be float32");
      }
    }
  }
  const size_t R = y.size() - 2;
  emit::kernel::Qmatmul mm;
  mm.a_dtype = DTypeCode(ctx, node.inputs[pos[0]]);
  mm.b_dtype = DTypeCode(ctx, node.inputs[pos[1]]);
  mm.y_dtype = emit::DTypeCode(ctx, node.outputs[0]);
  mm.M = M;
  mm.N = N;
  mm.K = K;
  mm.a_zp_mode = modes[0];
  mm.b_zp_mode = modes[1];
  mm.a_scale_mode = modes[2];
  mm.b_scale_mode = modes[3];
  mm.R = static_cast<int64_t>(R);
  Shape sa(R, 0), sb(R, 0);
  for (int side = 0; side < 2; ++side) {
    const Shape& s = side == 0 ? a : b;
    Shape& st = side == 0 ? sa : sb;
    int64_t stride = s[s.size() - 2] * s.back();
    for (size_t i = 0; i + 2 < s.size(); ++i) {
      const size_t d = s.size() - 3 - i;  // operand batch dim, right-aligned to y
      st[R - 1 - i] = s[d] == 1 ? 0 : stride;
      stride *= s[d];
    }
  }
  mm.batch_dims = Shape(y.begin(), y.begin() + R);
  mm.a_batch_strides = sa;
  mm.b_batch_strides = sb;
  KILN_ASSIGN_OR_RETURN(Binding ba, ctx.Bind(node, node.inputs[pos[0]]));
  KILN_ASSIGN_OR_RETURN(Binding bb, ctx.Bind(node, node.inputs[pos[1]]));
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  std::vector<Binding> binds = {ba, bb};
  Shape over = {-1, -1};
  for (size_t k = 2; k < 8; ++k) {
    const bool used = q ? true : k < 4;
    const bool have = used && HasInput(node, pos[k]);
    KILN_ASSIGN_OR_RETURN(Binding bp, BindOr(ctx, node, have ? pos[k] : 99, ba));
    binds.push_back(bp);
    over.push_back(have ? -1 : 0);
  }
  binds.push_back(by);
  over.push_back(-1);
  return ctx.Dispatch(node, mm, binds, over);
}

absl::Status LowerQConv(LoweringContext& ctx, const ir::Node& node) {
  const bool q = node.op_type == "QLinearConv";
  // x, w, x_zp, w_zp, x_scale, w_scale, y_scale, y_zp, bias.
  const size_t pos[9] = {0, q ? 3u : 1u, 2, q ? 5u : 3u, 1, 4, 6, 7, 8};
  KILN_ASSIGN_OR_RETURN(Shape x, ctx.InputShape(node, pos[0]));
  KILN_ASSIGN_OR_RETURN(Shape w, ctx.InputShape(node, pos[1]));
  KILN_ASSIGN_OR_RETURN(Shape y, ctx.OutputShape(node, 0));
  const size_t sp = x.size() - 2;
  const Shape strides = node.GetInts("kiln.strides", {});
  const Shape dil = node.GetInts("kiln.dilations", {});
  const Shape pads = node.GetInts("kiln.pads", {});
  if ((sp != 1 && sp != 2) || strides.size() != sp || dil.size() != sp || pads.size() != 2 * sp) {
    return ctx.Invalid(node, "the window was not resolved");
  }
  if (HasInput(node, pos[2]) &&
      ctx.value(node.inputs[pos[2]]).dtype != ctx.value(node.inputs[0]).dtype) {
    return ctx.Invalid(node, "x_zero_point's dtype differs from x's");
  }
  if (HasInput(node, pos[3]) &&
      ctx.value(node.inputs[pos[3]]).dtype != ctx.value(node.inputs[pos[1]]).dtype) {
    return ctx.Invalid(node, "w_zero_point's dtype differs from w's");
  }
  const int64_t OC = w[0];
  KILN_ASSIGN_OR_RETURN(int64_t xz, QMode(ctx, node, pos[2], 1, "x_zero_point"));
  KILN_ASSIGN_OR_RETURN(int64_t wz, QMode(ctx, node, pos[3], OC, "w_zero_point"));
  int64_t ws = 0;
  const bool has_bias = q && HasInput(node, pos[8]);
  if (q) {
    KILN_ASSIGN_OR_RETURN(int64_t xs, QMode(ctx, node, pos[4], 1, "x_scale"));
    KILN_ASSIGN_OR_RETURN(ws, QMode(ctx, node, pos[5], OC, "w_scale"));
    KILN_ASSIGN_OR_RETURN(int64_t ys, QMode(ctx, node, pos[6], 1, "y_scale"));
    KILN_ASSIGN_OR_RETURN(int64_t yz, QMode(ctx, node, pos[7], 1, "y_zero_point"));
    if (xs != 1 || ys != 1 || yz != 1 || ws == 0) {
      return ctx.Unimplemented(node, "x/y scales and y_zero_point must be per tensor");
    }
    for (size_t s : {pos[4], pos[5], pos[6]}) {
      if (ctx.value(node.inputs[s]).dtype != ir::DType::F32) {
        return ctx.Unimplemented(node, "scales must be float32");
      }
    }
  }
  const bool one = sp == 1;
  // A 1-D conv as 2-D with a unit height.
  emit::kernel::Qconv2d conv;
  conv.x_dtype = DTypeCode(ctx, node.inputs[0]);
  conv.w_dtype = DTypeCode(ctx, node.inputs[pos[1]]);
  conv.y_dtype = emit::DTypeCode(ctx, node.outputs[0]);
  conv.N = x[0];
  conv.C = x[1];
  conv.H = one ? 1 : x[2];
  conv.W = x.back();
  conv.OC = OC;
  conv.OH = one ? 1 : y[2];
  conv.OW = y.back();
  conv.KH = one ? 1 : w[2];
  conv.KW = w.back();
  conv.stride_h = one ? 1 : strides[0];
  conv.stride_w = strides.back();
  conv.pad_top = one ? 0 : pads[0];
  conv.pad_left = pads[sp - 1];
  conv.dilation_h = one ? 1 : dil[0];
  conv.dilation_w = dil.back();
  conv.groups = node.GetInt("group", 1);
  conv.x_zp_mode = xz;
  conv.w_zp_mode = wz;
  conv.w_scale_mode = ws;
  conv.has_bias = has_bias ? 1 : 0;
  KILN_ASSIGN_OR_RETURN(Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding bw, ctx.Bind(node, node.inputs[pos[1]]));
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  std::vector<Binding> binds = {bx, bw};
  Shape over = {-1, -1};
  for (size_t k = 2; k < 9; ++k) {
    const bool used = q ? true : k < 4;
    const bool have = used && HasInput(node, pos[k]);
    KILN_ASSIGN_OR_RETURN(Binding bp, BindOr(ctx, node, have ? pos[k] : 99, bx));
    binds.push_back(bp);
    over.push_back(have ? -1 : 0);
  }
  binds.push_back(by);
  over.push_back(-1);
  return ctx.Dispatch(node, conv, binds, over);
}

absl::Status LowerQuantize(LoweringContext& ctx, const ir::Node& node) {
  if (node.inputs.size() < 2) return ctx.Invalid(node, "expects x and scale");
  const bool q = node.op_type == "QuantizeLinear";
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(auto s, ctx.InputShape(node, 1));
  const bool has_zp = HasInput(node, 2);
  const ir::DType qt = ctx.value(q ? node.outputs[0] : node.inputs[0]).dtype;
  int64_t outer = 1, axis_len = 1, inner = ir::ElementCount(x);
  const bool per_axis = s.size() == 1;
  if (per_axis) {
    const int64_t r = static_cast<int64_t>(x.size());
    int64_t axis = node.GetInt("axis", 1);
    if (axis < 0) axis += r;
    if (axis < 0 || axis >= r) return ctx.Invalid(node, "axis out of range");
    outer = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= x[d];
    axis_len = x[axis];
    inner = 1;
    for (int64_t d = axis + 1; d < r; ++d) inner *= x[d];
  }
  KILN_ASSIGN_OR_RETURN(Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding bs, ctx.Bind(node, node.inputs[1]));
  Binding bz = bs;  // unread without a zero point
  if (has_zp) {
    KILN_ASSIGN_OR_RETURN(bz, ctx.Bind(node, node.inputs[2]));
  }
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  emit::kernel::QuantizeLinear quantize;
  quantize.outer = outer;
  quantize.axis = axis_len;
  quantize.inner = inner;
  quantize.q_dtype = emit::KernelDTypeCode(qt);
  quantize.has_zp = has_zp ? 1 : 0;
  quantize.per_axis = per_axis ? 1 : 0;
  const std::vector<Binding> b = {bx, bs, bz, by};
  const Shape zp_unread = {-1, -1, has_zp ? -1 : 0, -1};
  if (q) return ctx.Dispatch(node, quantize, b, zp_unread);
  return ctx.Dispatch(node, emit::kernel::DequantizeLinear(quantize), b, zp_unread);
}

absl::Status LowerDynamicQuantize(LoweringContext& ctx, const ir::Node& node) {
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  std::vector<Binding> b;
  KILN_ASSIGN_OR_RETURN(Binding bx, ctx.Bind(node, node.inputs[0]));
  b.push_back(bx);
  for (size_t k = 0; k < 3; ++k) {
    if (k >= node.outputs.size() || node.outputs[k] == ir::kNoValue) {
      return ctx.Unimplemented(node, "all three outputs must be used");
    }
    KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[k]));
    b.push_back(by);
  }
  emit::kernel::DynamicQuantizeLinear quantize;
  quantize.count = ir::ElementCount(x);
  return ctx.Dispatch(node, quantize, b);
}

}  // namespace

void RegisterQuantizedOps(std::vector<OpDef>& ops) {
  ops.push_back({"MatMulInteger", QMatMul, /*symbolic=*/false, LowerQMatMul});
  ops.push_back({"QLinearMatMul", QMatMul, /*symbolic=*/false, LowerQMatMul});
  ops.push_back({"ConvInteger", QConv, /*symbolic=*/false, LowerQConv});
  ops.push_back({"QLinearConv", QConv, /*symbolic=*/false, LowerQConv});
  ops.push_back({"QuantizeLinear", Quantize, /*symbolic=*/false, LowerQuantize});
  ops.push_back({"DequantizeLinear", Quantize, /*symbolic=*/false, LowerQuantize});
  ops.push_back({"DynamicQuantizeLinear", DynamicQuantize, /*symbolic=*/false, LowerDynamicQuantize});
}

}  // namespace kiln::compiler
