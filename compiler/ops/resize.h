// Resize's own shape rule (compiler/ops/resize.cc), which the rule for
// run-time sizes (passes/shape_rules_runtime.cc) runs on the declared sizes.
#ifndef KILN_COMPILER_OPS_RESIZE_H_
#define KILN_COMPILER_OPS_RESIZE_H_

#include "absl/status/status.h"
#include "compiler/passes/shape_rule_context.h"

namespace kiln::compiler {

// With every scales or sizes input known: the output shape, and the scales
// per axis in "kiln.scales".
absl::Status ResizeShape(ShapeRuleContext& c);

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_OPS_RESIZE_H_
