// Constant weights rearranged at compile time into the panel layout of the
// GEMM micro-kernels (runtime/kernels/sgemm.h KILN_PANEL), so no packing of
// constants happens at run time. Stored with ConstantLayout PackedPanel16.
#ifndef KILN_COMPILER_EMIT_PANEL_PACKING_H_
#define KILN_COMPILER_EMIT_PANEL_PACKING_H_

#include <cstdint>
#include <functional>

#include "compiler/ir/graph.h"

namespace kiln::compiler::emit {

// Floats per panel (runtime/kernels/sgemm.h KILN_PANEL).
inline constexpr int64_t kPanel = 16;

// The float32 matrix B [K,N], whose element (k, n) is src[at(k, n)], as
// panels of 16 columns: element (n/16)*K*16 + k*16 + n%16, zero past N;
// shape [ceil(N/16), K, 16].
ir::ConstantPtr PackPanels16(const ir::ConstantData& src, int64_t k, int64_t n,
                             const std::function<int64_t(int64_t, int64_t)>& at);

// Convolution weights w [OC, C, taps] (taps = KH*KW) as PackPanels16's B
// [taps*C, OC] with K tap-major (k = tap*C + c): conv2d_packed_f32's layout
// (kernels.h), which conv2d_winograd_f32's plain weights share.
ir::ConstantPtr PackConvPanels16(const ir::ConstantData& w, int64_t taps, int64_t c, int64_t oc);

// The float32 matrix src [rows, cols] transposed: shape [cols, rows].
ir::ConstantPtr TransposeF32(const ir::ConstantData& src, int64_t rows, int64_t cols);

}  // namespace kiln::compiler::emit

#endif  // KILN_COMPILER_EMIT_PANEL_PACKING_H_
