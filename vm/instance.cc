#include "vm/instance.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kiln/dynamic_ops.h"
#include "kiln/limits.h"
#include "kiln/opcodes.h"
#include "vm/bytecode.h"
#include "vm/disassembler.h"
#include "vm/dtype.h"
#include "vm/kernel_registry.h"
#include "vm/module_verifier.h"

namespace kiln::vm {
namespace {

// A result symbol the compiler found no bound for (ir::kNoBound).
bool UnboundedResult(int64_t bound) { return bound == std::numeric_limits<int64_t>::max(); }

std::string ShapeString(absl::Span<const int64_t> shape) {
  return absl::StrCat("[", absl::StrJoin(shape, ","), "]");
}

// Per dim of `desc`: the ordinal of the symbol it names, or -1 when static.
std::vector<int32_t> DimSymbols(const fb::Module& module, const fb::TensorDesc& desc) {
  std::vector<int32_t> out(desc.shape()->size(), -1);
  if (desc.dim_symbols() == nullptr || module.symbols() == nullptr) return out;
  for (uint32_t d = 0; d < out.size(); ++d) {
    for (uint32_t k = 0; k < module.symbols()->size(); ++k) {
      if (desc.dim_symbols()->Get(d)->string_view() == module.symbols()->Get(k)->string_view() &&
          desc.dim_symbols()->Get(d)->size() > 0) {
        out[d] = static_cast<int32_t>(k);
      }
    }
  }
  return out;
}

uint32_t results_size(const fb::Module& m) {
  return m.result_symbols() ? m.result_symbols()->size() : 0;
}

// "" for the entry function, "function 2 " for the others.
std::string FunctionPrefix(uint32_t function) {
  return function == 0 ? std::string() : absl::StrCat("function ", function, " ");
}

}  // namespace

absl::StatusOr<std::unique_ptr<Instance>> Instance::Create(
    std::shared_ptr<const ModuleImage> image, int threads, std::string_view kernel_path) {
  std::unique_ptr<Instance> instance(new Instance(std::move(image)));
  if (threads < 1 || threads > 256) {
    return absl::InvalidArgumentError(absl::StrCat("thread count ", threads, " is not in 1..256"));
  }
  absl::StatusOr<KernelPath> path = ChooseKernelPath(kernel_path);
  if (!path.ok()) return path.status();
  instance->kernel_path_ = *path;
  const int path_index = static_cast<int>(*path);
  if (threads > 1) instance->pool_ = std::make_unique<ThreadPool>(threads);
  const fb::Module& module = instance->image_->module();
  uint32_t max_bindings = 1;
  if (module.executables() != nullptr) {
    for (const fb::Executable* e : *module.executables()) {
      const KernelInfo* kernel = FindKernel(e->kernel()->string_view());  // verified to exist
      static const int64_t kNoInts[1] = {0};
      static const float kNoFloats[1] = {0};
      const uint32_t n_iparams = e->iparams() ? e->iparams()->size() : 0;
      instance->executables_.push_back(
          {kernel->fn[path_index], n_iparams ? e->iparams()->data() : kNoInts,
           e->fparams() && e->fparams()->size() ? e->fparams()->data() : kNoFloats,
           kernel->check, n_iparams, e->fparams() ? e->fparams()->size() : 0, kernel->writes,
           e->binding_bytes()->data()});
      max_bindings = std::max(max_bindings, e->binding_count());
    }
  }
  if (module.constants() != nullptr) {
    for (uint32_t i = 0; i < module.constants()->size(); ++i) {
      instance->constants_.push_back(instance->image_->ConstantData(i));
      instance->constant_bytes_.push_back(module.constants()->Get(i)->size());
    }
  }
  const fb::Function& entry = *module.functions()->Get(0);
  // Each function's registers, after the previous function's.
  size_t register_total = 0;
  for (const fb::Function* f : *module.functions()) register_total += f->register_count() + 1;
  instance->registers_.assign(register_total, nullptr);
  instance->register_bytes_.assign(register_total, 0);
  // Integer registers likewise, the entry's first (at offset 0, where
  // EvaluateIntegers and the observers read them), one spare slot at the end.
  size_t int_register_total = 1;
  for (const fb::Function* f : *module.functions()) int_register_total += f->int_register_count();
  instance->int_registers_.assign(int_register_total, 0);
  instance->int_unknown_.assign(entry.int_register_count() + 1, 0);
  uint32_t dispatch_base = 0;
  size_t register_base = 0, int_register_base = 0;
  // Scratch for the largest parameter list a DISPATCH_DYN patches.
  uint32_t max_patched = 1;
  for (const fb::Function* f : *module.functions()) {
    InterpreterFunction function = {f->bytecode()->data(),
                                    instance->registers_.data() + register_base,
                                    instance->register_bytes_.data() + register_base,
                                    dispatch_base,
                                    instance->int_registers_.data() + int_register_base,
                                    false,
                                    f->int_register_count()};
    register_base += f->register_count() + 1;
    int_register_base += f->int_register_count();
    for (uint32_t pc = 0; pc < f->bytecode()->size();) {
      const Instruction inst = DecodeVerified(f->bytecode()->data(), pc);
      if (inst.opcode == KILN_OP_DISPATCH || inst.opcode == KILN_OP_DISPATCH_DYN) ++dispatch_base;
      function.dynamic |= kiln_opcode_is_dynamic(inst.opcode) != 0;
      if (inst.opcode == KILN_OP_DISPATCH_DYN) {
        max_patched = std::max(max_patched, instance->executables_[inst.operands[0]].iparam_count);
      }
      pc += inst.length;
    }
    instance->functions_.push_back(function);
  }
  instance->dynamic_code_ = instance->functions_[0].dynamic;
  instance->bindings_.assign(max_bindings, nullptr);
  instance->binding_bytes_.assign(max_bindings, 0);
  instance->iparam_scratch_.assign(max_patched, 0);
  const fb::Signature& sig = *module.signature();
  for (const fb::TensorDesc* d : *sig.inputs()) {
    instance->input_view_bytes_.push_back(TensorDescBytes(*d));
    instance->input_dim_symbols_.push_back(DimSymbols(module, *d));
  }
  for (const fb::TensorDesc* d : *sig.outputs()) {
    instance->output_view_bytes_.push_back(TensorDescBytes(*d));
    instance->output_dim_symbols_.push_back(DimSymbols(module, *d));
    std::vector<int32_t> registers(d->shape()->size(), -1);
    for (uint32_t k = 0; d->dim_registers() != nullptr && k < registers.size(); ++k) {
      registers[k] = d->dim_registers()->Get(k);
    }
    instance->output_dim_registers_.push_back(std::move(registers));
  }
  instance->input_capacity_.assign(sig.inputs()->size() + 1, 0);
  instance->output_capacity_.assign(sig.outputs()->size() + 1, 0);
  instance->symbols_.assign(module.symbols() ? module.symbols()->size() : 0, 1);
  if (module.result_symbols() != nullptr) {
    for (const fb::ResultSymbol* r : *module.result_symbols()) {
      instance->results_.push_back({r->arena_offset(), r->bound()});
      instance->result_values_.push_back(UnboundedResult(r->bound()) ? 0 : r->bound());
      instance->has_unbounded_sizes_ |= UnboundedResult(r->bound());
    }
  }
  for (const fb::TensorDesc* d : *sig.outputs()) {
    std::vector<int32_t> dims(d->shape()->size(), -1);
    for (uint32_t k = 0; d->dim_symbols() != nullptr && k < dims.size(); ++k) {
      for (uint32_t r = 0; module.result_symbols() != nullptr && r < results_size(module); ++r) {
        if (d->dim_symbols()->Get(k)->string_view() ==
            module.result_symbols()->Get(r)->name()->string_view()) {
          dims[k] = static_cast<int32_t>(r);
        }
      }
    }
    instance->output_result_dims_.push_back(std::move(dims));
  }
  instance->result_sizes_output_.assign(instance->results_.size(), 0);
  for (const std::vector<int32_t>& dims : instance->output_result_dims_) {
    uint8_t unbounded = 0;
    for (int32_t r : dims) {
      if (r < 0) continue;
      instance->result_sizes_output_[static_cast<size_t>(r)] = 1;
      unbounded |= UnboundedResult(instance->results_[static_cast<size_t>(r)].bound) ? 1 : 0;
    }
    instance->output_unbounded_.push_back(unbounded);
  }
  if (absl::Status s = instance->GrowArena(module.memory()->arena_size()); !s.ok()) return s;
  return instance;
}

Instance::~Instance() = default;

absl::Status Instance::GrowArena(uint64_t bytes) {
  if (arena_.data() != nullptr && bytes <= arena_capacity_) return absl::OkStatus();
  const fb::MemoryPlan& plan = *image_->module().memory();
  const uint64_t align = std::max<uint64_t>(plan.arena_alignment(), 64);
  if (bytes > (uint64_t{1} << 40)) {
    return absl::ResourceExhaustedError(absl::StrCat("a ", bytes, "-byte workspace is too large"));
  }
  LargeBuffer arena = LargeBuffer::Allocate(bytes, align);
  if (arena.data() == nullptr) {
    return absl::ResourceExhaustedError(absl::StrCat("cannot allocate the ", bytes,
                                                     "-byte arena"));
  }
  arena_ = std::move(arena);
  arena_capacity_ = bytes;
  return absl::OkStatus();
}

absl::Status Instance::CheckBuffer(const fb::TensorDesc& desc, const HostTensor& t,
                                   const char* kind, size_t index,
                                   const std::vector<int32_t>& dim_symbols,
                                   const std::vector<int32_t>* dim_registers) const {
  // Messages are built only on failure: a passing check allocates nothing.
  auto where = [&] {
    return absl::StrCat(kind, " ", index, " ('", desc.name() ? desc.name()->str() : "", "')");
  };
  if (t.dtype != desc.dtype()) {
    return absl::InvalidArgumentError(absl::StrCat(where(), " has dtype ", DTypeName(t.dtype),
                                                   "; the module expects ",
                                                   DTypeName(desc.dtype())));
  }
  // The expected shape with this run's symbol values (a fixed-size copy: no heap).
  int64_t want_dims[KILN_MAX_RANK] = {0};
  const size_t rank = desc.shape()->size();
  uint64_t need = DTypeSize(desc.dtype());
  bool too_big = false;
  for (size_t d = 0; d < rank; ++d) {
    const int32_t reg = dim_registers != nullptr ? (*dim_registers)[d] : -1;
    want_dims[d] = reg >= 0                ? int_registers_[reg]
                   : dim_symbols[d] >= 0 ? symbols_[dim_symbols[d]]
                                         : desc.shape()->Get(d);
    too_big |= __builtin_mul_overflow(need, static_cast<uint64_t>(want_dims[d]), &need);
  }
  absl::Span<const int64_t> want(want_dims, rank);
  if (too_big) {
    return absl::InvalidArgumentError(absl::StrCat(where(), " would have shape ",
                                                   ShapeString(want), ", beyond 2^64 bytes"));
  }
  if (t.shape != want) {
    return absl::InvalidArgumentError(absl::StrCat(where(), " has shape ", ShapeString(t.shape),
                                                   "; the module expects ", ShapeString(want)));
  }
  // Dims reported during the run may have fewer bytes than their bounds.
  if (desc.capacity_bytes() != 0 && desc.capacity_bytes() < need) need = desc.capacity_bytes();
  if ((need > 0 && t.data == nullptr) || t.bytes < need) {
    return absl::InvalidArgumentError(absl::StrCat(where(), " buffer holds ", t.bytes,
                                                   " bytes; the module needs ", need));
  }
  return absl::OkStatus();
}

absl::Status Instance::BindInputs(absl::Span<const HostTensor> inputs) {
  const fb::Module& module = image_->module();
  const fb::Signature& sig = signature();
  if (inputs.size() != sig.inputs()->size()) {
    return absl::InvalidArgumentError(absl::StrCat("the module takes ", sig.inputs()->size(),
                                                   " inputs; got ", inputs.size()));
  }
  // Each symbol takes its value from the first input dim naming it; every
  // other dim naming it must agree.
  bool bound[kMaxSymbols] = {false};
  for (size_t i = 0; i < inputs.size(); ++i) {
    const fb::TensorDesc& desc = *sig.inputs()->Get(i);
    const std::vector<int32_t>& dims = input_dim_symbols_[i];
    if (inputs[i].shape.size() != dims.size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "input ", i, " ('", desc.name() ? desc.name()->str() : "", "') has rank ",
          inputs[i].shape.size(), "; the module expects ", dims.size()));
    }
    for (size_t d = 0; d < dims.size(); ++d) {
      if (dims[d] < 0) continue;
      const int64_t value = inputs[i].shape[d];
      const char* symbol = module.symbols()->Get(dims[d])->c_str();
      if (value < 1 || value > KILN_MAX_SYMBOL_VALUE) {
        return absl::InvalidArgumentError(absl::StrCat(
            "input ", i, " dim ", d, ": symbol '", symbol, "' = ", value,
            " is outside 1..2^40 (empty dimensions are not supported)"));
      }
      if (bound[dims[d]] && symbols_[dims[d]] != value) {
        return absl::InvalidArgumentError(absl::StrCat(
            "input ", i, " dim ", d, ": symbol '", symbol, "' = ", value,
            " disagrees with an earlier input, which gave ", symbols_[dims[d]]));
      }
      bound[dims[d]] = true;
      symbols_[dims[d]] = value;
    }
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (absl::Status s = CheckBuffer(*sig.inputs()->Get(i), inputs[i], "input", i,
                                     input_dim_symbols_[i]);
        !s.ok()) {
      return s;
    }
  }
  workspace_needed_ = module.memory()->arena_size();
  for (size_t r = 0; r < results_.size(); ++r) {
    result_values_[r] = UnboundedResult(results_[r].bound) ? 0 : results_[r].bound;
  }
  if (!has_symbols()) return absl::OkStatus();
  const InterpreterFrame frame = Frame(nullptr, nullptr);
  uint32_t failed_pc = 0;
  const fb::Function& entry = *module.functions()->Get(0);
  if (int rc = EvaluateIntegers(frame, entry.bytecode()->size(), &failed_pc); rc != KILN_OK) {
    const uint32_t opcode = entry.bytecode()->Get(failed_pc);
    return absl::InvalidArgumentError(absl::StrCat(
        "module '", image_->origin(), "' +", failed_pc, ": ",
        opcode == KILN_OP_IASSERT_EQ ? AssumptionMessage(0, failed_pc)
            : absl::StrCat("the shape arithmetic overflows for these input shapes (code ", rc,
                           ")")));
  }
  // Output dims that are expressions of the symbols must be known now.
  for (size_t k = 0; k < output_dim_registers_.size(); ++k) {
    for (size_t d = 0; d < output_dim_registers_[k].size(); ++d) {
      const int32_t reg = output_dim_registers_[k][d];
      if (reg >= 0 && (int_unknown_[reg] != 0 || int_registers_[reg] < 0)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "module '", image_->origin(), "': output ", k, " dim ", d,
            " is not a size these input shapes determine"));
      }
    }
  }
  const int32_t ws = module.memory()->workspace_register();
  if (ws >= 0) workspace_needed_ = static_cast<uint64_t>(std::max<int64_t>(int_registers_[ws], 0));
  return absl::OkStatus();
}

