#include "py_module.h"

#include <chrono>
#include <filesystem>

#include <pybind11/stl.h>

#include "absl/strings/str_cat.h"
#include "arrays.h"
#include "debug_results.h"
#include "status_errors.h"
#include "text.h"
#include "tools/commands.h"
#include "vm/dtype.h"
#include "vm/run_growing.h"
#include "vm/tools/debug_info.h"
#include "vm/tools/dispatch_timer.h"
#include "vm/tools/dump.h"
#include "vm/tools/trace_writer.h"

namespace kiln::python {
namespace py = pybind11;
namespace {

// Takes `mu` with the GIL released (see py_module.h), returns holding both.
std::unique_lock<std::mutex> LockWithoutGil(std::mutex& mu) {
  std::unique_lock<std::mutex> lock(mu, std::defer_lock);
  py::gil_scoped_release release;
  lock.lock();
  return lock;
}

// The limits `kiln run` puts on --threads and --repeat.
void CheckCounts(int threads, int repeat) {
  if (threads < 1 || threads > 256) {
    throw StatusError(absl::InvalidArgumentError(
        absl::StrCat("threads must be a whole number in 1..256, not ", threads)));
  }
  if (repeat < 1 || repeat > 1000000) {
    throw StatusError(absl::InvalidArgumentError(
        absl::StrCat("repeat must be a whole number in 1..1000000, not ", repeat)));
  }
}

// Output arrays sized for the inputs `instance` last bound, and views of them.
struct OutputArrays {
  std::vector<py::array> arrays;
  std::vector<std::vector<int64_t>> shapes;
  std::vector<vm::HostTensor> views;
};

OutputArrays NewOutputs(const vm::Instance& instance) {
  const fb::Signature& sig = instance.signature();
  OutputArrays out;
  out.shapes.resize(sig.outputs()->size());
  for (uint32_t k = 0; k < sig.outputs()->size(); ++k) {
    const fb::DType dtype = sig.outputs()->Get(k)->dtype();
    out.arrays.push_back(NewArray(dtype, instance.OutputShape(k)));
    out.views.push_back(OutputView(out.arrays.back(), dtype, &out.shapes[k]));
  }
  return out;
}

// Sizes found during the run without a bound: one untimed run (the GIL
// released) that grows the workspace and each output array the run asks
// for, as `kiln run` does before its timed runs. Other modules: nothing.
absl::Status GrowOutputs(vm::Instance& instance, absl::Span<const vm::HostTensor> in,
                         OutputArrays* outputs) {
  if (!instance.has_unbounded_sizes()) return absl::OkStatus();
  const fb::Signature& sig = instance.signature();
  py::gil_scoped_release release;
  return vm::RunGrowing(instance, in, absl::MakeSpan(outputs->views),
                        [&](size_t k, uint64_t bytes) -> void* {
                          py::gil_scoped_acquire acquire;
                          const fb::DType dtype = sig.outputs()->Get(static_cast<uint32_t>(k))->dtype();
                          const uint64_t item = DTypeSize(dtype);
                          try {
                            outputs->arrays[k] =
                                NewArray(dtype, {static_cast<int64_t>((bytes + item - 1) / item)});
                          } catch (const std::exception&) {
                            return nullptr;  // RunGrowing reports it
                          }
                          return outputs->arrays[k].mutable_data();
                        });
}

py::list TensorList(const flatbuffers::Vector<flatbuffers::Offset<fb::TensorDesc>>& descs) {
  py::list out;
  for (const fb::TensorDesc* t : descs) {
    py::list shape;
    for (uint32_t d = 0; d < t->shape()->size(); ++d) {
      const bool named = t->dim_symbols() != nullptr && d < t->dim_symbols()->size() &&
                         t->dim_symbols()->Get(d)->size() > 0;
      if (named) {
        shape.append(Text(t->dim_symbols()->Get(d)->str()));
      } else {
        shape.append(t->shape()->Get(d));
      }
    }
    py::dict tensor;
    tensor["name"] = Text(t->name() ? t->name()->str() : "");
    tensor["dtype"] = DTypeName(t->dtype());
    tensor["shape"] = shape;
    out.append(tensor);
  }
  return out;
}

}  // namespace

py::dict PyModule::Signature() const {
  const fb::Signature& sig = *image_->module().signature();
  py::dict out;
  out["inputs"] = TensorList(*sig.inputs());
  out["outputs"] = TensorList(*sig.outputs());
  return out;
}

vm::Instance& PyModule::InstanceFor(int threads) {
  std::unique_ptr<vm::Instance>& slot = instances_[threads];
  if (slot == nullptr) slot = ValueOrThrow(vm::Instance::Create(image_, threads));
  return *slot;
}

py::tuple PyModule::Run(const std::vector<py::array>& inputs, const RunOptions& options) {
  CheckCounts(options.threads, options.repeat);
  const fb::Signature& sig = *image_->module().signature();
  std::vector<std::vector<int64_t>> in_shapes;
  const std::vector<vm::HostTensor> in = InputViews(inputs, sig, &in_shapes);

  std::unique_lock<std::mutex> lock = LockWithoutGil(mu_);
  vm::Instance& instance = InstanceFor(options.threads);
  // Binds the symbols and sizes the workspace (its one allocation).
  ThrowIfError(instance.Reserve(in));
  OutputArrays outputs = NewOutputs(instance);
  ThrowIfError(GrowOutputs(instance, in, &outputs));
  const std::vector<vm::HostTensor>& out = outputs.views;

  std::vector<vm::DispatchInfo> dispatches;
  if (options.dump || options.check_nan || options.profile || !options.trace.empty()) {
    dispatches = ValueOrThrow(vm::DescribeDispatches(*image_));
  }
  std::unique_ptr<vm::DispatchTimer> timer;
  if (options.profile || !options.trace.empty()) {
    timer = std::make_unique<vm::DispatchTimer>(static_cast<uint32_t>(dispatches.size()),
                                                static_cast<uint32_t>(options.repeat));
  }
  absl::Status status;
  std::string non_finite;
  std::unique_ptr<vm::ValueRecorder> recorder;
  {
    py::gil_scoped_release release;
    for (int r = 0; r < options.repeat && status.ok(); ++r) {
      status = instance.Run(in, out, timer.get());
    }
    // The debugging runs follow the timed ones, as in `kiln run`.
    if (status.ok() && options.check_nan) {
      vm::NanChecker checker(&dispatches);
      const absl::Status s = instance.Run(in, out, &checker);
      if (!checker.status().ok()) {
        status = checker.status();
      } else if (checker.found()) {
        non_finite = absl::StrCat("check_nan: ", checker.message());
      } else {
        status = s;
      }
    }
    if (status.ok() && non_finite.empty() && options.dump) {
      recorder = std::make_unique<vm::ValueRecorder>(&dispatches);
      const absl::Status s = instance.Run(in, out, recorder.get());
      status = recorder->status().ok() ? s : recorder->status();
    }
  }
  ThrowIfError(status);
  if (!non_finite.empty()) throw NonFiniteError(non_finite);

  py::list results;
  for (uint32_t k = 0; k < sig.outputs()->size(); ++k) {
    // A length found only in the run (a result symbol) leaves the output
    // shorter than its bound-sized buffer: return what it holds.
    const std::vector<int64_t> shape = instance.OutputShape(k);
    const py::array& array = outputs.arrays[k];
    if (shape == outputs.shapes[k]) {
      results.append(array);
    } else {
      results.append(ArrayFromBytes(sig.outputs()->Get(k)->dtype(), shape,
                                    static_cast<const uint8_t*>(array.data()),
                                    static_cast<size_t>(array.nbytes())));
    }
  }
  py::object dump = py::none(), profile = py::none();
  if (recorder != nullptr) dump = DumpList(*recorder);
  if (timer != nullptr && options.profile) profile = ProfileList(dispatches, *timer);
  if (timer != nullptr && !options.trace.empty()) {
    const std::string name = std::filesystem::path(image_->origin()).filename().string();
    ThrowIfError(tools::WriteFileAtomically(options.trace,
                                            vm::ChromeTraceJson(name, dispatches, *timer)));
  }
  return py::make_tuple(results, dump, profile);
}

std::vector<double> PyModule::Time(const std::vector<py::array>& inputs, int warmup, int repeat,
                                   int threads) {
  CheckCounts(threads, repeat);
  if (warmup < 0 || warmup > 100000) {
    throw StatusError(absl::InvalidArgumentError(
        absl::StrCat("warmup must be a whole number in 0..100000, not ", warmup)));
  }
  const fb::Signature& sig = *image_->module().signature();
  std::vector<std::vector<int64_t>> in_shapes;
  const std::vector<vm::HostTensor> in = InputViews(inputs, sig, &in_shapes);
  std::unique_lock<std::mutex> lock = LockWithoutGil(mu_);
  vm::Instance& instance = InstanceFor(threads);
  ThrowIfError(instance.Reserve(in));
  OutputArrays outputs = NewOutputs(instance);
  ThrowIfError(GrowOutputs(instance, in, &outputs));
  const std::vector<vm::HostTensor>& out = outputs.views;
  std::vector<double> ms;
  ms.reserve(static_cast<size_t>(repeat));
  absl::Status status;
  {
    py::gil_scoped_release release;
    for (int k = 0; k < warmup + repeat && status.ok(); ++k) {
      const auto start = std::chrono::steady_clock::now();
      status = instance.Run(in, out);
      const auto end = std::chrono::steady_clock::now();
      if (k >= warmup) ms.push_back(std::chrono::duration<double, std::milli>(end - start).count());
    }
  }
  ThrowIfError(status);
  return ms;
}

}  // namespace kiln::python
