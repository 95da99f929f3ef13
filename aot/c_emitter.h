// Transpiles a verified module into a C bundle: one C statement per bytecode
// instruction, kernels called by symbol with static const parameters, weights
// as a string-literal translation unit, the runtime sources the kernels need,
// a Makefile and a runner with the same flags as `kiln run`.
#ifndef KILN_AOT_C_EMITTER_H_
#define KILN_AOT_C_EMITTER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "vm/module_image.h"

namespace kiln::aot {

struct BundleFile {
  std::string path;  // relative to the bundle directory
  std::string contents;
};

struct AotOptions {
  std::string name = "model";  // C identifier prefixing every global symbol
};

absl::StatusOr<std::vector<BundleFile>> EmitBundle(const vm::ModuleImage& image,
                                                   const AotOptions& options);

// True when `name` is a valid C identifier.
bool IsCIdentifier(const std::string& name);

}  // namespace kiln::aot

#endif  // KILN_AOT_C_EMITTER_H_
