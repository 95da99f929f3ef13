// Times every dispatch of observed runs into storage allocated up front, so
// the run path allocates nothing: `kiln run --trace` and `--profile` both
// read its events. Also keeps the last patched parameters of each dynamic
// dispatch, for its FLOP count.
#ifndef KILN_VM_TOOLS_DISPATCH_TIMER_H_
#define KILN_VM_TOOLS_DISPATCH_TIMER_H_

#include <chrono>
#include <cstdint>
#include <vector>

#include "vm/observer.h"

namespace kiln::vm {

class DispatchTimer : public DispatchObserver {
 public:
  struct Event {
    uint32_t dispatch;
    uint32_t run;
    int64_t begin_ns;  // since the timer was created
    int64_t end_ns;
  };
  struct RunSpan {
    int64_t begin_ns;
    int64_t end_ns;
  };

  // Room for `max_runs` runs of `dispatch_count` dispatches; events beyond it
  // are counted in dropped() rather than stored.
  DispatchTimer(uint32_t dispatch_count, uint32_t max_runs);

  void BeginRun() override;
  void EndRun() override;
  void DynamicParams(uint32_t dispatch, const int64_t* iparams, uint32_t count) override;
  void BeforeDispatch(uint32_t dispatch, void* const* bindings) override;
  bool AfterDispatch(uint32_t dispatch, void* const* bindings) override;

  // The parameters a DISPATCH_DYN was last called with (empty when it never
  // ran, or had more than kMaxDynamicParams).
  const std::vector<int64_t>& dynamic_params(uint32_t dispatch) const {
    return dynamic_params_[dispatch];
  }
  static constexpr uint32_t kMaxDynamicParams = 128;

  const Event* events() const { return events_.data(); }
  size_t event_count() const { return event_count_; }
  const RunSpan* runs() const { return runs_.data(); }
  size_t run_count() const { return run_count_; }
  uint64_t dropped() const { return dropped_; }

 private:
  int64_t Now() const {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now() - origin_)
        .count();
  }

  std::chrono::steady_clock::time_point origin_;
  std::vector<Event> events_;
  std::vector<RunSpan> runs_;
  std::vector<std::vector<int64_t>> dynamic_params_;  // capacity reserved up front
  size_t event_count_ = 0;
  size_t run_count_ = 0;
  uint64_t dropped_ = 0;
  int64_t pending_begin_ = 0;
};

}  // namespace kiln::vm

#endif  // KILN_VM_TOOLS_DISPATCH_TIMER_H_
