// The debugging options of `kiln run` (--trace, --profile, --dump,
// --check-nan): the observers they need, created before the runs, and their
// reports afterwards. Keeps cmd_run.cc to its plain job.
#ifndef KILN_TOOLS_RUN_DEBUG_H_
#define KILN_TOOLS_RUN_DEBUG_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tools/cli_args.h"
#include "vm/instance.h"
#include "vm/tools/debug_info.h"
#include "vm/tools/dispatch_timer.h"

namespace kiln::tools {

// Option names for ParseCli.
inline const char* const kRunDebugValued[] = {"--trace", "--dump"};
inline const char* const kRunDebugFlags[] = {"--profile", "--check-nan"};

class RunDebugSession {
 public:
  static absl::StatusOr<std::unique_ptr<RunDebugSession>> Create(const CliArgs& args,
                                                                 const vm::Instance& instance,
                                                                 int repeat);

  // The observer for the timed runs: null unless --trace or --profile.
  vm::DispatchObserver* timed_observer() { return timer_.get(); }

  // One extra run with --dump / --check-nan observers (when given), within
  // `limits`. A NaN/Inf is an error naming the dispatch, its ONNX nodes and
  // the value.
  absl::Status DebugRun(vm::Instance& instance, absl::Span<const vm::HostTensor> inputs,
                        absl::Span<const vm::HostTensor> outputs,
                        const vm::RunLimits& limits = {});

  // Writes the trace and prints the profile (with the workspace the
  // instance's runs used).
  absl::Status Finish(const std::string& module_path, const vm::Instance& instance);

 private:
  RunDebugSession() = default;

  std::vector<vm::DispatchInfo> dispatches_;
  std::unique_ptr<vm::DispatchTimer> timer_;
  std::string trace_path_;
  std::string dump_dir_;
  bool profile_ = false;
  vm::KernelPath kernel_path_ = vm::KernelPath::kPortable;
  bool check_nan_ = false;
};

}  // namespace kiln::tools

#endif  // KILN_TOOLS_RUN_DEBUG_H_
