// tests/models/opset/unbounded: outputs sized by run-time data with no bound
// the compiler can give (tests/models/opset/generate.py unbounded_models,
// ONNX Runtime's outputs as the reference). The VM runs them, growing the
// workspace and output buffers as the run asks (vm/run_growing.h), and so
// does the AOT bundle's runner (NAME_run's kiln_shortfall, NAME_main.c's
// loop). Tolerance: 1e-4 * max(1, max|ref|). A model with NAME.second.*
// files runs again, same module, on those inputs (other run-time sizes).
// Then the protocol itself on one model: the shortfall a run reports names
// the buffer and the bytes (NumPy: np.ones((2, 3, 4), np.float32).nbytes =
// 96; (4, 3, 4): 192), and a run with that much room passes, through the
// C++ Instance and through the C API (kiln/vm.h).
#include <algorithm>
#include <cstring>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "kiln/vm.h"
#include "tests/e2e/model_harness.h"
#include "vm/instance.h"
#include "vm/module_image.h"
#include "vm/run_growing.h"

namespace kiln::e2e {
namespace {

namespace fs = std::filesystem;

const std::string kDir = std::string(KILN_SOURCE_DIR) + "/tests/models/opset/unbounded";

std::vector<std::string> Names() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(kDir)) {
    if (entry.path().extension() == ".onnx") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<vm::NpyArray> Load(const std::string& name, const std::string& kind,
                               std::vector<std::string>* files = nullptr) {
  std::vector<vm::NpyArray> arrays;
  for (int i = 0;; ++i) {
    const std::string path = absl::StrCat(kDir, "/", name, ".", kind, i, ".npy");
    if (!fs::exists(path)) break;
    auto a = vm::ReadNpy(path);
    EXPECT_TRUE(a.ok()) << a.status();
    if (!a.ok()) break;
    arrays.push_back(std::move(*a));
    if (files != nullptr) files->push_back(path);
  }
  return arrays;
}

// Same count, shapes, and values within 1e-4 * max(1, max|ref|).
void ExpectMatches(const std::vector<vm::NpyArray>& got, const std::vector<vm::NpyArray>& refs,
                   const std::string& what) {
  ASSERT_EQ(got.size(), refs.size()) << what;
  for (size_t i = 0; i < refs.size(); ++i) {
    EXPECT_EQ(got[i].shape, refs[i].shape) << what << " output " << i;
    EXPECT_LE(MaxAbsDiff(got[i], refs[i]), 1e-4 * std::max(1.0, MaxAbs(refs[i])))
        << what << " output " << i;
  }
}

class UnboundedModel : public ::testing::TestWithParam<std::string> {};

TEST_P(UnboundedModel, VmAndAotMatchOnnxRuntime) {
  const std::string name = GetParam();
  std::vector<std::string> input_files;
  const std::vector<vm::NpyArray> inputs = Load(name, "input", &input_files);
  const std::vector<vm::NpyArray> refs = Load(name, "output");
  ASSERT_FALSE(refs.empty());
  auto module = CompileModel(absl::StrCat(kDir, "/", name, ".onnx"));
  ASSERT_TRUE(module.ok()) << module.status();
  auto got = RunInVm(*module, inputs, vm::WidestKernelPath());
  ASSERT_TRUE(got.ok()) << got.status();
  ExpectMatches(*got, refs, "VM");
  const std::string bundle = absl::StrCat(KILN_BINARY_DIR, "/tests/e2e/bundles/unbounded/", name);
  auto aot = RunAot(*module, bundle, input_files, refs.size(), vm::WidestKernelPath());
  ASSERT_TRUE(aot.ok()) << aot.status();
  ExpectMatches(*aot, refs, "AOT");
  // NAME.second.*: the same module on other run-time sizes.
  std::vector<std::string> second_files;
  const std::vector<vm::NpyArray> second = Load(name + ".second", "input", &second_files);
  if (second.empty()) return;
  const std::vector<vm::NpyArray> second_refs = Load(name + ".second", "output");
  got = RunInVm(*module, second, vm::WidestKernelPath());
  ASSERT_TRUE(got.ok()) << got.status();
  ExpectMatches(*got, second_refs, "VM, second run");
  aot = RunAot(*module, bundle + ".second", second_files, second_refs.size(),
               vm::WidestKernelPath());
  ASSERT_TRUE(aot.ok()) << aot.status();
  ExpectMatches(*aot, second_refs, "AOT, second run");
}

INSTANTIATE_TEST_SUITE_P(Models, UnboundedModel, ::testing::ValuesIn(Names()));

TEST(UnboundedRun, ShortfallNamesTheBufferAndRoomMakesTheRunPass) {
  const std::string name = "constantofshape18_runtime_then_add";
  std::vector<vm::NpyArray> inputs = Load(name, "input");
  const std::vector<vm::NpyArray> refs = Load(name, "output");
  ASSERT_EQ(inputs.size(), 2u);
  auto module = CompileModel(absl::StrCat(kDir, "/", name, ".onnx"));
  ASSERT_TRUE(module.ok()) << module.status();
  auto image = vm::ModuleImage::LoadBytes(module->data(), module->size(), "unbounded.kiln");
  ASSERT_TRUE(image.ok()) << image.status();
  auto instance = vm::Instance::Create(*image);
  ASSERT_TRUE(instance.ok()) << instance.status();
  vm::Instance& vm = **instance;
  EXPECT_TRUE(vm.has_unbounded_sizes());
  // Before a run the dims only the run finds are 0; the last is x's 4 (the
  // Add broadcasts c's run-time dim against it, checked during the run).
  EXPECT_EQ(vm.OutputShape(0), (std::vector<int64_t>{0, 0, 4}));
  std::vector<vm::HostTensor> in;
  for (vm::NpyArray& a : inputs) in.push_back({a.dtype, a.shape, a.data.data(), a.data.size()});

  // The output buffer first (the output view comes before the Add), empty.
  std::vector<uint8_t> y;
  std::vector<vm::HostTensor> out = {{fb::DType::F32, {}, nullptr, 0}};
  absl::Status s = vm.Run(in, out);
  ASSERT_TRUE(absl::IsResourceExhausted(s)) << s;
  ASSERT_TRUE(vm.shortfall().has_value());
  // The ConstantOfShape's tail tensor or the output, whichever the run met
  // first: the workspace's shortfall is past the planned part.
  if (vm.shortfall()->output < 0) {
    EXPECT_GT(vm.shortfall()->bytes, vm.arena_bytes());
    EXPECT_TRUE(absl::StrContains(s.message(), "workspace of at least")) << s;
    ASSERT_TRUE(vm.ReserveWorkspace(vm.shortfall()->bytes).ok());
    s = vm.Run(in, out);
    ASSERT_TRUE(absl::IsResourceExhausted(s)) << s;
    ASSERT_TRUE(vm.shortfall().has_value());
  }
  EXPECT_EQ(vm.shortfall()->output, 0);
  EXPECT_EQ(vm.shortfall()->bytes, 96u);
  EXPECT_TRUE(absl::StrContains(s.message(), "output 0 ('y') needs 96 bytes")) << s;
  y.assign(96, 0);
  out[0] = {fb::DType::F32, {}, y.data(), y.size()};
  ASSERT_TRUE(vm.Run(in, out).ok());
  EXPECT_FALSE(vm.shortfall().has_value());
  EXPECT_EQ(vm.OutputShape(0), refs[0].shape);
  EXPECT_EQ(0, std::memcmp(y.data(), refs[0].data.data(), 96));

  // Larger dims: RunGrowing grows what the run asks and runs again.
  const int64_t dims[] = {4, 3, 4};
  std::memcpy(inputs[0].data.data(), dims, sizeof dims);
  s = vm::RunGrowing(vm, in, absl::MakeSpan(out), [&](size_t k, uint64_t bytes) -> void* {
    EXPECT_EQ(k, 0u);
    EXPECT_EQ(bytes, 192u);
    y.assign(bytes, 0);
    return y.data();
  });
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(vm.OutputShape(0), (std::vector<int64_t>{4, 3, 4}));
  ASSERT_EQ(y.size(), 192u);
  // 1.5 + x, broadcast over the leading dims (the reference's first 2x3 rows).
  for (int k = 0; k < 48; ++k) {
    float v, want;
    std::memcpy(&v, y.data() + 4 * k, 4);
    std::memcpy(&want, refs[0].data.data() + 4 * (k % 24), 4);
    EXPECT_EQ(v, want) << k;
  }
}

// The same protocol through the C API: KILN_VM_BUFFER_TOO_SMALL, then
// kiln_vm_instance_shortfall names the buffer; grow it and run again.
TEST(UnboundedRun, CApiReportsTheShortfallAndRunsOnceGrown) {
  const std::string name = "constantofshape18_runtime_then_add";
  std::vector<vm::NpyArray> inputs = Load(name, "input");
  const std::vector<vm::NpyArray> refs = Load(name, "output");
  ASSERT_EQ(inputs.size(), 2u);
  auto module = CompileModel(absl::StrCat(kDir, "/", name, ".onnx"));
  ASSERT_TRUE(module.ok()) << module.status();
  kiln_vm_module* m = nullptr;
  kiln_vm_instance* vm = nullptr;
  ASSERT_EQ(kiln_vm_module_load_memory(module->data(), module->size(), &m), nullptr);
  ASSERT_EQ(kiln_vm_instance_create(m, &vm), nullptr);
  for (size_t k = 0; k < inputs.size(); ++k) {
    ASSERT_EQ(kiln_vm_instance_bind_input(vm, k, inputs[k].data.data(), inputs[k].data.size()),
              nullptr);
  }
  int64_t output = 7;
  uint64_t bytes = 0;
  kiln_vm_error* e = kiln_vm_instance_shortfall(vm, &output, &bytes);  // no run yet
  EXPECT_EQ(kiln_vm_error_code(e), KILN_VM_FAILED_PRECONDITION);
  kiln_vm_error_free(e);
  std::vector<float> y(1);  // any size binds; the run says what it needs
  ASSERT_EQ(kiln_vm_instance_bind_output(vm, 0, y.data(), 0), nullptr);
  int runs = 0;
  bool output_short = false;
  for (; runs < 8; ++runs) {
    e = kiln_vm_instance_run(vm);
    if (e == nullptr) break;
    ASSERT_EQ(kiln_vm_error_code(e), KILN_VM_BUFFER_TOO_SMALL) << kiln_vm_error_message(e);
    kiln_vm_error_free(e);
    ASSERT_EQ(kiln_vm_instance_shortfall(vm, &output, &bytes), nullptr);
    if (output < 0) {
      ASSERT_EQ(kiln_vm_instance_reserve_workspace(vm, bytes), nullptr);
    } else {
      ASSERT_EQ(output, 0);
      EXPECT_EQ(bytes, 96u);
      output_short = true;
      y.assign(bytes / 4, 0.f);
      ASSERT_EQ(kiln_vm_instance_bind_output(vm, 0, y.data(), bytes), nullptr);
    }
  }
  ASSERT_LT(runs, 8);
  EXPECT_TRUE(output_short);
  int64_t dims[3];
  size_t rank = 0;
  ASSERT_EQ(kiln_vm_instance_output_shape(vm, 0, dims, 3, &rank), nullptr);
  ASSERT_EQ(rank, 3u);
  EXPECT_EQ(std::vector<int64_t>(dims, dims + 3), refs[0].shape);
  ASSERT_EQ(y.size() * 4, refs[0].data.size());
  EXPECT_EQ(0, std::memcmp(y.data(), refs[0].data.data(), refs[0].data.size()));
  kiln_vm_instance_release(vm);
  kiln_vm_module_release(m);
}

}  // namespace
}  // namespace kiln::e2e
