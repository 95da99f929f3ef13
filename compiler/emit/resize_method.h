// Resize's sampling attributes (mode, nearest_mode,
// coordinate_transformation_mode, exclude_outside, cubic_coeff_a) as
// runtime/include/kiln/resize_core.h's method, the one both Resize lowerings
// (lower_resize.cc: tables from compile-time scales; lower_resize_rt.cc:
// resize_rt_f32 for run-time scales/roi, lower_resize_sym.cc for symbolic
// dims) sample with.
#ifndef KILN_COMPILER_EMIT_RESIZE_METHOD_H_
#define KILN_COMPILER_EMIT_RESIZE_METHOD_H_

#include "compiler/emit/lowering_context.h"
#include "kiln/resize_core.h"

namespace kiln::compiler::emit {

// Unimplemented naming the node for a mode Kiln does not sample.
absl::Status ResizeMethodOf(const LoweringContext& ctx, const ir::Node& node,
                            kiln_resize_method* m);  // lower_resize.cc

// resize_rt_f32 from x to y (lower_resize_rt.cc; the symbolic lowering,
// lower_resize_sym.cc, too): bindings X, roi, scales, Y; `scales_mode`
// (KILN_RESIZE_SCALES_*, kernels.h) says whether the kernel checks the bound
// scales against the dims or derives them from the dims itself.
absl::Status DispatchResizeRt(LoweringContext& ctx, const ir::Node& node,
                              const kiln_resize_method& m, const std::vector<int64_t>& x,
                              const std::vector<int64_t>& y, int64_t scales_mode, int64_t roi_dtype,
                              const std::vector<Binding>& bindings);

}  // namespace kiln::compiler::emit

#endif  // KILN_COMPILER_EMIT_RESIZE_METHOD_H_
