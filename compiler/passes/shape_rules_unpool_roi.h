// Shape rules for MaxUnpool and RoiAlign.
//
// MaxUnpool's output is the shape its kernel, strides and pads infer from X,
// or the output_shape input: its compile-time value, or, when it arrives at
// run time, the model's declared static output shape (lowering then checks
// the run-time value against it, as shape_rules_runtime.h does). The
// inferred shape, which the indices address, is recorded as the attribute
// kiln.unpool_inferred.
//
// RoiAlign's output is [num_rois, C, output_height, output_width]; its
// regions and batch indices are run-time data, checked by the kernel.
#ifndef KILN_COMPILER_PASSES_SHAPE_RULES_UNPOOL_ROI_H_
#define KILN_COMPILER_PASSES_SHAPE_RULES_UNPOOL_ROI_H_

#include <vector>

#include "absl/status/status.h"
#include "compiler/ir/graph.h"

namespace kiln::compiler {

// True if `node` is MaxUnpool or RoiAlign (default domain); the rule's
// result is then in *status.
bool InferUnpoolRoiShapes(ir::Graph& graph, ir::Node& node,
                          const std::vector<ir::ConstantPtr>& known, absl::Status* status);

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_PASSES_SHAPE_RULES_UNPOOL_ROI_H_
