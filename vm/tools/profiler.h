// Profile tables from a DispatchTimer: per dispatch and aggregated per op
// type, with calls, total and mean time, share of the run and GFLOP/s for
// kernels that know their FLOPs (kiln run --profile).
#ifndef KILN_VM_TOOLS_PROFILER_H_
#define KILN_VM_TOOLS_PROFILER_H_

#include <string>
#include <vector>

#include "vm/tools/debug_info.h"
#include "vm/tools/dispatch_timer.h"

namespace kiln::vm {

struct DispatchStats {
  uint64_t calls = 0;
  double total_ns = 0;
  double min_ns = 0;
};

// Per dispatch ordinal, over all recorded runs.
std::vector<DispatchStats> CollectDispatchStats(size_t dispatch_count, const DispatchTimer& timer);

// FLOPs per call of dispatch `d` (-1 when unknown): static from the module,
// or for a dynamic dispatch from the parameters of the last recorded run
// (kiln run feeds every run the same inputs, so all its runs have those sizes).
double FlopsPerCall(const DispatchInfo& d, const DispatchTimer& timer);

// The two tables as text.
std::string ProfileReport(const std::vector<DispatchInfo>& dispatches, const DispatchTimer& timer);

}  // namespace kiln::vm

#endif  // KILN_VM_TOOLS_PROFILER_H_
