#include "tools/run_debug.h"

#include <cstdio>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "tools/commands.h"
#include "vm/tools/dump.h"
#include "vm/tools/profiler.h"
#include "vm/tools/trace_writer.h"

namespace kiln::tools {

absl::StatusOr<std::unique_ptr<RunDebugSession>> RunDebugSession::Create(
    const CliArgs& args, const vm::Instance& instance, int repeat) {
  std::unique_ptr<RunDebugSession> s(new RunDebugSession());
  s->trace_path_ = args.Get("--trace");
  s->dump_dir_ = args.Get("--dump");
  s->profile_ = args.flags.count("--profile") != 0;
  s->kernel_path_ = instance.kernel_path();
  s->check_nan_ = args.flags.count("--check-nan") != 0;
  if (args.Has("--trace") && s->trace_path_.empty()) {
    return absl::InvalidArgumentError("--trace needs a file name");
  }
  if (args.Has("--dump") && s->dump_dir_.empty()) {
    return absl::InvalidArgumentError("--dump needs a directory");
  }
  const bool any = !s->trace_path_.empty() || !s->dump_dir_.empty() || s->profile_ || s->check_nan_;
  if (!any) return s;
  auto dispatches = vm::DescribeDispatches(instance.image());
  if (!dispatches.ok()) return dispatches.status();
  s->dispatches_ = std::move(*dispatches);
  if (!s->dump_dir_.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(s->dump_dir_, ec);
    if (ec || !std::filesystem::is_directory(s->dump_dir_)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--dump: cannot create directory '", s->dump_dir_, "'"));
    }
  }
  if (!s->trace_path_.empty() || s->profile_) {
    s->timer_ = std::make_unique<vm::DispatchTimer>(static_cast<uint32_t>(s->dispatches_.size()),
                                                    static_cast<uint32_t>(repeat));
  }
  return s;
}

absl::Status RunDebugSession::DebugRun(vm::Instance& instance,
                                       absl::Span<const vm::HostTensor> inputs,
                                       absl::Span<const vm::HostTensor> outputs,
                                       const vm::RunLimits& limits) {
  if (check_nan_) {
    vm::NanChecker checker(&dispatches_);
    absl::Status s = instance.Run(inputs, outputs, &checker, limits);
    if (!checker.status().ok()) return checker.status();
    if (checker.found()) {
      return absl::FailedPreconditionError(absl::StrCat("--check-nan: ", checker.message()));
    }
    if (!s.ok()) return s;
    std::fprintf(stderr, "check-nan: %u values in %zu dispatches are finite\n",
                 checker.checked_values(), dispatches_.size());
  }
  if (!dump_dir_.empty()) {
    vm::ValueDumper dumper(&dispatches_, dump_dir_);
    absl::Status s = instance.Run(inputs, outputs, &dumper, limits);
    if (!dumper.status().ok()) return dumper.status();
    if (!s.ok()) return s;
    if (absl::Status f = dumper.Finish(); !f.ok()) return f;
    std::fprintf(stderr, "dump: wrote %zu values to %s (index: values.json)\n", dumper.written(),
                 dump_dir_.c_str());
  }
  return absl::OkStatus();
}

absl::Status RunDebugSession::Finish(const std::string& module_path,
                                     const vm::Instance& instance) {
  if (timer_ == nullptr) return absl::OkStatus();
  if (!trace_path_.empty()) {
    std::string name = std::filesystem::path(module_path).filename().string();
    absl::Status s = WriteFileAtomically(trace_path_, vm::ChromeTraceJson(name, dispatches_, *timer_));
    if (!s.ok()) return s;
    std::fprintf(stderr, "trace: %zu dispatch events written to %s\n", timer_->event_count(),
                 trace_path_.c_str());
  }
  if (profile_) {
    std::printf("kernel path: %s (%s)\n", vm::KernelPathName(kernel_path_),
                vm::KernelPathDescription(kernel_path_));
    std::printf("workspace: %llu bytes\n", static_cast<unsigned long long>(instance.arena_bytes()));
    std::fputs(vm::ProfileReport(dispatches_, *timer_).c_str(), stdout);
  }
  return absl::OkStatus();
}

}  // namespace kiln::tools
