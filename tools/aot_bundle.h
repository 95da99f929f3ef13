// What `kiln aot` does after parsing its flags, for every front end (the
// CLI, kiln.Module.aot in Python): transpile a module, write the bundle
// atomically, build the libraries --emit asks for, measure the model and
// record the size in the bundle's README.
#ifndef KILN_TOOLS_AOT_BUNDLE_H_
#define KILN_TOOLS_AOT_BUNDLE_H_

#include <string>

#include "absl/status/statusor.h"
#include "aot/c_emitter.h"
#include "vm/module_image.h"

namespace kiln::tools {

// bundle, static or shared (the --emit spellings).
absl::StatusOr<aot::EmitKind> ParseEmit(const std::string& kind);
// embedded (false) or external (true): the --weights spellings.
absl::StatusOr<bool> ParseExternalWeights(const std::string& weights);

struct AotBundleResult {
  // "size target=T text=N ..." when the model was measured, else empty.
  std::string size_line;
  // Why it was not measured, when that was not asked for (bundles only:
  // a library that does not build is an error).
  std::string warning;
};

absl::StatusOr<AotBundleResult> WriteAotBundle(const vm::ModuleImage& image,
                                               const aot::AotOptions& options,
                                               const std::string& dir, bool size_report);

}  // namespace kiln::tools

#endif  // KILN_TOOLS_AOT_BUNDLE_H_
