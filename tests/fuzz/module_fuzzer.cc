// Fuzz target: module load + verify, then run every module the verifier
// accepts on zero-filled inputs (symbolic dims bound to small values). The
// verifier is the only guard before the interpreter and kernels run
// unchecked, so any crash or sanitizer report here is a verifier bug. Each
// run gets a deadline (the run budget, vm/run_budget.h): a verified module
// may loop for as long as its data says, which is legitimate, so a libFuzzer
// timeout (-timeout=20 in scripts/fuzz.sh) means a real hang: work that no
// check point bounds (inside a kernel, or between the budget's checks).
#include <chrono>
#include <cstdint>
#include <cstring>
#include <vector>

#include "tests/vm/zero_input_run.h"
#include "vm/instance.h"
#include "vm/module_verifier.h"
#include "vm/run_budget.h"

namespace {

// Inputs larger than this are skipped so the fuzzer stays fast.
constexpr uint64_t kMaxRunBytes = uint64_t{64} << 20;

// Each run's deadline: far below libFuzzer's timeout, far above what the
// seeds (the test models) take under the sanitizers.
kiln::vm::RunLimits Deadline() {
  kiln::vm::RunLimits limits;
  limits.timeout = std::chrono::milliseconds(500);
  return limits;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto image = kiln::vm::ModuleImage::LoadBytes(data, size, "fuzz.kiln");
  if (!image.ok()) return 0;
  if ((*image)->module().memory()->arena_size() > kMaxRunBytes) return 0;
  // Symbolic dims take 1 and then 3, so the dynamic opcodes run with
  // sizes that differ from the ones the module was built with.
  (void)kiln::testing::RunOnZeroInputs(*image, 1, kMaxRunBytes, Deadline());
  if ((*image)->module().symbols() != nullptr) {
    (void)kiln::testing::RunOnZeroInputs(*image, 3, kMaxRunBytes, Deadline());
  }
  return 0;
}
