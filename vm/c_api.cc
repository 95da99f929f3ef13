// The C embedding API (vm/include/kiln/vm.h) over ModuleImage and Instance.
#include "kiln/vm.h"

#include <atomic>
#include <cmath>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "vm/dtype.h"
#include "vm/instance.h"
#include "vm/module_image.h"
#include "vm/module_verifier.h"
#include "vm/run_budget.h"

struct kiln_vm_error {
  kiln_vm_code code;
  std::string message;
};

struct kiln_vm_run_options {
  std::atomic<bool> cancel{false};
  kiln::vm::RunLimits limits;  // limits.cancel points at `cancel`
};

struct kiln_vm_module {
  std::shared_ptr<const kiln::vm::ModuleImage> image;
  std::vector<std::string> input_names, output_names;
  std::vector<std::vector<int64_t>> input_shapes, output_shapes;
};

struct kiln_vm_instance {
  std::shared_ptr<const kiln::vm::ModuleImage> image;
  std::unique_ptr<kiln::vm::Instance> instance;
  std::vector<const void*> inputs;
  std::vector<void*> outputs;
  // For modules with symbolic dims: the bound buffers' sizes, the input
  // shapes set by the caller and the output shapes they imply (sized once).
  std::vector<size_t> input_bytes, output_bytes;
  std::vector<std::vector<int64_t>> input_shapes, output_shapes;
  std::vector<kiln::vm::HostTensor> input_views, output_views;
};

