// Constant folding of integer arithmetic on symbolic shape values
// (ConstantData::symbolic): Add/Sub/Mul/Div of Shape elements, as exporters
// write `x.size(-1) // heads`, and Equal/Where on them where the pool can
// decide (PyTorch's expand(B, -1, -1) replaces its -1 sizes so). Elements are encoded dims (ir/dim_expr.h);
// the arithmetic goes through the graph's DimPool.
#ifndef KILN_COMPILER_PASSES_SYMBOLIC_FOLD_H_
#define KILN_COMPILER_PASSES_SYMBOLIC_FOLD_H_

#include <vector>

#include "compiler/ir/graph.h"

namespace kiln::compiler {

// The folded int64 result of `node` (Add, Sub, Mul or Div with numpy
// broadcasting; Where with a known bool condition), or Equal's bool result,
// or nullptr when it cannot be folded exactly: Div needs a non-negative
// dividend and a positive divisor (ONNX truncates, which is then the floor
// the pool computes); Equal needs each pair decided (equal encodings, two
// numbers, or a never-negative dim against a negative number).
ir::ConstantPtr FoldSymbolicArithmetic(const ir::Graph& graph, const ir::Node& node,
                                       const std::vector<ir::ConstantPtr>& known);

// Whether FoldSymbolicArithmetic handles `node`'s op.
bool IsSymbolicArithmetic(const ir::Node& node);

// The symbolic size `v` holds when `v` is a Cast to int32 or int64 of a
// symbolic int64 scalar (anchor generators write arange(0, int32(width))):
// the value cast, whose dims are what the cast gives at run time — a size
// of a tensor that fits in memory fits int32. Else nullptr.
const ir::ConstantData* SymbolicSizeThroughCast(const ir::Graph& graph, ir::ValueId v,
                                                const std::vector<ir::ConstantPtr>& known);

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_PASSES_SYMBOLIC_FOLD_H_
