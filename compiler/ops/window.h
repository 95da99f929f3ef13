// The window of a convolution or a pool. Its shape rule resolves strides,
// dilations, pads and auto_pad into the node's kiln.* attributes (the only
// window the lowerings read) and gives the output's spatial dims; symbolic
// input dims give expressions, with the run checking that the window fits.
#ifndef KILN_COMPILER_OPS_WINDOW_H_
#define KILN_COMPILER_OPS_WINDOW_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "compiler/emit/lowering_context.h"
#include "compiler/passes/shape_rule_context.h"

namespace kiln::compiler {

// Fills the kiln.* window attributes of the node and *spatial_out with the
// output's spatial dims, for input x and the kernel's spatial extents.
// `allow_ceil`: the op has ceil_mode (pools).
absl::Status WindowShape(ShapeRuleContext& c, const std::vector<int64_t>& x,
                         const std::vector<int64_t>& kernel, bool allow_ceil,
                         std::vector<int64_t>* spatial_out);

// 2-D window geometry; a 1-D op (rank-3 input) is the H = 1 case.
struct WindowGeometry {
  int64_t n = 0, c = 0, h = 1, w = 0, oh = 1, ow = 0;
  int64_t kh = 1, kw = 0;
  int64_t stride_h = 1, stride_w = 1, dil_h = 1, dil_w = 1;
  int64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
};


// Fills the window from x/y shapes, the kernel size (spatial dims) and the
// ONNX attributes strides/dilations/pads/auto_pad.
absl::Status ResolveWindow(const emit::LoweringContext& ctx, const ir::Node& node,
                           const std::vector<int64_t>& x, const std::vector<int64_t>& y,
                           const std::vector<int64_t>& kernel, WindowGeometry* win);

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_OPS_WINDOW_H_
