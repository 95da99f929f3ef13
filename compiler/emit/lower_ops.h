// Internal to compiler/emit: the per-op lowering registry and small helpers.
#ifndef KILN_COMPILER_EMIT_LOWER_OPS_H_
#define KILN_COMPILER_EMIT_LOWER_OPS_H_

#include <algorithm>
#include <functional>
#include <map>
#include <string>

#include "compiler/emit/dtype_codes.h"
#include "compiler/emit/lowering_context.h"
#include "compiler/status_macros.h"

namespace kiln::compiler::emit {

using LowerFn = std::function<absl::Status(LoweringContext&, const ir::Node&)>;
using LoweringTable = std::map<std::string, LowerFn>;

// The fused activation dispatch formation put on a node (none if absent).
struct Epilogue {
  int64_t kind = 0;
  float alpha = 0.0f;
  float beta = 0.0f;
};
Epilogue EpilogueOf(const ir::Node& node);

// Bindings of the node's inputs `inputs` (in that order), then of output 0:
// the binding list of a kernel that reads those inputs and writes one output.
absl::StatusOr<std::vector<Binding>> BindAll(LoweringContext& ctx, const ir::Node& node,
                                             const std::vector<size_t>& inputs);

// lower_shape_check.cc: the symbolic values materialize_symbolic_values makes.
void RegisterShapeCheckLowerings(LoweringTable& table);
// lower_data_dependent.cc: NonZero/Compress/Unique/NonMaxSuppression (for a
// declared output shape or reporting their lengths); Dropout as a kernel.
absl::Status LowerNonZero(LoweringContext& ctx, const ir::Node& node);
absl::Status LowerCompress(LoweringContext& ctx, const ir::Node& node);
absl::Status LowerUnique(LoweringContext& ctx, const ir::Node& node);
absl::Status LowerNonMaxSuppression(LoweringContext& ctx, const ir::Node& node);
absl::Status LowerDropout(LoweringContext& ctx, const ir::Node& node);
// Resize (float32): static geometry to the resize kernel's taps
// (lower_resize.cc), run-time scales, roi or reported sizes to resize_rt
// (lower_resize_rt.cc), symbolic dims to resize_rt with patched dims
// (lower_resize_sym.cc). compiler/ops/resize.cc chooses.
absl::Status LowerResize(LoweringContext& ctx, const ir::Node& node);
absl::Status LowerResizeRt(LoweringContext& ctx, const ir::Node& node);
absl::Status LowerResizeSymbolic(LoweringContext& ctx, const ir::Node& node);
// A new float32 constant [values] bound as a kernel input (lower_resize_rt.cc).
Binding BindFloats(LoweringContext& ctx, const ir::Node& node, const char* what,
                   const std::vector<float>& values);
// lower_training.cc: ai.onnx.preview.training Adagrad/Adam/Momentum, registered
// as "ai.onnx.preview.training:<Op>" (lower_node.cc looks non-default domains up so).
void RegisterTrainingLowerings(LoweringTable& table);
// If, Loop and Scan: their subgraphs as called functions (lower_control_flow.cc).
absl::Status LowerControlFlow(LoweringContext& ctx, const ir::Node& node);
// Whether the node's input k is given (an optional input may be omitted).
inline bool HasInput(const ir::Node& node, size_t k) {
  return node.inputs.size() > k && node.inputs[k] != ir::kNoValue;
}

// A float32 copy of constant `c` broadcast to `shape` (e.g. an int exponent
// of Pow, or a LayerNormalization scale stored with fewer dims); null when
// it does not broadcast.
ir::ConstantPtr BroadcastConstantF32(const ir::ConstantData& c, const std::vector<int64_t>& shape,
                                     ir::DimPool& dims);

// [outer, axis, inner] of input 0 for Softmax-style axis semantics (2-D
// coercion before opset 13).
absl::Status AxisView(LoweringContext& ctx, const ir::Node& node, int64_t default_axis,
                      bool coerce, int64_t v[3]);

// binary_f32 of `op` over out_dims, each operand read with its broadcast
// strides (compiler/ops/elementwise.cc).
inline kernel::BinaryF32 BinaryF32Params(int64_t op, const std::vector<int64_t>& out_dims,
                                         const std::vector<int64_t>& a_strides,
                                         const std::vector<int64_t>& b_strides) {
  kernel::BinaryF32 binary;
  binary.op = op;
  binary.R = static_cast<int64_t>(out_dims.size());
  binary.out_dims = out_dims;
  binary.a_strides = a_strides;
  binary.b_strides = b_strides;
  return binary;
}

inline absl::Status RequireF32Input(LoweringContext& ctx, const ir::Node& node, size_t k) {
  const ir::Value& v = ctx.value(node.inputs[k]);
  if (v.dtype != ir::DType::F32) {
    return ctx.Unimplemented(node, absl::StrCat("input '", v.name, "' is ", ir::DTypeName(v.dtype),
                                                "; only float32 is supported"));
  }
  return absl::OkStatus();
}


// Bytes per element of value `v`.
inline int64_t ElemBytes(const LoweringContext& ctx, ir::ValueId v) {
  return static_cast<int64_t>(ir::DTypeSize(ctx.value(v).dtype));
}

// The bytes of one index of input `k` (int32 or int64 indices).
inline absl::StatusOr<int64_t> IndexBytes(const LoweringContext& ctx, const ir::Node& node,
                                          size_t k) {
  const ir::DType t = ctx.value(node.inputs[k]).dtype;
  if (t == ir::DType::I64) return 8;
  if (t == ir::DType::I32) return 4;
  return ctx.Invalid(node, "indices must be int32 or int64");
}

// The typed-arithmetic code of scatter reductions, cumsum and one_hot's
// indices: 1 f32, 2 f64, 3 i32, 4 i64; 0 for anything else.
inline int64_t TypedArithmeticKind(ir::DType t) {
  switch (t) {
    case ir::DType::F32: return 1;
    case ir::DType::F64: return 2;
    case ir::DType::I32: return 3;
    case ir::DType::I64: return 4;
    default: return 0;
  }
}

// The dtype of value `v` as kernels take it in their parameters (kiln_dtype).
inline int64_t DTypeCode(const LoweringContext& ctx, ir::ValueId v) {
  return KernelDTypeCode(ctx.value(v).dtype);
}

// The dtype-generic elementwise kernels (lower_typed.cc): one binary_typed
// dispatch (KILN_TBINARY_*, inputs 0 and 1 of the same dtype, broadcast to
// output 0) or one unary_typed dispatch (KILN_TUNARY_*); the caller has
// checked that the op takes the dtype.
absl::Status EmitTypedBinary(LoweringContext& ctx, const ir::Node& node, int64_t op);
absl::Status EmitTypedUnary(LoweringContext& ctx, const ir::Node& node, int64_t op,
                            int64_t arg0 = 0, int64_t arg1 = 0);
// "dtype <input 0's dtype> is not supported by this op", as Unimplemented.
absl::Status UnsupportedDType(LoweringContext& ctx, const ir::Node& node);

// The kiln_reduce_kind of a Reduce* op type (KILN_REDUCE_SUM, ...); -1 for
// any other op.
int64_t ReduceKind(const std::string& op);  // compiler/ops/reduce.cc

// Reduce* on float64 / float16 / bool extremes (reduce_typed; lower_typed.cc)
// and with run-time axes (reduce_rt_f32; lower_runtime_params.cc).
absl::Status LowerReduceTyped(LoweringContext& ctx, const ir::Node& node);

// The dtype-generic elementwise kernels (lower_typed.cc): Add..Div, Max, Min,
// Mod, And, Or, Xor, BitShift (binary_typed); Not, IsNaN, IsInf, Neg, Abs
// (unary_typed); Pow with a non-float32 base or run-time exponent (pow_typed).
absl::Status LowerTypedBinary(LoweringContext& ctx, const ir::Node& node);
absl::Status LowerTypedUnary(LoweringContext& ctx, const ir::Node& node);
absl::Status LowerPowTyped(LoweringContext& ctx, const ir::Node& node);
// Equal .. GreaterOrEqual (compare), Where (where), Cast and CastLike (cast).
absl::Status LowerCompare(LoweringContext& ctx, const ir::Node& node);
absl::Status LowerWhere(LoweringContext& ctx, const ir::Node& node);
absl::Status LowerCast(LoweringContext& ctx, const ir::Node& node);
// Every present input and output is float32.
bool AllF32(const LoweringContext& ctx, const ir::Node& node);
// Reduce*, Slice, Pad and Range whose parameters arrive at run time
// (lower_runtime_params.cc); each op's lowering chooses them.
absl::Status LowerReduceRt(LoweringContext& ctx, const ir::Node& node);
absl::Status LowerRangeRt(LoweringContext& ctx, const ir::Node& node);
absl::Status LowerSliceRt(LoweringContext& ctx, const ir::Node& node);
absl::Status LowerPadRt(LoweringContext& ctx, const ir::Node& node);

// One strided_copy of dims from src (strides ss, from element src_off) to
// dst (strides ds, from dst_off), unit dims dropped and dims contiguous on
// both sides merged so high-rank views fit KILN_MAX_RANK (strided_copy.cc).
absl::Status EmitStridedCopy(LoweringContext& ctx, const ir::Node& node, const Binding& src,
                             const Binding& dst, int64_t elem, int64_t src_off, int64_t dst_off,
                             const std::vector<int64_t>& dims, const std::vector<int64_t>& ss,
                             const std::vector<int64_t>& ds);
// A shape_check dispatch when `node`'s shape-like input is a run-time value
// (passes/shape_rules_runtime.h); nothing otherwise. lower_shape_check.cc
absl::Status LowerShapeInputCheck(LoweringContext& ctx, const ir::Node& node);
// ConstantOfShape as a fill of its output (a run-time or symbolic shape), and
// Range over bounds computed from the symbols (lower_shape_check.cc).
absl::Status LowerConstantOfShape(LoweringContext& ctx, const ir::Node& node);
absl::Status LowerSymbolicRange(LoweringContext& ctx, const ir::Node& node);

}  // namespace kiln::compiler::emit

#endif  // KILN_COMPILER_EMIT_LOWER_OPS_H_
