// Add/Sub/Mul/Div, activations, Softmax and standalone BatchNormalization.
#include <cmath>
#include <memory>

#include "absl/strings/str_cat.h"
#include "compiler/emit/lower_ops.h"
#include "compiler/passes/dispatch_formation.h"
#include "kiln/kernels.h"

namespace kiln::compiler::emit {
namespace {

absl::Status LowerBinary(LoweringContext& ctx, const ir::Node& node) {
  KILN_RETURN_IF_ERROR(ctx.RequireF32(node));
  KILN_ASSIGN_OR_RETURN(auto a, ctx.InputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(auto b, ctx.InputShape(node, 1));
  KILN_ASSIGN_OR_RETURN(auto y, ctx.OutputShape(node, 0));
  if (ctx.value(node.outputs[0]).channels_last) {
    // A squeeze-excitation gate in NHWC (passes/layout_selection): the data
    // operand and the product are stored [N, H, W, C]; the per-channel gate's
    // bytes read the same as [N, 1, 1, C]. So the kernel sees NHWC shapes.
    auto to_nhwc = [](std::vector<int64_t> s) {
      s.insert(s.begin(), 4 - s.size(), 1);
      return std::vector<int64_t>{s[0], s[2], s[3], s[1]};
    };
    const bool a_cl = ctx.value(node.inputs[0]).channels_last;
    const bool b_cl = ctx.value(node.inputs[1]).channels_last;
    const auto& gate = a_cl ? b : a;
    if (y.size() != 4 || a_cl == b_cl || a.size() > 4 || b.size() > 4 ||
        gate.size() < 3 || gate[gate.size() - 1] != 1 || gate[gate.size() - 2] != 1) {
      return ctx.Invalid(node, "only a per-channel gate of an NHWC tensor is stored channels last");
    }
    a = to_nhwc(a);
    b = to_nhwc(b);
    y = to_nhwc(y);
  }
  const size_t r = y.size();
  if (r > KILN_MAX_RANK) return ctx.Unimplemented(node, absl::StrCat("rank ", r, " is too high"));
  if (a.size() > r || b.size() > r) return ctx.Invalid(node, "operand rank exceeds output rank");
  std::vector<int64_t> as, bs;
  if (!BroadcastStrides(a, y, ctx.dims(), &as) || !BroadcastStrides(b, y, ctx.dims(), &bs)) {
    return ctx.Invalid(node, "operands do not broadcast");
  }
  int64_t op = KILN_BINARY_ADD;
  if (node.op_type == "Sub") op = KILN_BINARY_SUB;
  if (node.op_type == "Mul") op = KILN_BINARY_MUL;
  if (node.op_type == "Div") op = KILN_BINARY_DIV;
  KILN_ASSIGN_OR_RETURN(Binding ba, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding bb, ctx.Bind(node, node.inputs[1]));
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  return ctx.Dispatch(node, BinaryF32Params(op, y, as, bs), {ba, bb, by});
}

absl::Status LowerUnary(LoweringContext& ctx, const ir::Node& node) {
  KILN_RETURN_IF_ERROR(ctx.RequireF32(node));
  int64_t kind = 0;
  float alpha = 0.0f, beta = 0.0f;
  if (!compiler::ActivationParams(ctx.graph(), node, &kind, &alpha, &beta)) {
    return ctx.Unimplemented(node, "min/max must be constant scalars");
  }
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  kernel::UnaryF32 unary;
  unary.activation = kind;
  unary.count = ctx.dims().Product(x);
  unary.act_alpha = alpha;
  unary.act_beta = beta;
  return ctx.Dispatch(node, unary, {bx, by});
}

// Inference BatchNormalization as y = x * scale'[c] + shift'[c].
absl::Status LowerBatchNorm(LoweringContext& ctx, const ir::Node& node) {
  KILN_RETURN_IF_ERROR(ctx.RequireF32(node));
  for (size_t k = 1; k < node.outputs.size(); ++k) {
    if (node.outputs[k] != ir::kNoValue) return ctx.Unimplemented(node, "training mode outputs");
  }
  if (node.inputs.size() < 5) return ctx.Invalid(node, "expects 5 inputs");
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  if (x.size() < 2) return ctx.Invalid(node, "input rank must be at least 2");
  const int64_t c = x[1];
  const ir::ConstantData* p[4];
  for (int k = 0; k < 4; ++k) {
    const ir::Value& v = ctx.value(node.inputs[1 + k]);
    if (!v.constant || v.constant->element_count() != c) {
      return ctx.Unimplemented(node, absl::StrCat("input '", v.name, "' must be a constant of ", c,
                                                  " elements"));
    }
    p[k] = v.constant.get();
  }
  const double eps = node.GetFloat("epsilon", 1e-5f);
  auto scale = std::make_shared<ir::ConstantData>();
  auto shift = std::make_shared<ir::ConstantData>();
  for (auto* t : {scale.get(), shift.get()}) {
    t->dtype = ir::DType::F32;
    t->shape = {c};
    t->bytes.resize(static_cast<size_t>(c) * sizeof(float));
  }
  float* sd = reinterpret_cast<float*>(scale->bytes.data());
  float* hd = reinterpret_cast<float*>(shift->bytes.data());
  for (int64_t ch = 0; ch < c; ++ch) {
    const double s = p[0]->FloatAt(ch) / std::sqrt(p[3]->FloatAt(ch) + eps);
    sd[ch] = static_cast<float>(s);
    hd[ch] = static_cast<float>(p[1]->FloatAt(ch) - p[2]->FloatAt(ch) * s);
  }
  const int64_t spatial = ctx.dims().Product(std::vector<int64_t>(x.begin() + 2, x.end()));
  KILN_ASSIGN_OR_RETURN(Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  const Binding bs = ctx.BindNewConstant(absl::StrCat(node.name, ".scale"), scale);
  const Binding bh = ctx.BindNewConstant(absl::StrCat(node.name, ".shift"), shift);
  const Epilogue act = EpilogueOf(node);
  kernel::ChannelAffineF32 affine;
  affine.N = x[0];
  affine.C = c;
  affine.spatial = spatial;
  affine.activation = act.kind;
  affine.act_alpha = act.alpha;
  affine.act_beta = act.beta;
  return ctx.Dispatch(node, affine, {bx, bs, bh, by});
}

}  // namespace

void RegisterElementwiseLowerings(LoweringTable& table) {
  for (const char* op : {"Add", "Sub", "Mul", "Div"}) table[op] = LowerBinary;
  for (const char* op : {"Relu", "Clip", "Sigmoid", "Tanh"}) table[op] = LowerUnary;
  table["BatchNormalization"] = LowerBatchNorm;
}

}  // namespace kiln::compiler::emit
