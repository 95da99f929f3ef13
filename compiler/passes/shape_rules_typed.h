// Shape and dtype rules for the dtype-generic elementwise ops: comparisons
// (Equal, Less, LessOrEqual, Greater, GreaterOrEqual -> bool), logic (And,
// Or, Xor, Not), IsNaN, IsInf and CastLike. Cast and Where keep their rules
// in shape_inference.cc.
#ifndef KILN_COMPILER_PASSES_SHAPE_RULES_TYPED_H_
#define KILN_COMPILER_PASSES_SHAPE_RULES_TYPED_H_

#include <vector>

#include "absl/status/status.h"
#include "compiler/ir/graph.h"

namespace kiln::compiler {

// True if `node`'s op has a rule here; the rule's result is then in *status.
bool InferTypedShapes(ir::Graph& graph, ir::Node& node, absl::Status* status);

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_PASSES_SHAPE_RULES_TYPED_H_