std::string Instance::AssumptionMessage(uint32_t function, uint32_t pc) const {
  const fb::Module& module = image_->module();
  const fb::Function& entry = *module.functions()->Get(function);
  const uint32_t a = entry.bytecode()->Get(pc + 1), b = entry.bytecode()->Get(pc + 2);
  const std::vector<std::string> exprs = IntegerExpressions(module, entry);
  // The function's own integer registers (a called function has a block of
  // its own, holding what its last call computed).
  const int64_t* registers = functions_[function].int_registers;
  std::vector<std::string> values;
  for (size_t k = 0; k < symbols_.size(); ++k) {
    values.push_back(absl::StrCat(module.symbols()->Get(k)->str(), " = ", symbols_[k]));
  }
  // Lengths kernels found earlier in this run (the ILOADs before pc).
  std::vector<std::string> lengths;
  for (uint32_t at = 0; at < pc;) {
    const Instruction inst = DecodeVerified(entry.bytecode()->data(), at);
    if (inst.opcode == KILN_OP_ILOAD) {
      lengths.push_back(absl::StrCat(module.result_symbols()->Get(inst.operands[1])->name()->str(),
                                     " = ", registers[inst.operands[0]]));
    }
    at += inst.length;
  }
  std::string found = values.empty() ? "this run" : absl::StrCat("these input shapes (",
                                                                  absl::StrJoin(values, ", "), ")");
  if (!lengths.empty()) {
    absl::StrAppend(&found, values.empty() ? " (" : " and the lengths (",
                    absl::StrJoin(lengths, ", "), values.empty() ? ")" : ") it found");
  }
  // X == max(X, k) is how the compiler states "at least k" (a window's
  // input), X == min(X, k) "at most k" (a table of k positions).
  auto either = [&](const char* prefix) {
    return absl::StartsWith(exprs[a], prefix) || absl::StartsWith(exprs[b], prefix);
  };
  const char* why = either("max(")   ? "a size is below the least the model takes"
                    : either("min(") ? "a size is above the most the model takes"
                                     : "two dims it combines must be equal";
  return absl::StrCat(found, " break", values.empty() ? "s" : "",
                      " the model's requirement ", exprs[a], " == ", exprs[b], " (",
                      registers[a], " != ", registers[b], "): ", why);
}

