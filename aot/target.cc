#include "aot/target.h"

#include "absl/strings/str_cat.h"

namespace kiln::aot {

absl::StatusOr<Target> ParseTarget(absl::string_view name) {
  if (name == "host") return Target::kHost;
  if (name == "cortex-m4") return Target::kCortexM4;
  if (name == "cortex-m7") return Target::kCortexM7;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown --target '", name, "' (expected host, cortex-m4 or cortex-m7)"));
}

const char* TargetName(Target target) {
  switch (target) {
    case Target::kCortexM4:
      return "cortex-m4";
    case Target::kCortexM7:
      return "cortex-m7";
    case Target::kHost:
      break;
  }
  return "host";
}

bool IsCortexM(Target target) { return target != Target::kHost; }

Toolchain ToolchainFor(Target target) {
  if (IsCortexM(target)) return {"arm-none-eabi-gcc", "arm-none-eabi-size", "arm-none-eabi-nm"};
  return {"cc", "size", "nm"};
}

}  // namespace kiln::aot
