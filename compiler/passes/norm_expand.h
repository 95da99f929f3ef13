// Normalisations the kernels cannot take as one dispatch, rewritten into
// elementwise ops and reductions after shape inference:
// - BatchNormalization whose scale/bias/mean/var are run-time inputs (the
//   folded channel_affine_f32 path needs constants): per-channel
//   t = s / sqrt(var + eps), u = b - mean * t, then y = x * t + u with t and
//   u reshaped to [C, 1, ...];
// - BatchNormalization in training mode: the batch's own per-channel mean and
//   (population) variance normalise x, and the running statistics come out
//   as input * momentum + batch * (1 - momentum);
// - MeanVarianceNormalization: (x - mean) / (sqrt(mean(x^2) - mean^2) + 1e-9)
//   over its axes, as the ONNX function body defines it.
#ifndef KILN_COMPILER_PASSES_NORM_EXPAND_H_
#define KILN_COMPILER_PASSES_NORM_EXPAND_H_

#include "absl/status/status.h"
#include "compiler/ir/graph.h"

namespace kiln::compiler {

absl::Status ExpandNorms(ir::Graph& graph);

// True when a BatchNormalization normalises by its batch's statistics:
// training_mode=1 (opset 14+) or a running-statistics output requested.
bool BatchNormTrains(const ir::Node& n);

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_PASSES_NORM_EXPAND_H_
