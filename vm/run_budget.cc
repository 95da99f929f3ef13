#include "vm/run_budget.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "kiln/kernel_abi.h"

namespace kiln::vm {
namespace {

// The payload naming a stop code in a status (StopStatus, StopCode).
constexpr char kStopCodeUrl[] = "type.kiln.dev/run-stop-code";

}  // namespace

RunBudget::RunBudget(const RunLimits& limits)
    : limits_(limits),
      deadline_(limits.timeout.count() > 0
                    ? std::chrono::steady_clock::now() + limits.timeout
                    : std::chrono::steady_clock::time_point::max()) {}

// Out of line: the interpreter's dispatch loop keeps only the call.
__attribute__((noinline)) int RunBudget::Poll() {
  if (limits_.cancel != nullptr && limits_.cancel->load(std::memory_order_relaxed)) {
    return KILN_ERR_CANCELLED;
  }
  if (limits_.timeout.count() > 0 && std::chrono::steady_clock::now() >= deadline_) {
    return KILN_ERR_DEADLINE;
  }
  return KILN_OK;
}

__attribute__((noinline)) int RunBudget::Iteration() {
  if (limits_.max_iterations != 0 && iterations_ >= limits_.max_iterations) {
    return KILN_ERR_ITERATION_LIMIT;
  }
  ++iterations_;
  return Poll();
}

bool IsStopCode(int code) {
  return code == KILN_ERR_CANCELLED || code == KILN_ERR_DEADLINE ||
         code == KILN_ERR_ITERATION_LIMIT;
}

absl::Status StopStatus(int code, const std::string& where, const RunLimits& limits) {
  absl::Status status;
  switch (code) {
    case KILN_ERR_CANCELLED:
      status = absl::CancelledError(absl::StrCat(where, ": ", kiln_status_message(code)));
      break;
    case KILN_ERR_DEADLINE:
      status = absl::DeadlineExceededError(absl::StrFormat(
          "%s: %s (a timeout of %g s)", where, kiln_status_message(code),
          std::chrono::duration<double>(limits.timeout).count()));
      break;
    default:
      status = absl::ResourceExhaustedError(absl::StrCat(where, ": ", kiln_status_message(code),
                                                         " (", limits.max_iterations, ")"));
      break;
  }
  status.SetPayload(kStopCodeUrl, absl::Cord(absl::StrCat(code)));
  return status;
}

int StopCode(const absl::Status& status) {
  const auto payload = status.GetPayload(kStopCodeUrl);
  int code = KILN_OK;
  if (!payload.has_value() || !absl::SimpleAtoi(std::string(*payload), &code)) return KILN_OK;
  return IsStopCode(code) ? code : KILN_OK;
}

}  // namespace kiln::vm
