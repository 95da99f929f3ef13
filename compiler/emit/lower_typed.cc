// Dispatches of the dtype-generic elementwise kernels (runtime/kernels/cast.c,
// binary_typed.c, compare.c, select.c, unary_typed.c, pow_typed.c,
// reduce_typed.c), called by the op-family files in compiler/ops/: Cast,
// comparisons, logic, Where, IsNaN, IsInf, and arithmetic on dtypes other
// than float32 (float32 keeps its own kernels).
#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "compiler/emit/lower_ops.h"
#include "kiln/kernels.h"

namespace kiln::compiler::emit {
namespace {

// The kernel ABI's dtype code for `t`, or -1.
int64_t DTypeCode(ir::DType t) {
  if (ir::DTypeSize(t) == 0) return -1;
  return KernelDTypeCode(t);
}

absl::StatusOr<int64_t> Code(LoweringContext& ctx, const ir::Node& node, ir::ValueId v) {
  const int64_t code = DTypeCode(ctx.value(v).dtype);
  if (code < 0) {
    return ctx.Unimplemented(node, absl::StrCat("tensor '", ctx.value(v).name,
                                                "' has an unsupported dtype"));
  }
  return code;
}

// The output's rank and dims, and one broadcast stride vector per input in
// `inputs`.
struct Broadcast {
  int64_t rank = 0;
  std::vector<int64_t> out_dims;
  std::vector<std::vector<int64_t>> strides;
};

absl::StatusOr<Broadcast> BroadcastParams(LoweringContext& ctx, const ir::Node& node,
                                          const std::vector<size_t>& inputs) {
  KILN_ASSIGN_OR_RETURN(auto y, ctx.OutputShape(node, 0));
  const size_t r = y.size();
  if (r > KILN_MAX_RANK) return ctx.Unimplemented(node, absl::StrCat("rank ", r, " is too high"));
  Broadcast out;
  out.rank = static_cast<int64_t>(r);
  out.out_dims = y;
  for (size_t k : inputs) {
    KILN_ASSIGN_OR_RETURN(auto s, ctx.InputShape(node, k));
    if (s.size() > r) return ctx.Invalid(node, "operand rank exceeds output rank");
    // Dims and strides may be symbolic (patched at run time, DISPATCH_DYN).
    std::vector<int64_t> st;
    if (!BroadcastStrides(s, y, ctx.dims(), &st)) {
      return ctx.Invalid(node, "operands do not broadcast");
    }
    out.strides.push_back(st);
  }
  return out;
}

}  // namespace

absl::Status UnsupportedDType(LoweringContext& ctx, const ir::Node& node) {
  return ctx.Unimplemented(node, absl::StrCat("dtype ", ir::DTypeName(ctx.value(node.inputs[0]).dtype),
                                              " is not supported by this op"));
}

absl::Status EmitTypedBinary(LoweringContext& ctx, const ir::Node& node, int64_t op) {
  if (node.inputs.size() < 2) return ctx.Invalid(node, "expects 2 inputs");
  KILN_ASSIGN_OR_RETURN(int64_t dtype, Code(ctx, node, node.inputs[0]));
  if (ctx.value(node.inputs[1]).dtype != ctx.value(node.inputs[0]).dtype) {
    return ctx.Invalid(node, "input dtypes differ");
  }
  KILN_ASSIGN_OR_RETURN(auto bp, BroadcastParams(ctx, node, {0, 1}));
  kernel::BinaryTyped binary;
  binary.op = op;
  binary.dtype = dtype;
  binary.R = bp.rank;
  binary.out_dims = bp.out_dims;
  binary.a_strides = bp.strides[0];
  binary.b_strides = bp.strides[1];
  KILN_ASSIGN_OR_RETURN(auto b, BindAll(ctx, node, {0, 1}));
  return ctx.Dispatch(node, binary, b);
}

absl::Status EmitTypedUnary(LoweringContext& ctx, const ir::Node& node, int64_t op, int64_t arg0,
                            int64_t arg1) {
  if (node.inputs.empty()) return ctx.Invalid(node, "expects an input");
  KILN_ASSIGN_OR_RETURN(int64_t dtype, Code(ctx, node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(auto b, BindAll(ctx, node, {0}));
  kernel::UnaryTyped unary;
  unary.op = op;
  unary.dtype = dtype;
  unary.count = ctx.dims().Product(x);
  unary.arg0 = arg0;
  unary.arg1 = arg1;
  return ctx.Dispatch(node, unary, b);
}

namespace {

}  // namespace

absl::Status LowerCompare(LoweringContext& ctx, const ir::Node& node) {
  if (node.inputs.size() < 2) return ctx.Invalid(node, "expects 2 inputs");
  KILN_ASSIGN_OR_RETURN(int64_t dtype, Code(ctx, node, node.inputs[0]));
  static const std::map<std::string, int64_t> kOps = {
      {"Equal", KILN_CMP_EQ}, {"Less", KILN_CMP_LT}, {"LessOrEqual", KILN_CMP_LE},
      {"Greater", KILN_CMP_GT}, {"GreaterOrEqual", KILN_CMP_GE}};
  KILN_ASSIGN_OR_RETURN(auto bp, BroadcastParams(ctx, node, {0, 1}));
  kernel::Compare compare;
  compare.op = kOps.at(node.op_type);
  compare.dtype = dtype;
  compare.R = bp.rank;
  compare.out_dims = bp.out_dims;
  compare.a_strides = bp.strides[0];
  compare.b_strides = bp.strides[1];
  KILN_ASSIGN_OR_RETURN(auto b, BindAll(ctx, node, {0, 1}));
  return ctx.Dispatch(node, compare, b);
}

absl::Status LowerWhere(LoweringContext& ctx, const ir::Node& node) {
  if (node.inputs.size() < 3) return ctx.Invalid(node, "expects 3 inputs");
  const int64_t eb = ElemBytes(ctx, node.inputs[1]);
  if (eb == 0) return ctx.Unimplemented(node, "unsupported dtype");
  KILN_ASSIGN_OR_RETURN(auto bp, BroadcastParams(ctx, node, {0, 1, 2}));
  kernel::Where where;
  where.elem_bytes = eb;
  where.R = bp.rank;
  where.out_dims = bp.out_dims;
  where.c_strides = bp.strides[0];
  where.a_strides = bp.strides[1];
  where.b_strides = bp.strides[2];
  KILN_ASSIGN_OR_RETURN(auto b, BindAll(ctx, node, {0, 1, 2}));
  return ctx.Dispatch(node, where, b);
}

// Cast and CastLike (the target dtype is the output's).
absl::Status LowerCast(LoweringContext& ctx, const ir::Node& node) {
  if (node.inputs.empty()) return ctx.Invalid(node, "expects an input");
  KILN_ASSIGN_OR_RETURN(int64_t src, Code(ctx, node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(int64_t dst, Code(ctx, node, node.outputs[0]));
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(auto b, BindAll(ctx, node, {0}));
  kernel::Cast cast;
  cast.src_dtype = src;
  cast.dst_dtype = dst;
  cast.count = ctx.dims().Product(x);
  return ctx.Dispatch(node, cast, b);
}


// Add/Sub/Mul/Div/Max/Min/Mod on non-float32 dtypes, And/Or/Xor on bool,
// BitShift on unsigned integers.
absl::Status LowerTypedBinary(LoweringContext& ctx, const ir::Node& node) {
  if (node.inputs.size() < 2) return ctx.Invalid(node, "expects 2 inputs");
  KILN_ASSIGN_OR_RETURN(int64_t dtype, Code(ctx, node, node.inputs[0]));
  if (ctx.value(node.inputs[1]).dtype != ctx.value(node.inputs[0]).dtype) {
    return ctx.Invalid(node, "input dtypes differ");
  }
  static const std::map<std::string, int64_t> kOps = {
      {"Add", KILN_TBINARY_ADD}, {"Sub", KILN_TBINARY_SUB}, {"Mul", KILN_TBINARY_MUL},
      {"Div", KILN_TBINARY_DIV}, {"And", KILN_TBINARY_AND}, {"Or", KILN_TBINARY_OR},
      {"Xor", KILN_TBINARY_XOR}, {"Max", KILN_TBINARY_MAX}, {"Min", KILN_TBINARY_MIN}};
  int64_t op = 0;
  if (node.op_type == "Mod") {
    op = node.GetInt("fmod", 0) != 0 ? KILN_TBINARY_FMOD : KILN_TBINARY_MOD;
  } else if (node.op_type == "BitShift") {
    const std::string dir = node.GetString("direction", "");
    if (dir != "LEFT" && dir != "RIGHT") return ctx.Invalid(node, "direction must be LEFT or RIGHT");
    if (dtype != KILN_DTYPE_U8 && dtype != KILN_DTYPE_U16 && dtype != KILN_DTYPE_U32 &&
        dtype != KILN_DTYPE_U64) {
      return ctx.Unimplemented(node, "BitShift takes unsigned integers only");
    }
    op = dir == "LEFT" ? KILN_TBINARY_SHL : KILN_TBINARY_SHR;
  } else {
    op = kOps.at(node.op_type);
  }
  if ((op >= KILN_TBINARY_AND && op <= KILN_TBINARY_XOR) != (dtype == KILN_DTYPE_BOOL)) {
    return UnsupportedDType(ctx, node);
  }
  return EmitTypedBinary(ctx, node, op);
}

absl::Status LowerTypedUnary(LoweringContext& ctx, const ir::Node& node) {
  if (node.inputs.empty()) return ctx.Invalid(node, "expects an input");
  KILN_ASSIGN_OR_RETURN(int64_t dtype, Code(ctx, node, node.inputs[0]));
  int64_t op = KILN_TUNARY_NOT, a0 = 0, a1 = 0;
  if (node.op_type == "IsNaN") op = KILN_TUNARY_ISNAN;
  if (node.op_type == "IsInf") {
    op = KILN_TUNARY_ISINF;
    a0 = node.GetInt("detect_positive", 1) != 0;
    a1 = node.GetInt("detect_negative", 1) != 0;
  }
  if (node.op_type == "Neg") op = KILN_TUNARY_NEG;
  if (node.op_type == "Abs") op = KILN_TUNARY_ABS;
  const bool is_float = ir::IsFloat(ctx.value(node.inputs[0]).dtype);
  if ((op == KILN_TUNARY_NOT && dtype != KILN_DTYPE_BOOL) ||
      ((op == KILN_TUNARY_ISNAN || op == KILN_TUNARY_ISINF) && !is_float) ||
      (op >= KILN_TUNARY_NEG && dtype == KILN_DTYPE_BOOL)) {
    return UnsupportedDType(ctx, node);
  }
  return EmitTypedUnary(ctx, node, op, a0, a1);
}

// Pow with a non-float32 base, or a float32 base and a run-time exponent of
// another dtype (pow_typed.c).
absl::Status LowerPowTyped(LoweringContext& ctx, const ir::Node& node) {
  if (node.inputs.size() != 2) return ctx.Invalid(node, "expects 2 inputs");
  KILN_ASSIGN_OR_RETURN(int64_t a, Code(ctx, node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(int64_t b, Code(ctx, node, node.inputs[1]));
  if (a == KILN_DTYPE_BOOL || b == KILN_DTYPE_BOOL) {
    return ctx.Unimplemented(node, "bool operands are not supported");
  }
  KILN_ASSIGN_OR_RETURN(auto bp, BroadcastParams(ctx, node, {0, 1}));
  kernel::PowTyped pow;
  pow.a_dtype = a;
  pow.b_dtype = b;
  pow.R = bp.rank;
  pow.out_dims = bp.out_dims;
  pow.a_strides = bp.strides[0];
  pow.b_strides = bp.strides[1];
  KILN_ASSIGN_OR_RETURN(auto bind, BindAll(ctx, node, {0, 1}));
  return ctx.Dispatch(node, pow, bind);
}

bool AllF32(const LoweringContext& ctx, const ir::Node& node) {
  for (const auto* list : {&node.inputs, &node.outputs}) {
    for (ir::ValueId v : *list) {
      if (v != ir::kNoValue && ctx.value(v).dtype != ir::DType::F32) return false;
    }
  }
  return true;
}


// Reduce* on float64 / float16 (reduce_typed.c); axes resolved by shape
// inference into "kiln.axes".
absl::Status LowerReduceTyped(LoweringContext& ctx, const ir::Node& node) {
  KILN_ASSIGN_OR_RETURN(int64_t dtype, Code(ctx, node, node.inputs[0]));
  const bool bool_extreme =
      dtype == KILN_DTYPE_BOOL && (node.op_type == "ReduceMax" || node.op_type == "ReduceMin");
  if (dtype != KILN_DTYPE_F64 && dtype != KILN_DTYPE_F16 && !bool_extreme) {
    return ctx.Unimplemented(node, absl::StrCat("tensor '", ctx.value(node.inputs[0]).name,
                                                "' is ", ir::DTypeName(ctx.value(node.inputs[0]).dtype),
                                                "; only float32 kernels exist"));
  }
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  if (!node.HasAttr("kiln.axes")) return ctx.Invalid(node, "axes were not resolved");
  const std::vector<int64_t> axes = node.GetInts("kiln.axes", {});
  const std::vector<int64_t> xs = ContiguousStrides(x, ctx.dims());  // dims may be symbolic
  std::vector<int64_t> od, os, rd, rs;
  for (size_t d = 0; d < x.size(); ++d) {
    const bool red = std::find(axes.begin(), axes.end(), static_cast<int64_t>(d)) != axes.end();
    (red ? rd : od).push_back(x[d]);
    (red ? rs : os).push_back(xs[d]);
  }
  if (od.size() > KILN_MAX_RANK || rd.size() > KILN_MAX_RANK) {
    return ctx.Unimplemented(node, "input rank is too high");
  }
  kernel::ReduceTyped reduce;
  reduce.kind = ReduceKind(node.op_type);
  reduce.dtype = dtype;
  reduce.RO = static_cast<int64_t>(od.size());
  reduce.RR = static_cast<int64_t>(rd.size());
  reduce.out_dims = od;
  reduce.out_strides = os;
  reduce.red_dims = rd;
  reduce.red_strides = rs;
  KILN_ASSIGN_OR_RETURN(auto b, BindAll(ctx, node, {0}));
  return ctx.Dispatch(node, reduce, b);
}



}  // namespace kiln::compiler::emit
