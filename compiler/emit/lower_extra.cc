// Ops added for ONNX coverage by h10:
// - NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss → nll_loss_f32
//   (runtime/kernels/loss.c): the scores are viewed as [N, C, D] with D the
//   product of the trailing dims, the target as [N, D];
// - QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear → quantize.c;
// - MaxPool/AveragePool that pool2d_f32 does not take (3-D and deeper
//   windows, non-float32 data) → pool_nd.
#include <utility>

#include "absl/strings/str_cat.h"
#include "compiler/emit/lower_ops.h"
#include "compiler/ir/graph_util.h"
#include "kiln/kernels.h"

namespace kiln::compiler::emit {
namespace {

absl::Status LowerLoss(LoweringContext& ctx, const ir::Node& node) {
  if (node.inputs.size() < 2) return ctx.Invalid(node, "expects scores and target");
  const bool sce = node.op_type == "SoftmaxCrossEntropyLoss";
  const bool has_weight = node.inputs.size() > 2 && node.inputs[2] != ir::kNoValue;
  const bool has_log_prob = sce && node.outputs.size() > 1 && node.outputs[1] != ir::kNoValue;
  if (ctx.value(node.inputs[0]).dtype != ir::DType::F32 ||
      (has_weight && ctx.value(node.inputs[2]).dtype != ir::DType::F32)) {
    return ctx.Unimplemented(node, absl::StrCat("tensor '", ctx.value(node.inputs[0]).name, "' is ",
                                                ir::DTypeName(ctx.value(node.inputs[0]).dtype),
                                                "; only float32 kernels exist"));
  }
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  if (x.size() < 2) return ctx.Invalid(node, "scores must have rank >= 2");
  int64_t d = 1;
  for (size_t k = 2; k < x.size(); ++k) d *= x[k];
  const std::string red = node.GetString("reduction", "mean");
  const int64_t reduction = red == "none" ? 0 : red == "sum" ? 1 : 2;
  const ir::DType tt = ctx.value(node.inputs[1]).dtype;
  const int64_t target_bytes = tt == ir::DType::I32 ? 4 : 8;
  // Without the attribute no target is ignored: pick a value no int64 class
  // index can take besides the out-of-range ones the kernel refuses anyway.
  const int64_t ignore = node.GetInt("ignore_index", INT64_MIN);
  KILN_ASSIGN_OR_RETURN(Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding bt, ctx.Bind(node, node.inputs[1]));
  Binding bw = bx;  // unread without weights
  if (has_weight) {
    KILN_ASSIGN_OR_RETURN(bw, ctx.Bind(node, node.inputs[2]));
  }
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  Binding bl = by;  // untouched without log_prob
  if (has_log_prob) {
    KILN_ASSIGN_OR_RETURN(bl, ctx.Bind(node, node.outputs[1]));
  }
  return ctx.Dispatch(node, "nll_loss_f32",
                      {x[0], x[1], d, reduction, ignore, has_weight ? 1 : 0, target_bytes,
                       sce ? 1 : 0, has_log_prob ? 1 : 0},
                      {}, {bx, bt, bw, by, bl},
                      {-1, -1, has_weight ? -1 : 0, -1, has_log_prob ? -1 : 0});
}

absl::Status LowerQuantize(LoweringContext& ctx, const ir::Node& node) {
  if (node.inputs.size() < 2) return ctx.Invalid(node, "expects x and scale");
  const bool q = node.op_type == "QuantizeLinear";
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(auto s, ctx.InputShape(node, 1));
  const bool has_zp = node.inputs.size() > 2 && node.inputs[2] != ir::kNoValue;
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
  std::vector<int64_t> ip = {is_max ? KILN_POOL_MAX : KILN_POOL_AVG, static_cast<int64_t>(t),
                             static_cast<int64_t>(s),
                             is_max ? 0 : (node.GetInt("count_include_pad", 0) != 0 ? 1 : 0),
                             ctx.dims().Mul(x[0], x[1])};  // N and C may be symbolic
  ip.insert(ip.end(), x.begin() + 2, x.end());
  ip.insert(ip.end(), y.begin() + 2, y.end());
  for (const auto* v : {&kernel, &strides, &dil, &pads}) ip.insert(ip.end(), v->begin(), v->end());
  KILN_ASSIGN_OR_RETURN(Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  return ctx.Dispatch(node, "pool_nd", std::move(ip), {}, {bx, by});
}

absl::Status LowerDet(LoweringContext& ctx, const ir::Node& node) {
  KILN_RETURN_IF_ERROR(ctx.RequireF32(node));
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  const int64_t m = x.back();
  if (m > 32) return ctx.Unimplemented(node, "matrices larger than 32 x 32 are not supported");
  KILN_ASSIGN_OR_RETURN(Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  const int64_t batch = m == 0 ? ir::ElementCount({x.begin(), x.end() - 2})
                               : ir::ElementCount(x) / (m * m);
  return ctx.Dispatch(node, "det_f32", {batch, m}, {}, {bx, by});
}

absl::Status LowerReverseSequence(LoweringContext& ctx, const ir::Node& node) {
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  const int64_t eb = static_cast<int64_t>(ir::DTypeSize(ctx.value(node.inputs[0]).dtype));
  if (eb < 1 || eb > 8) return ctx.Unimplemented(node, "unsupported dtype");
  const bool batch_first = node.GetInt("batch_axis", 1) == 0;
  int64_t inner = 1;
  for (size_t d = 2; d < x.size(); ++d) inner *= x[d];
  KILN_ASSIGN_OR_RETURN(Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding bl, ctx.Bind(node, node.inputs[1]));
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  const int64_t t = batch_first ? x[1] : x[0], b = batch_first ? x[0] : x[1];
  return ctx.Dispatch(node, "reverse_sequence", {eb, batch_first ? 1 : 0, t, b, inner}, {},
                      {bx, bl, by});
}

}  // namespace

void RegisterExtraLowerings(LoweringTable& table) {
  table["Det"] = LowerDet;
  table["ReverseSequence"] = LowerReverseSequence;
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
  table["QuantizeLinear"] = LowerQuantize;
  table["DequantizeLinear"] = LowerQuantize;
  table["DynamicQuantizeLinear"] = LowerDynamicQuantize;
  table["NegativeLogLikelihoodLoss"] = LowerLoss;
  table["SoftmaxCrossEntropyLoss"] = LowerLoss;
}

}  // namespace kiln::compiler::emit
