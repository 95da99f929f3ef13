// Inputs bound at compile time (kiln compile --input-value): the module
// records them, the tools find and describe them, a run's value is held to
// them, and a module whose recorded value does not fit its shape is refused
// at load.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "compiler/compiler.h"
#include "gtest/gtest.h"
#include "vm/bound_inputs.h"
#include "vm/module_image.h"

namespace kiln::vm {
namespace {

// tests/models/two_in_two_out.onnx with input b (float32[1,4]) bound.
std::string BoundModule() {
  compiler::BuildOptions options;
  options.input_values["b"] = "1,2,3,4.5";
  auto bytes = compiler::BuildModule(
      std::string(KILN_SOURCE_DIR) + "/tests/models/two_in_two_out.onnx", options);
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  return bytes.ok() ? *bytes : std::string();
}

// CheckBoundInputValue with `values` as a float32[1,N] tensor.
absl::Status CheckFloats(const fb::BoundInput& bound, std::vector<float> values) {
  std::vector<uint8_t> data(values.size() * 4);
  std::memcpy(data.data(), values.data(), data.size());
  return CheckBoundInputValue(bound, fb::DType::F32, {1, static_cast<int64_t>(values.size())},
                              data);
}

TEST(BoundInputs, AreRecordedDescribedAndHeldToTheirValue) {
  const std::string bytes = BoundModule();
  auto image = ModuleImage::LoadBytes(bytes.data(), bytes.size(), "bound.kiln");
  ASSERT_TRUE(image.ok()) << image.status();
  const fb::Signature& sig = *(*image)->module().signature();
  ASSERT_EQ(sig.inputs()->size(), 1u);
  EXPECT_EQ(sig.inputs()->Get(0)->name()->str(), "a");
  EXPECT_EQ(FindBoundInput(sig, "a"), nullptr);
  const fb::BoundInput* b = FindBoundInput(sig, "b");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(DescribeBoundInput(*b), "b float32[1,4] = 1,2,3,4.5");
  EXPECT_TRUE(CheckFloats(*b, {1, 2, 3, 4.5f}).ok());
  const absl::Status other = CheckFloats(*b, {1, 2, 3, 4});
  EXPECT_EQ(other.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(other.message())
                .find("input 'b' was bound at compile time (--input-value) to b float32[1,4] = "
                      "1,2,3,4.5; this run gives float32[1,4] = 1,2,3,4"),
            std::string::npos)
      << other;
  EXPECT_FALSE(CheckFloats(*b, {1, 2, 3}).ok());
}

TEST(BoundInputs, AValueThatDoesNotFitItsShapeIsRefusedAtLoad) {
  std::string bytes = BoundModule();
  // The value vector: a uint32 length 16, then the four floats.
  const float values[4] = {1, 2, 3, 4.5f};
  std::string pattern(4, '\0');
  const uint32_t length = 16;
  std::memcpy(&pattern[0], &length, 4);
  pattern.append(reinterpret_cast<const char*>(values), sizeof values);
  const size_t at = bytes.find(pattern);
  ASSERT_NE(at, std::string::npos);
  const uint32_t shorter = 12;
  std::memcpy(&bytes[at], &shorter, 4);
  auto image = ModuleImage::LoadBytes(bytes.data(), bytes.size(), "bad.kiln");
  ASSERT_FALSE(image.ok());
  EXPECT_NE(std::string(image.status().message())
                .find("signature bound input 0 holds 12 bytes; its shape needs 16"),
            std::string::npos)
      << image.status();
}

}  // namespace
}  // namespace kiln::vm
