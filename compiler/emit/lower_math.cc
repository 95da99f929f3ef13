// Float math: unary math and activations (unary_f32), Pow/PRelu/Mod/Max/Min
// (binary_f32), Reduce* (reduce_f32) and ArgMax/ArgMin.
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

absl::Status RequireF32Input(LoweringContext& ctx, const ir::Node& node, size_t k) {
  const ir::Value& v = ctx.value(node.inputs[k]);
  if (v.dtype != ir::DType::F32) {
    return ctx.Unimplemented(node, absl::StrCat("input '", v.name, "' is ", ir::DTypeName(v.dtype),
                                                "; only float32 is supported"));
  }
  return absl::OkStatus();
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

// Appends dim d (stride s) to a dims/strides list, merging it into the last
// entry when the two step through memory as one; size-1 dims vanish.
// Symbolic dims multiply through the pool (plain * would overflow them).
void PushDim(int64_t d, int64_t s, ir::DimPool& pool, Shape* dims, Shape* strides) {
  if (d == 1) return;
  if (!dims->empty() && strides->back() == pool.Mul(s, d)) {
    dims->back() = pool.Mul(dims->back(), d);
    strides->back() = s;
    return;
  }
  dims->push_back(d);
  strides->push_back(s);
}

absl::Status LowerReduce(LoweringContext& ctx, const ir::Node& node) {
  KILN_RETURN_IF_ERROR(RequireF32Input(ctx, node, 0));
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  if (!node.HasAttr("kiln.axes")) return ctx.Invalid(node, "axes were not resolved");
  const Shape axes = node.GetInts("kiln.axes", {});
  const std::set<int64_t> red(axes.begin(), axes.end());
  const Shape xs = ContiguousStrides(x, ctx.dims());
  Shape od, os, rd, rs;
  for (size_t d = 0; d < x.size(); ++d) {
    if (red.count(static_cast<int64_t>(d))) PushDim(x[d], xs[d], ctx.dims(), &rd, &rs);
    else PushDim(x[d], xs[d], ctx.dims(), &od, &os);
  }
  if (od.size() > KILN_MAX_RANK || rd.size() > KILN_MAX_RANK) {
    return ctx.Unimplemented(node, "input rank is too high");
  }
  kernel::ReduceF32 reduce;
  reduce.kind = ReduceKind(node.op_type);
  reduce.RO = static_cast<int64_t>(od.size());
  reduce.RR = static_cast<int64_t>(rd.size());
  reduce.out_dims = od;
  reduce.out_strides = os;
  reduce.red_dims = rd;
  reduce.red_strides = rs;
  KILN_ASSIGN_OR_RETURN(Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  return ctx.Dispatch(node, reduce, {bx, by});
}

absl::Status LowerArgReduce(LoweringContext& ctx, const ir::Node& node) {
  KILN_RETURN_IF_ERROR(RequireF32Input(ctx, node, 0));
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  const int64_t r = static_cast<int64_t>(x.size());
  int64_t axis = node.GetInt("axis", 0);
  if (axis < 0) axis += r;
  if (axis < 0 || axis >= r) return ctx.Invalid(node, "axis out of range");
  // Symbolic dims (the axis too) multiply through the pool; the kernel's
  // checker refuses an axis that is empty at run time.
  ir::DimPool& dims = ctx.dims();
  const int64_t outer = dims.Product(Shape(x.begin(), x.begin() + axis));
  const int64_t inner = dims.Product(Shape(x.begin() + axis + 1, x.end()));
  KILN_ASSIGN_OR_RETURN(Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  kernel::ArgReduceF32 arg;
  arg.outer = outer;
  arg.n = x[axis];
  arg.inner = inner;
  arg.is_min = node.op_type == "ArgMin" ? 1 : 0;
  arg.select_last = node.GetInt("select_last_index", 0) != 0 ? 1 : 0;
  return ctx.Dispatch(node, arg, {bx, by});
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

int64_t ReduceKind(const std::string& op) {
  static const std::map<std::string, int64_t> kKinds = {
      {"ReduceSum", KILN_REDUCE_SUM},       {"ReduceMean", KILN_REDUCE_MEAN},
      {"ReduceMax", KILN_REDUCE_MAX},       {"ReduceMin", KILN_REDUCE_MIN},
      {"ReduceProd", KILN_REDUCE_PROD},     {"ReduceL1", KILN_REDUCE_L1},
      {"ReduceL2", KILN_REDUCE_L2},         {"ReduceLogSum", KILN_REDUCE_LOG_SUM},
      {"ReduceLogSumExp", KILN_REDUCE_LOG_SUM_EXP}, {"ReduceSumSquare", KILN_REDUCE_SUM_SQUARE}};
  const auto it = kKinds.find(op);
  return it == kKinds.end() ? -1 : it->second;
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
  for (const char* op : {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd",
                         "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp",
                         "ReduceSumSquare"}) {
    table[op] = LowerReduce;
  }
  table["ArgMax"] = LowerArgReduce;
  table["ArgMin"] = LowerArgReduce;
}

}  // namespace kiln::compiler::emit
