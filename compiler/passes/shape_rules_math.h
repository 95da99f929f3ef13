// Shape and dtype rules for the float math ops: unary math and activations,
// Pow/PRelu/Mod/Max/Min/Mean/Sum, the Reduce* family, ArgMax/ArgMin,
// LayerNormalization, InstanceNormalization, LpNormalization, LRN, Hardmax
// and LogSoftmax (ONNX opsets 11..17, plus axes-as-input from opset 18).
//
// Reduce* nodes get the attribute "kiln.axes": the sorted, non-negative axes
// actually reduced (empty = nothing reduced, the noop_with_empty_axes case),
// so lowering never re-derives defaults or reads the axes input.
#ifndef KILN_COMPILER_PASSES_SHAPE_RULES_MATH_H_
#define KILN_COMPILER_PASSES_SHAPE_RULES_MATH_H_

#include <vector>

#include "absl/status/status.h"
#include "compiler/ir/graph.h"
#include "compiler/passes/shape_rule_context.h"

namespace kiln::compiler {

// Output 0 takes input 0's dtype and shape (unary elementwise ops).
absl::Status ElementwiseSameShape(ShapeRuleContext& c);
// Output 0 takes input 0's dtype and the numpy broadcast of every input's
// shape (symbolic dims as Add takes them); the inputs' dtypes must agree
// (except Pow's exponent), and Mod with fmod=0 refuses floats.
absl::Status ElementwiseBroadcast(ShapeRuleContext& c);

// The broadcast of inputs `ins` (numpy rules; symbolic dims as Add), or an
// error naming their shapes.
absl::Status BroadcastInputs(ShapeRuleContext& c, const std::vector<size_t>& ins,
                             std::vector<int64_t>* out);

// True if `node`'s op has a rule here; the rule's result is then in *status.
bool InferMathShapes(ir::Graph& graph, ir::Node& node,
                     const std::vector<ir::ConstantPtr>& known, absl::Status* status);

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_PASSES_SHAPE_RULES_MATH_H_
