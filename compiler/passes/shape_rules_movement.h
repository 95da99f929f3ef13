// Shape and dtype rules for data movement (Size, Tile, Split, GatherElements,
// GatherND, ScatterElements, ScatterND, Pad, DepthToSpace, SpaceToDepth,
// EyeLike, Trilu, CumSum, OneHot, Resize), NN (ConvTranspose, LpPool,
// GlobalLpPool, Einsum) and recurrent ops (RNN, GRU, LSTM), opsets 11..17.
//
// Rules record what lowering needs as kiln.* attributes so it never
// re-derives defaults:
//   Split          "kiln.split"  sizes along the axis, one per output
//   Pad            "kiln.pads"   2R entries (begins, then ends) over all axes
//   Resize         "kiln.scales" (floats) per-axis output/input scale used by
//                  the coordinate transformation
//   ConvTranspose  "kiln.kernel_shape", "kiln.strides", "kiln.dilations",
//                  "kiln.pads" (begin0, begin1, end0, end1), always 2-D
//                  (a 1-D op is treated as H = 1)
//   LpPool         the same window attributes as MaxPool
//   RNN/GRU/LSTM   outputs padded to the ONNX count (kNoValue for absent
//                  ones) plus one more: a float32 scratch tensor for the
//                  kernel's state and gates ("kiln.scratch" = 1 marks it).
#ifndef KILN_COMPILER_PASSES_SHAPE_RULES_MOVEMENT_H_
#define KILN_COMPILER_PASSES_SHAPE_RULES_MOVEMENT_H_

#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "compiler/ir/graph.h"

namespace kiln::compiler {

// True if `node`'s op has a rule here; the rule's result is then in *status.
bool InferMovementShapes(ir::Graph& graph, ir::Node& node,
                         const std::vector<ir::ConstantPtr>& known, absl::Status* status);

// Compile-time evaluation of Size, EyeLike (both need only shapes), and of
// Tile and Split on constant inputs. True if handled; results in *out (empty
// when not foldable).
bool EvaluateMovementNode(const ir::Graph& graph, const ir::Node& node,
                          const std::vector<ir::ConstantPtr>& known,
                          absl::StatusOr<std::vector<ir::ConstantPtr>>* out);

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_PASSES_SHAPE_RULES_MOVEMENT_H_
