// Data-dependent kernels in the VM (tests/models/rtdata_ops.onnx, written by
// tests/models/generate_data_dependent.py; its outputs are checked against
// NumPy by tests/e2e/models_test.cc): data whose Unique or NonMaxSuppression
// result has another length than the declared one, and a training Dropout
// ratio outside [0, 1), fail the run with an InvalidArgument naming the
// node; training_mode false makes Dropout the identity. TopK's run-time k
// is refused the same way.
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "compiler/compiler.h"
#include "gtest/gtest.h"
#include "vm/instance.h"
#include "vm/tools/npy.h"

namespace kiln::vm {
namespace {

const std::string kModel = std::string(KILN_SOURCE_DIR) + "/tests/models/rtdata_ops";

class DataDependentRun : public ::testing::Test {
 protected:
  void SetUp() override {
    auto bytes = compiler::BuildModule(kModel + ".onnx", {});
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    auto image = ModuleImage::LoadBytes(bytes->data(), bytes->size(), "rtdata_ops");
    ASSERT_TRUE(image.ok()) << image.status();
    auto instance = Instance::Create(*image);
    ASSERT_TRUE(instance.ok()) << instance.status();
    instance_ = std::move(*instance);
    for (int i = 0;; ++i) {
      auto a = ReadNpy(kModel + ".input" + std::to_string(i) + ".npy");
      if (!a.ok()) break;
      in.push_back(std::move(*a));
    }
    for (int i = 0;; ++i) {
      auto a = ReadNpy(kModel + ".output" + std::to_string(i) + ".npy");
      if (!a.ok()) break;
      out.push_back(std::move(*a));  // the reference; Run() overwrites it
    }
    ASSERT_EQ(in.size(), 8u);
    ASSERT_EQ(out.size(), 10u);
  }

  absl::Status Run() {
    std::vector<HostTensor> ins, outs;
    for (NpyArray& a : in) ins.push_back({a.dtype, a.shape, a.data.data(), a.data.size()});
    for (NpyArray& a : out) outs.push_back({a.dtype, a.shape, a.data.data(), a.data.size()});
    return instance_->Run(ins, outs);
  }

  template <typename T>
  void Set(size_t input, const std::vector<T>& values) {
    ASSERT_EQ(values.size() * sizeof(T), in[input].data.size());
    std::memcpy(in[input].data.data(), values.data(), in[input].data.size());
  }

  static void ExpectRefusal(const absl::Status& s, const std::string& node,
                            const std::string& what) {
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
    EXPECT_NE(s.message().find(what), std::string::npos) << s;
    EXPECT_NE(s.message().find(node), std::string::npos) << s;
  }

  std::unique_ptr<Instance> instance_;
  std::vector<NpyArray> in, out;
};

TEST_F(DataDependentRun, RightDataRuns) { ASSERT_TRUE(Run().ok()) << Run(); }

TEST_F(DataDependentRun, UniqueRowsWithAnotherCountAreRefused) {
  Set<int64_t>(7, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1});  // 2 distinct rows, not 3
  ExpectRefusal(Run(), "rt_unique_rows", "does not give the output shape");
}

TEST_F(DataDependentRun, ScoresThatKeepAnotherCountAreRefused) {
  Set<float>(3, {2.0f});  // a score threshold above every score: none kept
  ExpectRefusal(Run(), "rt_nms", "does not give the output shape");
}

TEST_F(DataDependentRun, DropoutRatioOutsideZeroToOneIsRefused) {
  for (float ratio : {1.0f, -0.5f}) {
    Set<float>(6, {ratio});
    ExpectRefusal(Run(), "rt_dropout", kiln_status_message(KILN_ERR_BAD_VALUE));
  }
}

TEST_F(DataDependentRun, NotTrainingIsTheIdentity) {
  Set<unsigned char>(5, {0});
  ASSERT_TRUE(Run().ok()) << Run();
  EXPECT_EQ(out[7].data, in[4].data);  // dy == x, bit for bit
  for (uint8_t m : out[8].data) ASSERT_EQ(m, 1);
}

// TopK with k a run-time input (ONNX's own test model, declared for k = 3):
// another k is refused naming the node, like the ops above.
TEST(TopKRun, AnotherRunTimeKIsRefused) {
  const std::string model = "/usr/share/libonnx-testdata/data/node/test_top_k/model.onnx";
  if (!std::ifstream(model)) GTEST_SKIP() << "no " << model;
  auto bytes = compiler::BuildModule(model, {});
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  auto image = ModuleImage::LoadBytes(bytes->data(), bytes->size(), "test_top_k");
  ASSERT_TRUE(image.ok()) << image.status();
  auto instance = Instance::Create(*image);
  ASSERT_TRUE(instance.ok()) << instance.status();
  std::vector<float> x(12, 1.0f), values(9);
  std::vector<int64_t> k = {3}, indices(9);
  const std::vector<int64_t> xs = {3, 4}, ks = {1}, ys = {3, 3};
  auto run = [&] {
    return (*instance)->Run({{fb::DType::F32, xs, x.data(), 48}, {fb::DType::I64, ks, k.data(), 8}},
                            {{fb::DType::F32, ys, values.data(), 36},
                             {fb::DType::I64, ys, indices.data(), 72}});
  };
  ASSERT_TRUE(run().ok()) << run();
  k = {2};
  const absl::Status s = run();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("does not give the output shape"), std::string::npos) << s;
  EXPECT_NE(s.message().find("TopK"), std::string::npos) << s;
}

}  // namespace
}  // namespace kiln::vm
