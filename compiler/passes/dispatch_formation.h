// Dispatch formation: decides which graph nodes become one kernel dispatch.
#ifndef KILN_COMPILER_PASSES_DISPATCH_FORMATION_H_
#define KILN_COMPILER_PASSES_DISPATCH_FORMATION_H_

#include <cstdint>

#include "absl/status/status.h"
#include "compiler/ir/graph.h"

namespace kiln::compiler {

// Rewrites, in order:
//  0. GELU as PyTorch exports it (Div by sqrt 2, Erf, Add 1, Mul by x, Mul by
//     0.5, in either order of the Muls) → one "Gelu" node (KILN_ACT_GELU);
//     SiLU as PyTorch exports it (Sigmoid(x) used only by Mul with x) → one
//     "Silu" node (KILN_ACT_SILU).
//  1. MatMul with a 2-D constant B and an A of static shape [..., M, K] →
//     Gemm, A's leading dims flattened into rows by the Gemm lowering
//     (attribute "kiln.source_op" = "MatMul" keeps the ONNX op type for
//     debug info).
//  2. Gemm (no C) whose only user is an Add of a constant row vector ([N] or
//     [1,N]) → Gemm with that C (beta = 1).
//  3. Relu / Clip (constant bounds) / Sigmoid / Tanh / any unary math op or
//     activation of math_activations.h (Gelu and Silu included) whose input comes from a
//     Conv, Gemm or BatchNormalization with exactly one user and not a graph
//     output → "kiln.activation"/"kiln.act_alpha"/"kiln.act_beta" on the
//     producer.
// Every absorbed node is appended to the survivor's `fused` list. Reshape-like
// nodes are left in place; IsAliasNode tells later stages they need no kernel.
absl::Status FormDispatches(ir::Graph& graph);

// True for nodes whose output 0 is a reinterpretation of the bytes of input 0
// (Identity, Dropout, Flatten, Reshape, Squeeze, Unsqueeze).
bool IsAliasNode(const ir::Node& node);

// For Relu, Clip (bounds from attributes or constant inputs), Sigmoid, Tanh
// and the unary math ops of MathActivationParams (math_activations.h): the
// kiln_activation kind and its alpha/beta. False for anything else,
// including a Clip with non-constant bounds.
bool ActivationParams(const ir::Graph& graph, const ir::Node& node, int64_t* kind,
                      float* alpha, float* beta);

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_PASSES_DISPATCH_FORMATION_H_
