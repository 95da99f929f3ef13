#include "vm/run_growing.h"

#include "absl/strings/str_cat.h"

namespace kiln::vm {

absl::Status RunGrowing(Instance& instance, absl::Span<const HostTensor> inputs,
                        absl::Span<HostTensor> outputs, const GrowOutput& grow,
                        DispatchObserver* observer, const RunLimits& limits, int max_runs) {
  absl::Status s;
  for (int run = 0; run < max_runs; ++run) {
    s = instance.Run(inputs, outputs, observer, limits);
    if (s.ok() || !instance.shortfall()) return s;
    const Instance::Shortfall need = *instance.shortfall();
    if (need.output < 0) {
      if (absl::Status r = instance.ReserveWorkspace(need.bytes); !r.ok()) return r;
      continue;
    }
    const size_t k = static_cast<size_t>(need.output);
    if (k >= outputs.size()) return s;
    // The workspace's own limit (Instance::ReserveWorkspace) for outputs too.
    if (need.bytes > kMaxGrownBytes) {
      return absl::ResourceExhaustedError(absl::StrCat(s.message(), "; more than the ",
                                                       kMaxGrownBytes, " bytes a buffer may grow to"));
    }
    void* data = grow(k, need.bytes);
    if (data == nullptr) {
      return absl::ResourceExhaustedError(
          absl::StrCat(s.message(), "; cannot allocate ", need.bytes, " bytes"));
    }
    outputs[k].data = data;
    outputs[k].bytes = need.bytes;
  }
  return absl::ResourceExhaustedError(
      absl::StrCat(s.message(), " (still short after ", max_runs, " runs)"));
}

}  // namespace kiln::vm
