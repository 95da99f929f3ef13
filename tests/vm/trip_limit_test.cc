// Constant LOOP trip counts at load (vm/module_verifier.cc CheckConstantTrip):
// each is held to the largest the module declares (Module.max_trip_count),
// or to kUndeclaredTripLimit when the module declares none; a larger one is
// refused naming the function and the LOOP's offset. A module declaring
// INT64_MAX (a while loop) loads, and the run budget stops it instead.
#include <atomic>
#include <cstring>
#include <string>
#include <vector>

#include "flatbuffers/flatbuffers.h"
#include "gtest/gtest.h"
#include "kiln/control_ops.h"
#include "kiln/kernel_abi.h"
#include "kiln/module_generated.h"
#include "kiln/opcodes.h"
#include "vm/instance.h"
#include "vm/module_image.h"
#include "vm/module_verifier.h"
#include "vm/run_budget.h"

namespace kiln::vm {
namespace {

constexpr int64_t kUndeclared = -1;
// The offset of the LOOP in BuildLoopModule's entry function.
constexpr uint32_t kLoopOffset = 20;

// x float32[1] -> y (a copy), then LOOP over a body that only returns, its
// trip count the int64 constant 'trip' = `trip`; the module declares
// `declared` (kUndeclared: the field absent).
std::string BuildLoopModule(int64_t trip, int64_t declared) {
  flatbuffers::FlatBufferBuilder b;
  std::vector<int64_t> one = {1}, scalar = {};
  auto in = fb::CreateTensorDesc(b, b.CreateString("x"), fb::DType::F32, b.CreateVector(one));
  auto out = fb::CreateTensorDesc(b, b.CreateString("y"), fb::DType::F32, b.CreateVector(one));
  auto sig = fb::CreateSignature(b, b.CreateVector(std::vector{in}), b.CreateVector(std::vector{out}));
  std::vector<uint8_t> blob(64, 0);
  std::memcpy(blob.data(), &trip, sizeof trip);
  b.ForceVectorAlignment(blob.size(), 1, 64);
  auto data = b.CreateVector(blob);
  std::vector<flatbuffers::Offset<fb::Constant>> constants = {
      fb::CreateConstant(b, b.CreateString("trip"), fb::DType::I64, b.CreateVector(scalar), 0, 8)};
  std::vector<int64_t> copy_params = {4};
  std::vector<uint64_t> copy_bytes = {4, 4};
  auto copy = fb::CreateExecutable(b, b.CreateString("kiln_copy"), b.CreateVector(copy_params), 0,
                                   2, b.CreateVector(copy_bytes));
  const uint64_t any = KILN_ANY_ITERATION_COUNT;
  const std::vector<uint32_t> entry = {
      KILN_OP_VIEW_INPUT, 0, 0, KILN_OP_VIEW_OUTPUT, 1, 0, KILN_OP_DISPATCH, 0, 2, 0, 1,
      KILN_OP_VIEW_CONST, 2, 0, KILN_OP_VIEW_ARENA, 3, 0, 0, 8, 0,
      KILN_OP_LOOP, 1, 2, KILN_NO_REGISTER, 3, KILN_NO_REGISTER, static_cast<uint32_t>(any),
      static_cast<uint32_t>(any >> 32), KILN_OP_RETURN};
  const std::vector<uint32_t> body = {KILN_OP_RETURN};
  std::vector<flatbuffers::Offset<fb::Function>> functions = {
      fb::CreateFunction(b, b.CreateString("main"), 4, b.CreateVector(entry)),
      fb::CreateFunction(b, b.CreateString("body"), 1, b.CreateVector(body))};
  auto plan = fb::CreateMemoryPlan(b, 64, 64);
  auto module = fb::CreateModule(b, KILN_FORMAT_VERSION, b.CreateString("test"), sig,
                                 b.CreateVector(functions), b.CreateVector(std::vector{copy}),
                                 b.CreateVector(constants), data, plan, 0, 0, 0, declared);
  fb::FinishModuleBuffer(b, module);
  return std::string(reinterpret_cast<const char*>(b.GetBufferPointer()), b.GetSize());
}

absl::StatusOr<std::shared_ptr<const ModuleImage>> Load(int64_t trip, int64_t declared) {
  const std::string bytes = BuildLoopModule(trip, declared);
  return ModuleImage::LoadBytes(bytes.data(), bytes.size(), "loop.kiln");
}

void ExpectRefused(int64_t trip, int64_t declared, const std::string& fragment) {
  auto image = Load(trip, declared);
  ASSERT_FALSE(image.ok()) << "trip " << trip << " declared " << declared;
  EXPECT_NE(std::string(image.status().message()).find(fragment), std::string::npos)
      << image.status().message();
}

// Runs the module on x = {1} within `limits`; the output is checked by the caller.
absl::Status RunLoop(const std::shared_ptr<const ModuleImage>& image, const RunLimits& limits,
                 float* y) {
  auto instance = Instance::Create(image);
  if (!instance.ok()) return instance.status();
  const int64_t one = 1;
  float x = 1.5f;
  return (*instance)->Run({HostTensor{fb::DType::F32, absl::MakeConstSpan(&one, 1), &x, 4}},
                          {HostTensor{fb::DType::F32, absl::MakeConstSpan(&one, 1), y, 4}},
                          nullptr, limits);
}

TEST(TripLimit, TheLoopSitsWhereTheMessagesSayItDoes) {
  const std::string bytes = BuildLoopModule(1, 1);
  const auto* module = fb::GetModule(bytes.data());
  EXPECT_EQ(module->functions()->Get(0)->bytecode()->Get(kLoopOffset), KILN_OP_LOOP);
}

TEST(TripLimit, ATripCountUpToTheDeclaredOneLoadsAndRuns) {
  auto image = Load(1000, 1000);
  ASSERT_TRUE(image.ok()) << image.status();
  float y = 0;
  ASSERT_TRUE(RunLoop(*image, {}, &y).ok());
  EXPECT_EQ(y, 1.5f);  // the copy before the loop (exact: a byte copy)
}

TEST(TripLimit, ATripCountAboveTheDeclaredOneIsRefusedNamingTheLoop) {
  ExpectRefused(1001, 1000,
                "function 'main' +20: LOOP's trip count is 1001 (constant 0 'trip'), above the "
                "largest constant trip count the module declares (1000): the module is corrupt");
}

TEST(TripLimit, AModuleDeclaringNothingIsHeldToTheDefaultLimit) {
  EXPECT_TRUE(Load(kUndeclaredTripLimit, kUndeclared).ok());
  ExpectRefused(kUndeclaredTripLimit + 1, kUndeclared,
                "function 'main' +20: LOOP's trip count is 4294967296 (constant 0 'trip'), above "
                "the limit 4294967295 for a module that declares no largest trip count");
}

TEST(TripLimit, ANegativeTripCountRunsNoIterationAndLoads) {
  auto image = Load(-5, 0);
  ASSERT_TRUE(image.ok()) << image.status();
  float y = 0;
  EXPECT_TRUE(RunLoop(*image, {}, &y).ok());
}

TEST(TripLimit, ADeclarationBelowMinusOneIsRefused) {
  ExpectRefused(1, -2, "max_trip_count -2 is neither -1 (undeclared) nor a trip count");
}

TEST(TripLimit, AnInt64MaxDeclarationLoadsAndTheRunBudgetStopsIt) {
  auto image = Load(INT64_MAX, INT64_MAX);
  ASSERT_TRUE(image.ok()) << image.status();
  float y = 0;
  RunLimits iterations;
  iterations.max_iterations = 1000;
  const absl::Status limited = RunLoop(*image, iterations, &y);
  EXPECT_EQ(StopCode(limited), KILN_ERR_ITERATION_LIMIT) << limited;
  EXPECT_EQ(limited.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(std::string(limited.message()).find("+20 (LOOP): the run reached its limit of loop "
                                                "iterations (1000)"),
            std::string::npos)
      << limited;
  std::atomic<bool> cancelled{true};
  RunLimits cancel;
  cancel.cancel = &cancelled;
  const absl::Status stopped = RunLoop(*image, cancel, &y);
  EXPECT_EQ(StopCode(stopped), KILN_ERR_CANCELLED) << stopped;
  EXPECT_EQ(stopped.code(), absl::StatusCode::kCancelled);
  // The flag was set before the run: it stops before the first kernel call.
  EXPECT_NE(std::string(stopped.message()).find("+6 (DISPATCH): the host cancelled the run"),
            std::string::npos)
      << stopped;
}

}  // namespace
}  // namespace kiln::vm
