// Shape rules for the audio front end: the spectral ops DFT and STFT
// (opset 17), float32 with a trailing component dim (1 real, 2 complex), and
// the signal constants HannWindow, HammingWindow, BlackmanWindow and
// MelWeightMatrix, whose sizes come from constant inputs or else from the
// model's declared output shape (the kernel re-checks the run-time input). They resolve what lowering
// (emit/lower_spectral.cc) needs into attributes:
//   DFT:  kiln.axis (normalised), kiln.n (transform length);
//   STFT: kiln.frame_length (0 when only known at run time).
// DFT's dft_length must be a constant. STFT's frame_step / frame_length may
// be run-time scalars when the model declares the output dims they decide;
// the stft_f32 kernel re-checks them against the compiled shape.
#ifndef KILN_COMPILER_PASSES_SHAPE_RULES_SPECTRAL_H_
#define KILN_COMPILER_PASSES_SHAPE_RULES_SPECTRAL_H_

#include <vector>

#include "absl/status/status.h"
#include "compiler/ir/graph.h"

namespace kiln::compiler {

// True if `node`'s op has a rule here; the rule's result is then in *status.
bool InferSpectralShapes(ir::Graph& graph, ir::Node& node,
                         const std::vector<ir::ConstantPtr>& known, absl::Status* status);

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_PASSES_SHAPE_RULES_SPECTRAL_H_
