// Running a module whose sizes only the run finds, without a bound the
// compiler could give (Instance::shortfall): the tools' loop that grows the
// workspace or an output buffer to what the stopped run asked for and runs
// again. Growing allocates, so it happens here, between runs, never inside
// one; each retry gets past at least the view that stopped the last.
#ifndef KILN_VM_RUN_GROWING_H_
#define KILN_VM_RUN_GROWING_H_

#include <cstdint>
#include <functional>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "vm/instance.h"
#include "vm/observer.h"
#include "vm/run_budget.h"

namespace kiln::vm {

// Makes output k's buffer hold at least `bytes` (its old contents need not
// survive) and returns the new data pointer, or nullptr if it cannot.
using GrowOutput = std::function<void*(size_t k, uint64_t bytes)>;

// The most an output buffer may grow to (the workspace's limit, 1 TiB).
inline constexpr uint64_t kMaxGrownBytes = uint64_t{1} << 40;

// Instance::Run, retried after each shortfall (at most `max_runs` runs);
// outputs[k].data/bytes follow what `grow` gives.
absl::Status RunGrowing(Instance& instance, absl::Span<const HostTensor> inputs,
                        absl::Span<HostTensor> outputs, const GrowOutput& grow,
                        DispatchObserver* observer = nullptr, const RunLimits& limits = {},
                        int max_runs = 64);

}  // namespace kiln::vm

#endif  // KILN_VM_RUN_GROWING_H_
