// Shape rule for Resize whose scales or roi arrive at run time (the opset-11
// form: X, roi, scales, sizes; Upsample and Resize-10 are imported in it).
// Scales shape the sampling as well as the output, so when that input has no
// compile-time value and the model declares a fully static output shape, the
// output shape comes from the declaration (checked here against what is
// known); lowering (emit/lower_resize_rt.cc) then emits resize_rt_f32, which
// reads the scales and roi, fails the run unless floor(in * scale) gives
// exactly that shape, and resamples. Run-time sizes alone stay with
// shape_rules_runtime.h (the declared shape fixes the whole op there); with a
// run-time roi as well they come here, and shape_check still verifies them.
#ifndef KILN_COMPILER_PASSES_SHAPE_RULES_RESIZE_RT_H_
#define KILN_COMPILER_PASSES_SHAPE_RULES_RESIZE_RT_H_

#include <vector>

#include "absl/status/status.h"
#include "compiler/ir/graph.h"
#include "compiler/passes/shape_rule_context.h"

namespace kiln::compiler {

// True when `node` is a Resize whose roi or scales input is present without
// a compile-time value (graph constants only: what lowering sees after shape
// inference committed the known values).
bool HasRuntimeResizeParams(const ir::Graph& graph, const ir::Node& node);

// True if the rule here applies to `node` (as above, with static input
// shapes and a static declared output shape); the rule's result is then in
// *status. False leaves the node to the other Resize rules, whose error
// stands.
bool InferRuntimeResize(ShapeRuleContext& c, absl::Status* status);

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_PASSES_SHAPE_RULES_RESIZE_RT_H_
