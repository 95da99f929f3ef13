// Which parts of the compiler handle symbolic dimensions (compiler/ir/dim_expr.h).
// Support is opt-in per op: a node that reads a symbolic shape is compiled
// only when both its shape rule and its lowering are known to do their
// arithmetic through the DimPool; any other op is refused with a message
// naming the node and the symbolic shape, never miscompiled.
#ifndef KILN_COMPILER_PASSES_SYMBOLIC_SUPPORT_H_
#define KILN_COMPILER_PASSES_SYMBOLIC_SUPPORT_H_

#include <string>

#include "absl/status/status.h"
#include "compiler/ir/graph.h"

namespace kiln::compiler {

// Whether any dim in `shape` is symbolic.
bool HasSymbolicDims(const std::vector<int64_t>& shape);

// Whether `node` reads or writes a value with a symbolic shape, or reads a
// symbolic shape value (ConstantData::symbolic; `known` holds the values
// propagated so far, indexed by value id, and may be null).
bool TouchesSymbols(const ir::Graph& graph, const ir::Node& node,
                    const std::vector<ir::ConstantPtr>* known = nullptr);

// OK when `node` does not touch symbols or its op supports them; otherwise
// an Unimplemented error naming the node and the first symbolic value.
absl::Status CheckSymbolicSupport(const ir::Graph& graph, const ir::Node& node,
                                  const std::vector<ir::ConstantPtr>* known = nullptr);

// Whether constant folding may evaluate `node` on symbolic shape values:
// ops that only move int64 elements (Shape, Gather, Concat, Unsqueeze, ...),
// so encoded dims come out as they went in.
bool FoldsSymbolicValues(const ir::Node& node);

// "[N,3,224,224]" with symbolic dims written as expressions.
std::string SymbolicShapeStr(const ir::Graph& graph, const std::vector<int64_t>& shape);

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_PASSES_SYMBOLIC_SUPPORT_H_