std::vector<int64_t> Instance::OutputShape(size_t k) const {
  std::vector<int64_t> shape(signature().outputs()->Get(k)->shape()->size());
  OutputShapeInto(k, shape.data());
  return shape;
}

void Instance::OutputShapeInto(size_t k, int64_t* dims) const {
  const fb::TensorDesc& desc = *signature().outputs()->Get(k);
  for (uint32_t d = 0; d < desc.shape()->size(); ++d) {
    const int32_t symbol = output_dim_symbols_[k][d];
    const int32_t result = output_result_dims_[k][d];
    const int32_t reg = output_dim_registers_[k][d];
    dims[d] = result >= 0 ? result_values_[result]
              : reg >= 0  ? int_registers_[reg]
              : symbol >= 0 ? symbols_[symbol] : desc.shape()->Get(d);
  }
}

absl::Status Instance::Reserve(absl::Span<const HostTensor> inputs) {
  if (absl::Status s = BindInputs(inputs); !s.ok()) return s;
  return GrowArena(workspace_needed_);
}

absl::Status Instance::Run(absl::Span<const HostTensor> inputs,
                           absl::Span<const HostTensor> outputs, DispatchObserver* observer,
                           const RunLimits& limits) {
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
  if (absl::Status s = BindInputs(inputs); !s.ok()) return s;
  if (workspace_needed_ > arena_capacity_) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "these input shapes need a ", workspace_needed_, "-byte workspace; ", arena_capacity_,
        " bytes are reserved (call Reserve() with the largest inputs first)"));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    in[i] = inputs[i].data;
    input_capacity_[i] = inputs[i].bytes;
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    // Dims only the run finds, without a bound: the run checks the buffer.
    if (output_unbounded_[i]) {
      if (outputs[i].dtype != sig.outputs()->Get(i)->dtype()) {
        return CheckBuffer(*sig.outputs()->Get(i), outputs[i], "output", i,
                           output_dim_symbols_[i], &output_dim_registers_[i]);
      }
    } else if (absl::Status s = CheckBuffer(*sig.outputs()->Get(i), outputs[i], "output", i,
                                            output_dim_symbols_[i], &output_dim_registers_[i]);
               !s.ok()) {
      return s;
    }
    out[i] = outputs[i].data;
    output_capacity_[i] = outputs[i].bytes;
  }
  if (observer != nullptr) return RunObserved(in, out, *observer, limits);
  return RunUnchecked(in, out, limits);
}

