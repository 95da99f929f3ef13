// What a user fixes about a model's inputs at compile time, as ONNX
// Runtime's free-dimension overrides and TVM's shape dict do: a named
// symbolic dim (kiln compile --dim NAME=VALUE) and an input's value
// (--input-value NAME=V0,V1,...: configuration such as a sample rate, which
// then folds like a weight; an If on it disappears).
#ifndef KILN_COMPILER_FRONTEND_INPUT_BINDING_H_
#define KILN_COMPILER_FRONTEND_INPUT_BINDING_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "absl/status/status.h"
#include "compiler/ir/graph.h"

namespace kiln::compiler {

// Turns graph input `id` into a constant holding `text` (comma-separated
// numbers; true/false for bool) in the input's dtype and its static shape,
// removes it from the graph's inputs and records it in graph->bound_inputs.
// `where` names the input in errors.
absl::Status BindInputValue(ir::ValueId id, const std::string& text, const std::string& where,
                            ir::Graph* graph);

// Every name in `bound` is one of `used` (a dim name the model's inputs
// declare); else an error listing the names there are.
absl::Status CheckBoundDimsUsed(const std::map<std::string, int64_t>& bound,
                                const std::set<std::string>& used, const std::string& path);

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_FRONTEND_INPUT_BINDING_H_
