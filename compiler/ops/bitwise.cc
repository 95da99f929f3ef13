// BitwiseAnd, BitwiseOr, BitwiseXor, BitwiseNot (ONNX opset 18): bit logic on
// integer tensors of any width, signed or unsigned, run by the dtype-generic
// kernels (runtime/kernels/binary_typed.c, unary_typed.c). ONNX types them
// for integers only; a float or bool input is refused by name.
#include "absl/strings/str_cat.h"
#include "compiler/ops/op_def.h"
#include "compiler/passes/shape_rules_math.h"
#include "kiln/kernels.h"

namespace kiln::compiler {
namespace {

bool IsInteger(ir::DType t) {
  return !ir::IsFloat(t) && t != ir::DType::Bool;
}

emit::LowerFn LowerBinary(int64_t op) {
  return [op](emit::LoweringContext& ctx, const ir::Node& node) -> absl::Status {
    if (node.inputs.empty()) return ctx.Invalid(node, "expects 2 inputs");
    if (!IsInteger(ctx.value(node.inputs[0]).dtype)) return emit::UnsupportedDType(ctx, node);
    return emit::EmitTypedBinary(ctx, node, op);
  };
}

absl::Status LowerNot(emit::LoweringContext& ctx, const ir::Node& node) {
  if (node.inputs.empty()) return ctx.Invalid(node, "expects an input");
  if (!IsInteger(ctx.value(node.inputs[0]).dtype)) return emit::UnsupportedDType(ctx, node);
  return emit::EmitTypedUnary(ctx, node, KILN_TUNARY_BITNOT);
}

}  // namespace

void RegisterBitwiseOps(std::vector<OpDef>& ops) {
  ops.push_back({"BitwiseAnd", ElementwiseBroadcast, true, LowerBinary(KILN_TBINARY_BITAND)});
  ops.push_back({"BitwiseOr", ElementwiseBroadcast, true, LowerBinary(KILN_TBINARY_BITOR)});
  ops.push_back({"BitwiseXor", ElementwiseBroadcast, true, LowerBinary(KILN_TBINARY_BITXOR)});
  ops.push_back({"BitwiseNot", ElementwiseSameShape, true, LowerNot});
  // Shifts of unsigned integers (lower_typed.cc refuses other dtypes).
  ops.push_back({"BitShift", ElementwiseBroadcast, true, emit::LowerTypedBinary});
}

}  // namespace kiln::compiler
