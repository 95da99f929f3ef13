// Float elementwise math: Add, Sub, Mul, Div (binary_f32; a channels-last
// per-channel gate as NHWC), Pow, PRelu, Mod, Max, Min (binary_f32), and the
// activations and unary math, Relu, Clip, Sigmoid, Tanh, Abs .. Gelu
// (unary_f32; passes/math_activations.cc gives each its code and
// constants), plus Silu, which only dispatch formation makes (Sigmoid * x).
// Other dtypes go to the dtype-generic kernels (lower_typed.cc). Dims may be
// symbolic.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/ir/graph_util.h"
#include "compiler/ops/op_def.h"
#include "compiler/passes/dispatch_formation.h"
#include "compiler/passes/shape_rules_math.h"
#include "kiln/kernels.h"

namespace kiln::compiler {
namespace {

using ir::DType;
using ir::ShapeStr;
using Shape = std::vector<int64_t>;
using emit::AllF32;
using emit::BinaryF32Params;
using emit::BroadcastStrides;
using emit::BroadcastConstantF32;
using emit::RequireF32Input;

absl::Status BinaryShape(ShapeRuleContext& c) {
  KILN_RETURN_IF_ERROR(c.Need(2));
  const std::string& op = c.node().op_type;
  if (op != "Pow") KILN_RETURN_IF_ERROR(c.SameDType(0, 1));
  Shape out;
  KILN_RETURN_IF_ERROR(BroadcastInputs(c, {0, 1}, &out));
  return c.Set(0, op == "Equal" ? DType::Bool : c.T(0), std::move(out));
}

absl::Status ClipShape(ShapeRuleContext& c) {
  KILN_RETURN_IF_ERROR(c.Need(1));
  for (size_t k = 1; k < 3; ++k) {
    if (c.Has(k) && ir::ElementCount(c.S(k)) != 1) {
      return c.Err(absl::StrCat(k == 1 ? "min" : "max", " must be a scalar, got shape ",
                                ShapeStr(c.S(k))));
    }
  }
  return c.Set(0, c.T(0), c.S(0));
}

absl::Status PReluShape(ShapeRuleContext& c) {
  KILN_RETURN_IF_ERROR(c.Need(2));
  Shape out;
  if (!ir::BroadcastShapes(c.S(0), c.S(1), &out) || out != c.S(0)) {
    return c.Err(absl::StrCat("slope of shape ", ShapeStr(c.S(1)),
                              " does not broadcast to the input ", ShapeStr(c.S(0))));
  }
  return c.Set(0, c.T(0), c.S(0));
}

absl::Status LowerBinary(emit::LoweringContext& ctx, const ir::Node& node) {
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
  KILN_ASSIGN_OR_RETURN(emit::Binding ba, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(emit::Binding bb, ctx.Bind(node, node.inputs[1]));
  KILN_ASSIGN_OR_RETURN(emit::Binding by, ctx.Bind(node, node.outputs[0]));
  return ctx.Dispatch(node, BinaryF32Params(op, y, as, bs), {ba, bb, by});
}

// unary_f32 with the activation code and constants of the op
// (passes/math_activations.cc).
absl::Status LowerUnary(emit::LoweringContext& ctx, const ir::Node& node) {
  KILN_RETURN_IF_ERROR(ctx.RequireF32(node));
  int64_t kind = 0;
  float alpha = 0.0f, beta = 0.0f;
  if (!compiler::ActivationParams(ctx.graph(), node, &kind, &alpha, &beta)) {
    const bool clip_family = node.op_type == "Relu" || node.op_type == "Clip" ||
                             node.op_type == "Sigmoid" || node.op_type == "Tanh";
    return ctx.Unimplemented(node, clip_family ? "min/max must be constant scalars"
                                               : "not an elementwise activation");
  }
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(emit::Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(emit::Binding by, ctx.Bind(node, node.outputs[0]));
  emit::kernel::UnaryF32 unary;
  unary.activation = kind;
  unary.count = ctx.dims().Product(x);
  unary.act_alpha = alpha;
  unary.act_beta = beta;
  return ctx.Dispatch(node, unary, {bx, by});
}

absl::Status LowerMathBinary(emit::LoweringContext& ctx, const ir::Node& node) {
  if (node.inputs.size() != 2) return ctx.Invalid(node, "expects 2 inputs");
  KILN_RETURN_IF_ERROR(RequireF32Input(ctx, node, 0));
  KILN_ASSIGN_OR_RETURN(auto a, ctx.InputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(auto b, ctx.InputShape(node, 1));
  KILN_ASSIGN_OR_RETURN(auto y, ctx.OutputShape(node, 0));
  const size_t r = y.size();
  if (r > KILN_MAX_RANK) return ctx.Unimplemented(node, absl::StrCat("rank ", r, " is too high"));
  Shape as, bs;
  if (!BroadcastStrides(a, y, ctx.dims(), &as) || !BroadcastStrides(b, y, ctx.dims(), &bs)) {
    return ctx.Invalid(node, "operands do not broadcast");
  }
  int64_t op = KILN_BINARY_POW;
  if (node.op_type == "Max") op = KILN_BINARY_MAX;
  if (node.op_type == "Min") op = KILN_BINARY_MIN;
  if (node.op_type == "Mod") op = KILN_BINARY_FMOD;
  if (node.op_type == "PRelu") op = KILN_BINARY_PRELU;
  KILN_ASSIGN_OR_RETURN(emit::Binding ba, ctx.Bind(node, node.inputs[0]));
  emit::Binding bb;
  const ir::Value& vb = ctx.value(node.inputs[1]);
  if (vb.dtype == ir::DType::F32) {
    KILN_ASSIGN_OR_RETURN(bb, ctx.Bind(node, node.inputs[1]));
  } else if (op == KILN_BINARY_POW && vb.constant) {
    // Pow allows an exponent of another type; a constant one converts here.
    bb = ctx.BindNewConstant(absl::StrCat(node.name, ".exponent"),
                             BroadcastConstantF32(*vb.constant, b, ctx.dims()));
  } else {
    return ctx.Unimplemented(node, absl::StrCat("input '", vb.name, "' is ",
                                                ir::DTypeName(vb.dtype),
                                                "; only float32 (or a constant Pow exponent) is supported"));
  }
  if (ctx.value(node.outputs[0]).dtype != ir::DType::F32) {
    return ctx.Unimplemented(node, "only float32 outputs are supported");
  }
  KILN_ASSIGN_OR_RETURN(emit::Binding by, ctx.Bind(node, node.outputs[0]));
  return ctx.Dispatch(node, BinaryF32Params(op, y, as, bs), {ba, bb, by});
}

// The float32 lowering, or `typed` when any input or output is not float32.
template <absl::Status (*F32)(emit::LoweringContext&, const ir::Node&),
          absl::Status (*Typed)(emit::LoweringContext&, const ir::Node&)>
absl::Status F32OrTyped(emit::LoweringContext& ctx, const ir::Node& node) {
  return AllF32(ctx, node) ? F32(ctx, node) : Typed(ctx, node);
}

// Pow: a float32 base with a float32 or constant exponent stays binary_f32.
absl::Status LowerPow(emit::LoweringContext& ctx, const ir::Node& node) {
  const bool f32_base = node.inputs.size() == 2 && ctx.value(node.inputs[0]).dtype == DType::F32;
  const bool f32_path = f32_base && (ctx.value(node.inputs[1]).dtype == DType::F32 ||
                                     ctx.value(node.inputs[1]).constant != nullptr);
  return f32_path ? LowerMathBinary(ctx, node) : emit::LowerPowTyped(ctx, node);
}

}  // namespace

void RegisterElementwiseOps(std::vector<OpDef>& ops) {
  for (const char* op : {"Add", "Sub", "Mul", "Div"}) {
    OpDef def{op, BinaryShape, /*symbolic=*/true, F32OrTyped<LowerBinary, emit::LowerTypedBinary>};
    def.symbolic_values = SymbolicValueAtFirstTwo;  // passes/symbolic_fold.cc
    def.fold = {FoldBinary, FoldRule::Needs::kKnownInputs, 2};
    ops.push_back(def);
  }
  for (const char* op : {"Sum", "Mean"}) {
    OpDef variadic{op, ElementwiseBroadcast, /*symbolic=*/false, nullptr};
    variadic.no_kernel = "expanded into a chain of Add (passes/expand_variadic.cc)";
    ops.push_back(variadic);
  }
  ops.push_back({"Relu", ElementwiseSameShape, /*symbolic=*/true, LowerUnary});
  ops.push_back({"Clip", ClipShape, /*symbolic=*/true, LowerUnary});
  ops.push_back({"Sigmoid", ElementwiseSameShape, /*symbolic=*/true, LowerUnary});
  ops.push_back({"Tanh", ElementwiseSameShape, /*symbolic=*/true, LowerUnary});
  // The unary ops shape arithmetic uses fold (passes/fold_eval.cc).
  const auto folds = [](const std::string& op) {
    return op == "Abs" || op == "Neg" || op == "Sqrt" || op == "Reciprocal" || op == "Floor" ||
           op == "Ceil" || op == "Round";
  };
  for (const char* op : {"Abs", "Neg"}) {
    OpDef def{op, ElementwiseSameShape, /*symbolic=*/true,
              F32OrTyped<LowerUnary, emit::LowerTypedUnary>};
    def.fold = {FoldUnary, FoldRule::Needs::kKnownInputs, 1};
    ops.push_back(def);
  }
  for (const char* op :
       {"Exp", "Log", "Sqrt", "Reciprocal", "Floor", "Ceil", "Round", "Sign", "Erf", "Sin",
        "Cos", "Tan", "Sinh", "Cosh", "Asin", "Acos", "Atan", "Asinh", "Acosh", "Atanh",
        "HardSigmoid", "HardSwish", "LeakyRelu", "Elu", "Selu", "Celu", "Softplus", "Softsign",
        "ThresholdedRelu", "Mish", "Shrink", "Gelu"}) {
    OpDef def{op, ElementwiseSameShape, /*symbolic=*/true, LowerUnary};
    if (folds(op)) def.fold = {FoldUnary, FoldRule::Needs::kKnownInputs, 1};
    ops.push_back(def);
  }
  OpDef pow{"Pow", ElementwiseBroadcast, /*symbolic=*/true, LowerPow};
  pow.fold = {FoldBinary, FoldRule::Needs::kKnownInputs, 2};
  ops.push_back(pow);
  ops.push_back({"PRelu", PReluShape, /*symbolic=*/true, LowerMathBinary});
  for (const char* op : {"Mod", "Max", "Min"}) {
    OpDef def{op, ElementwiseBroadcast, /*symbolic=*/true,
              F32OrTyped<LowerMathBinary, emit::LowerTypedBinary>};
    // Max, Min and Mod of shape values fold (passes/symbolic_fold.cc): a
    // window's padding from the sizes (Swin Transformer).
    def.symbolic_values = SymbolicValueAtFirstTwo;
    def.fold = std::string(op) == "Mod" ? FoldRule{FoldBinary, FoldRule::Needs::kKnownInputs, 2}
                                        : FoldRule{FoldMinMax, FoldRule::Needs::kKnownInputs, 0};
    ops.push_back(def);
  }
  OpDef silu{"Silu", nullptr, /*symbolic=*/true, LowerUnary};
  silu.internal = true;
  ops.push_back(silu);
}

}  // namespace kiln::compiler
