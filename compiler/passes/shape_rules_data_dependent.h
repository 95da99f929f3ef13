// Shape rules for ops whose output LENGTH depends on the data: NonZero (one
// index column per non-zero element), Compress (the slices its condition
// selects), Unique (the distinct elements or slices) and NonMaxSuppression
// (the boxes kept). Kiln has no run-time shapes for these, so the model must
// declare a fully static output shape; the rule checks the declaration fits
// the inputs (Unique's and NonMaxSuppression's also append the kernel's
// scratch output) and lowering (emit/lower_data_dependent.cc) emits kernels
// that compute the result and fail the run unless it has exactly that shape.
// The same approach as shape_rules_runtime_params.h.
#ifndef KILN_COMPILER_PASSES_SHAPE_RULES_DATA_DEPENDENT_H_
#define KILN_COMPILER_PASSES_SHAPE_RULES_DATA_DEPENDENT_H_

#include <vector>

#include "absl/status/status.h"
#include "compiler/ir/graph.h"

namespace kiln::compiler {

// True if `node` is one of those ops (default domain); the rule's result
// is then in *status: an error naming the node when the output shape is not
// declared fully static or does not fit the inputs.
bool InferDataDependent(ir::Graph& graph, ir::Node& node,
                        const std::vector<ir::ConstantPtr>& known, absl::Status* status);

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_PASSES_SHAPE_RULES_DATA_DEPENDENT_H_
