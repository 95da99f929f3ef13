// Shape rules for ops whose parameter VALUES arrive at run time and change
// what the kernel does, not only the output shape: Slice's
// starts/ends/axes/steps, Pad's pads/constant_value/axes, Reduce*'s axes and
// Range's start/limit/delta (each op declares its rule: RuntimeParamsRule).
// When such an input has no compile-time value and the model declares a
// fully static output shape, the output shape comes from the declaration
// (checked by the op's rule against the data input); lowering
// (emit/lower_runtime_params.cc) then emits kernels that read the values,
// fail the run unless they give exactly that shape, and do the op.
// The same approach as shape_rules_runtime.h, which covers inputs that only
// fix a shape.
#ifndef KILN_COMPILER_PASSES_SHAPE_RULES_RUNTIME_PARAMS_H_
#define KILN_COMPILER_PASSES_SHAPE_RULES_RUNTIME_PARAMS_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "compiler/ir/graph.h"
#include "compiler/passes/shape_rule_context.h"

namespace kiln::compiler {

// How an op takes parameter inputs whose values may be known only at run
// time (OpDef::runtime_params, declared in its file under compiler/ops/).
struct RuntimeParamsRule {
  int first = -1, last = -1;  // the parameter inputs [first, last]; -1: none
  int64_t since_opset = 0;    // inputs from this opset (attributes before)
  // Checks the declared output shape y against the inputs and sets it.
  absl::Status (*declared)(ShapeRuleContext& c, const std::vector<int64_t>& y) = nullptr;
  // Without a declaration: the output's dims reported after the run.
  absl::Status (*after_run)(ShapeRuleContext& c) = nullptr;
  // An empty parameter tensor's value is known from its shape (Reduce*'s
  // axes): the op's ordinary rule takes it.
  bool empty_is_known = false;
  // Reporting its dims, the data may have symbolic dims (Pad: pad_rt_dims
  // and pad_rt patch them, as for a resized image of run-time size).
  bool symbolic_data_after_run = false;
  // Start and limit (inputs 0 and 1) cast to int32 from a symbolic size are
  // symbolic values the ordinary rule takes (Range).
  bool bounds_through_cast = false;
};

// True when `node`'s op declares parameter inputs and one of them is present
// without a compile-time value (graph constants only: what lowering sees
// after shape inference committed the known values).
bool HasRuntimeParams(const ir::Graph& graph, const ir::Node& node);

// True if the op's run-time rule applies to `node` (a run-time parameter
// input, static input shapes, a static declared output shape or dims
// reported after the run); the rule's result is then in *status. False
// leaves the node to the op's ordinary rule, whose error stands.
bool InferRuntimeParams(ir::Graph& graph, ir::Node& node,
                        const std::vector<ir::ConstantPtr>& known, absl::Status* status);

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_PASSES_SHAPE_RULES_RUNTIME_PARAMS_H_
