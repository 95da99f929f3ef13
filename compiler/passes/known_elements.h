// Elements of a run-time integer tensor that are known at compile time.
//
// Exporters build a Resize's sizes or a Pad's pads by concatenating the
// static part of a Shape (batch, channels) or zeros with values computed at
// run time (torchvision: floor(H * scale), ceil(h / 32) * 32 - h). The value
// as a whole does not fold, but the ops that read it can keep the dims whose
// entries are known static instead of reporting every dim after the run.
#ifndef KILN_COMPILER_PASSES_KNOWN_ELEMENTS_H_
#define KILN_COMPILER_PASSES_KNOWN_ELEMENTS_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "compiler/ir/graph.h"

namespace kiln::compiler {

// One entry per element of `v` in row-major order, each the element's value
// when every run gives it (a constant entry, a static dim of a symbolic shape
// value, or data movement and integer arithmetic over such entries), else
// nullopt. Empty when `v`'s shape is not static or it holds more than a few
// dozen elements (then nothing is known either). `known[v]` is the compile-time value of v, if any.
std::vector<std::optional<int64_t>> KnownElements(const ir::Graph& graph, ir::ValueId v,
                                                  const std::vector<ir::ConstantPtr>& known);

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_PASSES_KNOWN_ELEMENTS_H_
