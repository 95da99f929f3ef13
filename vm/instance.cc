#include "vm/instance.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kiln/dtype.h"
#include "vm/kernel_registry.h"
#include "vm/module_verifier.h"

namespace kiln::vm {
namespace {

std::string ShapeString(absl::Span<const int64_t> shape) {
  return absl::StrCat("[", absl::StrJoin(shape, ","), "]");
}

absl::Status CheckBinding(const fb::TensorDesc& desc, const HostTensor& t, const char* kind,
                          size_t index) {
  std::string name = desc.name() ? desc.name()->str() : "";
  std::string where = absl::StrCat(kind, " ", index, " ('", name, "')");
  absl::Span<const int64_t> want(desc.shape()->data(), desc.shape()->size());
  if (t.dtype != desc.dtype()) {
    return absl::InvalidArgumentError(absl::StrCat(where, " has dtype ", DTypeName(t.dtype),
                                                   "; the module expects ",
                                                   DTypeName(desc.dtype())));
  }
  if (t.shape != want) {
    return absl::InvalidArgumentError(absl::StrCat(where, " has shape ", ShapeString(t.shape),
                                                   "; the module expects ", ShapeString(want)));
  }
  const uint64_t need = TensorDescBytes(desc);
  if ((need > 0 && t.data == nullptr) || t.bytes < need) {
    return absl::InvalidArgumentError(absl::StrCat(where, " buffer holds ", t.bytes,
                                                   " bytes; the module needs ",
                                                   TensorDescBytes(desc)));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<Instance>> Instance::Create(
    std::shared_ptr<const ModuleImage> image, int threads) {
  std::unique_ptr<Instance> instance(new Instance(std::move(image)));
  if (threads < 1 || threads > 256) {
    return absl::InvalidArgumentError(absl::StrCat("thread count ", threads, " is not in 1..256"));
  }
  if (threads > 1) instance->pool_ = std::make_unique<ThreadPool>(threads);
  const fb::Module& module = instance->image_->module();
  uint32_t max_bindings = 1;
  if (module.executables() != nullptr) {
    for (const fb::Executable* e : *module.executables()) {
      const KernelInfo* kernel = FindKernel(e->kernel()->string_view());  // verified to exist
      static const int64_t kNoInts[1] = {0};
      static const float kNoFloats[1] = {0};
      instance->executables_.push_back(
          {kernel->fn, e->iparams() && e->iparams()->size() ? e->iparams()->data() : kNoInts,
           e->fparams() && e->fparams()->size() ? e->fparams()->data() : kNoFloats});
      max_bindings = std::max(max_bindings, e->binding_count());
    }
  }
  if (module.constants() != nullptr) {
    for (uint32_t i = 0; i < module.constants()->size(); ++i) {
      instance->constants_.push_back(instance->image_->ConstantData(i));
    }
  }
  instance->registers_.assign(module.functions()->Get(0)->register_count() + 1, nullptr);
  instance->bindings_.assign(max_bindings, nullptr);
  const fb::MemoryPlan& plan = *module.memory();
  instance->arena_size_ = plan.arena_size();
  uint64_t align = std::max<uint64_t>(plan.arena_alignment(), 64);
  uint64_t rounded = (plan.arena_size() + align - 1) / align * align;
  instance->arena_ = static_cast<uint8_t*>(std::aligned_alloc(align, rounded ? rounded : align));
  if (instance->arena_ == nullptr) {
    return absl::ResourceExhaustedError(absl::StrCat("cannot allocate the ", plan.arena_size(),
                                                     "-byte arena"));
  }
  return instance;
}

Instance::~Instance() { std::free(arena_); }

absl::Status Instance::Run(absl::Span<const HostTensor> inputs,
                           absl::Span<const HostTensor> outputs, DispatchObserver* observer) {
  const fb::Signature& sig = signature();
  if (inputs.size() != sig.inputs()->size() || outputs.size() != sig.outputs()->size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the module takes ", sig.inputs()->size(), " inputs and ", sig.outputs()->size(),
        " outputs; got ", inputs.size(), " and ", outputs.size()));
  }
  // Fixed-size pointer tables keep the run path free of heap allocation.
  constexpr size_t kMaxIo = 64;
  if (inputs.size() > kMaxIo || outputs.size() > kMaxIo) {
    return absl::InvalidArgumentError("more than 64 inputs or outputs");
  }
  const void* in[kMaxIo];
  void* out[kMaxIo];
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (absl::Status s = CheckBinding(*sig.inputs()->Get(i), inputs[i], "input", i); !s.ok()) {
      return s;
    }
    in[i] = inputs[i].data;
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (absl::Status s = CheckBinding(*sig.outputs()->Get(i), outputs[i], "output", i);
        !s.ok()) {
      return s;
    }
    out[i] = outputs[i].data;
  }
  if (observer != nullptr) return RunObserved(in, out, *observer);
  return RunUnchecked(in, out);
}

InterpreterFrame Instance::Frame(const void* const* inputs, void* const* outputs) {
  InterpreterFrame frame;
  frame.code = image_->module().functions()->Get(0)->bytecode()->data();
  frame.executables = executables_.data();
  frame.constants = constants_.data();
  frame.inputs = inputs;
  frame.outputs = outputs;
  frame.arena = arena_;
  frame.registers = registers_.data();
  frame.bindings = bindings_.data();
  frame.host = pool_ ? pool_->host() : nullptr;
  return frame;
}

absl::Status Instance::RunUnchecked(const void* const* inputs, void* const* outputs) {
  const InterpreterFrame frame = Frame(inputs, outputs);
  uint32_t failed_pc = 0;
  int rc = Interpret(frame, &failed_pc);
  if (rc != KILN_OK) return DispatchError(failed_pc, rc);
  return absl::OkStatus();
}

absl::Status Instance::RunObserved(const void* const* inputs, void* const* outputs,
                                   DispatchObserver& observer) {
  const InterpreterFrame frame = Frame(inputs, outputs);
  uint32_t failed_pc = 0;
  observer.BeginRun();
  int rc = InterpretObserved(frame, &failed_pc, observer);
  observer.EndRun();
  if (rc == kInterpretStopped) {
    return absl::AbortedError(absl::StrCat("module '", image_->origin(), "' +", failed_pc,
                                           ": run stopped by the observer"));
  }
  if (rc != KILN_OK) return DispatchError(failed_pc, rc);
  return absl::OkStatus();
}

absl::Status Instance::DispatchError(uint32_t pc, int code) const {
  std::string nodes;
  const fb::DebugInfo* debug = image_->module().debug();
  if (debug != nullptr && debug->dispatches() != nullptr) {
    for (const fb::DispatchDebug* d : *debug->dispatches()) {
      if (d->bytecode_offset() == pc && d->nodes() != nullptr) {
        std::vector<std::string> names;
        for (const auto* n : *d->nodes()) names.push_back(n->str());
        nodes = absl::StrCat(" (ONNX nodes: ", absl::StrJoin(names, ", "), ")");
      }
    }
  }
  return absl::InternalError(absl::StrCat("module '", image_->origin(), "' +", pc,
                                          ": kernel returned error code ", code, nodes));
}

}  // namespace kiln::vm
