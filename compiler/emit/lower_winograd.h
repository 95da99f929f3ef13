// Internal to compiler/emit: Conv as conv2d_winograd_f32 (Winograd's
// F(4x4, 3x3)), for the nodes passes/conv_algorithm chose.
#ifndef KILN_COMPILER_EMIT_LOWER_WINOGRAD_H_
#define KILN_COMPILER_EMIT_LOWER_WINOGRAD_H_

#include <cstdint>
#include <vector>

#include "compiler/emit/lowering_context.h"
#include "compiler/ir/graph.h"

namespace kiln::compiler::emit {

// The weights w [OC, C, 3, 3] (float32) as conv2d_winograd_f32 reads them
// (kiln/kernels.h): U[f][c][oc] = (G w[oc, c] G^T)[f / 6][f % 6], computed
// in double and rounded once, in panels of 16 output channels over
// K = 36*C: shape [ceil(OC/16), 36*C, 16] (ConstantLayout PackedPanel16).
ir::ConstantPtr WinogradWeights(const ir::ConstantData& w, int64_t oc, int64_t c);

// Dispatches conv2d_winograd_f32 (or _res_f32 with a fused residual) for
// `node`: `conv` holds conv2d_packed_cl_f32's parameters (layouts and the
// activation included; the weight form is added here, as
// passes/conv_algorithm chose it), x and y already bound.
absl::Status LowerWinogradConv(LoweringContext& ctx, const ir::Node& node,
                               const kernel::Conv2dPackedClF32& conv, const Binding& x,
                               const Binding& y);

}  // namespace kiln::compiler::emit

#endif  // KILN_COMPILER_EMIT_LOWER_WINOGRAD_H_
