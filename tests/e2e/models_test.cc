// Every model under tests/models, on every SIMD kernel path this VM is built
// with: compiled, run in the VM on that path and through its AOT bundle built
// with that path's compile flags, compared with the reference outputs the
// generator computed with PyTorch or NumPy (tests/models/README.md). A path
// this CPU cannot run is skipped, saying so.
//
// tests/models/opset holds the forms that opsets 18 to 21 introduced, with
// ONNX Runtime's outputs as the reference (tests/models/opset/generate.py);
// they test the importer and the lowerings, not kernel paths, so they run on
// the widest path this CPU runs only (OpsetModels).
//
// Tolerances (float32): each output within 1e-4 * max(1, max|ref|) of the
// reference; VM and AOT on the same path bitwise equal (the same kernels,
// compiled with the same flags and no FMA contraction).
#include <algorithm>
#include <filesystem>
#include <ostream>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/e2e/model_harness.h"

namespace kiln::vm {
// Test parameters print as the path's name.
void PrintTo(KernelPath path, std::ostream* os) { *os << KernelPathName(path); }
}  // namespace kiln::vm

namespace kiln::e2e {
namespace {

namespace fs = std::filesystem;

const std::string kModelDir = std::string(KILN_SOURCE_DIR) + "/tests/models";

// The models of tests/models/<subdir>, as paths relative to tests/models.
std::vector<std::string> ModelNames(const std::string& subdir = "") {
  std::vector<std::string> names;
  const std::string prefix = subdir.empty() ? "" : subdir + "/";
  for (const auto& entry : fs::directory_iterator(kModelDir + "/" + subdir)) {
    if (entry.path().extension() == ".onnx") {
      names.push_back(prefix + entry.path().stem().string());
    }
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

// The paths this VM links a copy of the kernels for; in sanitizer builds the
// widest this CPU runs only (tests/e2e/CMakeLists.txt says why).
std::vector<vm::KernelPath> TestedPaths() {
#ifdef KILN_E2E_WIDEST_PATH_ONLY
  return {vm::WidestKernelPath()};
#endif
  std::vector<vm::KernelPath> paths;
  for (int k = 0; k < vm::kKernelPathCount; ++k) {
    if (vm::KernelPathBuilt(static_cast<vm::KernelPath>(k))) {
      paths.push_back(static_cast<vm::KernelPath>(k));
    }
  }
  return paths;
}

class ModelTest : public ::testing::TestWithParam<std::tuple<vm::KernelPath, std::string>> {};

TEST_P(ModelTest, VmAndAotMatchReference) {
  const vm::KernelPath path = std::get<0>(GetParam());
  const std::string name = std::get<1>(GetParam());
  if (absl::StatusOr<vm::KernelPath> runs = vm::ChooseKernelPath(vm::KernelPathName(path));
      !runs.ok()) {
    GTEST_SKIP() << runs.status().message();
  }
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

  auto vm_out = RunInVm(*module, inputs, path);
  ASSERT_TRUE(vm_out.ok()) << vm_out.status();
  ASSERT_EQ(vm_out->size(), refs.size());

  const std::string bundle =
      absl::StrCat(KILN_BINARY_DIR, "/tests/e2e/bundles/", vm::KernelPathName(path), "/", name);
  auto aot_out = RunAot(*module, bundle, input_files, refs.size(), path);
  ASSERT_TRUE(aot_out.ok()) << aot_out.status();

  for (size_t i = 0; i < refs.size(); ++i) {
    const double scale = std::max(1.0, MaxAbs(refs[i]));
    EXPECT_LE(MaxAbsDiff((*vm_out)[i], refs[i]), 1e-4 * scale) << "VM output " << i;
    EXPECT_LE(MaxAbsDiff((*aot_out)[i], refs[i]), 1e-4 * scale) << "AOT output " << i;
    EXPECT_TRUE((*aot_out)[i].shape == (*vm_out)[i].shape && (*aot_out)[i].data == (*vm_out)[i].data)
        << "VM vs AOT output " << i << " not bitwise equal: max |diff| "
        << MaxAbsDiff((*aot_out)[i], (*vm_out)[i]);
  }
}

// Test names: <path>_<model> ('/' of a subfolder as '_').
std::string TestName(const ::testing::TestParamInfo<std::tuple<vm::KernelPath, std::string>>& info) {
  std::string name = std::get<1>(info.param);
  std::replace(name.begin(), name.end(), '/', '_');
  return absl::StrCat(vm::KernelPathName(std::get<0>(info.param)), "_", name);
}

INSTANTIATE_TEST_SUITE_P(Models, ModelTest,
                         ::testing::Combine(::testing::ValuesIn(TestedPaths()),
                                            ::testing::ValuesIn(ModelNames())),
                         TestName);

INSTANTIATE_TEST_SUITE_P(OpsetModels, ModelTest,
                         ::testing::Combine(::testing::Values(vm::WidestKernelPath()),
                                            ::testing::ValuesIn(ModelNames("opset"))),
                         TestName);

}  // namespace
}  // namespace kiln::e2e
