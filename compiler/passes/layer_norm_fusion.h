// Recognises LayerNorm exported in decomposed form and makes it one node.
#ifndef KILN_COMPILER_PASSES_LAYER_NORM_FUSION_H_
#define KILN_COMPILER_PASSES_LAYER_NORM_FUSION_H_

#include "absl/status/status.h"
#include "compiler/ir/graph.h"

namespace kiln::compiler {

// Before opset 17 exporters (torch.onnx among them) write LayerNorm over the
// last axis as
//   m = ReduceMean(x); d = x - m; v = ReduceMean(d ^ 2);
//   n = d / Sqrt(v + eps); y = n * scale + bias    (scale, bias optional)
// with every intermediate read only inside the chain. Such a chain over
// float32 with constant eps / scale / bias becomes one LayerNormalization
// (axis -1), so it runs as one layer_norm kernel instead of nine dispatches.
// The absorbed nodes are recorded in its `fused` list. Anything else is left
// alone.
absl::Status FuseLayerNorm(ir::Graph& graph);

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_PASSES_LAYER_NORM_FUSION_H_
