// The whole module as JSON for tools (kiln inspect --json): signature, memory
// plan with arena tensors, executables with named parameters, constants,
// dispatches with their ONNX nodes and values, and the bytecode listing.
#ifndef KILN_VM_TOOLS_MODULE_JSON_H_
#define KILN_VM_TOOLS_MODULE_JSON_H_

#include <string>

#include "absl/status/statusor.h"
#include "vm/module_image.h"

namespace kiln::vm {

absl::StatusOr<std::string> DescribeModuleJson(const ModuleImage& image);

}  // namespace kiln::vm

#endif  // KILN_VM_TOOLS_MODULE_JSON_H_
