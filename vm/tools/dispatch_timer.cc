#include "vm/tools/dispatch_timer.h"

#include <algorithm>

namespace kiln::vm {

DispatchTimer::DispatchTimer(uint32_t dispatch_count, uint32_t max_runs)
    : origin_(std::chrono::steady_clock::now()) {
  // Bounded so a long --repeat cannot ask for unbounded memory (~240 MB max).
  const uint64_t want = uint64_t{std::max(dispatch_count, 1u)} * std::max(max_runs, 1u);
  events_.resize(std::min<uint64_t>(want, uint64_t{10} << 20));
  runs_.resize(std::max(max_runs, 1u));
  dynamic_params_.resize(dispatch_count);
  for (std::vector<int64_t>& p : dynamic_params_) p.reserve(kMaxDynamicParams);
}

void DispatchTimer::DynamicParams(uint32_t dispatch, const int64_t* iparams, uint32_t count) {
  if (dispatch >= dynamic_params_.size()) return;
  std::vector<int64_t>& p = dynamic_params_[dispatch];
  p.clear();
  if (count <= kMaxDynamicParams) p.assign(iparams, iparams + count);  // within the reserve
}

void DispatchTimer::BeginRun() {
  if (run_count_ < runs_.size()) runs_[run_count_].begin_ns = Now();
}

void DispatchTimer::EndRun() {
  if (run_count_ < runs_.size()) {
    runs_[run_count_].end_ns = Now();
    ++run_count_;
  }
}

void DispatchTimer::BeforeDispatch(uint32_t, void* const*) { pending_begin_ = Now(); }

bool DispatchTimer::AfterDispatch(uint32_t dispatch, void* const*) {
  const int64_t end = Now();
  if (event_count_ < events_.size()) {
    events_[event_count_++] = {dispatch, static_cast<uint32_t>(run_count_), pending_begin_, end};
  } else {
    ++dropped_;
  }
  return true;
}

}  // namespace kiln::vm
