// What `kiln aot --target` can build for: the machine kiln runs on, or a
// Cortex-M board (cross-compiled with arm-none-eabi-gcc, run under QEMU).
#ifndef KILN_AOT_TARGET_H_
#define KILN_AOT_TARGET_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace kiln::aot {

enum class Target { kHost, kCortexM4, kCortexM7 };

absl::StatusOr<Target> ParseTarget(absl::string_view name);
const char* TargetName(Target target);  // the --target spelling
bool IsCortexM(Target target);

// The binutils the bundle's Makefile and the size report use for a target.
struct Toolchain {
  const char* cc;
  const char* size;
  const char* nm;
};
Toolchain ToolchainFor(Target target);

}  // namespace kiln::aot

#endif  // KILN_AOT_TARGET_H_