namespace {

using kiln::fb::TensorDesc;

kiln_vm_error* MakeError(kiln_vm_code code, std::string message) {
  return new (std::nothrow) kiln_vm_error{code, std::move(message)};
}

kiln_vm_error* FromStatus(const absl::Status& s) {
  if (s.ok()) return nullptr;
  switch (kiln::vm::StopCode(s)) {
    case KILN_ERR_CANCELLED: return MakeError(KILN_VM_CANCELLED, std::string(s.message()));
    case KILN_ERR_DEADLINE: return MakeError(KILN_VM_DEADLINE_EXCEEDED, std::string(s.message()));
    case KILN_ERR_ITERATION_LIMIT:
      return MakeError(KILN_VM_ITERATION_LIMIT, std::string(s.message()));
    default: break;
  }
  kiln_vm_code code = KILN_VM_INTERNAL;
  switch (s.code()) {
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kOutOfRange:
    case absl::StatusCode::kUnimplemented:
    case absl::StatusCode::kDataLoss: code = KILN_VM_INVALID_ARGUMENT; break;
    case absl::StatusCode::kNotFound: code = KILN_VM_NOT_FOUND; break;
    case absl::StatusCode::kFailedPrecondition: code = KILN_VM_FAILED_PRECONDITION; break;
    case absl::StatusCode::kResourceExhausted: code = KILN_VM_RESOURCE_EXHAUSTED; break;
    default: break;
  }
  return MakeError(code, std::string(s.message()));
}

kiln_vm_error* Wrap(std::shared_ptr<const kiln::vm::ModuleImage> image, kiln_vm_module** out) {
  auto* m = new (std::nothrow) kiln_vm_module();
  if (m == nullptr) return MakeError(KILN_VM_RESOURCE_EXHAUSTED, "out of memory");
  m->image = std::move(image);
  const kiln::fb::Signature& sig = *m->image->module().signature();
  for (const TensorDesc* t : *sig.inputs()) {
    m->input_names.push_back(t->name() ? t->name()->str() : "");
    m->input_shapes.emplace_back(t->shape()->begin(), t->shape()->end());
  }
  for (const TensorDesc* t : *sig.outputs()) {
    m->output_names.push_back(t->name() ? t->name()->str() : "");
    m->output_shapes.emplace_back(t->shape()->begin(), t->shape()->end());
  }
  *out = m;
  return nullptr;
}

kiln_vm_error* Info(const kiln_vm_module* module, size_t index, bool input,
                    kiln_vm_tensor_info* out) {
  if (module == nullptr || out == nullptr) {
    return MakeError(KILN_VM_INVALID_ARGUMENT, "null module or info pointer");
  }
  const kiln::fb::Signature& sig = *module->image->module().signature();
  const auto& list = input ? *sig.inputs() : *sig.outputs();
  if (index >= list.size()) {
    return MakeError(KILN_VM_INVALID_ARGUMENT,
                     absl::StrCat(input ? "input" : "output", " index ", index,
                                  " is out of range: the module has ", list.size()));
  }
  const TensorDesc& t = *list.Get(static_cast<uint32_t>(index));
  const auto& names = input ? module->input_names : module->output_names;
  const auto& shapes = input ? module->input_shapes : module->output_shapes;
  out->name = names[index].c_str();
  out->dtype = static_cast<kiln_vm_dtype>(t.dtype());
  out->rank = shapes[index].size();
  out->shape = shapes[index].data();
  size_t elements = 1;
  for (int64_t d : shapes[index]) elements *= d < 0 ? 1 : static_cast<size_t>(d);  // -1: symbolic
  out->element_count = elements;
  out->byte_size = kiln::vm::TensorDescBytes(t);
  return nullptr;
}

kiln_vm_error* Find(const std::vector<std::string>& names, const char* name, const char* kind,
                    size_t* out) {
  if (name == nullptr || out == nullptr) return MakeError(KILN_VM_INVALID_ARGUMENT, "null argument");
  for (size_t k = 0; k < names.size(); ++k) {
    if (names[k] == name) {
      *out = k;
      return nullptr;
    }
  }
  return MakeError(KILN_VM_NOT_FOUND, absl::StrCat("the module has no ", kind, " named '", name, "'"));
}

kiln_vm_error* Bind(kiln_vm_instance* instance, size_t index, void* data, size_t bytes,
                    bool input) {
  if (instance == nullptr) return MakeError(KILN_VM_INVALID_ARGUMENT, "null instance");
  const kiln::fb::Signature& sig = *instance->image->module().signature();
  const auto& list = input ? *sig.inputs() : *sig.outputs();
  const char* kind = input ? "input" : "output";
  if (index >= list.size()) {
    return MakeError(KILN_VM_INVALID_ARGUMENT, absl::StrCat(kind, " index ", index,
                                                            " is out of range: the module has ",
                                                            list.size()));
  }
  const TensorDesc& t = *list.Get(static_cast<uint32_t>(index));
  const std::string where =
      absl::StrCat(kind, " ", index, " ('", t.name() ? t.name()->str() : "", "')");
  if (data == nullptr) return MakeError(KILN_VM_INVALID_ARGUMENT, where + ": null buffer");
  // An output with sizes found during the run takes any buffer; the run
  // checks it (KILN_VM_BUFFER_TOO_SMALL).
  const bool grows = !input && instance->instance->output_grows(index);
  if (!grows && bytes < kiln::vm::TensorDescBytes(t)) {
    return MakeError(KILN_VM_INVALID_ARGUMENT,
                     absl::StrCat(where, ": buffer holds ", bytes, " bytes; the module needs ",
                                  kiln::vm::TensorDescBytes(t)));
  }
  const size_t align = kiln::DTypeSize(t.dtype());
  if (align > 1 && reinterpret_cast<uintptr_t>(data) % align != 0) {
    return MakeError(KILN_VM_INVALID_ARGUMENT,
                     absl::StrCat(where, ": buffer is not aligned to ", align, " bytes"));
  }
  if (input) {
    instance->inputs[index] = data;
    instance->input_bytes[index] = bytes;
  } else {
    instance->outputs[index] = data;
    instance->output_bytes[index] = bytes;
  }
  return nullptr;
}

// The bound inputs as the C++ API sees them (shapes as set), allocating
// nothing: the views were sized at instance creation.
kiln_vm_error* InputViews(kiln_vm_instance* instance) {
  const kiln::fb::Signature& sig = *instance->image->module().signature();
  for (size_t k = 0; k < instance->inputs.size(); ++k) {
    if (instance->inputs[k] == nullptr) {
      return MakeError(KILN_VM_FAILED_PRECONDITION, absl::StrCat("input ", k, " is not bound"));
    }
    instance->input_views[k] = {sig.inputs()->Get(static_cast<uint32_t>(k))->dtype(),
                                instance->input_shapes[k], const_cast<void*>(instance->inputs[k]),
                                instance->input_bytes[k]};
  }
  return nullptr;
}

}  // namespace

