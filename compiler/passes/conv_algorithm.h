// Chooses the algorithm of each convolution: Winograd's F(4x4, 3x3)
// (runtime/kernels/conv_winograd.c) where it is faster than the direct
// kernels on every SIMD path, the direct kernels elsewhere.
#ifndef KILN_COMPILER_PASSES_CONV_ALGORITHM_H_
#define KILN_COMPILER_PASSES_CONV_ALGORITHM_H_

#include <cstdint>

#include "absl/status/status.h"
#include "compiler/ir/graph.h"

namespace kiln::compiler {

// Whether a one-group 3x3 stride-1 dilation-1 float convolution with these
// channel counts and output plane runs faster as conv2d_winograd_f32 than
// as conv2d_packed_cl_f32 on every path (benchmarks/winograd_benchmark.cc,
// BM_ConvWinograd against BM_ConvPacked3x3); on a 7x7 plane only because
// the AVX-512 path's Winograd kernel runs the direct one there.
bool WinogradWins(int64_t channels, int64_t out_channels, int64_t out_h, int64_t out_w);

// Marks each Conv of the entry graph that Winograd takes ("kiln.winograd":
// 1 with weights transformed at compile time, 2 with the plain weights that
// the kernel transforms, for layers of at most KILN_WINOGRAD_RAW_MAX_TILES
// tiles) and appends its scratch output (float32,
// kiln_winograd_scratch_floats of kiln/conv_winograd.h), which memory
// planning places in the arena like any other value. The lowering then
// lays out its weights and dispatches conv2d_winograd_f32. Runs after
// dispatch formation (fused epilogues and residuals are known) and layout
// selection (the kernel reads and writes either layout).
absl::Status ChooseConvAlgorithms(ir::Graph& graph);

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_PASSES_CONV_ALGORITHM_H_
