// The unary math ops and activations that map onto a kiln_activation kind
// (kiln/kernels.h): run by unary_f32 or fused as a Conv/Gemm/BatchNorm
// epilogue by dispatch formation.
#ifndef KILN_COMPILER_PASSES_MATH_ACTIVATIONS_H_
#define KILN_COMPILER_PASSES_MATH_ACTIVATIONS_H_

#include <cstdint>

#include "compiler/ir/graph.h"

namespace kiln::compiler {

// For Abs ... Mish, Gelu and Silu (not Relu/Clip/Sigmoid/Tanh, which
// ActivationParams handles): the kind and its alpha/beta with ONNX defaults
// applied.
bool MathActivationParams(const ir::Node& node, int64_t* kind, float* alpha, float* beta);

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_PASSES_MATH_ACTIVATIONS_H_
