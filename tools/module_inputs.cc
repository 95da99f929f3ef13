#include "tools/module_inputs.h"

#include <algorithm>
#include <new>
#include <random>

#include "absl/strings/str_cat.h"
#include "vm/bound_inputs.h"
#include "vm/dtype.h"
#include "vm/module_verifier.h"
#include "vm/run_growing.h"

namespace kiln::tools {

absl::StatusOr<std::vector<std::string>> PlaceInputFiles(const fb::Signature& sig,
                                                         const std::vector<std::string>& args) {
  const uint32_t n = sig.inputs()->size();
  std::vector<std::string> placed(n);
  size_t next = 0;
  for (const std::string& arg : args) {
    const size_t eq = arg.find('=');
    bool named = false;
    for (uint32_t i = 0; eq != std::string::npos && i < n; ++i) {
      const fb::TensorDesc* t = sig.inputs()->Get(i);
      if (t->name() && t->name()->str() == arg.substr(0, eq)) {
        placed[i] = arg.substr(eq + 1);
        named = true;
      }
    }
    if (named) continue;
    if (eq != std::string::npos) {
      if (const fb::BoundInput* bound = vm::FindBoundInput(sig, arg.substr(0, eq))) {
        auto given = vm::ReadNpy(arg.substr(eq + 1));
        if (!given.ok()) return given.status();
        absl::Status s = vm::CheckBoundInputValue(*bound, given->dtype, given->shape, given->data);
        if (!s.ok()) return s;
        continue;  // the value the module was compiled with
      }
    }
    while (next < n && !placed[next].empty()) ++next;
    if (next >= n) {
      return absl::InvalidArgumentError(
          absl::StrCat("too many --input files: the module has ", n, " inputs"));
    }
    placed[next++] = arg;
  }
  for (uint32_t i = 0; i < n; ++i) {
    if (placed[i].empty()) {
      return absl::InvalidArgumentError(absl::StrCat("missing --input for input ", i, " ('",
                                                     sig.inputs()->Get(i)->name()->str(), "')"));
    }
  }
  return placed;
}

absl::StatusOr<std::vector<vm::NpyArray>> LoadInputs(const fb::Signature& sig,
                                                     const std::vector<std::string>& args) {
  auto placed = PlaceInputFiles(sig, args);
  if (!placed.ok()) return placed.status();
  std::vector<vm::NpyArray> arrays;
  for (const std::string& file : *placed) {
    auto a = vm::ReadNpy(file);
    if (!a.ok()) return a.status();
    arrays.push_back(std::move(*a));
  }
  return arrays;
}

absl::StatusOr<std::vector<vm::NpyArray>> RandomInputs(const fb::Signature& sig, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<vm::NpyArray> arrays;
  for (const fb::TensorDesc* t : *sig.inputs()) {
    if (t->dtype() != fb::DType::F32) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input '", t->name() ? t->name()->str() : "",
          "' is not float32: give it with --input FILE.npy"));
    }
    vm::NpyArray a;
    a.dtype = t->dtype();
    a.shape.assign(t->shape()->begin(), t->shape()->end());
    a.data.resize(vm::TensorDescBytes(*t));
    for (int64_t k = 0; k < a.element_count(); ++k) a.floats()[k] = dist(gen);
    arrays.push_back(std::move(a));
  }
  return arrays;
}

std::vector<vm::NpyArray> OutputBuffers(const fb::Signature& sig) {
  std::vector<vm::NpyArray> arrays;
  for (const fb::TensorDesc* t : *sig.outputs()) {
    vm::NpyArray a;
    a.dtype = t->dtype();
    a.shape.assign(t->shape()->begin(), t->shape()->end());
    a.data.assign(vm::TensorDescBytes(*t), 0);
    arrays.push_back(std::move(a));
  }
  return arrays;
}

std::vector<vm::NpyArray> OutputBuffers(const vm::Instance& instance) {
  std::vector<vm::NpyArray> arrays = OutputBuffers(instance.signature());
  for (size_t k = 0; k < arrays.size(); ++k) {
    arrays[k].shape = instance.OutputShape(k);
    uint64_t bytes = DTypeSize(arrays[k].dtype);
    for (int64_t d : arrays[k].shape) bytes *= static_cast<uint64_t>(d);
    arrays[k].data.assign(bytes, 0);
  }
  return arrays;
}

void ShapeAfterRun(const vm::Instance& instance, size_t k, vm::NpyArray* output) {
  output->shape = instance.OutputShape(k);
  const uint64_t bytes =
      static_cast<uint64_t>(std::max<int64_t>(output->element_count(), 0)) * DTypeSize(output->dtype);
  if (bytes < output->data.size()) output->data.resize(bytes);
}

absl::Status ReserveFor(vm::Instance& instance, std::vector<vm::NpyArray>& inputs) {
  if (!instance.has_symbols()) return absl::OkStatus();
  return instance.Reserve(Views(inputs));
}

absl::Status RunGrowingOutputs(vm::Instance& instance, absl::Span<const vm::HostTensor> inputs,
                               std::vector<vm::NpyArray>* outputs,
                               std::vector<vm::HostTensor>* views) {
  *views = Views(*outputs);
  absl::Status s = vm::RunGrowing(instance, inputs, absl::MakeSpan(*views),
                                  [&](size_t k, uint64_t bytes) -> void* {
                                    try {
                                      (*outputs)[k].data.assign(bytes, 0);
                                    } catch (const std::bad_alloc&) {
                                      return nullptr;  // RunGrowing reports it
                                    }
                                    return (*outputs)[k].data.data();
                                  });
  *views = Views(*outputs);
  return s;
}

std::vector<vm::HostTensor> Views(std::vector<vm::NpyArray>& arrays) {
  std::vector<vm::HostTensor> views;
  for (vm::NpyArray& a : arrays) views.push_back({a.dtype, a.shape, a.data.data(), a.data.size()});
  return views;
}

}  // namespace kiln::tools
