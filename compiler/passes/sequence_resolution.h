// Sequences whose structure is known at compile time (ONNX sequence ops on
// tensors, with constant positions): each sequence value becomes the list of
// tensors it holds, and the ops reading it become tensor ops —
//   SequenceEmpty / SequenceConstruct / SequenceInsert / SequenceErase build
//   the lists; SequenceAt is an Identity of one element; SequenceLength a
//   constant; ConcatFromSequence a Concat (with new_axis, of Unsqueezed
//   elements); SplitToSequence Slices of its input (Reshaped for keepdims 0).
// Kiln has no sequence values at run time: a sequence that is a graph input
// or output, read by any other op, or built with run-time positions is left
// alone (and refused later, naming the op).
#ifndef KILN_COMPILER_PASSES_SEQUENCE_RESOLUTION_H_
#define KILN_COMPILER_PASSES_SEQUENCE_RESOLUTION_H_

#include "absl/status/status.h"
#include "compiler/ir/graph.h"

namespace kiln::compiler {

absl::Status ResolveSequences(ir::Graph& graph);

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_PASSES_SEQUENCE_RESOLUTION_H_
