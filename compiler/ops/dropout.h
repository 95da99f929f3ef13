// Dropout (compiler/ops/dropout.cc). In inference (training_mode absent or a constant
// false) Dropout is an alias of its input (IsAliasNode) and its mask,
// split off earlier (passes/expand_variadic.cc), a constant. When
// training_mode may be true at run time, or the mask was not split off, the
// node is marked "kiln.dropout_kernel" = 1 and lowered to the dropout
// kernel (emit/lower_data_dependent.cc), which reads ratio and
// training_mode at run time.
#ifndef KILN_COMPILER_OPS_DROPOUT_H_
#define KILN_COMPILER_OPS_DROPOUT_H_

#include "absl/status/status.h"
#include "compiler/ir/graph.h"

namespace kiln::compiler {

// Whether training_mode (input 2) may be true: present and not an
// initializer holding false. Before constant folding, a value computed by
// Constant nodes counts as maybe true.
bool DropoutMayTrain(const ir::Graph& graph, const ir::Node& node);

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_OPS_DROPOUT_H_
