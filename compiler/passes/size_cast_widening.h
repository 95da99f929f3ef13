// paddle2onnx writes size arithmetic in int32: Shape -> Cast(int32) -> Slice
// -> Cast(int64) -> Concat -> Reshape. Symbolic sizes are encoded in int64
// (compiler/ir/dim_expr.h), so a cast to int32 would cut them and the
// Reshape's shape would stay unknown. When every use of such a cast only
// moves elements and ends in a cast back to int64, the int32 round trip is
// the identity on sizes (a size fits int32), so the cast is made one to
// int64 and folding carries the symbolic sizes through.
#ifndef KILN_COMPILER_PASSES_SIZE_CAST_WIDENING_H_
#define KILN_COMPILER_PASSES_SIZE_CAST_WIDENING_H_

#include <vector>

#include "compiler/ir/graph.h"

namespace kiln::compiler {

// If graph.nodes[n] is a Cast to int32 of a symbolic size value (`known`,
// indexed by value id) whose result reaches only Slice, Gather (its data),
// Squeeze, Unsqueeze, Identity and Reshape (its data) on the way to casts to
// int64, changes it to cast to int64 and returns true.
bool WidenSizeCast(ir::Graph& graph, size_t n, const std::vector<ir::ConstantPtr>& known);

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_PASSES_SIZE_CAST_WIDENING_H_
