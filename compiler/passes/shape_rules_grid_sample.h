// Shape rule for GridSample (opsets 16+, 4-D only): X [N, C, H, W] sampled
// at grid [N, H_out, W_out, 2] gives Y [N, C, H_out, W_out]. The rule also
// refuses unknown mode / padding_mode / align_corners values, so lowering
// (emit/lower_grid_sample.cc) only maps names to kernel codes.
#ifndef KILN_COMPILER_PASSES_SHAPE_RULES_GRID_SAMPLE_H_
#define KILN_COMPILER_PASSES_SHAPE_RULES_GRID_SAMPLE_H_

#include <string>

#include "absl/status/status.h"
#include "compiler/ir/graph.h"

namespace kiln::compiler {

// True if `node` is GridSample; the rule's result is then in *status.
bool InferGridSampleShapes(ir::Graph& graph, ir::Node& node, absl::Status* status);

// The grid_sample_f32 codes (KILN_GRID_SAMPLE_*) of the node's mode and
// padding_mode attributes; false for a name the op does not define, with
// what is wrong in *bad (when given).
bool GridSampleModes(const ir::Node& node, int64_t* mode, int64_t* padding,
                     std::string* bad = nullptr);

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_PASSES_SHAPE_RULES_GRID_SAMPLE_H_
