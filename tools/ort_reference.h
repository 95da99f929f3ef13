// ONNX Runtime as the reference of `kiln compare --reference ort`: the ONNX
// model, rewritten so that every value its main graph computes is also a
// graph output, runs in ONNX Runtime through benchmarks/models/ort/ort_run.js
// (--output-dir), and its values come back by name, in the model's node
// order, for CompareValues (tools/module_compare.h).
#ifndef KILN_TOOLS_ORT_REFERENCE_H_
#define KILN_TOOLS_ORT_REFERENCE_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "tools/module_compare.h"
#include "vm/module_image.h"
#include "vm/tools/npy.h"

namespace kiln::tools {

struct OrtValues {
  std::vector<vm::NpyArray> arrays;
  std::vector<ComparedValue> values;  // point into `arrays`: keep both together
};

// The command that runs ort_run.js: `explicit_command` when given, else
// $KILN_ORT_CMD, else `node SOURCE/benchmarks/models/ort/ort_run.js` of the
// tree Kiln was built from when ONNX Runtime is installed there.
absl::StatusOr<std::string> OrtCommand(const std::string& explicit_command);

// Runs `onnx_path` in ONNX Runtime on `inputs` (the module's signature order,
// as RunAndRecord filled them) plus the values `sig` records as bound at
// compile time, and fills *out with every main-graph value ORT gives back.
absl::Status RunOrtReference(const std::string& onnx_path, const std::string& command,
                             const fb::Signature& sig, const std::vector<vm::NpyArray>& inputs,
                             OrtValues* out);

}  // namespace kiln::tools

#endif  // KILN_TOOLS_ORT_REFERENCE_H_
