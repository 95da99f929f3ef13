// Shape rules for an op whose shape-like or parameter inputs may be known
// only at run time: the run-time variant (a kernel checks the values against
// the declared output shape, or reports the dims) when it applies to the
// node, else the op's own rule. An op family composes them in its OpDef,
// e.g. WithRuntimeShapeInput<ReshapeShape>.
#ifndef KILN_COMPILER_OPS_RUNTIME_RULES_H_
#define KILN_COMPILER_OPS_RUNTIME_RULES_H_

#include "compiler/ops/op_def.h"
#include "compiler/passes/shape_rules_resize_rt.h"
#include "compiler/passes/shape_rules_runtime.h"
#include "compiler/passes/shape_rules_runtime_params.h"

namespace kiln::compiler {

// A run-time shape, axes, sizes, repeats or depth input
// (passes/shape_rules_runtime.h).
template <ShapeRule Rule>
absl::Status WithRuntimeShapeInput(ShapeRuleContext& c) {
  absl::Status status;
  if (InferRuntimeShapeInput(c.graph(), c.node(), c.known(), &status)) return status;
  return Rule(c);
}

// Run-time Slice bounds, pads, Reduce* axes or Range bounds
// (passes/shape_rules_runtime_params.h).
template <ShapeRule Rule>
absl::Status WithRuntimeParams(ShapeRuleContext& c) {
  absl::Status status;
  if (InferRuntimeParams(c.graph(), c.node(), c.known(), &status)) return status;
  return Rule(c);
}

// Run-time Resize scales or roi (passes/shape_rules_resize_rt.h).
template <ShapeRule Rule>
absl::Status WithRuntimeResize(ShapeRuleContext& c) {
  absl::Status status;
  if (InferRuntimeResize(c.graph(), c.node(), c.known(), &status)) return status;
  return Rule(c);
}

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_OPS_RUNTIME_RULES_H_