extern "C" {

kiln_vm_code kiln_vm_error_code(const kiln_vm_error* error) {
  return error ? error->code : KILN_VM_OK;
}
const char* kiln_vm_error_message(const kiln_vm_error* error) {
  return error ? error->message.c_str() : "ok";
}
void kiln_vm_error_free(kiln_vm_error* error) { delete error; }

kiln_vm_error* kiln_vm_module_load_file(const char* path, kiln_vm_module** out_module) {
  if (path == nullptr || out_module == nullptr) {
    return MakeError(KILN_VM_INVALID_ARGUMENT, "null path or output pointer");
  }
  *out_module = nullptr;
  auto image = kiln::vm::ModuleImage::LoadFile(path);
  if (!image.ok()) return FromStatus(image.status());
  return Wrap(std::move(*image), out_module);
}

kiln_vm_error* kiln_vm_module_load_memory(const void* data, size_t size,
                                          kiln_vm_module** out_module) {
  if (data == nullptr || out_module == nullptr) {
    return MakeError(KILN_VM_INVALID_ARGUMENT, "null data or output pointer");
  }
  *out_module = nullptr;
  auto image = kiln::vm::ModuleImage::LoadBytes(data, size, "<memory>");
  if (!image.ok()) return FromStatus(image.status());
  return Wrap(std::move(*image), out_module);
}

void kiln_vm_module_release(kiln_vm_module* module) { delete module; }

size_t kiln_vm_module_input_count(const kiln_vm_module* module) {
  return module ? module->input_names.size() : 0;
}
size_t kiln_vm_module_output_count(const kiln_vm_module* module) {
  return module ? module->output_names.size() : 0;
}
kiln_vm_error* kiln_vm_module_input_info(const kiln_vm_module* module, size_t index,
                                         kiln_vm_tensor_info* out_info) {
  return Info(module, index, true, out_info);
}
kiln_vm_error* kiln_vm_module_output_info(const kiln_vm_module* module, size_t index,
                                          kiln_vm_tensor_info* out_info) {
  return Info(module, index, false, out_info);
}
kiln_vm_error* kiln_vm_module_find_input(const kiln_vm_module* module, const char* name,
                                         size_t* out_index) {
  if (module == nullptr) return MakeError(KILN_VM_INVALID_ARGUMENT, "null module");
  return Find(module->input_names, name, "input", out_index);
}
kiln_vm_error* kiln_vm_module_find_output(const kiln_vm_module* module, const char* name,
                                          size_t* out_index) {
  if (module == nullptr) return MakeError(KILN_VM_INVALID_ARGUMENT, "null module");
  return Find(module->output_names, name, "output", out_index);
}
uint64_t kiln_vm_module_arena_bytes(const kiln_vm_module* module) {
  return module ? module->image->module().memory()->arena_size() : 0;
}

kiln_vm_error* kiln_vm_instance_create(const kiln_vm_module* module,
                                       kiln_vm_instance** out_instance) {
  if (module == nullptr || out_instance == nullptr) {
    return MakeError(KILN_VM_INVALID_ARGUMENT, "null module or output pointer");
  }
  *out_instance = nullptr;
  auto instance = kiln::vm::Instance::Create(module->image);
  if (!instance.ok()) return FromStatus(instance.status());
  auto* h = new (std::nothrow) kiln_vm_instance();
  if (h == nullptr) return MakeError(KILN_VM_RESOURCE_EXHAUSTED, "out of memory");
  h->image = module->image;
  h->instance = std::move(*instance);
  h->inputs.assign(module->input_names.size(), nullptr);
  h->outputs.assign(module->output_names.size(), nullptr);
  h->input_bytes.assign(module->input_names.size(), 0);
  h->output_bytes.assign(module->output_names.size(), 0);
  h->input_shapes = module->input_shapes;    // symbolic dims stay -1 until set
  h->output_shapes = module->output_shapes;
  h->input_views.resize(module->input_names.size());
  h->output_views.resize(module->output_names.size());
  *out_instance = h;
  return nullptr;
}

void kiln_vm_instance_release(kiln_vm_instance* instance) { delete instance; }

kiln_vm_error* kiln_vm_instance_bind_input(kiln_vm_instance* instance, size_t index,
                                           const void* data, size_t byte_size) {
  return Bind(instance, index, const_cast<void*>(data), byte_size, true);
}

kiln_vm_error* kiln_vm_instance_bind_output(kiln_vm_instance* instance, size_t index, void* data,
                                            size_t byte_size) {
  return Bind(instance, index, data, byte_size, false);
}

kiln_vm_error* kiln_vm_instance_run(kiln_vm_instance* instance) {
  return kiln_vm_instance_run_with_options(instance, nullptr);
}

kiln_vm_error* kiln_vm_run_options_create(kiln_vm_run_options** out_options) {
  if (out_options == nullptr) return MakeError(KILN_VM_INVALID_ARGUMENT, "null output pointer");
  *out_options = new (std::nothrow) kiln_vm_run_options();
  if (*out_options == nullptr) return MakeError(KILN_VM_RESOURCE_EXHAUSTED, "out of memory");
  (*out_options)->limits.cancel = &(*out_options)->cancel;
  return nullptr;
}

void kiln_vm_run_options_release(kiln_vm_run_options* options) { delete options; }

kiln_vm_error* kiln_vm_run_options_set_timeout(kiln_vm_run_options* options, double seconds) {
  if (options == nullptr) return MakeError(KILN_VM_INVALID_ARGUMENT, "null run options");
  if (!(seconds >= 0 && seconds <= 1e9)) {  // also refuses NaN
    return MakeError(KILN_VM_INVALID_ARGUMENT,
                     absl::StrCat("timeout ", seconds, " s is not in 0..1e9 seconds"));
  }
  options->limits.timeout = std::chrono::nanoseconds(static_cast<int64_t>(std::ceil(seconds * 1e9)));
  return nullptr;
}

kiln_vm_error* kiln_vm_run_options_set_max_iterations(kiln_vm_run_options* options, uint64_t n) {
  if (options == nullptr) return MakeError(KILN_VM_INVALID_ARGUMENT, "null run options");
  options->limits.max_iterations = n;
  return nullptr;
}

void kiln_vm_run_options_cancel(kiln_vm_run_options* options) {
  if (options != nullptr) options->cancel.store(true, std::memory_order_relaxed);
}

void kiln_vm_run_options_clear_cancel(kiln_vm_run_options* options) {
  if (options != nullptr) options->cancel.store(false, std::memory_order_relaxed);
}

kiln_vm_error* kiln_vm_instance_run_with_options(kiln_vm_instance* instance,
                                                 const kiln_vm_run_options* options) {
  if (instance == nullptr) return MakeError(KILN_VM_INVALID_ARGUMENT, "null instance");
  const kiln::vm::RunLimits limits = options != nullptr ? options->limits : kiln::vm::RunLimits();
  for (size_t k = 0; k < instance->inputs.size(); ++k) {
    if (instance->inputs[k] == nullptr) {
      return MakeError(KILN_VM_FAILED_PRECONDITION, absl::StrCat("input ", k, " is not bound"));
    }
  }
  for (size_t k = 0; k < instance->outputs.size(); ++k) {
    if (instance->outputs[k] == nullptr) {
      return MakeError(KILN_VM_FAILED_PRECONDITION, absl::StrCat("output ", k, " is not bound"));
    }
  }
  kiln::vm::Instance& vm = *instance->instance;
  if (!vm.has_symbols() && !vm.has_unbounded_sizes()) {
    return FromStatus(vm.RunUnchecked(instance->inputs.data(), instance->outputs.data(), limits));
  }
  // Symbolic dims: the inputs' shapes bind them; the workspace must have
  // been reserved (kiln_vm_instance_reserve) for shapes at least this large.
  // Sizes found during the run: the run checks each buffer as it meets it.
  if (kiln_vm_error* e = InputViews(instance)) return e;
  if (kiln_vm_error* e = FromStatus(instance->instance->BindInputs(instance->input_views))) {
    return e;
  }
  const kiln::fb::Signature& sig = *instance->image->module().signature();
  for (size_t k = 0; k < instance->outputs.size(); ++k) {
    instance->instance->OutputShapeInto(k, instance->output_shapes[k].data());
    instance->output_views[k] = {sig.outputs()->Get(static_cast<uint32_t>(k))->dtype(),
                                 instance->output_shapes[k], instance->outputs[k],
                                 instance->output_bytes[k]};
  }
  const absl::Status s = vm.Run(instance->input_views, instance->output_views, nullptr, limits);
  if (!s.ok() && vm.shortfall()) {
    return MakeError(KILN_VM_BUFFER_TOO_SMALL, std::string(s.message()));
  }
  return FromStatus(s);
}

kiln_vm_error* kiln_vm_instance_shortfall(const kiln_vm_instance* instance, int64_t* output,
                                          uint64_t* bytes) {
  if (instance == nullptr || output == nullptr || bytes == nullptr) {
    return MakeError(KILN_VM_INVALID_ARGUMENT, "null instance or output pointer");
  }
  const auto& need = instance->instance->shortfall();
  if (!need) {
    return MakeError(KILN_VM_FAILED_PRECONDITION,
                     "the last run did not stop for a buffer too small (no shortfall to report)");
  }
  *output = need->output;
  *bytes = need->bytes;
  return nullptr;
}

kiln_vm_error* kiln_vm_instance_reserve_workspace(kiln_vm_instance* instance, uint64_t bytes) {
  if (instance == nullptr) return MakeError(KILN_VM_INVALID_ARGUMENT, "null instance");
  return FromStatus(instance->instance->ReserveWorkspace(bytes));
}

kiln_vm_error* kiln_vm_instance_set_input_shape(kiln_vm_instance* instance, size_t index,
                                                const int64_t* shape, size_t rank) {
  if (instance == nullptr || (shape == nullptr && rank > 0)) {
    return MakeError(KILN_VM_INVALID_ARGUMENT, "null instance or shape");
  }
  if (index >= instance->input_shapes.size()) {
    return MakeError(KILN_VM_INVALID_ARGUMENT,
                     absl::StrCat("input index ", index, " is out of range: the module has ",
                                  instance->input_shapes.size()));
  }
  if (rank != instance->input_shapes[index].size()) {
    return MakeError(KILN_VM_INVALID_ARGUMENT,
                     absl::StrCat("input ", index, " has rank ", instance->input_shapes[index].size(),
                                  "; got a shape of rank ", rank));
  }
  std::copy(shape, shape + rank, instance->input_shapes[index].begin());
  return nullptr;
}

kiln_vm_error* kiln_vm_instance_reserve(kiln_vm_instance* instance) {
  if (instance == nullptr) return MakeError(KILN_VM_INVALID_ARGUMENT, "null instance");
  if (!instance->instance->has_symbols()) return nullptr;  // the arena is already there
  if (kiln_vm_error* e = InputViews(instance)) return e;
  return FromStatus(instance->instance->Reserve(instance->input_views));
}

kiln_vm_error* kiln_vm_instance_output_shape(kiln_vm_instance* instance, size_t index,
                                             int64_t* dims, size_t capacity, size_t* rank) {
  if (instance == nullptr || rank == nullptr) {
    return MakeError(KILN_VM_INVALID_ARGUMENT, "null instance or rank pointer");
  }
  if (index >= instance->output_shapes.size()) {
    return MakeError(KILN_VM_INVALID_ARGUMENT,
                     absl::StrCat("output index ", index, " is out of range: the module has ",
                                  instance->output_shapes.size()));
  }
  *rank = instance->output_shapes[index].size();
  if (capacity < *rank || (dims == nullptr && *rank > 0)) {
    return MakeError(KILN_VM_INVALID_ARGUMENT,
                     absl::StrCat("output ", index, " has rank ", *rank, "; room for ", capacity));
  }
  instance->instance->OutputShapeInto(index, dims);
  return nullptr;
}

const char* kiln_vm_dtype_name(kiln_vm_dtype dtype) {
  return kiln::DTypeName(static_cast<kiln::fb::DType>(dtype));
}

}  // extern "C"
