#include "vm/tools/profiler.h"

#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"
#include "vm/kernel_params.h"

namespace kiln::vm {
namespace {

std::string Clip(const std::string& s, size_t width) {
  if (s.size() <= width) return s;
  return s.substr(0, width - 3) + "...";
}

std::string Gflops(double flops, double calls, double total_ns) {
  if (flops < 0 || total_ns <= 0) return "-";
  return absl::StrFormat("%.2f", flops * calls / total_ns);
}

}  // namespace

std::vector<DispatchStats> CollectDispatchStats(size_t dispatch_count, const DispatchTimer& timer) {
  std::vector<DispatchStats> stats(dispatch_count);
  for (size_t k = 0; k < timer.event_count(); ++k) {
    const DispatchTimer::Event& e = timer.events()[k];
    if (e.dispatch >= dispatch_count) continue;
    DispatchStats& s = stats[e.dispatch];
    const double ns = static_cast<double>(e.end_ns - e.begin_ns);
    s.min_ns = s.calls == 0 ? ns : std::min(s.min_ns, ns);
    s.total_ns += ns;
    ++s.calls;
  }
  return stats;
}

double FlopsPerCall(const DispatchInfo& d, const DispatchTimer& timer) {
  if (!d.dynamic) return d.flops;
  const std::vector<int64_t>& p = timer.dynamic_params(d.index);
  return p.empty() ? -1 : KernelFlops(d.kernel, p);
}

std::string ProfileReport(const std::vector<DispatchInfo>& dispatches, const DispatchTimer& timer) {
  const std::vector<DispatchStats> stats = CollectDispatchStats(dispatches.size(), timer);
  double run_ns = 0;
  for (size_t r = 0; r < timer.run_count(); ++r) {
    run_ns += static_cast<double>(timer.runs()[r].end_ns - timer.runs()[r].begin_ns);
  }
  double dispatch_ns = 0;
  for (const DispatchStats& s : stats) dispatch_ns += s.total_ns;
  const double share_base = run_ns > 0 ? run_ns : dispatch_ns;
  auto share = [&](double ns) { return share_base > 0 ? 100.0 * ns / share_base : 0.0; };

  std::string out = absl::StrFormat(
      "profile: %u runs, %zu dispatches per run, %.3f ms per run (%.1f%% inside kernels)\n\n",
      static_cast<unsigned>(timer.run_count()), dispatches.size(),
      timer.run_count() ? run_ns / 1e6 / static_cast<double>(timer.run_count()) : 0.0,
      share(dispatch_ns));
  absl::StrAppend(&out, "per dispatch\n",
                  absl::StrFormat("%5s  %-36s %-18s %-20s %6s %10s %10s %7s %8s\n", "#", "nodes",
                                  "op", "kernel", "calls", "total_ms", "mean_us", "share",
                                  "GFLOP/s"));
  for (const DispatchInfo& d : dispatches) {
    const DispatchStats& s = stats[d.index];
    absl::StrAppend(
        &out, absl::StrFormat("%5u  %-36s %-18s %-20s %6llu %10.3f %10.2f %6.1f%% %8s\n", d.index,
                              Clip(d.Label(), 36), Clip(d.OpPattern(), 18),
                              Clip(std::string(absl::StripPrefix(d.kernel, "kiln_")), 20),
                              static_cast<unsigned long long>(s.calls), s.total_ns / 1e6,
                              s.calls ? s.total_ns / 1e3 / static_cast<double>(s.calls) : 0.0,
                              share(s.total_ns),
                              Gflops(FlopsPerCall(d, timer), static_cast<double>(s.calls),
                                     s.total_ns)));
  }

  struct OpStats {
    uint64_t calls = 0;
    double total_ns = 0;
    double flops = 0;  // -1 once any dispatch of the op lacks FLOPs
    uint32_t dispatches = 0;
  };
  std::map<std::string, OpStats> by_op;
  for (const DispatchInfo& d : dispatches) {
    OpStats& o = by_op[d.PrimaryOp()];
    const DispatchStats& s = stats[d.index];
    o.calls += s.calls;
    o.total_ns += s.total_ns;
    ++o.dispatches;
    const double flops = FlopsPerCall(d, timer);
    if (flops < 0 || o.flops < 0) {
      o.flops = -1;
    } else {
      o.flops += flops * static_cast<double>(s.calls);
    }
  }
  std::vector<std::pair<std::string, OpStats>> ops(by_op.begin(), by_op.end());
  std::stable_sort(ops.begin(), ops.end(), [](const auto& a, const auto& b) {
    return a.second.total_ns > b.second.total_ns;
  });
  absl::StrAppend(&out, "\nper op type\n",
                  absl::StrFormat("%-24s %10s %8s %10s %10s %7s %8s\n", "op", "dispatches",
                                  "calls", "total_ms", "mean_us", "share", "GFLOP/s"));
  for (const auto& [op, o] : ops) {
    absl::StrAppend(&out, absl::StrFormat(
                              "%-24s %10u %8llu %10.3f %10.2f %6.1f%% %8s\n", Clip(op, 24),
                              o.dispatches, static_cast<unsigned long long>(o.calls),
                              o.total_ns / 1e6,
                              o.calls ? o.total_ns / 1e3 / static_cast<double>(o.calls) : 0.0,
                              share(o.total_ns),
                              o.flops < 0 ? std::string("-") : Gflops(o.flops, 1, o.total_ns)));
  }
  if (run_ns > dispatch_ns) {
    absl::StrAppend(&out, absl::StrFormat("%-24s %10s %8s %10.3f %10s %6.1f%%\n",
                                          "(interpreter, outside kernels)", "", "",
                                          (run_ns - dispatch_ns) / 1e6, "",
                                          share(run_ns - dispatch_ns)));
  }
  if (timer.dropped() > 0) {
    absl::StrAppend(&out, "note: ", timer.dropped(), " events beyond the timer's storage were not recorded\n");
  }
  return out;
}

}  // namespace kiln::vm
