// The quantized ops: MatMulInteger / QLinearMatMul (qmatmul), ConvInteger /
// QLinearConv (qconv2d), QuantizeLinear / DequantizeLinear
// (quantize_linear, dequantize_linear) and DynamicQuantizeLinear
// (dynamic_quantize_linear). Shape inference (passes/shape_rules_quantized.cc)
// checked the operand dtypes and resolved the conv window.
#include <utility>

#include "absl/strings/str_cat.h"
#include "compiler/emit/lower_ops.h"
#include "compiler/ir/graph_util.h"
#include "kiln/kernels.h"

namespace kiln::compiler::emit {
namespace {

using Shape = std::vector<int64_t>;

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
  Shape ip = {DTypeCode(ctx, node.inputs[pos[0]]), DTypeCode(ctx, node.inputs[pos[1]]),
              static_cast<int64_t>(ctx.value(node.outputs[0]).dtype), M, N, K,
              modes[0], modes[1], modes[2], modes[3], static_cast<int64_t>(R)};
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
  ip.insert(ip.end(), y.begin(), y.begin() + R);
  ip.insert(ip.end(), sa.begin(), sa.end());
  ip.insert(ip.end(), sb.begin(), sb.end());
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
  return ctx.Dispatch(node, "qmatmul", std::move(ip), {}, binds, over);
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
  Shape ip = {DTypeCode(ctx, node.inputs[0]), DTypeCode(ctx, node.inputs[pos[1]]),
              static_cast<int64_t>(ctx.value(node.outputs[0]).dtype),
              x[0], x[1], one ? 1 : x[2], x.back(), OC, one ? 1 : y[2], y.back(),
              one ? 1 : w[2], w.back(), one ? 1 : strides[0], strides.back(),
              one ? 0 : pads[0], pads[sp - 1], one ? 1 : dil[0], dil.back(),
              node.GetInt("group", 1), xz, wz, ws, has_bias ? 1 : 0};
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
  return ctx.Dispatch(node, "qconv2d", std::move(ip), {}, binds, over);
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
  return ctx.Dispatch(node, q ? "quantize_linear" : "dequantize_linear",
                      {outer, axis_len, inner, static_cast<int64_t>(qt), has_zp ? 1 : 0,
                       per_axis ? 1 : 0},
                      {}, {bx, bs, bz, by}, {-1, -1, has_zp ? -1 : 0, -1});
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
  return ctx.Dispatch(node, "dynamic_quantize_linear", {ir::ElementCount(x)}, {}, b);
}

}  // namespace

void RegisterQuantizedLowerings(LoweringTable& table) {
  table["MatMulInteger"] = LowerQMatMul;
  table["QLinearMatMul"] = LowerQMatMul;
  table["ConvInteger"] = LowerQConv;
  table["QLinearConv"] = LowerQConv;
  table["QuantizeLinear"] = LowerQuantize;
  table["DequantizeLinear"] = LowerQuantize;
  table["DynamicQuantizeLinear"] = LowerDynamicQuantize;
}

}  // namespace kiln::compiler::emit
