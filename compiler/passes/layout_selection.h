// Chooses where float tensors are stored channels last (NHWC) instead of the
// ONNX layout (NCHW).
#ifndef KILN_COMPILER_PASSES_LAYOUT_SELECTION_H_
#define KILN_COMPILER_PASSES_LAYOUT_SELECTION_H_

#include "absl/status/status.h"
#include "compiler/ir/graph.h"

namespace kiln::compiler {

// Most window taps conv2d_packed_f32 and its channels-last form take
// (runtime/kernels/conv_check.h KILN_CONVP_MAX_TAPS).
inline constexpr int64_t kMaxPackedConvTaps = 64;

// A depthwise Conv on narrow rows (output width under one 16-lane vector)
// wastes most lanes in NCHW, where its kernel puts a row's pixels in the
// lanes; in NHWC the channels fill them. Such a conv goes channels last when
// both its input and its output can: each is produced by a one-group Conv or
// another such depthwise conv and read only by these or by a global pool, and
// is neither a graph input nor output. The one-group convs at the edges read
// or write NHWC through conv2d_packed_cl_f32, so the layout changes without a
// transpose. A one-group conv reading NHWC also writes it when all its
// readers take it, so the layout carries on to the next conv or pool. Marks
// the values (ir::Value::channels_last); their shapes stay NCHW. Runs after
// dispatch formation, which fixes what each node reads.
absl::Status ChooseLayouts(ir::Graph& graph);

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_PASSES_LAYOUT_SELECTION_H_
