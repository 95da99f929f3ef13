#include "tests/e2e/model_harness.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "absl/strings/str_cat.h"
#include "aot/bundle_writer.h"
#include "aot/c_emitter.h"
#include "compiler/compiler.h"
#include "vm/dtype.h"
#include "vm/instance.h"
#include "vm/module_image.h"
#include "vm/module_verifier.h"
#include "vm/run_growing.h"

namespace kiln::e2e {

double MaxAbsDiff(const vm::NpyArray& a, const vm::NpyArray& b) {
  if (a.dtype != b.dtype || a.shape != b.shape) return std::numeric_limits<double>::infinity();
  if (a.dtype != fb::DType::F32) {  // integer and bool outputs must match exactly
    return a.data == b.data ? 0.0 : std::numeric_limits<double>::infinity();
  }
  double worst = 0;
  for (int64_t i = 0; i < a.element_count(); ++i) {
    double d = std::fabs(static_cast<double>(a.floats()[i]) - b.floats()[i]);
    if (std::isnan(d)) return std::numeric_limits<double>::infinity();
    worst = std::max(worst, d);
  }
  return worst;
}

double MaxAbs(const vm::NpyArray& a) {
  double worst = 0;
  if (a.dtype != fb::DType::F32) return worst;
  for (int64_t i = 0; i < a.element_count(); ++i) {
    worst = std::max(worst, std::fabs(static_cast<double>(a.floats()[i])));
  }
  return worst;
}

absl::StatusOr<std::string> CompileModel(const std::string& onnx_path) {
  return compiler::BuildModule(onnx_path, {});
}

absl::StatusOr<std::vector<vm::NpyArray>> RunInVm(const std::string& module_bytes,
                                                  const std::vector<vm::NpyArray>& inputs,
                                                  vm::KernelPath path) {
  auto image = vm::ModuleImage::LoadBytes(module_bytes.data(), module_bytes.size(), "e2e.kiln");
  if (!image.ok()) return image.status();
  auto instance = vm::Instance::Create(*image, 1, vm::KernelPathName(path));
  if (!instance.ok()) return instance.status();
  const fb::Signature& sig = (*instance)->signature();
  std::vector<vm::HostTensor> in;
  for (const vm::NpyArray& a : inputs) {
    in.push_back({a.dtype, a.shape, const_cast<uint8_t*>(a.data.data()), a.data.size()});
  }
  // A module with symbols: workspace and output shapes for these inputs.
  if ((*instance)->has_symbols()) {
    if (absl::Status s = (*instance)->Reserve(in); !s.ok()) return s;
    if (absl::Status s = (*instance)->BindInputs(in); !s.ok()) return s;
  }
  std::vector<vm::NpyArray> outputs(sig.outputs()->size());
  std::vector<vm::HostTensor> out;
  for (uint32_t i = 0; i < outputs.size(); ++i) {
    const fb::TensorDesc* desc = sig.outputs()->Get(i);
    outputs[i].dtype = desc->dtype();
    // Dims from symbols or found during the run (0 until then) come from the
    // instance; the signature holds their encoded symbol ids.
    if ((*instance)->has_symbols() || (*instance)->has_unbounded_sizes()) {
      outputs[i].shape = (*instance)->OutputShape(i);
    } else {
      outputs[i].shape.assign(desc->shape()->begin(), desc->shape()->end());
    }
    // Filled with NaN so an output the module never writes cannot pass.
    outputs[i].data.resize(static_cast<size_t>(outputs[i].element_count()) *
                           DTypeSize(outputs[i].dtype));
    if (outputs[i].dtype == fb::DType::F32) {
      for (int64_t k = 0; k < outputs[i].element_count(); ++k) outputs[i].floats()[k] = NAN;
    } else {
      std::fill(outputs[i].data.begin(), outputs[i].data.end(), uint8_t{0xAB});
    }
    out.push_back({outputs[i].dtype, outputs[i].shape, outputs[i].data.data(),
                   outputs[i].data.size()});
  }
  // Sizes found during the run without a bound grow these buffers.
  if (absl::Status s = vm::RunGrowing(**instance, in, absl::MakeSpan(out),
                                      [&](size_t k, uint64_t bytes) -> void* {
                                        outputs[k].data.assign(bytes, 0xAB);
                                        return outputs[k].data.data();
                                      });
      !s.ok()) {
    return s;
  }
  // Dims the kernels reported during the run (their bound above): the
  // output holds them densely at its start.
  for (uint32_t i = 0; i < outputs.size(); ++i) {
    outputs[i].shape = (*instance)->OutputShape(i);
    outputs[i].data.resize(static_cast<size_t>(outputs[i].element_count()) *
                           DTypeSize(outputs[i].dtype));
  }
  return outputs;
}

absl::StatusOr<std::vector<vm::NpyArray>> RunAot(const std::string& module_bytes,
                                                 const std::string& dir,
                                                 const std::vector<std::string>& input_files,
                                                 size_t output_count, vm::KernelPath path) {
  auto image = vm::ModuleImage::LoadBytes(module_bytes.data(), module_bytes.size(), "e2e.kiln");
  if (!image.ok()) return image.status();
  aot::AotOptions options;
  options.name = "model";
  auto files = aot::EmitBundle(**image, options);
  if (!files.ok()) return files.status();
  if (absl::Status s = aot::WriteBundle(dir, *files); !s.ok()) return s;
  // Warnings in generated code are errors too.
  std::string make = absl::StrCat("make -s -C '", dir, "' CFLAGS='-O2 -Wall -Wextra -Werror ",
                                  vm::KernelPathCompileFlags(path), "' > '", dir,
                                  "/make.log' 2>&1");
  if (std::system(make.c_str()) != 0) {
    return absl::InternalError(absl::StrCat("building the bundle failed; see ", dir, "/make.log"));
  }
  std::string run = absl::StrCat("'", dir, "/model_run'");
  for (const std::string& f : input_files) absl::StrAppend(&run, " --input '", f, "'");
  for (size_t i = 0; i < output_count; ++i) {
    absl::StrAppend(&run, " --output '", dir, "/out", i, ".npy'");
  }
  absl::StrAppend(&run, " > '", dir, "/run.log' 2>&1");
  if (std::system(run.c_str()) != 0) {
    return absl::InternalError(absl::StrCat("running the bundle failed; see ", dir, "/run.log"));
  }
  std::vector<vm::NpyArray> outputs;
  for (size_t i = 0; i < output_count; ++i) {
    auto a = vm::ReadNpy(absl::StrCat(dir, "/out", i, ".npy"));
    if (!a.ok()) return a.status();
    outputs.push_back(std::move(*a));
  }
  return outputs;
}

}  // namespace kiln::e2e