InterpreterFrame Instance::Frame(const void* const* inputs, void* const* outputs) {
  InterpreterFrame frame;
  frame.code = image_->module().functions()->Get(0)->bytecode()->data();
  frame.executables = executables_.data();
  frame.constants = constants_.data();
  frame.inputs = inputs;
  frame.outputs = outputs;
  frame.arena = arena_.data();
  frame.registers = registers_.data();
  frame.bindings = bindings_.data();
  frame.host = pool_ ? pool_->host() : nullptr;
  frame.register_bytes = register_bytes_.data();
  frame.input_view_bytes = input_view_bytes_.data();
  frame.output_view_bytes = output_view_bytes_.data();
  frame.constant_bytes = constant_bytes_.data();
  frame.input_capacity = input_capacity_.data();
  frame.output_capacity = output_capacity_.data();
  frame.arena_capacity = arena_capacity_;
  frame.symbols = symbols_.data();
  frame.int_registers = int_registers_.data();
  frame.iparam_scratch = iparam_scratch_.data();
  frame.binding_bytes = binding_bytes_.data();
  frame.results = results_.data();
  frame.int_unknown = int_unknown_.data();
  frame.dynamic = dynamic_code_;
  frame.functions = functions_.data();
  frame.function = 0;
  frame.failed_function = &failed_function_;
  frame.budget = nullptr;
  failed_function_ = kNoFailedFunction;
  shortfall_.reset();
  return frame;
}

