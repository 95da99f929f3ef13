// Folds inference BatchNormalization into the Conv that feeds it.
#ifndef KILN_COMPILER_PASSES_BATCHNORM_FOLD_H_
#define KILN_COMPILER_PASSES_BATCHNORM_FOLD_H_

#include "absl/status/status.h"
#include "compiler/ir/graph.h"

namespace kiln::compiler {

// Conv (constant float32 weights, optional constant bias) whose output is read
// only by a BatchNormalization with constant scale/B/mean/var becomes one Conv:
//   s = scale / sqrt(var + eps);  w'[oc] = w[oc] * s[oc];  b' = (b - mean) * s + B.
// The BN is recorded in the Conv's `fused` list. Other BNs are left alone.
absl::Status FoldBatchNormIntoConv(ir::Graph& graph);

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_PASSES_BATCHNORM_FOLD_H_
