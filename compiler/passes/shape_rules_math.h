// Shape rules that many elementwise ops share (compiler/ops/ declares the
// ops that use them).
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


}  // namespace kiln::compiler

#endif  // KILN_COMPILER_PASSES_SHAPE_RULES_MATH_H_