absl::Status Instance::RunUnchecked(const void* const* inputs, void* const* outputs,
                                    const RunLimits& limits) {
  InterpreterFrame frame = Frame(inputs, outputs);
  RunBudget budget(limits);
  if (limits.any()) frame.budget = &budget;
  uint32_t failed_pc = 0;
  int rc = Interpret(frame, &failed_pc);
  if (rc != KILN_OK) return RunError(FailedFunction(), failed_pc, rc, limits);
  return ReadResults();
}

absl::Status Instance::RunObserved(const void* const* inputs, void* const* outputs,
                                   DispatchObserver& observer, const RunLimits& limits) {
  InterpreterFrame frame = Frame(inputs, outputs);
  RunBudget budget(limits);
  if (limits.any()) frame.budget = &budget;
  uint32_t failed_pc = 0;
  // The entry's integer registers were evaluated by BindInputs (symbols)
  // and hold every size its dispatches use (called functions' follow them).
  observer.IntRegisters(int_registers_.data(),
                        image_->module().functions()->Get(0)->int_register_count());
  observer.BeginRun();
  int rc = InterpretObserved(frame, &failed_pc, observer);
  observer.EndRun();
  if (rc == kInterpretStopped) {
    return absl::AbortedError(absl::StrCat("module '", image_->origin(), "' ",
                                           FunctionPrefix(FailedFunction()), "+", failed_pc,
                                           ": run stopped by the observer"));
  }
  if (rc != KILN_OK) return RunError(FailedFunction(), failed_pc, rc, limits);
  return ReadResults();
}

