// MaxUnpool and RoiAlign run-time data in the VM (models from
// tests/compiler/make_models_train_unpool_roi.py): right values run, and an
// unpool index outside the tensor, a batch index outside the batch or a
// run-time output_shape other than the declared one fail the run with an
// InvalidArgument naming the node, instead of writing out of bounds.
#include <cstdint>
#include <string>
#include <vector>

#include "compiler/compiler.h"
#include "gtest/gtest.h"
#include "vm/instance.h"

namespace kiln::vm {
namespace {

std::unique_ptr<Instance> Compile(const std::string& model) {
  auto bytes = compiler::BuildModule(
      std::string(KILN_SOURCE_DIR) + "/tests/compiler/models/" + model, {});
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  if (!bytes.ok()) return nullptr;
  auto image = ModuleImage::LoadBytes(bytes->data(), bytes->size(), model);
  EXPECT_TRUE(image.ok()) << image.status();
  if (!image.ok()) return nullptr;
  auto instance = Instance::Create(*image);
  EXPECT_TRUE(instance.ok()) << instance.status();
  return instance.ok() ? std::move(*instance) : nullptr;
}

template <typename T>
HostTensor Tensor(fb::DType t, const std::vector<int64_t>& shape, std::vector<T>& data) {
  return HostTensor{t, shape, data.data(), data.size() * sizeof(T)};
}

void ExpectRefusal(const absl::Status& s, const std::string& node, const std::string& what) {
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_NE(s.message().find(what), std::string::npos) << s;
  EXPECT_NE(s.message().find(node), std::string::npos) << s.message();
}

class MaxUnpoolRun : public ::testing::Test {
 protected:
  absl::Status Run() {
    return instance->Run({Tensor(fb::DType::F32, xs, x), Tensor(fb::DType::I64, xs, i),
                          Tensor(fb::DType::I64, ss, s)},
                         {Tensor(fb::DType::F32, ys, y)});
  }
  std::unique_ptr<Instance> instance = Compile("maxunpool_runtime_shape.onnx");
  const std::vector<int64_t> xs = {1, 1, 2, 2}, ss = {4}, ys = {1, 1, 5, 5};
  std::vector<float> x = {5, 6, 7, 8}, y = std::vector<float>(25, -1.0f);
  std::vector<int64_t> i = {5, 7, 13, 15}, s = {1, 1, 5, 5};
};

TEST_F(MaxUnpoolRun, RightValuesRun) {
  ASSERT_NE(instance, nullptr);
  ASSERT_TRUE(Run().ok()) << Run();
  // Index k of the 4x4 unpooled tensor, placed at the origin of the 5x5 output.
  std::vector<float> want(25, 0.0f);
  want[1 * 5 + 1] = 5, want[1 * 5 + 3] = 6, want[3 * 5 + 1] = 7, want[3 * 5 + 3] = 8;
  EXPECT_EQ(y, want);
}

TEST_F(MaxUnpoolRun, AnIndexOutsideTheTensorIsRefused) {
  ASSERT_NE(instance, nullptr);
  for (int64_t bad : {int64_t{16}, int64_t{-1}, int64_t{1} << 40}) {
    i[2] = bad;
    ExpectRefusal(Run(), "ONNX nodes: unpool", "outside the tensor it addresses");
  }
}

TEST_F(MaxUnpoolRun, AnotherOutputShapeIsRefused) {
  ASSERT_NE(instance, nullptr);
  s = {1, 1, 6, 6};
  ExpectRefusal(Run(), "ONNX nodes: unpool", "does not give the output shape");
}

TEST(RoiAlignRun, ABatchIndexOutsideTheBatchIsRefused) {
  auto instance = Compile("roialign_avg.onnx");
  ASSERT_NE(instance, nullptr);
  std::vector<float> x(2 * 36, 1.0f), y(3 * 2 * 3, -1.0f);
  std::vector<float> rois = {0, 0, 5, 5, 1, 1, 3, 4, 2, 0, 6, 6};
  std::vector<int64_t> b = {0, 1, 1};
  const std::vector<int64_t> xs = {2, 1, 6, 6}, rs = {3, 4}, bs = {3}, ys = {3, 1, 2, 3};
  auto run = [&] {
    return instance->Run({Tensor(fb::DType::F32, xs, x), Tensor(fb::DType::F32, rs, rois),
                          Tensor(fb::DType::I64, bs, b)},
                         {Tensor(fb::DType::F32, ys, y)});
  };
  ASSERT_TRUE(run().ok()) << run();
  // A constant map averages to 1 wherever a bin's samples all fall inside.
  EXPECT_FLOAT_EQ(y[0], 1.0f);
  for (int64_t bad : {int64_t{2}, int64_t{-1}}) {
    b = {0, bad, 1};
    ExpectRefusal(run(), "ONNX nodes: roi", "outside the tensor it addresses");
  }
}

}  // namespace
}  // namespace kiln::vm
