// Float math: unary math and activations (unary_f32), Pow/PRelu/Mod/Max/Min
// (binary_f32).
#include <cstring>
#include <map>
#include <memory>
#include <set>

#include "absl/strings/str_cat.h"
#include "compiler/emit/lower_ops.h"
#include "compiler/passes/dispatch_formation.h"
#include "kiln/kernels.h"

namespace kiln::compiler::emit {
namespace {

using Shape = std::vector<int64_t>;

int64_t Product(const Shape& s, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= s[i];
  return p;
}

absl::Status LowerMathUnary(LoweringContext& ctx, const ir::Node& node) {
  KILN_RETURN_IF_ERROR(ctx.RequireF32(node));
  int64_t kind = 0;
  float alpha = 0.0f, beta = 0.0f;
  if (!compiler::ActivationParams(ctx.graph(), node, &kind, &alpha, &beta)) {
    return ctx.Unimplemented(node, "not an elementwise activation");
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

absl::Status LowerMathBinary(LoweringContext& ctx, const ir::Node& node) {
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
  KILN_ASSIGN_OR_RETURN(Binding ba, ctx.Bind(node, node.inputs[0]));
  Binding bb;
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
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  return ctx.Dispatch(node, BinaryF32Params(op, y, as, bs), {ba, bb, by});
}

}  // namespace

// A float32 copy of constant `c` broadcast to `shape` (e.g. an int exponent
// of Pow, or a LayerNormalization scale stored with fewer dims).
ir::ConstantPtr BroadcastConstantF32(const ir::ConstantData& c, const std::vector<int64_t>& shape,
                                     ir::DimPool& dims) {
  Shape strides;
  if (!BroadcastStrides(c.shape, shape, dims, &strides)) return nullptr;
  auto out = std::make_shared<ir::ConstantData>();
  out->dtype = ir::DType::F32;
  out->shape = shape;
  const int64_t n = ir::ElementCount(shape);
  out->bytes.resize(static_cast<size_t>(n) * sizeof(float));
  Shape idx(shape.size(), 0);
  for (int64_t k = 0; k < n; ++k) {
    int64_t src = 0;
    for (size_t d = 0; d < shape.size(); ++d) src += idx[d] * strides[d];
    const float v = static_cast<float>(c.FloatAt(src));
    std::memcpy(out->bytes.data() + k * sizeof(float), &v, sizeof(float));
    for (size_t d = shape.size(); d-- > 0;) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

// [outer, axis, inner] for Softmax-style axis semantics (2-D coercion before
// opset 13).
absl::Status AxisView(LoweringContext& ctx, const ir::Node& node, int64_t default_axis,
                      bool coerce, int64_t v[3]) {
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  const int64_t rank = static_cast<int64_t>(x.size());
  int64_t axis = node.GetInt("axis", default_axis);
  if (axis < 0) axis += rank;
  if (rank == 0 || axis < 0 || axis >= rank) return ctx.Invalid(node, "axis out of range");
  v[0] = Product(x, 0, axis);
  v[1] = coerce ? Product(x, axis, x.size()) : x[axis];
  v[2] = coerce ? 1 : Product(x, axis + 1, x.size());
  return absl::OkStatus();
}

void RegisterMathLowerings(LoweringTable& table) {
  for (const char* op :
       {"Abs", "Neg", "Exp", "Log", "Sqrt", "Reciprocal", "Floor", "Ceil", "Round", "Sign",
        "Erf", "Sin", "Cos", "Tan", "Sinh", "Cosh", "Asin", "Acos", "Atan", "Asinh", "Acosh",
        "Atanh", "HardSigmoid", "HardSwish", "LeakyRelu", "Elu", "Selu", "Celu", "Softplus",
        "Softsign", "ThresholdedRelu", "Mish", "Shrink", "Gelu", "Silu"}) {
    table[op] = LowerMathUnary;
  }
  for (const char* op : {"Pow", "PRelu", "Mod", "Max", "Min"}) table[op] = LowerMathBinary;
}

}  // namespace kiln::compiler::emit
