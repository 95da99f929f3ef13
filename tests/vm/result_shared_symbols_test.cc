// Several outputs naming one result symbol, beside a static output, through
// the compiler and the VM API: tests/models/result/unique_after_run.onnx
// (Unique of x [8] with Y, indices and counts shaped after the run and the
// static inverse_indices; references from numpy.unique, written by
// tests/models/result/generate.py) and nms_after_run.onnx. The module has
// one result symbol; OutputShape is the bound before a run and the real
// length after each run, for every output naming it, and the bound-sized
// buffers start with numpy's values. The AOT and `kiln run` paths:
// tests/e2e/result_shapes_test.sh.
#include <cstring>
#include <string>
#include <vector>

#include "compiler/compiler.h"
#include "gtest/gtest.h"
#include "vm/instance.h"
#include "vm/tools/npy.h"

namespace kiln::vm {
namespace {

const std::string kDir = std::string(KILN_SOURCE_DIR) + "/tests/models/result/";
using Dims = std::vector<int64_t>;

std::unique_ptr<Instance> Compile(const std::string& model) {
  auto bytes = compiler::BuildModule(kDir + model + ".onnx", {});
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  if (!bytes.ok()) return nullptr;
  auto image = ModuleImage::LoadBytes(bytes->data(), bytes->size(), model);  // verifies
  EXPECT_TRUE(image.ok()) << image.status();
  if (!image.ok()) return nullptr;
  auto instance = Instance::Create(*image);
  EXPECT_TRUE(instance.ok()) << instance.status();
  return instance.ok() ? std::move(*instance) : nullptr;
}

NpyArray Load(const std::string& file) {
  auto a = ReadNpy(kDir + file);
  EXPECT_TRUE(a.ok()) << a.status();
  return a.ok() ? std::move(*a) : NpyArray{};
}

TEST(ResultSharedSymbols, UniqueOutputsShareOneSymbolBesideAStaticOne) {
  std::unique_ptr<Instance> instance = Compile("unique_after_run");
  ASSERT_NE(instance, nullptr);
  const fb::Module& m = instance->image().module();
  ASSERT_NE(m.result_symbols(), nullptr);
  ASSERT_EQ(m.result_symbols()->size(), 1u);
  EXPECT_EQ(m.result_symbols()->Get(0)->name()->str(), "y.length");
  EXPECT_EQ(m.result_symbols()->Get(0)->bound(), 8);
  for (size_t k = 0; k < 4; ++k) EXPECT_EQ(instance->OutputShape(k), Dims{8}) << k;

  const char* names[4] = {"y", "indices", "inverse", "counts"};
  const int64_t lengths[3] = {5, 1, 8};  // repeats, all equal, all distinct
  for (int set = 0; set < 3; ++set) {
    NpyArray x = Load("unique_after_run.x" + std::to_string(set) + ".npy");
    HostTensor in{x.dtype, x.shape, x.data.data(), x.data.size()};
    std::vector<std::vector<uint8_t>> buffers(4, std::vector<uint8_t>(64, 0xAB));
    const int64_t bound = 8;
    std::vector<HostTensor> outs;
    for (size_t k = 0; k < 4; ++k) {
      outs.push_back({k == 0 ? fb::DType::F32 : fb::DType::I64, absl::MakeConstSpan(&bound, 1),
                      buffers[k].data(), k == 0 ? 32u : 64u});
    }
    ASSERT_TRUE(instance->Run({&in, 1}, outs).ok()) << set;
    for (size_t k = 0; k < 4; ++k) {
      NpyArray ref = Load(std::string("unique_after_run.") + names[k] + std::to_string(set) +
                          ".npy");
      const Dims want = k == 2 ? Dims{8} : Dims{lengths[set]};
      EXPECT_EQ(instance->OutputShape(k), want) << names[k] << " data " << set;
      ASSERT_EQ(ref.shape, want) << names[k];
      EXPECT_EQ(std::memcmp(buffers[k].data(), ref.data.data(), ref.data.size()), 0)
          << names[k] << " data " << set;
    }
  }
}

TEST(ResultSharedSymbols, NmsBoundComesFromTheConstantMax) {
  std::unique_ptr<Instance> instance = Compile("nms_after_run");
  ASSERT_NE(instance, nullptr);
  const fb::Module& m = instance->image().module();
  ASSERT_EQ(m.result_symbols()->size(), 1u);
  EXPECT_EQ(m.result_symbols()->Get(0)->bound(), 12);  // 2 batches x 2 classes x max 3
  EXPECT_EQ(instance->OutputShape(0), (Dims{12, 3}));
}

}  // namespace
}  // namespace kiln::vm
