// The run budget options of `kiln run` (--timeout SECONDS, --max-iterations
// N): limits on each run of a module that may not end by itself
// (vm/run_budget.h). Keeps cmd_run.cc to its plain job.
#ifndef KILN_TOOLS_RUN_LIMITS_H_
#define KILN_TOOLS_RUN_LIMITS_H_

#include "absl/status/statusor.h"
#include "tools/cli_args.h"
#include "vm/run_budget.h"

namespace kiln::tools {

// Option names for ParseCli.
inline const char* const kRunLimitsValued[] = {"--timeout", "--max-iterations"};

// The limits the options give (none when neither is given).
absl::StatusOr<vm::RunLimits> ParseRunLimits(const CliArgs& args);

}  // namespace kiln::tools

#endif  // KILN_TOOLS_RUN_LIMITS_H_