absl::Status Instance::RunError(uint32_t function, uint32_t pc, int rc,
                                const RunLimits& limits) const {
  if (!IsStopCode(rc)) return DispatchError(function, pc, rc);
  // Stopped before the instruction at pc: a kernel call or a loop iteration.
  const uint32_t opcode = image_->module().functions()->Get(function)->bytecode()->Get(pc);
  return StopStatus(rc,
                    absl::StrCat("module '", image_->origin(), "' ", FunctionPrefix(function), "+",
                                 pc, " (", kiln_opcode_name(opcode), ")"),
                    limits);
}

absl::Status Instance::ReadResults() {
  for (size_t r = 0; r < results_.size(); ++r) {
    if (!result_sizes_output_[r]) continue;
    int64_t value;
    std::memcpy(&value, arena_.data() + results_[r].arena_offset, sizeof value);
    if (value < 0 || value > results_[r].bound) {
      return absl::InternalError(absl::StrCat(
          "module '", image_->origin(), "': result '",
          image_->module().result_symbols()->Get(static_cast<uint32_t>(r))->name()->str(), "' = ",
          value, " after the run, outside 0..", results_[r].bound));
    }
    result_values_[r] = value;
  }
  return absl::OkStatus();
}

absl::Status Instance::DispatchError(uint32_t function, uint32_t pc, int code) const {
  std::string nodes;
  const fb::Module& module = image_->module();
  const fb::DebugInfo* debug = module.debug();
  if (debug != nullptr && debug->dispatches() != nullptr) {
    for (const fb::DispatchDebug* d : *debug->dispatches()) {
      if (d->function() == function && d->bytecode_offset() == pc && d->nodes() != nullptr) {
        std::vector<std::string> names;
        for (const auto* n : *d->nodes()) names.push_back(n->str());
        nodes = absl::StrCat(" (ONNX nodes: ", absl::StrJoin(names, ", "), ")");
      }
    }
  }
  const auto* bytecode = module.functions()->Get(function)->bytecode();
  const std::string where =
      absl::StrCat("module '", image_->origin(), "' ", FunctionPrefix(function), "+", pc);
  const uint32_t opcode = bytecode->Get(pc);
  if (opcode == KILN_OP_LOOP) {
    // The body is named "<ONNX node>.body".
    const fb::Function* body = module.functions()->Get(bytecode->Get(pc + 1));
    return absl::InvalidArgumentError(absl::StrCat(
        where, ": LOOP of '", body->name() ? body->name()->str() : "",
        "': the iteration count differs from the length of the scan outputs the model "
        "declares (", ReadU64(bytecode->data() + pc + 6), ")"));
  }
  if (opcode == KILN_OP_LOOP_DYN) {
    // The expected count is an integer register of this function, as this
    // run computed it (trip counts over a symbol, scan outputs S long).
    const fb::Function* body = module.functions()->Get(bytecode->Get(pc + 1));
    return absl::InvalidArgumentError(absl::StrCat(
        where, ": LOOP_DYN of '", body->name() ? body->name()->str() : "",
        "': the iteration count differs from the length of the scan outputs for these input "
        "shapes (", functions_[function].int_registers[bytecode->Get(pc + 6)], ")"));
  }
  // A kernel's run function refused this run's data (kernel_abi.h): the
  // code says how, whichever kernel or instruction it was.
  if (code == KILN_ERR_SHAPE_MISMATCH) {
    // The compiler took a shape from the model's declaration; this run's
    // shape-like or parameter input, data-dependent count or iteration
    // count says otherwise. Without a declaration (dims the kernel
    // reports), the value is one the op refuses or beyond the dims' bounds.
    return absl::InvalidArgumentError(absl::StrCat(
        where, ": a run-time shape or parameter input does not give the output shape the model "
        "declares, or is a value the op refuses", nodes));
  }
  if (code == KILN_ERR_INDEX_OUT_OF_RANGE || code == KILN_ERR_BAD_VALUE) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": ", kiln_status_message(code), nodes));
  }
  if (opcode == KILN_OP_IASSERT_EQ) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": ", AssumptionMessage(function, pc)));
  }
  if (std::optional<absl::Status> s = ShortfallError(function, pc, code, where)) return *s;
  if (opcode == KILN_OP_ILOAD) {
    const fb::ResultSymbol* r = module.result_symbols()->Get(bytecode->Get(pc + 2));
    return absl::InternalError(absl::StrCat(where, ": the length '", r->name()->str(),
                                            "' a kernel reported is outside 0..", r->bound()));
  }
  if (opcode != KILN_OP_DISPATCH) {
    // A dynamic-shape instruction refused this run's sizes (or a kernel
    // called by DISPATCH_DYN failed): name the instruction.
    return absl::InternalError(absl::StrCat(where, ": ", kiln_opcode_name(opcode),
                                            " failed with code ", code,
                                            code == KILN_ERR_OUT_OF_RANGE
                                                ? " (a size is out of range for these inputs)"
                                                : "",
                                            nodes));
  }
  return absl::InternalError(absl::StrCat(where, ": kernel returned error code ", code, nodes));
}

