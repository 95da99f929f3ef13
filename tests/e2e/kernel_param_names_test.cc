// The parameter names of runtime/include/kiln/kernel_table.def against what
// the compiler emits: for every dispatch of every module compiled from
// tests/models and the ONNX node conformance models (Debian's
// libonnx-testdata, when installed), the kernel's names describe exactly its
// parameters (vm::ParamNamesFit: every value named, every plain name given
// one). A row whose names are too few, too many or count a repeat wrongly
// fails here; kiln inspect and profiles print by these names.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "kiln/module_generated.h"
#include "tests/e2e/model_harness.h"
#include "vm/kernel_params.h"

namespace kiln::e2e {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> OnnxFilesUnder(const std::string& dir) {
  std::vector<std::string> files;
  if (!fs::exists(dir)) return files;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.path().extension() == ".onnx") files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

template <typename T>
std::vector<T> Values(const flatbuffers::Vector<T>* v) {
  return v == nullptr ? std::vector<T>() : std::vector<T>(v->begin(), v->end());
}

TEST(KernelParamNames, DescribeEveryDispatchTheCompilerEmits) {
  std::vector<std::string> files =
      OnnxFilesUnder(std::string(KILN_SOURCE_DIR) + "/tests/models");
  const std::vector<std::string> node = OnnxFilesUnder("/usr/share/libonnx-testdata/data/node");
  files.insert(files.end(), node.begin(), node.end());
  ASSERT_GT(files.size(), 200u);
  std::set<std::string> kernels_seen;
  std::map<std::string, std::string> misfits;  // kernel -> the first model showing it
  size_t modules = 0;
  for (const std::string& path : files) {
    auto bytes = CompileModel(path);
    if (!bytes.ok()) continue;  // refusals are other tests' business
    ++modules;
    const fb::Module* m = fb::GetModule(bytes->data());
    if (m->executables() == nullptr) continue;
    for (const fb::Executable* e : *m->executables()) {
      const std::string kernel = e->kernel()->str();
      kernels_seen.insert(kernel);
      const std::vector<int64_t> ip = Values(e->iparams());
      const std::vector<float> fp = Values(e->fparams());
      if (!vm::ParamNamesFit(kernel, ip, fp) && !misfits.count(kernel)) {
        misfits[kernel] = absl::StrCat(path, " (", ip.size(), " iparams, ", fp.size(), " fparams)");
      }
    }
  }
  EXPECT_GT(modules, 200u);
  for (const auto& [kernel, where] : misfits) {
    ADD_FAILURE() << kernel << ": the table's names do not fit its parameters in " << where;
  }
  std::cout << modules << " modules, " << kernels_seen.size() << " kernels dispatched\n";
}

}  // namespace
}  // namespace kiln::e2e
