// The run budget (vm/run_budget.h) through every way a host runs a module:
// the C API's run options, the C++ wrapper and the Instance API, plain and
// observed runs, serial and threaded. Legitimate models that run as long as
// their data says (tests/models/control, control_flow_models.py
// loop_budget_models): loop_counted with a trip count of 2^62, loop_until
// whose condition never ends the loop. A deadline, a cancel from another
// thread or the iteration limit stops them with its own code, and the same
// instance then runs other data to the NumPy reference. Only stop codes are
// asserted, never how long anything took.
#include <atomic>
#include <chrono>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "compiler/compiler.h"
#include "gtest/gtest.h"
#include "kiln/kernel_abi.h"
#include "kiln/vm.h"
#include "kiln/vm.hpp"
#include "tests/vm/c_api_util.h"
#include "vm/instance.h"
#include "vm/module_image.h"
#include "vm/observer.h"
#include "vm/run_budget.h"
#include "vm/tools/npy.h"

namespace kiln::vm {
namespace {

const std::string kControl = std::string(KILN_SOURCE_DIR) + "/tests/models/control/";

std::string Compile(const std::string& model) {
  auto bytes = compiler::BuildModule(kControl + model + ".onnx", compiler::BuildOptions{});
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  return bytes.ok() ? *bytes : std::string();
}

NpyArray Npy(const std::string& file) {
  auto array = ReadNpy(kControl + file);
  EXPECT_TRUE(array.ok()) << array.status();
  return array.ok() ? *array : NpyArray();
}

// The outputs agree with the NumPy reference to 1e-6 (both compute the same
// float32 multiply-adds; the bound only allows for contraction into FMA).
void ExpectReference(const float* y, const std::string& reference) {
  const NpyArray ref = Npy(reference);
  ASSERT_EQ(ref.element_count(), 2);
  for (int k = 0; k < 2; ++k) EXPECT_NEAR(y[k], ref.floats()[k], 1e-6) << k;
}

using testing::Message;

// loop_counted in the C API: inputs trip (int64) and s0, output s.
struct CountedC {
  testing::Loaded loaded;
  kiln_vm_instance*& vm = loaded.instance;
  NpyArray huge = Npy("loop_counted.trip_huge.npy"), seven = Npy("loop_counted.trip7.npy"),
           s0 = Npy("loop_counted.s0.npy");
  float s[2] = {0, 0};
  CountedC() {
    const std::string bytes = Compile("loop_counted");
    EXPECT_EQ(kiln_vm_module_load_memory(bytes.data(), bytes.size(), &loaded.module), nullptr);
    EXPECT_EQ(kiln_vm_instance_create(loaded.module, &vm), nullptr);
    EXPECT_EQ(kiln_vm_instance_bind_input(vm, 1, s0.data.data(), s0.data.size()), nullptr);
    EXPECT_EQ(kiln_vm_instance_bind_output(vm, 0, s, sizeof s), nullptr);
  }
  void Trip(const NpyArray& trip) {
    EXPECT_EQ(kiln_vm_instance_bind_input(vm, 0, trip.data.data(), trip.data.size()), nullptr);
  }
};

TEST(RunBudget, ADeadlineStopsAnEndlessLoopAndTheInstanceRunsAgain) {
  CountedC c;
  kiln_vm_run_options* options = nullptr;
  ASSERT_EQ(kiln_vm_run_options_create(&options), nullptr);
  ASSERT_EQ(kiln_vm_run_options_set_timeout(options, 0.05), nullptr);
  c.Trip(c.huge);
  kiln_vm_error* e = kiln_vm_instance_run_with_options(c.vm, options);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(kiln_vm_error_code(e), KILN_VM_DEADLINE_EXCEEDED);
  EXPECT_NE(Message(e).find("the run passed its deadline (a timeout of 0.05 s)"), std::string::npos);
  // The same instance, other data, no options: the reference.
  c.Trip(c.seven);
  ASSERT_EQ(kiln_vm_instance_run(c.vm), nullptr);
  ExpectReference(c.s, "loop_counted.output7.npy");
  // And with options whose limits this run stays within.
  ASSERT_EQ(kiln_vm_run_options_set_timeout(options, 600), nullptr);
  ASSERT_EQ(kiln_vm_run_options_set_max_iterations(options, 7), nullptr);
  c.s[0] = c.s[1] = 0;
  ASSERT_EQ(kiln_vm_instance_run_with_options(c.vm, options), nullptr);
  ExpectReference(c.s, "loop_counted.output7.npy");
  kiln_vm_run_options_release(options);
}

TEST(RunBudget, ACancelFromAnotherThreadStopsTheRunAndTheInstanceRunsAgain) {
  const std::string bytes = Compile("loop_counted");
  embed::Module module = embed::Module::LoadMemory(bytes.data(), bytes.size());
  embed::Instance vm(module);
  const NpyArray huge = Npy("loop_counted.trip_huge.npy"), seven = Npy("loop_counted.trip7.npy"),
                 s0 = Npy("loop_counted.s0.npy");
  float s[2] = {0, 0};
  vm.BindInput(0, huge.data.data(), huge.data.size());
  vm.BindInput(1, s0.data.data(), s0.data.size());
  vm.BindOutput(0, s, sizeof s);
  embed::RunOptions options;
  // Whether the cancel comes before the run starts or during it, the run
  // stops with the cancel (the flag stays set until cleared).
  std::thread canceller([&options] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    options.Cancel();
  });
  kiln_vm_code code = KILN_VM_OK;
  std::string message;
  try {
    vm.Run(options);
  } catch (const embed::Error& e) {
    code = e.code();
    message = e.what();
  }
  canceller.join();
  EXPECT_EQ(code, KILN_VM_CANCELLED) << message;
  EXPECT_NE(message.find("the host cancelled the run"), std::string::npos) << message;
  // Still set: the next run with these options stops too.
  vm.BindInput(0, seven.data.data(), seven.data.size());
  try {
    vm.Run(options);
    ADD_FAILURE() << "a run with the cancel flag set ran";
  } catch (const embed::Error& e) {
    EXPECT_EQ(e.code(), KILN_VM_CANCELLED) << e.what();
  }
  options.ClearCancel();
  vm.Run(options);
  ExpectReference(s, "loop_counted.output7.npy");
}

TEST(RunBudget, TheIterationLimitCountsEveryIteration) {
  const std::string bytes = Compile("loop_counted");
  auto image = ModuleImage::LoadBytes(bytes.data(), bytes.size(), "loop_counted");
  ASSERT_TRUE(image.ok()) << image.status();
  auto instance = Instance::Create(*image);
  ASSERT_TRUE(instance.ok()) << instance.status();
  const NpyArray seven = Npy("loop_counted.trip7.npy"), s0 = Npy("loop_counted.s0.npy");
  float s[2] = {0, 0};
  const std::vector<HostTensor> in = {
      {fb::DType::I64, {}, const_cast<uint8_t*>(seven.data.data()), 8},
      {fb::DType::F32, s0.shape, const_cast<uint8_t*>(s0.data.data()), 8}};
  const std::vector<int64_t> two = {2};
  const std::vector<HostTensor> out = {{fb::DType::F32, two, s, sizeof s}};
  RunLimits six;
  six.max_iterations = 6;
  const absl::Status stopped = (*instance)->Run(in, out, nullptr, six);
  EXPECT_EQ(StopCode(stopped), KILN_ERR_ITERATION_LIMIT) << stopped;
  EXPECT_NE(std::string(stopped.message()).find("(LOOP): the run reached its limit of loop "
                                                "iterations (6)"),
            std::string::npos)
      << stopped;
  RunLimits seven_iterations;
  seven_iterations.max_iterations = 7;
  ASSERT_TRUE((*instance)->Run(in, out, nullptr, seven_iterations).ok());
  ExpectReference(s, "loop_counted.output7.npy");
}

// Counts the dispatches an observed run reports.
class CountingObserver : public DispatchObserver {
 public:
  void BeforeDispatch(uint32_t, void* const*) override { ++before; }
  bool AfterDispatch(uint32_t, void* const*) override { return true; }
  uint64_t before = 0;
};

TEST(RunBudget, AWhileLoopOnDataStopsThreadedAndObservedThenEndsOnOtherData) {
  const std::string bytes = Compile("loop_until");
  auto image = ModuleImage::LoadBytes(bytes.data(), bytes.size(), "loop_until");
  ASSERT_TRUE(image.ok()) << image.status();
  auto instance = Instance::Create(*image, /*threads=*/2);
  ASSERT_TRUE(instance.ok()) << instance.status();
  const NpyArray v0 = Npy("loop_until.v0.npy"), never = Npy("loop_until.bound_never.npy"),
                 ends = Npy("loop_until.bound_ends.npy");
  float v[2] = {0, 0};
  const std::vector<int64_t> one = {1}, two = {2};
  auto inputs = [&](const NpyArray& bound) {
    return std::vector<HostTensor>{
        {fb::DType::F32, two, const_cast<uint8_t*>(v0.data.data()), 8},
        {fb::DType::F32, one, const_cast<uint8_t*>(bound.data.data()), 4}};
  };
  const std::vector<HostTensor> out = {{fb::DType::F32, two, v, sizeof v}};
  RunLimits deadline;
  deadline.timeout = std::chrono::milliseconds(50);
  const absl::Status plain = (*instance)->Run(inputs(never), out, nullptr, deadline);
  EXPECT_EQ(StopCode(plain), KILN_ERR_DEADLINE) << plain;
  EXPECT_EQ(plain.code(), absl::StatusCode::kDeadlineExceeded);
  CountingObserver observer;
  const absl::Status observed = (*instance)->Run(inputs(never), out, &observer, deadline);
  EXPECT_EQ(StopCode(observed), KILN_ERR_DEADLINE) << observed;
  EXPECT_GT(observer.before, 0u);
  ASSERT_TRUE((*instance)->Run(inputs(ends), out).ok());
  ExpectReference(v, "loop_until.output_ends.npy");
}

TEST(RunBudget, RunOptionsRefuseBadValues) {
  kiln_vm_run_options* options = nullptr;
  ASSERT_EQ(kiln_vm_run_options_create(&options), nullptr);
  for (double bad : {-1.0, 2e9, std::nan("")}) {
    kiln_vm_error* e = kiln_vm_run_options_set_timeout(options, bad);
    ASSERT_NE(e, nullptr) << bad;
    EXPECT_EQ(kiln_vm_error_code(e), KILN_VM_INVALID_ARGUMENT);
    EXPECT_NE(Message(e).find("is not in 0..1e9 seconds"), std::string::npos);
  }
  kiln_vm_run_options_release(options);
  EXPECT_NE(Message(kiln_vm_run_options_set_timeout(nullptr, 1)).find("null run options"),
            std::string::npos);
  EXPECT_NE(Message(kiln_vm_run_options_create(nullptr)).find("null output pointer"),
            std::string::npos);
  kiln_vm_run_options_cancel(nullptr);  // ignored, as release(NULL) is
  kiln_vm_run_options_release(nullptr);
}

TEST(RunBudget, StopCodesHaveTheirOwnValuesAndPhrases) {
  EXPECT_EQ(KILN_ERR_CANCELLED, 8);
  EXPECT_EQ(KILN_ERR_DEADLINE, 9);
  EXPECT_EQ(KILN_ERR_ITERATION_LIMIT, 10);
  EXPECT_TRUE(IsStopCode(KILN_ERR_DEADLINE));
  EXPECT_FALSE(IsStopCode(KILN_ERR_SHAPE_MISMATCH));
  // A status of the same kind without the payload carries no stop code.
  EXPECT_EQ(StopCode(absl::CancelledError("elsewhere")), KILN_OK);
  EXPECT_EQ(StopCode(StopStatus(KILN_ERR_CANCELLED, "here", {})), KILN_ERR_CANCELLED);
}

}  // namespace
}  // namespace kiln::vm
