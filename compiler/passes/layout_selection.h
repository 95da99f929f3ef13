// Chooses where float tensors are stored channels last (NHWC) instead of the
// ONNX layout (NCHW).
#ifndef KILN_COMPILER_PASSES_LAYOUT_SELECTION_H_
#define KILN_COMPILER_PASSES_LAYOUT_SELECTION_H_

#include "absl/status/status.h"
#include "compiler/ir/graph.h"
#include "kiln/kernels.h"

namespace kiln::compiler {

// Most window taps conv2d_packed_f32 and its channels-last form take.
inline constexpr int64_t kMaxPackedConvTaps = KILN_CONVP_MAX_TAPS;

// Whether conv2d_packed_f32 takes a conv of `groups` groups over `oc` output
// channels: each group's output channels are whole 16-channel panels
// (kernels.h), as RegNet's and ResNeXt's wider grouped layers have.
inline bool PanelGroups(int64_t groups, int64_t oc) {
  return groups > 1 && oc % groups == 0 && (oc / groups) % 16 == 0;
}

// A depthwise Conv in NCHW puts a row's pixels in the vector lanes, which
// wastes most lanes on narrow planes (DS-CNN's 25 x 5, 7 x 7) and makes a
// strided row a gather; in NHWC the channels fill the lanes and each input
// pixel feeds every output it reaches from registers (conv2d_dw_nhwc_f32:
// 1.3-10x on MobileNetV2's layers, BM_DepthwiseNhwc against BM_ConvRect).
// So a depthwise conv goes channels last when both its input and its output
// can: each is produced by a packed Conv (one group, or groups of whole
// 16-channel panels: PanelGroups) with a fast NHWC route or
// another such depthwise conv, read only by these, by a global pool or by a
// squeeze-excitation gate (a Mul by a per-channel [N, C, 1, 1] factor, as
// EfficientNet's and MobileNetV3's blocks have) whose product these read in
// turn, and is neither a graph input nor output. The packed convs at the edges read
// or write NHWC through conv2d_packed_cl_f32, so the layout changes without a
// transpose; so does an image stem (2 to KILN_CONVP_SMALL_C input channels, NCHW
// in), which conv2d_packed_cl_f32 runs with positions in the lanes as conv2d_f32
// does and stores NHWC. A packed conv reading
// NHWC also writes it when all its readers take it, so the layout carries on
// to the next conv or pool. An image stem starts such a chain by itself when
// every reader of its output takes NHWC: a 2-D max or average pool (kept NHWC
// in and out by pool2d_nhwc_f32), a packed or Winograd conv, or a residual
// block whose conv can write NHWC (its kernel reads the shortcut in the
// output's layout) — a ResNet runs channels last from the stem on, where
// the packed convs are 10-20% faster than NCHW. So does a one-group 1x1
// stride-1 conv, which conv2d_packed_cl_f32 runs as a GEMM from either
// layout: a ResNeXt's stages of grouped convs with whole-panel groups start
// NHWC after the earlier stages that stay NCHW. A Concat along the channels
// carries the layout too (GoogLeNet's Inception blocks): it is an NHWC reader
// when its output's readers are, and writes NHWC when most of its inputs by
// channels are; its copies change the layout of any input that differs.
// Marks the values (ir::Value::channels_last);
// their shapes stay NCHW. Runs after dispatch formation, which fixes what
// each node reads.
absl::Status ChooseLayouts(ir::Graph& graph);

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_PASSES_LAYOUT_SELECTION_H_
