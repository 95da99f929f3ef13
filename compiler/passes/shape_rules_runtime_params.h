// Shape rules for ops whose parameter VALUES arrive at run time and change
// what the kernel does, not only the output shape: Slice's
// starts/ends/axes/steps, Pad's pads/constant_value/axes, Reduce*'s axes and
// Range's start/limit/delta. When such an input has no compile-time value
// and the model declares a fully static output shape, the output shape comes
// from the declaration (checked here against the data input); lowering
// (emit/lower_runtime_params.cc) then emits kernels that read the values,
// fail the run unless they give exactly that shape, and do the op.
// The same approach as shape_rules_runtime.h, which covers inputs that only
// fix a shape.
#ifndef KILN_COMPILER_PASSES_SHAPE_RULES_RUNTIME_PARAMS_H_
#define KILN_COMPILER_PASSES_SHAPE_RULES_RUNTIME_PARAMS_H_

#include <vector>

#include "absl/status/status.h"
#include "compiler/ir/graph.h"

namespace kiln::compiler {

// True when `node` is one of the ops above and one of its parameter inputs
// is present without a compile-time value (graph constants only: what
// lowering sees after shape inference committed the known values).
bool HasRuntimeParams(const ir::Graph& graph, const ir::Node& node);

// True if the rule here applies to `node` (a run-time parameter input,
// static input shapes, a static declared output shape); the rule's result
// is then in *status. False leaves the node to the op's ordinary rule,
// whose error stands.
bool InferRuntimeParams(ir::Graph& graph, ir::Node& node,
                        const std::vector<ir::ConstantPtr>& known, absl::Status* status);

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_PASSES_SHAPE_RULES_RUNTIME_PARAMS_H_
