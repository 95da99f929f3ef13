// Compiles an ONNX model, runs it in the VM and as an AOT bundle, and
// compares outputs — the steps every end-to-end test shares.
#ifndef KILN_TESTS_E2E_MODEL_HARNESS_H_
#define KILN_TESTS_E2E_MODEL_HARNESS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "vm/kernel_paths.h"
#include "vm/tools/npy.h"

namespace kiln::e2e {

// Largest |a - b| over all elements; +inf if shapes or dtypes differ.
double MaxAbsDiff(const vm::NpyArray& a, const vm::NpyArray& b);
double MaxAbs(const vm::NpyArray& a);

// Module bytes for the ONNX file.
absl::StatusOr<std::string> CompileModel(const std::string& onnx_path);

// Outputs of the module run once in the VM on the kernels of `path`.
absl::StatusOr<std::vector<vm::NpyArray>> RunInVm(const std::string& module_bytes,
                                                  const std::vector<vm::NpyArray>& inputs,
                                                  vm::KernelPath path);

// Writes the AOT bundle for the module into `dir`, builds it with make and
// the compile flags of `path` (so its kernels are that path's), runs NAME_run
// on the input files and returns its outputs.
absl::StatusOr<std::vector<vm::NpyArray>> RunAot(const std::string& module_bytes,
                                                 const std::string& dir,
                                                 const std::vector<std::string>& input_files,
                                                 size_t output_count, vm::KernelPath path);

}  // namespace kiln::e2e

#endif  // KILN_TESTS_E2E_MODEL_HARNESS_H_
