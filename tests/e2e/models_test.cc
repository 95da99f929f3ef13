// Every model under tests/models: compiled, run in the VM and through its AOT
// bundle, compared with the reference outputs the generator computed with
// PyTorch or NumPy (tests/models/README.md).
//
// Tolerances (float32): each output within 1e-4 * max(1, max|ref|) of the
// reference; VM and AOT within 1e-5 * max(1, max|ref|) of each other (they
// run the same kernels, so in practice they agree bitwise).
#include <algorithm>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/e2e/model_harness.h"

namespace kiln::e2e {
namespace {

namespace fs = std::filesystem;

const std::string kModelDir = std::string(KILN_SOURCE_DIR) + "/tests/models";

std::vector<std::string> ModelNames() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(kModelDir)) {
    if (entry.path().extension() == ".onnx") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// NAME.<kind>0.npy, NAME.<kind>1.npy, ... while they exist.
std::vector<std::string> NumberedFiles(const std::string& name, const std::string& kind) {
  std::vector<std::string> files;
  for (int i = 0;; ++i) {
    std::string path = absl::StrCat(kModelDir, "/", name, ".", kind, i, ".npy");
    if (!fs::exists(path)) break;
    files.push_back(path);
  }
  return files;
}

class ModelTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ModelTest, VmAndAotMatchReference) {
  const std::string name = GetParam();
  const std::vector<std::string> input_files = NumberedFiles(name, "input");
  const std::vector<std::string> output_files = NumberedFiles(name, "output");
  ASSERT_FALSE(output_files.empty()) << "no reference outputs for " << name;

  std::vector<vm::NpyArray> inputs, refs;
  for (const std::string& f : input_files) {
    auto a = vm::ReadNpy(f);
    ASSERT_TRUE(a.ok()) << a.status();
    inputs.push_back(std::move(*a));
  }
  for (const std::string& f : output_files) {
    auto a = vm::ReadNpy(f);
    ASSERT_TRUE(a.ok()) << a.status();
    refs.push_back(std::move(*a));
  }

  auto module = CompileModel(absl::StrCat(kModelDir, "/", name, ".onnx"));
  ASSERT_TRUE(module.ok()) << module.status();

  auto vm_out = RunInVm(*module, inputs);
  ASSERT_TRUE(vm_out.ok()) << vm_out.status();
  ASSERT_EQ(vm_out->size(), refs.size());

  const std::string bundle = absl::StrCat(KILN_BINARY_DIR, "/tests/e2e/bundles/", name);
  auto aot_out = RunAot(*module, bundle, input_files, refs.size());
  ASSERT_TRUE(aot_out.ok()) << aot_out.status();

  for (size_t i = 0; i < refs.size(); ++i) {
    const double scale = std::max(1.0, MaxAbs(refs[i]));
    EXPECT_LE(MaxAbsDiff((*vm_out)[i], refs[i]), 1e-4 * scale) << "VM output " << i;
    EXPECT_LE(MaxAbsDiff((*aot_out)[i], refs[i]), 1e-4 * scale) << "AOT output " << i;
    EXPECT_LE(MaxAbsDiff((*aot_out)[i], (*vm_out)[i]), 1e-5 * scale) << "VM vs AOT output " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Models, ModelTest, ::testing::ValuesIn(ModelNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace kiln::e2e
