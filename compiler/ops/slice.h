// Slice's geometry, shared by its shape rule, its lowering and constant
// folding (passes/fold_eval.cc, known_elements.cc).
#ifndef KILN_COMPILER_OPS_SLICE_H_
#define KILN_COMPILER_OPS_SLICE_H_

#include <vector>

#include "absl/status/status.h"
#include "compiler/ir/graph.h"

namespace kiln::compiler {

// Slice geometry after ONNX clamping, per input axis: first index, step and
// output length (untouched axes: 0, 1, full size).
absl::Status SliceParams(const ir::Graph& graph, const ir::Node& node,
                         const std::vector<ir::ConstantPtr>& known,
                         const std::vector<int64_t>& x, std::vector<int64_t>* starts,
                         std::vector<int64_t>* steps, std::vector<int64_t>* out_shape);

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_OPS_SLICE_H_
