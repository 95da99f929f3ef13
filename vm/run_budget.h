// The run budget: limits a host sets on a run of a module it may not trust.
// The verifier bounds what it can know at load (constant trip counts); a
// loop whose trip count or condition is data can still run as long as the
// data says, so the host may give each run a timeout, a limit on loop
// iterations and a cancel flag another thread sets. The interpreter checks
// them before each loop iteration and each kernel call (never inside a
// kernel); a run with no limits pays one predictable branch per check point.
// A stopped run returns a stop code (kiln/kernel_abi.h) and leaves the
// instance ready for the next run.
#ifndef KILN_VM_RUN_BUDGET_H_
#define KILN_VM_RUN_BUDGET_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

#include "absl/status/status.h"

namespace kiln::vm {

// What the host allows one run; the default allows anything.
struct RunLimits {
  // The run stops with KILN_ERR_DEADLINE at the first check point after it
  // has run this long; zero: no limit.
  std::chrono::nanoseconds timeout{0};
  // The run stops with KILN_ERR_ITERATION_LIMIT before it would start loop
  // iteration number max_iterations + 1, counting every LOOP and LOOP_DYN
  // body call of the run (nested loops' included); 0: no limit.
  uint64_t max_iterations = 0;
  // Set by any thread: the run stops with KILN_ERR_CANCELLED at its next
  // check point. It stays set (and stops later runs) until the host clears it.
  const std::atomic<bool>* cancel = nullptr;

  bool any() const { return timeout.count() > 0 || max_iterations > 0 || cancel != nullptr; }
};

// One run's account against its limits (on the caller's stack: no heap).
class RunBudget {
 public:
  // Starts the run's clock.
  explicit RunBudget(const RunLimits& limits);

  // Before a kernel call: KILN_OK, KILN_ERR_CANCELLED or KILN_ERR_DEADLINE.
  int Poll();
  // Before a loop iteration: counts it, then polls; KILN_ERR_ITERATION_LIMIT
  // past the limit.
  int Iteration();

  const RunLimits& limits() const { return limits_; }

 private:
  RunLimits limits_;
  std::chrono::steady_clock::time_point deadline_;
  uint64_t iterations_ = 0;
};

// Whether `code` is one of the stop codes above.
bool IsStopCode(int code);
// The status of a run stopped with `code` at `where` (a bytecode location):
// Cancelled, DeadlineExceeded or ResourceExhausted, carrying the code so the
// C API can report it (StopCode) apart from other errors of those kinds.
absl::Status StopStatus(int code, const std::string& where, const RunLimits& limits);
// The stop code `status` carries, or KILN_OK.
int StopCode(const absl::Status& status);

}  // namespace kiln::vm

#endif  // KILN_VM_RUN_BUDGET_H_
