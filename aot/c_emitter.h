// Transpiles a verified module into a C bundle: one C statement per bytecode
// instruction, kernels called by symbol with static const parameters, weights
// as a string-literal translation unit, the runtime sources the kernels need,
// a Makefile and a runner with the same flags as `kiln run`.
#ifndef KILN_AOT_C_EMITTER_H_
#define KILN_AOT_C_EMITTER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "aot/target.h"
#include "vm/module_image.h"

namespace kiln::aot {

struct BundleFile {
  std::string path;  // relative to the bundle directory
  std::string contents;
};

// What `kiln aot --emit` leaves in the directory besides the sources.
enum class EmitKind {
  kBundle,  // sources, Makefile and runner (the default)
  kStatic,  // plus libNAME.a: one pre-linked object with only what NAME_run reaches
  kShared,  // plus libNAME.so exporting NAME_run, NAME_run_with_host and NAME_metadata only
};

struct AotOptions {
  std::string name = "model";  // C identifier prefixing every global symbol
  Target target = Target::kHost;
  EmitKind emit = EmitKind::kBundle;
  // Weights in NAME_weights.bin, passed to NAME_run by the caller, instead of
  // compiled into NAME_weights.c.
  bool external_weights = false;
  // Kernel symbols become NAME_kiln_...; false keeps kiln_... so bundles can
  // link against one prebuilt runtime library (the conformance runner does).
  bool prefix_kernel_symbols = true;
};

// The line of the bundle's README.md that the measured size report replaces.
inline constexpr char kSizeReportMarker[] = "<!-- kiln:size-report -->";

absl::StatusOr<std::vector<BundleFile>> EmitBundle(const vm::ModuleImage& image,
                                                   const AotOptions& options);

// True when `name` is a valid C identifier.
bool IsCIdentifier(const std::string& name);

}  // namespace kiln::aot

#endif  // KILN_AOT_C_EMITTER_H_