std::optional<absl::Status> Instance::ShortfallError(uint32_t function, uint32_t pc, int code,
                                                     const std::string& where) const {
  const auto* bytecode = image_->module().functions()->Get(function)->bytecode();
  const uint32_t opcode = bytecode->Get(pc);
  // Only sizes without a bound may outgrow what the caller gave; other
  // modules had every size checked before the run.
  if (!has_unbounded_sizes_ || code != KILN_ERR_OUT_OF_RANGE ||
      (opcode != KILN_OP_VIEW_OUTPUT_DYN && opcode != KILN_OP_VIEW_ARENA_DYN)) {
    return std::nullopt;
  }
  // Operands: r, then the output index or the offset register, then the size register.
  const int64_t* ir = functions_[function].int_registers;
  const int64_t offset = opcode == KILN_OP_VIEW_ARENA_DYN ? ir[bytecode->Get(pc + 2)] : 0;
  const int64_t size = ir[bytecode->Get(pc + 3)];
  int64_t need = 0;
  if (offset < 0 || size < 0 || __builtin_add_overflow(offset, size, &need)) return std::nullopt;
  if (opcode == KILN_OP_VIEW_ARENA_DYN) {
    if (static_cast<uint64_t>(need) <= arena_capacity_) return std::nullopt;
    shortfall_ = Shortfall{-1, static_cast<uint64_t>(need)};
    return absl::ResourceExhaustedError(absl::StrCat(
        where, ": this run needs a workspace of at least ", need, " bytes; ", arena_capacity_,
        " are reserved (a size found during the run: reserve that much and run again)"));
  }
  const uint32_t k = bytecode->Get(pc + 2);
  if (static_cast<uint64_t>(need) <= output_capacity_[k]) return std::nullopt;
  shortfall_ = Shortfall{static_cast<int32_t>(k), static_cast<uint64_t>(need)};
  const fb::TensorDesc* desc = signature().outputs()->Get(k);
  return absl::ResourceExhaustedError(absl::StrCat(
      where, ": output ", k, " ('", desc->name() ? desc->name()->str() : "", "') needs ", need,
      " bytes in this run; its buffer holds ", output_capacity_[k],
      " (a size found during the run: give a buffer that large and run again)"));
}

}  // namespace kiln::vm
