// Shape rules for ops whose shape-like input is only known at run time:
// Reshape's shape, Squeeze/Unsqueeze axes, Expand's shape, Tile's repeats,
// Split's sizes, ConstantOfShape's dims, OneHot's depth and Resize's sizes.
// Each op declares its input and its two rules (OpDef::runtime_shape, in its
// file under compiler/ops/). When that input has no compile-time value and
// the model declares a fully static shape for every output, the output
// shapes come from the declaration (checked against the data input by the
// op's `declared` rule); lowering then adds a shape_check dispatch that
// verifies the run-time value resolves to exactly those shapes, so a
// different value fails the run instead of giving a wrong result. Without a
// declaration the op's `after_run` rule makes the dims data symbols that a
// kernel reports after its run.
#ifndef KILN_COMPILER_PASSES_SHAPE_RULES_RUNTIME_H_
#define KILN_COMPILER_PASSES_SHAPE_RULES_RUNTIME_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "compiler/ir/graph.h"
#include "compiler/passes/shape_rule_context.h"

namespace kiln::compiler {

// How an op takes a shape-like input whose value is known only at run time.
struct RuntimeShapeRule {
  using Shapes = std::vector<std::vector<int64_t>>;
  int input = -1;            // its index; -1: the op has none
  int64_t since_opset = 0;   // an input from this opset (an attribute before)
  // The value's kind: a 1-D int64/int32 vector, the same but int64 only
  // (Resize's sizes), or one number of any non-bool dtype (OneHot's depth).
  enum class Value { kIndexVector, kInt64Vector, kNumber };
  Value value = Value::kIndexVector;
  // Checks the declared output shapes ys against the data and the value's
  // element count, and sets the outputs.
  absl::Status (*declared)(ShapeRuleContext& c, int64_t count, const Shapes& ys) = nullptr;
  // Without a declaration: the outputs' dims reported after the run; null:
  // a declaration is required (Resize: shape_rules_resize_rt.cc reports).
  absl::Status (*after_run)(ShapeRuleContext& c, int64_t count) = nullptr;
  // Reports the dims of several outputs (Split); else only of a single one.
  bool reports_several_outputs = false;
};

// The index of `node`'s shape-like input when its op declares one, the
// input is present and it has no compile-time value; -1 otherwise.
int RuntimeShapeInput(const ir::Graph& graph, const ir::Node& node);

// True if the op's run-time rule applies to `node` (run-time shape-like
// input, static input shapes, and static declared output shapes or dims
// reported after the run); the rule's result is then in *status. False
// leaves the node to the op's ordinary rule, whose error stands.
bool InferRuntimeShapeInput(ir::Graph& graph, ir::Node& node,
                            const std::vector<ir::ConstantPtr>& known, absl::Status* status);

// For `after_run` rules. The output dims `fixed` (per dim: a static value,
// or -1 where the run-time value sets it, a data symbol reported by the
// kernel without a bound).
absl::StatusOr<std::vector<int64_t>> ReportedShape(ShapeRuleContext& c,
                                                   const std::vector<int64_t>& fixed);
// Output 0, an alias of input 0's bytes, of `rank` dims each at most
// `bound` (with an empty input: without a bound, holding no element).
absl::Status AliasDimsAfterRun(ShapeRuleContext& c, int64_t rank, int64_t bound);

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_PASSES_SHAPE_RULES_RUNTIME_H_
