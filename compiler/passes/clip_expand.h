// Clip whose bounds are not compile-time scalars, or whose data is not
// float32, becomes Max(x, min) then Min(·, max): the binary kernels take
// run-time operands and every dtype, while the fused float32 activation
// needs constant bounds. Runs after shape inference (new values get shapes).
#ifndef KILN_COMPILER_PASSES_CLIP_EXPAND_H_
#define KILN_COMPILER_PASSES_CLIP_EXPAND_H_

#include "absl/status/status.h"
#include "compiler/ir/graph.h"

namespace kiln::compiler {

absl::Status ExpandClip(ir::Graph& graph);

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_PASSES_CLIP_EXPAND_H_
