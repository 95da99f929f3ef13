// Output shapes the model declares, carried back through elementwise ops
// to the values that produce them. Ops whose length is a run-time value
// (Range over run-time scalars, NonZero, Reshape to a run-time shape, ...)
// compile only against a declared static shape of their own output
// (shape_rules_runtime*.h, ops/data_dependent.cc); exporters often
// declare the shape only on the graph output a few elementwise ops later,
// as the window functions' ONNX definitions do (Range, then Mul, Cos, Sub
// to a declared [N]). A unary elementwise op has its input's shape; a
// binary or ternary one its operands' broadcast, which the hint assumes is
// every operand but the scalar constants. The kernels of those ops check
// the hinted shape at run time, so a wrong assumption (an operand that was
// broadcast) fails the run with an error, never a wrong result; other ops
// ignore declared shapes.
#ifndef KILN_COMPILER_PASSES_OUTPUT_SHAPE_HINTS_H_
#define KILN_COMPILER_PASSES_OUTPUT_SHAPE_HINTS_H_

#include "absl/status/status.h"
#include "compiler/ir/graph.h"

namespace kiln::compiler {

absl::Status PropagateOutputShapeHints(ir::Graph& graph);

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_PASSES_OUTPUT_SHAPE_HINTS_H_
