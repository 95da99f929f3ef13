#include "tools/run_limits.h"

#include <cmath>
#include <cstdint>

#include "absl/strings/numbers.h"

namespace kiln::tools {

absl::StatusOr<vm::RunLimits> ParseRunLimits(const CliArgs& args) {
  vm::RunLimits limits;
  if (args.Has("--timeout")) {
    double seconds = 0;
    // At most 1e9 s keeps the nanoseconds inside int64.
    if (!absl::SimpleAtod(args.Get("--timeout"), &seconds) || !(seconds > 0 && seconds <= 1e9)) {
      return absl::InvalidArgumentError("--timeout must be a number of seconds in (0, 1e9]");
    }
    limits.timeout = std::chrono::nanoseconds(static_cast<int64_t>(std::ceil(seconds * 1e9)));
  }
  if (args.Has("--max-iterations") &&
      (!absl::SimpleAtoi(args.Get("--max-iterations"), &limits.max_iterations) ||
       limits.max_iterations < 1)) {
    return absl::InvalidArgumentError("--max-iterations must be a whole number >= 1");
  }
  return limits;
}

}  // namespace kiln::tools
