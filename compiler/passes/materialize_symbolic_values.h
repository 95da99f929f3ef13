// Shape values computed from the symbols (ir::ConstantData::symbolic) that a
// node reads as tensor data — `x * x.shape[1]`, a size cast to float, a
// graph output that is a Shape — or that a graph returns. Their elements are
// dims known only at run time, so no module constant can hold them: this
// pass inserts, before the first such reader, a `kiln:SymbolicValue` node
// that writes them into an ordinary int64 tensor at run time (the
// int_values kernel, its values patched from the integer registers), and
// points the readers at it. Readers that take the value as dims (Reshape's
// shape, Expand's, Range's bounds, Slice's, Tile's repeats, control flow)
// keep reading the constant.
#ifndef KILN_COMPILER_PASSES_MATERIALIZE_SYMBOLIC_VALUES_H_
#define KILN_COMPILER_PASSES_MATERIALIZE_SYMBOLIC_VALUES_H_

#include <vector>

#include "absl/status/status.h"
#include "compiler/ir/graph.h"

namespace kiln::compiler {

inline constexpr char kSymbolicValueDomain[] = "kiln";
inline constexpr char kSymbolicValueOp[] = "SymbolicValue";

absl::Status MaterializeSymbolicValues(ir::Graph& graph);

// A kiln:SymbolicValue node writing `dims` (encoded, ir/dim_expr.h) into the
// int64 tensor `out` at run time.
ir::Node SymbolicValueNode(const ir::Graph& graph, std::vector<int64_t> dims, ir::ValueId out);

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_PASSES_MATERIALIZE_SYMBOLIC_VALUES_H_
