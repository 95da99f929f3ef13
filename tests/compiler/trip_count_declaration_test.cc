// Module.max_trip_count: the compiler declares the largest trip count a LOOP
// reads from a constant (the ONNX Loop's M, or a Scan's length), so readers
// can refuse a module whose constant was changed afterwards. Trip counts
// that are inputs or computed declare nothing; a module without loops
// declares 0.
#include <string>

#include "compiler/compiler.h"
#include "flatbuffers/flatbuffers.h"
#include "gtest/gtest.h"
#include "kiln/module_generated.h"

namespace kiln::compiler {
namespace {

// The declared count of the module compiled from tests/models/`model`.
int64_t DeclaredTripCount(const std::string& model) {
  auto bytes = BuildModule(std::string(KILN_SOURCE_DIR) + "/tests/models/" + model, BuildOptions{});
  EXPECT_TRUE(bytes.ok()) << model << ": " << bytes.status();
  if (!bytes.ok()) return -100;
  const auto* data = reinterpret_cast<const uint8_t*>(bytes->data());
  flatbuffers::Verifier verifier(data, bytes->size());
  EXPECT_TRUE(fb::VerifyModuleBuffer(verifier)) << model;
  return fb::GetModule(data)->max_trip_count();
}

TEST(TripCountDeclaration, AConstantTripCountIsDeclared) {
  // control_flow_models.py: Loop with M = the constant 50 (ended earlier by
  // its condition), and a Scan-like Loop with M = 4.
  EXPECT_EQ(DeclaredTripCount("control_loop_while.onnx"), 50);
  EXPECT_EQ(DeclaredTripCount("control_loop_window.onnx"), 4);
}

TEST(TripCountDeclaration, AWhileLoopDeclaresItsInt64MaxTripCount) {
  // PyTorch's export of `while`: M = INT64_MAX, the condition ends it.
  EXPECT_EQ(DeclaredTripCount("control/loop_until.onnx"), INT64_MAX);
}

TEST(TripCountDeclaration, ARunTimeTripCountOrNoLoopDeclaresZero) {
  EXPECT_EQ(DeclaredTripCount("control/loop_counted.onnx"), 0);  // M is an input
  EXPECT_EQ(DeclaredTripCount("control_if_then.onnx"), 0);
}

}  // namespace
}  // namespace kiln::compiler
