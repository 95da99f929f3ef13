// Resize's two lowerings through the VM (tests/models/rtresize_ops.onnx,
// written by generate_runtime_resize.py): a Resize with run-time scales
// (resize_rt_f32, taps computed at run time) and the same Resize with
// constant scales (resize_f32, tap tables built by the compiler) share
// runtime/include/kiln/resize_core.h, so they give bit-identical outputs; and
// scales that mean another output shape fail the run naming the node,
// leaving its output untouched. Numbers against the reference: models_test.cc.
#include <cstring>
#include <string>
#include <vector>

#include "compiler/compiler.h"
#include "gtest/gtest.h"
#include "vm/instance.h"
#include "vm/module_image.h"
#include "vm/tools/npy.h"

namespace kiln::vm {
namespace {

const std::string kModels = std::string(KILN_SOURCE_DIR) + "/tests/models/";

struct Resized {
  absl::Status status;
  std::vector<std::vector<float>> outputs;
};

// Runs rtresize_ops with its inputs, input 1 (the scales) taken from `scales_file`.
Resized RunModel(const std::string& scales_file) {
  Resized r;
  auto bytes = compiler::BuildModule(kModels + "rtresize_ops.onnx", {});
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  if (!bytes.ok()) return r;
  auto image = ModuleImage::LoadBytes(bytes->data(), bytes->size(), "rtresize_ops.kiln");
  EXPECT_TRUE(image.ok()) << image.status();
  auto instance = Instance::Create(*image);
  EXPECT_TRUE(instance.ok()) << instance.status();
  if (!instance.ok()) return r;
  std::vector<NpyArray> in;
  for (int i = 0; i < 5; ++i) {
    auto a = ReadNpy(i == 1 ? scales_file
                            : kModels + "rtresize_ops.input" + std::to_string(i) + ".npy");
    EXPECT_TRUE(a.ok()) << a.status();
    if (!a.ok()) return r;
    in.push_back(std::move(*a));
  }
  std::vector<NpyArray> ref;
  for (int i = 0; i < 4; ++i) {
    auto a = ReadNpy(kModels + "rtresize_ops.output" + std::to_string(i) + ".npy");
    EXPECT_TRUE(a.ok()) << a.status();
    if (!a.ok()) return r;
    ref.push_back(std::move(*a));
  }
  std::vector<HostTensor> ins, outs;
  for (NpyArray& a : in) ins.push_back({a.dtype, a.shape, a.data.data(), a.data.size()});
  r.outputs.resize(ref.size());
  for (size_t i = 0; i < ref.size(); ++i) {
    r.outputs[i].assign(static_cast<size_t>(ref[i].element_count()), -12345.0f);
    outs.push_back({fb::DType::F32, ref[i].shape, r.outputs[i].data(), ref[i].data.size()});
  }
  r.status = (*instance)->Run(ins, outs);
  return r;
}

TEST(ResizePaths, RuntimeAndCompileTimeScalesGiveIdenticalBits) {
  const Resized r = RunModel(kModels + "rtresize_ops.input1.npy");
  ASSERT_TRUE(r.status.ok()) << r.status;
  ASSERT_EQ(r.outputs[0].size(), r.outputs[1].size());
  EXPECT_EQ(std::memcmp(r.outputs[0].data(), r.outputs[1].data(), r.outputs[0].size() * 4), 0);
}

TEST(ResizePaths, ScalesForAnotherShapeFailNamingTheNode) {
  const Resized r = RunModel(kModels + "bad/rtresize_ops.input1.wrong.npy");
  EXPECT_EQ(r.status.code(), absl::StatusCode::kInvalidArgument) << r.status;
  EXPECT_NE(r.status.message().find("does not give the output shape the model declares"),
            std::string::npos)
      << r.status;
  EXPECT_NE(r.status.message().find("rt_resize"), std::string::npos) << r.status;
  ASSERT_FALSE(r.outputs.empty());
  for (float v : r.outputs[0]) ASSERT_EQ(v, -12345.0f) << "rt_resize wrote its output";
}

}  // namespace
}  // namespace kiln::vm
