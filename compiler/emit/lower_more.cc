// TopK (topk), MaxPool with its Indices output (maxpool_argmax_f32), the
// integer ops MatMulInteger / QLinearMatMul (qmatmul) and ConvInteger /
// QLinearConv (qconv2d), and the signal constants HannWindow, HammingWindow,
// BlackmanWindow (signal_window) and MelWeightMatrix (mel_weight_matrix).
// Shape inference (passes/shape_rules_more.cc) resolved k, axes and windows.
#include <utility>

#include "absl/strings/str_cat.h"
#include "compiler/emit/lower_ops.h"
#include "compiler/ir/graph_util.h"
#include "kiln/kernels.h"

namespace kiln::compiler::emit {
namespace {

using Shape = std::vector<int64_t>;

bool HasInput(const ir::Node& node, size_t k) {
  return node.inputs.size() > k && node.inputs[k] != ir::kNoValue;
}

int64_t Code(const LoweringContext& ctx, ir::ValueId v) {
  return static_cast<int64_t>(ctx.value(v).dtype);
}

absl::Status LowerTopK(LoweringContext& ctx, const ir::Node& node) {
  KILN_ASSIGN_OR_RETURN(Shape x, ctx.InputShape(node, 0));
  if (!node.HasAttr("kiln.k")) return ctx.Invalid(node, "k was not resolved");
  const int64_t axis = node.GetInt("kiln.axis", 0), k = node.GetInt("kiln.k", 0);
  const bool runtime_k = node.GetInt("kiln.k_runtime", 0) != 0;
  const int64_t t = Code(ctx, node.inputs[0]);
  if (ir::DTypeSize(ctx.value(node.inputs[0]).dtype) == 0 ||
      ctx.value(node.inputs[0]).dtype == ir::DType::Bool) {
    return ctx.Unimplemented(node, "unsupported input dtype");
  }
  if (node.outputs.size() < 2 || node.outputs[0] == ir::kNoValue ||
      node.outputs[1] == ir::kNoValue) {
    return ctx.Unimplemented(node, "both outputs (values and indices) must be present");
  }
  KILN_ASSIGN_OR_RETURN(Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding bv, ctx.Bind(node, node.outputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding bi, ctx.Bind(node, node.outputs[1]));
  Binding bk = bx;  // unread when k is static
  if (runtime_k) {
    KILN_ASSIGN_OR_RETURN(bk, ctx.Bind(node, node.inputs[1]));
  }
  // Symbolic dims multiply through the pool; the kernel's checker refuses
  // k beyond a symbolic axis's run-time length.
  ir::DimPool& dims = ctx.dims();
  Shape ip = {t, dims.Product(Shape(x.begin(), x.begin() + axis)), x[axis],
              dims.Product(Shape(x.begin() + axis + 1, x.end())), k,
              node.GetInt("largest", 1) != 0 ? 1 : 0,
              runtime_k ? Code(ctx, node.inputs[1]) : 0};
  return ctx.Dispatch(node, "topk", std::move(ip), {}, {bx, bk, bv, bi},
                      {-1, runtime_k ? -1 : 0, -1, -1});
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
  Shape ip = {x[0], x[1], one ? 1 : x[2], x.back(), one ? 1 : y[2], y.back(),
              one ? 1 : kernel[0], kernel.back(), one ? 1 : strides[0], strides.back(),
              one ? 0 : pads[0], pads[sp - 1], one ? 1 : dil[0], dil.back(),
              node.GetInt("storage_order", 0) != 0 ? 1 : 0};
  KILN_ASSIGN_OR_RETURN(Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding bi, ctx.Bind(node, node.outputs[1]));
  return ctx.Dispatch(node, "maxpool_argmax_f32", std::move(ip), {}, {bx, by, bi});
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
  Shape ip = {Code(ctx, node.inputs[pos[0]]), Code(ctx, node.inputs[pos[1]]),
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
  Shape ip = {Code(ctx, node.inputs[0]), Code(ctx, node.inputs[pos[1]]),
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

absl::Status LowerSignalWindow(LoweringContext& ctx, const ir::Node& node) {
  KILN_ASSIGN_OR_RETURN(Shape y, ctx.OutputShape(node, 0));
  const int64_t kind = node.op_type == "HannWindow" ? 0 : node.op_type == "HammingWindow" ? 1 : 2;
  KILN_ASSIGN_OR_RETURN(Binding bs, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  Shape ip = {kind, y[0], node.GetInt("periodic", 1) != 0 ? 1 : 0, Code(ctx, node.inputs[0]),
              static_cast<int64_t>(ctx.value(node.outputs[0]).dtype)};
  return ctx.Dispatch(node, "signal_window", std::move(ip), {}, {bs, by});
}

absl::Status LowerMel(LoweringContext& ctx, const ir::Node& node) {
  KILN_ASSIGN_OR_RETURN(Shape y, ctx.OutputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(std::vector<Binding> binds, BindAll(ctx, node, {0, 1, 2, 3, 4}));
  Shape ip = {y[1], y[0], Code(ctx, node.inputs[0]), Code(ctx, node.inputs[3]),
              static_cast<int64_t>(ctx.value(node.outputs[0]).dtype)};
  return ctx.Dispatch(node, "mel_weight_matrix", std::move(ip), {}, binds);
}

}  // namespace

void RegisterMoreLowerings(LoweringTable& table) {
  table["TopK"] = LowerTopK;
  table["MatMulInteger"] = LowerQMatMul;
  table["QLinearMatMul"] = LowerQMatMul;
  table["ConvInteger"] = LowerQConv;
  table["QLinearConv"] = LowerQConv;
  table["HannWindow"] = LowerSignalWindow;
  table["HammingWindow"] = LowerSignalWindow;
  table["BlackmanWindow"] = LowerSignalWindow;
  table["MelWeightMatrix"] = LowerMel;
  // MaxPool keeps its lowering unless its Indices output is used.
  auto it = table.find("MaxPool");
  LowerFn other = it != table.end() ? it->second : LowerFn();
  table["MaxPool"] = [other](LoweringContext& ctx, const ir::Node& node) -> absl::Status {
    if (IndicesUsed(ctx, node)) return LowerMaxPoolArgmax(ctx, node);
    if (other) return other(ctx, node);
    return ctx.Unimplemented(node, "no kernel lowers this op");
  };
}

}  // namespace kiln::compiler::emit
