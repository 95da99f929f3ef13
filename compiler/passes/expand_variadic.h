// Rewrites ops with a variable number of inputs into chains of binary nodes
// before shape inference, so every intermediate gets planned memory and the
// binary kernel does the work:
//   Sum(a, b, c)  → Add(Add(a, b), c)      Max/Min likewise with Max/Min
//   Mean(a, b, c) → Mul(Add(Add(a, b), c), 1/3)
//   one input     → Identity
// Dropout's optional mask output (all true in inference) becomes
// ConstantOfShape(Shape(x)), which constant folding evaluates.
#ifndef KILN_COMPILER_PASSES_EXPAND_VARIADIC_H_
#define KILN_COMPILER_PASSES_EXPAND_VARIADIC_H_

#include "absl/status/status.h"
#include "compiler/ir/graph.h"

namespace kiln::compiler {

absl::Status ExpandVariadicOps(ir::Graph& graph);

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_PASSES_EXPAND_VARIADIC_H_
