// The interpreter runs a verified module, and Run() refuses buffers that do
// not match the signature.
#include "gtest/gtest.h"
#include "tests/vm/test_module_builder.h"
#include "vm/instance.h"

namespace kiln::vm {
namespace {

std::unique_ptr<Instance> MakeCopyInstance() {
  std::string bytes = kiln::testing::BuildCopyModule({});
  auto image = ModuleImage::LoadBytes(bytes.data(), bytes.size(), "copy.kiln");
  EXPECT_TRUE(image.ok()) << image.status();
  auto instance = Instance::Create(*image);
  EXPECT_TRUE(instance.ok()) << instance.status();
  return std::move(*instance);
}

TEST(Instance, RunsTheProgram) {
  auto instance = MakeCopyInstance();
  float in[4] = {1.5f, -2.0f, 3.25f, 0.0f};
  float out[4] = {9, 9, 9, 9};
  const int64_t shape[] = {4};
  HostTensor x{fb::DType::F32, shape, in, sizeof in};
  HostTensor y{fb::DType::F32, shape, out, sizeof out};
  ASSERT_TRUE(instance->Run({x}, {y}).ok());
  for (int i = 0; i < 4; ++i) EXPECT_EQ(out[i], in[i]);
}

TEST(Instance, RefusesWrongShape) {
  auto instance = MakeCopyInstance();
  float buf[5] = {};
  const int64_t good[] = {4};
  const int64_t bad[] = {5};
  absl::Status status = instance->Run({HostTensor{fb::DType::F32, bad, buf, sizeof buf}},
                                      {HostTensor{fb::DType::F32, good, buf, 16}});
  ASSERT_FALSE(status.ok());
  EXPECT_NE(std::string(status.message()).find("input 0 ('x') has shape [5]; the module expects [4]"),
            std::string::npos)
      << status.message();
}

TEST(Instance, RefusesWrongDtype) {
  auto instance = MakeCopyInstance();
  double in[4] = {};
  float out[4] = {};
  const int64_t shape[] = {4};
  absl::Status status = instance->Run({HostTensor{fb::DType::F64, shape, in, sizeof in}},
                                      {HostTensor{fb::DType::F32, shape, out, sizeof out}});
  ASSERT_FALSE(status.ok());
  EXPECT_NE(std::string(status.message()).find("dtype float64; the module expects float32"),
            std::string::npos)
      << status.message();
}

TEST(Instance, RefusesWrongArgumentCount) {
  auto instance = MakeCopyInstance();
  absl::Status status = instance->Run({}, {});
  ASSERT_FALSE(status.ok());
  EXPECT_NE(std::string(status.message()).find("takes 1 inputs and 1 outputs"), std::string::npos);
}

}  // namespace
}  // namespace kiln::vm
