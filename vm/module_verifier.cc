#include "vm/module_verifier.h"

#include <algorithm>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "kiln/control_ops.h"
#include "kiln/dynamic_ops.h"
#include "kiln/kernel_abi.h"
#include "kiln/opcodes.h"
#include "vm/dtype.h"
#include "vm/int_binary.h"
#include "vm/kernel_params.h"
#include "vm/kernel_registry.h"

namespace kiln::vm {
namespace {

// The flatbuffers verifier only checks a vector's 4-byte length prefix, so a
// crafted buffer can misalign a vector of 8-byte elements; reading through
// such a pointer is undefined behaviour, so each one is checked here.
template <typename T>
bool Aligned(const flatbuffers::Vector<T>* v) {
  // An empty vector is never read, and flatbuffers does not align those.
  return v == nullptr || v->size() == 0 || reinterpret_cast<uintptr_t>(v->data()) % alignof(T) == 0;
}

bool MulOverflows(uint64_t a, uint64_t b, uint64_t* out) {
  return __builtin_mul_overflow(a, b, out);
}

// What a register views, as far as aliasing is concerned.
struct View {
  enum Kind { kUnset, kInput, kOutput, kConstant, kArena } kind = kUnset;
  uint32_t index = 0;   // input/output/constant ordinal
  uint64_t offset = 0;  // arena offset
  uint64_t size = 0;
};

class Verifier {
 public:
  Verifier(const uint8_t* data, size_t size, const std::string& origin)
      : data_(data), size_(size), origin_(origin) {}

  absl::StatusOr<const fb::Module*> Run() {
    if (size_ < 8 || !fb::ModuleBufferHasIdentifier(data_)) {
      return Error("file identifier is not 'KILN' (not a Kiln module)");
    }
    flatbuffers::Verifier structure(data_, size_, /*max_depth=*/64, /*max_tables=*/1000000);
    if (!fb::VerifyModuleBuffer(structure)) {
      return Error("flatbuffer structure is invalid (truncated or corrupt)");
    }
    module_ = fb::GetModule(data_);
    if (module_->format_version() != KILN_FORMAT_VERSION) {
      return Error(absl::StrCat("format version ", module_->format_version(),
                                " is not supported (this build reads ", KILN_FORMAT_VERSION,
                                ")"));
    }
    if (module_->max_trip_count() < -1) {
      return Error(absl::StrCat("max_trip_count ", module_->max_trip_count(),
                                " is neither -1 (undeclared) nor a trip count"));
    }
    if (absl::Status s = CheckSignature(); !s.ok()) return s;
    if (absl::Status s = CheckMemoryPlan(); !s.ok()) return s;
    if (absl::Status s = CheckResultSymbols(); !s.ok()) return s;
    if (absl::Status s = CheckConstants(); !s.ok()) return s;
    if (absl::Status s = CheckExecutables(); !s.ok()) return s;
    if (absl::Status s = CheckFunctions(); !s.ok()) return s;
    if (absl::Status s = CheckParamCounts(); !s.ok()) return s;
    if (absl::Status s = CheckDebugAlignment(); !s.ok()) return s;
    return module_;
  }

 private:
  absl::Status Error(const std::string& what) const {
    return absl::InvalidArgumentError(absl::StrCat("module '", origin_, "': ", what));
  }

  absl::Status CheckTensorDesc(const fb::TensorDesc* desc, const char* kind, uint32_t index) {
    std::string where = absl::StrCat("signature ", kind, " ", index);
    if (desc == nullptr || desc->shape() == nullptr) return Error(where + " has no shape");
    if (!Aligned(desc->shape())) return Error(where + " has a misaligned shape vector");
    if (DTypeSize(desc->dtype()) == 0) return Error(where + " has an unknown dtype");
    if (desc->shape()->size() > KILN_MAX_RANK) {
      return Error(absl::StrCat(where, " has rank ", desc->shape()->size(), " > ",
                                KILN_MAX_RANK));
    }
    const auto* names = desc->dim_symbols();
    if (names != nullptr && names->size() != desc->shape()->size()) {
      return Error(where + " names symbols for a different number of dims than its rank");
    }
    // Output dims that are expressions of the symbols: an integer register
    // of the entry function holds each (read once the symbols are bound).
    const auto* registers = desc->dim_registers();
    if (registers != nullptr) {
      const uint32_t n_int = module_->functions() && module_->functions()->size() > 0
                                 ? module_->functions()->Get(0)->int_register_count()
                                 : 0;
      if (std::string(kind) != "output" || names == nullptr ||
          registers->size() != desc->shape()->size() || module_->symbols() == nullptr ||
          module_->symbols()->size() == 0) {
        return Error(where + " has dim registers but is no output with symbolic dims");
      }
      for (uint32_t d = 0; d < registers->size(); ++d) {
        const int32_t reg = registers->Get(d);
        if (reg < 0) continue;
        if (static_cast<uint32_t>(reg) >= n_int || desc->shape()->Get(d) != -1 ||
            names->Get(d)->size() == 0) {
          return Error(absl::StrCat(where, " dim ", d, " names integer register ", reg,
                                    ", which is out of range or not for a -1 dim with an "
                                    "expression"));
        }
      }
    }
    uint64_t bytes = DTypeSize(desc->dtype());
    for (uint32_t d = 0; d < desc->shape()->size(); ++d) {
      const int64_t dim = desc->shape()->Get(d);
      bool named = names != nullptr && names->Get(d)->size() > 0;
      if (named && std::string(kind) == "output" && ResultOrdinal(names->Get(d)->string_view()) >= 0) {
        // A length known after the run: the shape holds its bound (-1
        // when it has none: the buffer is the caller's choice, checked
        // by the run's views).
        const fb::ResultSymbol* r = module_->result_symbols()->Get(
            static_cast<uint32_t>(ResultOrdinal(names->Get(d)->string_view())));
        if (r->bound() == std::numeric_limits<int64_t>::max() && dim == -1) continue;
        if (dim != r->bound()) {
          return Error(absl::StrCat(where, " dim ", d, " names result '", names->Get(d)->str(),
                                    "' but is not its bound ", r->bound()));
        }
        named = false;  // sized by the bound below
      }
      if (named && registers != nullptr && registers->Get(d) >= 0) continue;  // checked above
      if (named) {
        if (dim != -1) return Error(absl::StrCat(where, " dim ", d, " names a symbol but is not -1"));
        const int32_t symbol = SymbolOrdinal(names->Get(d)->string_view());
        if (symbol < 0) {
          return Error(absl::StrCat(where, " dim ", d, " names unknown symbol '",
                                    names->Get(d)->str(), "'"));
        }
        if (std::string(kind) == "input") symbol_bound_[symbol] = true;
        continue;
      }
      if (dim < 0) return Error(absl::StrCat(where, " has a negative dimension ", dim));
      if (MulOverflows(bytes, static_cast<uint64_t>(dim), &bytes) || bytes > kMaxTensorBytes) {
        return Error(absl::StrCat(where, " is larger than ", kMaxTensorBytes, " bytes"));
      }
    }
    return absl::OkStatus();
  }

  int32_t ResultOrdinal(flatbuffers::string_view name) const {
    const auto* results = module_->result_symbols();
    if (results == nullptr) return -1;
    for (uint32_t k = 0; k < results->size(); ++k) {
      if (results->Get(k)->name() != nullptr && results->Get(k)->name()->string_view() == name) {
        return static_cast<int32_t>(k);
      }
    }
    return -1;
  }

  // Each result symbol: a fresh non-empty name, a bound, and an int64 slot
  // inside the arena (read by the VM and AOT code after every run).
  absl::Status CheckResultSymbols() {
    const auto* results = module_->result_symbols();
    if (results == nullptr) return absl::OkStatus();
    const uint64_t arena = module_->memory()->arena_size();
    for (uint32_t k = 0; k < results->size(); ++k) {
      const fb::ResultSymbol* r = results->Get(k);
      const std::string where = absl::StrCat("result symbol ", k);
      if (r->name() == nullptr || r->name()->size() == 0 ||
          ResultOrdinal(r->name()->string_view()) != static_cast<int32_t>(k) ||
          SymbolOrdinal(r->name()->string_view()) >= 0) {
        return Error(where + " is unnamed or repeats another symbol's name");
      }
      if (r->bound() < 0) return Error(absl::StrCat(where, " has a negative bound"));
      if (r->arena_offset() % 8 != 0 || r->arena_offset() > arena || arena - r->arena_offset() < 8) {
        return Error(absl::StrCat(where, " is read at arena offset ", r->arena_offset(),
                                  ", not an aligned int64 inside the ", arena, "-byte arena"));
      }
    }
    return absl::OkStatus();
  }

  int32_t SymbolOrdinal(flatbuffers::string_view name) const {
    const auto* symbols = module_->symbols();
    if (symbols == nullptr) return -1;
    for (uint32_t k = 0; k < symbols->size(); ++k) {
      if (symbols->Get(k)->string_view() == name) return static_cast<int32_t>(k);
    }
    return -1;
  }

  // Inputs bound at compile time: static shapes whose bytes the value holds.
  absl::Status CheckBoundInputs(const fb::Signature& sig) {
    if (sig.bound_inputs() == nullptr) return absl::OkStatus();
    if (sig.bound_inputs()->size() > kMaxBoundInputs) {
      return Error(absl::StrCat(sig.bound_inputs()->size(), " bound inputs; the limit is ",
                                kMaxBoundInputs));
    }
    for (uint32_t i = 0; i < sig.bound_inputs()->size(); ++i) {
      const fb::BoundInput* b = sig.bound_inputs()->Get(i);
      const std::string where = absl::StrCat("signature bound input ", i);
      const fb::TensorDesc* d = b->desc();
      if (d == nullptr || d->name() == nullptr || d->name()->size() == 0 || d->shape() == nullptr ||
          !Aligned(d->shape()) || d->dim_symbols() != nullptr || d->dim_registers() != nullptr) {
        return Error(where + " has no name or no static shape");
      }
      if (DTypeSize(d->dtype()) == 0) return Error(where + " has an unknown dtype");
      if (d->shape()->size() > KILN_MAX_RANK) return Error(where + " has too high a rank");
      uint64_t bytes = DTypeSize(d->dtype());
      for (int64_t dim : *d->shape()) {
        if (dim < 0 || (dim > 0 && bytes > kMaxBoundInputBytes / static_cast<uint64_t>(dim))) {
          return Error(absl::StrCat(where, " has a dim out of range (", dim, ")"));
        }
        bytes *= static_cast<uint64_t>(dim);
      }
      if (b->value() == nullptr || b->value()->size() != bytes) {
        return Error(absl::StrCat(where, " holds ", b->value() ? b->value()->size() : 0,
                                  " bytes; its shape needs ", bytes));
      }
    }
    return absl::OkStatus();
  }

  absl::Status CheckSignature() {
    const fb::Signature* sig = module_->signature();
    if (sig == nullptr || sig->inputs() == nullptr || sig->outputs() == nullptr) {
      return Error("missing signature");
    }
    const uint32_t n_symbols = module_->symbols() ? module_->symbols()->size() : 0;
    if (n_symbols > kMaxSymbols) {
      return Error(absl::StrCat(n_symbols, " symbols; the limit is ", kMaxSymbols));
    }
    for (uint32_t k = 0; k < n_symbols; ++k) {
      if (module_->symbols()->Get(k)->size() == 0 ||
          SymbolOrdinal(module_->symbols()->Get(k)->string_view()) != static_cast<int32_t>(k)) {
        return Error(absl::StrCat("symbol ", k, " is empty or repeats an earlier name"));
      }
    }
    const uint32_t n_results = module_->result_symbols() ? module_->result_symbols()->size() : 0;
    if (n_results > kMaxResultSymbols) {
      return Error(absl::StrCat(n_results, " result symbols; the limit is ", kMaxResultSymbols));
    }
    symbol_bound_.assign(n_symbols, false);
    for (uint32_t i = 0; i < sig->inputs()->size(); ++i) {
      if (absl::Status s = CheckTensorDesc(sig->inputs()->Get(i), "input", i); !s.ok()) return s;
    }
    for (uint32_t i = 0; i < sig->outputs()->size(); ++i) {
      if (absl::Status s = CheckTensorDesc(sig->outputs()->Get(i), "output", i); !s.ok()) {
        return s;
      }
    }
    if (absl::Status s = CheckBoundInputs(*sig); !s.ok()) return s;
    for (uint32_t k = 0; k < n_symbols; ++k) {
      if (!symbol_bound_[k]) {
        return Error(absl::StrCat("symbol '", module_->symbols()->Get(k)->str(),
                                  "' is not a dimension of any input, so no run can bind it"));
      }
    }
    return absl::OkStatus();
  }

  absl::Status CheckMemoryPlan() {
    const fb::MemoryPlan* plan = module_->memory();
    if (plan == nullptr) return Error("missing memory plan");
    uint32_t align = plan->arena_alignment();
    if (align == 0 || (align & (align - 1)) != 0 || align > 4096) {
      return Error(absl::StrCat("arena alignment ", align, " is not a power of two <= 4096"));
    }
    if (plan->arena_size() > kMaxArenaBytes) {
      return Error(absl::StrCat("arena size ", plan->arena_size(), " exceeds the limit ",
                                kMaxArenaBytes));
    }
    return absl::OkStatus();
  }

  absl::Status CheckConstants() {
    const auto* constants = module_->constants();
    if (constants == nullptr || constants->size() == 0) return absl::OkStatus();
    const auto* blob = module_->constant_data();
    if (blob == nullptr) return Error("constants listed but constant_data is missing");
    if ((blob->data() - data_) % 64 != 0) return Error("constant_data is not 64-byte aligned");
    for (uint32_t i = 0; i < constants->size(); ++i) {
      const fb::Constant* c = constants->Get(i);
      std::string where = absl::StrCat("constant ", i);
      if (c->offset() % 64 != 0) return Error(where + " is not 64-byte aligned");
      if (!Aligned(c->shape())) return Error(where + " has a misaligned shape vector");
      if (c->offset() > blob->size() || c->size() > blob->size() - c->offset()) {
        return Error(absl::StrCat(where, " [", c->offset(), ", +", c->size(),
                                  ") lies outside constant_data (", blob->size(), " bytes)"));
      }
      if (c->layout() == fb::ConstantLayout::PackedPanel16) {
        // Panels of 16 float32 columns; the kernel's checker bounds its reads.
        if (c->dtype() != fb::DType::F32 || c->shape() == nullptr || c->shape()->size() != 3 ||
            c->shape()->Get(2) != 16) {
          return Error(where + " is PackedPanel16 but not float32 [panels, K, 16]");
        }
      } else if (c->layout() != fb::ConstantLayout::Plain) {
        return Error(where + " has an unknown layout");
      }
      uint64_t bytes = DTypeSize(c->dtype());
      if (bytes == 0 || c->shape() == nullptr) return Error(where + " has no dtype or shape");
      for (int64_t dim : *c->shape()) {
        if (dim < 0 || MulOverflows(bytes, static_cast<uint64_t>(dim), &bytes)) {
          return Error(where + " has an invalid shape");
        }
      }
      if (bytes != c->size()) {
        return Error(absl::StrCat(where, " holds ", c->size(), " bytes but its dtype and shape need ",
                                  bytes));
      }
    }
    return absl::OkStatus();
  }

  absl::Status CheckExecutables() {
    const auto* executables = module_->executables();
    if (executables == nullptr) return absl::OkStatus();
    for (uint32_t i = 0; i < executables->size(); ++i) {
      const fb::Executable* e = executables->Get(i);
      std::string where = absl::StrCat("executable ", i);
      if (e->kernel() == nullptr) return Error(where + " names no kernel");
      const KernelInfo* kernel = FindKernel(e->kernel()->string_view());
      if (kernel == nullptr) {
        return Error(absl::StrCat(where, " names unknown kernel '", e->kernel()->str(), "'"));
      }
      where = absl::StrCat(where, " (", kernel->symbol, ")");
      if (e->binding_count() != kernel->binding_count) {
        return Error(absl::StrCat(where, " declares ", e->binding_count(),
                                  " bindings; the kernel takes ", kernel->binding_count));
      }
      if (!Aligned(e->iparams()) || !Aligned(e->binding_bytes())) {
        return Error(where + " has a misaligned parameter vector");
      }
      if (e->binding_bytes() == nullptr || e->binding_bytes()->size() != e->binding_count()) {
        return Error(where + " does not give the size of every binding");
      }
    }
    static_checked_.assign(executables->size(), false);
    return absl::OkStatus();
  }

  // The kernel's checker on an executable's static parameters and binding
  // sizes, once, for executables a static DISPATCH calls (DISPATCH_DYN runs
  // the checker on every call instead).
  absl::Status CheckStaticExecutable(uint32_t index) {
    if (static_checked_[index]) return absl::OkStatus();
    const fb::Executable* e = module_->executables()->Get(index);
    const KernelInfo* kernel = FindKernel(e->kernel()->string_view());
    static const int64_t kNoInts[1] = {0};
    static const float kNoFloats[1] = {0};
    const int64_t* ip = e->iparams() && e->iparams()->size() ? e->iparams()->data() : kNoInts;
    const float* fp = e->fparams() && e->fparams()->size() ? e->fparams()->data() : kNoFloats;
    uint32_t nip = e->iparams() ? e->iparams()->size() : 0;
    uint32_t nfp = e->fparams() ? e->fparams()->size() : 0;
    int rc = kernel->check(ip, nip, fp, nfp, e->binding_bytes()->data());
    if (rc != KILN_OK) {
      return absl::InvalidArgumentError(
          absl::StrCat("executable ", index, " (", kernel->symbol,
                       ") has static parameters the kernel rejects (code ", rc, ")"));
    }
    static_checked_[index] = true;
    return absl::OkStatus();
  }

  // Every executable's parameters are what its row of kernel_table.def
  // names (vm/kernel_params.h), as many as the names describe. Last: a
  // static dispatch's kernel checker, which says more, has run by then.
  absl::Status CheckParamCounts() const {
    if (module_->executables() == nullptr) return absl::OkStatus();
    for (uint32_t i = 0; i < module_->executables()->size(); ++i) {
      const fb::Executable* e = module_->executables()->Get(i);
      const std::string kernel = e->kernel()->str();
      const absl::Span<const int64_t> ip =
          e->iparams() ? absl::MakeConstSpan(e->iparams()->data(), e->iparams()->size())
                       : absl::Span<const int64_t>();
      const absl::Span<const float> fp =
          e->fparams() ? absl::MakeConstSpan(e->fparams()->data(), e->fparams()->size())
                       : absl::Span<const float>();
      if (!ParamNamesFit(kernel, ip, fp)) {
        return Error(absl::StrCat("executable ", i, " (", kernel, ") has ", ip.size(),
                                  " iparams and ", fp.size(),
                                  " fparams, which its row of the kernel table does not "
                                  "describe (kiln/kernel_table.def)"));
      }
    }
    return absl::OkStatus();
  }

  // Debug info is read by the tools (inspect, dump), so its 8-byte vectors
  // must be aligned too; their contents are checked where they are used.
  absl::Status CheckDebugAlignment() {
    const fb::DebugInfo* debug = module_->debug();
    if (debug == nullptr || debug->dispatches() == nullptr) return absl::OkStatus();
    for (const fb::DispatchDebug* d : *debug->dispatches()) {
      if (d->values() == nullptr) continue;
      for (const fb::ValueDebug* v : *d->values()) {
        if (!Aligned(v->shape())) return Error("debug info has a misaligned shape vector");
      }
    }
    return absl::OkStatus();
  }

  absl::Status CheckFunctions() {
    const auto* functions = module_->functions();
    if (functions == nullptr || functions->size() == 0) return Error("no entry function");
    // Callees before callers (IF and LOOP call only later functions), so a
    // call knows which outputs its callee writes and how deep it nests.
    outputs_written_by_.assign(functions->size(), {});
    call_depth_.assign(functions->size(), 1);
    for (uint32_t f = functions->size(); f-- > 0;) {
      if (absl::Status s = CheckFunction(*functions->Get(f), f); !s.ok()) return s;
    }
    return absl::OkStatus();
  }

  // What CheckFunction knows of one function as it walks its bytecode once,
  // in order (the code is straight-line: every write comes before its reads).
  struct FunctionState {
    FunctionState(const fb::Module& module, const fb::Function& fn, uint32_t index,
                  std::string name)
        : fn(fn), index(index), name(std::move(name)), code(fn.bytecode()->data()),
          length(fn.bytecode()->size()), sig(*module.signature()),
          n_inputs(sig.inputs()->size()), n_outputs(sig.outputs()->size()),
          n_constants(module.constants() ? module.constants()->size() : 0),
          n_executables(module.executables() ? module.executables()->size() : 0),
          n_symbols(module.symbols() ? module.symbols()->size() : 0),
          n_results(module.result_symbols() ? module.result_symbols()->size() : 0),
          arena_size(module.memory()->arena_size()), int_set(fn.int_register_count(), false),
          int_positive(fn.int_register_count(), false), int_known(fn.int_register_count(), false),
          int_value(fn.int_register_count(), 0), dyn_bytes(fn.register_count(), -1),
          view_bytes(fn.register_count(), -1), views(fn.register_count()),
          output_written(n_outputs, false) {}

    const fb::Function& fn;
    const uint32_t index;
    const std::string name;
    const uint32_t* const code;
    const uint32_t length;
    const fb::Signature& sig;
    const uint32_t n_inputs, n_outputs, n_constants, n_executables, n_symbols, n_results;
    const uint64_t arena_size;
    uint32_t pc = 0;  // the instruction being checked
    bool returned = false;
    // Integer registers written so far (straight-line code: set before read),
    // and those written before the first ILOAD (what the symbols alone give).
    std::vector<bool> int_set;
    std::vector<bool> set_before_load;
    bool loaded = false;
    // Integer registers surely >= 1 in any run that reaches past them (the
    // symbols, positive constants, and sums, products, min and max of such;
    // overflow fails the run): a LOOP_DYN expecting that many iterations
    // runs its body at least once.
    std::vector<bool> int_positive;
    // Integer registers holding a value known here (constants, and
    // arithmetic on them), and per register the bytes a *_DYN view surely
    // has (its size register is such a constant; the run-time view check
    // holds it to that size), -1 when unknown: a scalar the compiler placed
    // after a symbolic arena (a loop's iteration slot in a called function)
    // is a dynamic view of a constant size.
    std::vector<bool> int_known;
    std::vector<int64_t> int_value;
    std::vector<int64_t> dyn_bytes;
    // Bytes viewed by each register; -1 until an instruction sets it, -2 for
    // a view whose size is only known at run time (a *_DYN view).
    std::vector<int64_t> view_bytes;
    std::vector<View> views;
    std::vector<bool> output_written;  // outputs this function surely writes
  };

  absl::Status CheckFunction(const fb::Function& fn, uint32_t index) {
    std::string name = fn.name() ? fn.name()->str() : absl::StrCat("#", index);
    // Before FunctionState, which sizes its vectors by the register counts.
    if (absl::Status s = CheckFunctionLimits(fn, index, name); !s.ok()) return s;
    FunctionState f(*module_, fn, index, std::move(name));
    while (f.pc < f.length) {
      if (f.returned) return At(f, "instruction after RETURN");
      const uint32_t opcode = f.code[f.pc];
      uint32_t next = 0;
      if (absl::Status s = CheckOperands(f, opcode, &next); !s.ok()) return s;
      if (absl::Status s = CheckInstruction(f, opcode, f.code + f.pc + 1); !s.ok()) return s;
      f.pc = next;
    }
    return CheckFunctionEnd(f);
  }

  // An error at the instruction being checked.
  absl::Status At(const FunctionState& f, const std::string& what) const {
    return Error(absl::StrFormat("function '%s' +%u: %s", f.name, f.pc, what));
  }

  // What the function declares: some bytecode, and register counts (and, for
  // the entry, a workspace register) within the limits.
  absl::Status CheckFunctionLimits(const fb::Function& fn, uint32_t index,
                                   const std::string& name) const {
    if (fn.bytecode() == nullptr || fn.bytecode()->size() == 0) {
      return Error(absl::StrCat("function '", name, "' has no bytecode"));
    }
    if (fn.register_count() > kMaxRegisters) {
      return Error(absl::StrCat("function '", name, "' uses ", fn.register_count(),
                                " registers; the limit is ", kMaxRegisters));
    }
    if (fn.int_register_count() > kMaxRegisters) {
      return Error(absl::StrCat("function '", name, "' uses ", fn.int_register_count(),
                                " integer registers; the limit is ", kMaxRegisters));
    }
    if (index == 0) {
      const int32_t ws = module_->memory()->workspace_register();
      if (ws < -1 || ws >= static_cast<int64_t>(fn.int_register_count())) {
        return Error(absl::StrCat("workspace register ", ws, " is out of range"));
      }
    }
    return absl::OkStatus();
  }

  // The first pass over an instruction's operands: all words inside the
  // function, each operand in range for its kind. *next: the following
  // instruction.
  absl::Status CheckOperands(const FunctionState& f, uint32_t opcode, uint32_t* next) const {
    const char* kinds = kiln_opcode_operands(opcode);
    if (kinds == nullptr) return At(f, absl::StrFormat("unknown opcode 0x%x", opcode));
    const uint32_t length = f.length;
    const uint32_t* code = f.code;
    uint32_t w = f.pc + 1;
    for (const char* k = kinds; *k != '\0'; ++k) {
      uint32_t need = (*k == 'q') ? 2 : 1;
      if (w > length || length - w < need) return At(f, "instruction runs past the function end");
      uint32_t v = code[w];
      switch (*k) {
        case 'r':
          if (v >= f.fn.register_count()) return At(f, absl::StrCat("register r", v, " out of range"));
          break;
        case 'i':
          if (v >= f.n_inputs) return At(f, absl::StrCat("input ", v, " out of range"));
          break;
        case 'o':
          if (v >= f.n_outputs) return At(f, absl::StrCat("output ", v, " out of range"));
          break;
        case 'c':
          if (v >= f.n_constants) return At(f, absl::StrCat("constant ", v, " out of range"));
          break;
        case 'e':
          if (v >= f.n_executables) return At(f, absl::StrCat("executable ", v, " out of range"));
          break;
        case 'n':
          if (v >= f.fn.int_register_count()) {
            return At(f, absl::StrCat("integer register n", v, " out of range"));
          }
          // The first operand of every integer-writing instruction is its
          // destination; every other 'n' operand is read.
          if ((k != kinds || !kiln_opcode_writes_integer(opcode)) && !f.int_set[v]) {
            return At(f, absl::StrCat("integer register n", v, " is read before it is set"));
          }
          break;
        case 's':
          if (v >= f.n_symbols) return At(f, absl::StrCat("symbol ", v, " out of range"));
          break;
        case 'd':
          if (v >= f.n_results) return At(f, absl::StrCat("result symbol ", v, " out of range"));
          break;
        case 'f':
          if (v <= f.index || v >= module_->functions()->size()) {
            return At(f, absl::StrCat("calls function ", v, "; only functions ", f.index + 1, "..",
                                      module_->functions()->size() - 1,
                                      " may be called from here (calls form no cycle)"));
          }
          break;
        case 'R':
          if (v != KILN_NO_REGISTER && v >= f.fn.register_count()) {
            return At(f, absl::StrCat("register r", v, " out of range"));
          }
          break;
        case 'P':
          if (v > (length - w - 1) / 2) return At(f, "parameter patch list runs past the function end");
          for (uint32_t j = 0; j < v; ++j) {
            const uint32_t reg = code[w + 2 + 2 * j];
            if (reg >= f.fn.int_register_count() || !f.int_set[reg]) {
              return At(f, absl::StrCat("patch ", j, " reads integer register n", reg,
                                        " which is out of range or not set"));
            }
          }
          need = 1 + 2 * v;
          break;
        case 'L':
          if (v > length - w - 1) return At(f, "register list runs past the function end");
          for (uint32_t j = 0; j < v; ++j) {
            if (code[w + 1 + j] >= f.fn.register_count()) {
              return At(f, absl::StrCat("register r", code[w + 1 + j], " out of range"));
            }
          }
          need = 1 + v;
          break;
        default:
          break;
      }
      w += need;
    }
    *next = w;
    return absl::OkStatus();
  }

  // The rules of one instruction whose operands are in range; `ops` are its
  // operand words.
  absl::Status CheckInstruction(FunctionState& f, uint32_t opcode, const uint32_t* ops) {
    // Run-time sizes exist only through symbols or result symbols (lengths
    // kernels compute): without any, the module is static.
    if (f.n_symbols == 0 && f.n_results == 0 && kiln_opcode_is_dynamic(opcode)) {
      return At(f, absl::StrCat(kiln_opcode_name(opcode), " in a module without symbols"));
    }
    // Over the enum with no default: an opcode added to opcodes.def
    // without a rule here fails to compile (-Wswitch); CheckOperands has
    // already refused values that name no opcode.
    switch (static_cast<kiln_opcode>(opcode)) {
      case KILN_OP_VIEW_INPUT:
      case KILN_OP_VIEW_OUTPUT:
      case KILN_OP_VIEW_CONST:
      case KILN_OP_VIEW_ARENA:
        return CheckStaticView(f, opcode, ops);
      case KILN_OP_VIEW_INPUT_DYN:
      case KILN_OP_VIEW_OUTPUT_DYN:
      case KILN_OP_VIEW_ARENA_DYN:
        SetDynamicView(f, opcode, ops);
        return absl::OkStatus();
      case KILN_OP_ISYM:
      case KILN_OP_ICONST:
      case KILN_OP_IADD:
      case KILN_OP_ISUB:
      case KILN_OP_IMUL:
      case KILN_OP_IDIV:
      case KILN_OP_IMIN:
      case KILN_OP_IMAX:
      case KILN_OP_IASSERT_EQ:
      case KILN_OP_ILOAD:
        return CheckIntegerInstruction(f, opcode, ops);
      case KILN_OP_DISPATCH:
        return CheckDispatch(f, ops);
      case KILN_OP_DISPATCH_DYN:
        return CheckDynamicDispatch(f, ops);
      case KILN_OP_IF:
        return CheckIf(f, ops);
      case KILN_OP_LOOP:
      case KILN_OP_LOOP_DYN:
        return CheckLoop(f, opcode, ops);
      case KILN_OP_RETURN:
        f.returned = true;
        return absl::OkStatus();
    }
    return absl::OkStatus();
  }

  // VIEW_INPUT, VIEW_OUTPUT, VIEW_CONST, VIEW_ARENA: a view of a size known
  // here, inside what it views.
  absl::Status CheckStaticView(FunctionState& f, uint32_t opcode, const uint32_t* ops) const {
    uint64_t bytes = 0;
    View view;
    if (opcode == KILN_OP_VIEW_INPUT) {
      bytes = TensorDescBytes(*f.sig.inputs()->Get(ops[1]));
      view = {View::kInput, ops[1], 0, bytes};
    } else if (opcode == KILN_OP_VIEW_OUTPUT) {
      // A static view takes every -1 dim as at least 1; an expression
      // dim may be 0, leaving the caller's buffer smaller than that.
      if (HasDimRegisters(*f.sig.outputs()->Get(ops[1]))) {
        return At(f, absl::StrCat("VIEW_OUTPUT of output ", ops[1],
                                  ", whose dims include an expression of the symbols (which may "
                                  "be 0); only VIEW_OUTPUT_DYN may view it"));
      }
      bytes = TensorDescBytes(*f.sig.outputs()->Get(ops[1]));
      view = {View::kOutput, ops[1], 0, bytes};
    } else if (opcode == KILN_OP_VIEW_CONST) {
      bytes = module_->constants()->Get(ops[1])->size();
      view = {View::kConstant, ops[1], 0, bytes};
    } else {  // VIEW_ARENA
      const uint64_t offset = uint64_t{ops[1]} | (uint64_t{ops[2]} << 32);
      bytes = uint64_t{ops[3]} | (uint64_t{ops[4]} << 32);
      if (offset > f.arena_size || bytes > f.arena_size - offset) {
        return At(f, absl::StrCat("arena view [", offset, ", +", bytes,
                                  ") lies outside the arena (", f.arena_size, " bytes)"));
      }
      if (offset % 16 != 0) return At(f, absl::StrCat("arena offset ", offset, " is not 16-byte aligned"));
      view = {View::kArena, 0, offset, bytes};
    }
    f.view_bytes[ops[0]] = static_cast<int64_t>(bytes);
    f.views[ops[0]] = view;
    return absl::OkStatus();
  }

  // VIEW_INPUT_DYN, VIEW_OUTPUT_DYN, VIEW_ARENA_DYN: sizes (and the arena
  // offset) are checked at run time; what is known here is what the view is
  // of, and its size when the size register holds a known value.
  static void SetDynamicView(FunctionState& f, uint32_t opcode, const uint32_t* ops) {
    f.view_bytes[ops[0]] = -2;
    if (opcode == KILN_OP_VIEW_INPUT_DYN) {
      f.views[ops[0]] = {View::kInput, ops[1], 0, 0};
    } else if (opcode == KILN_OP_VIEW_OUTPUT_DYN) {
      f.views[ops[0]] = {View::kOutput, ops[1], 0, 0};
    } else {  // VIEW_ARENA_DYN
      f.views[ops[0]] = {View::kArena, 0, 0, 0};
    }
    f.dyn_bytes[ops[0]] = f.int_known[ops[2]] ? f.int_value[ops[2]] : -1;
  }

  // The integer instructions (ISYM ... ILOAD).
  absl::Status CheckIntegerInstruction(FunctionState& f, uint32_t opcode, const uint32_t* ops) const {
    // Single assignment: both back ends evaluate the shape arithmetic
    // once (Instance::BindInputs, AOT NAME_shapes(); what an ILOAD
    // feeds, where it stands in the run).
    if (opcode == KILN_OP_ILOAD && !f.loaded) {
      f.set_before_load = f.int_set;
      f.loaded = true;
    }
    if (kiln_opcode_writes_integer(opcode)) {
      if (f.int_set[ops[0]]) {
        return At(f, absl::StrCat("integer register n", ops[0],
                                  " is written a second time (integer registers are "
                                  "single-assignment)"));
      }
      f.int_set[ops[0]] = true;
      f.int_positive[ops[0]] = IsPositive(opcode, ops, f.int_positive);
      f.int_known[ops[0]] = KnownValue(opcode, ops, f.int_known, f.int_value, &f.int_value[ops[0]]);
    }
    return absl::OkStatus();
  }

  // A dispatch binds exactly as many registers as its executable takes.
  absl::Status CheckBindingCount(const FunctionState& f, const fb::Executable& e,
                                 const uint32_t* ops) const {
    if (ops[1] == e.binding_count()) return absl::OkStatus();
    return At(f, absl::StrCat("dispatch binds ", ops[1], " registers; executable ", ops[0],
                              " takes ", e.binding_count()));
  }

  // DISPATCH: static views, each at least as large as its binding needs,
  // written ones neither read-only nor overlapping (CheckWrites).
  absl::Status CheckDispatch(FunctionState& f, const uint32_t* ops) {
    const fb::Executable* e = module_->executables()->Get(ops[0]);
    if (absl::Status s = CheckBindingCount(f, *e, ops); !s.ok()) return s;
    if (absl::Status s = CheckStaticExecutable(ops[0]); !s.ok()) {
      return At(f, std::string(s.message()));
    }
    for (uint32_t k = 0; k < ops[1]; ++k) {
      uint32_t reg = ops[2 + k];
      if (f.view_bytes[reg] == -1) return At(f, absl::StrCat("register r", reg, " is read before it is set"));
      if (f.view_bytes[reg] == -2) {
        return At(f, absl::StrCat("register r", reg,
                                  " has a run-time size; only DISPATCH_DYN may bind it"));
      }
      if (static_cast<uint64_t>(f.view_bytes[reg]) < e->binding_bytes()->Get(k)) {
        return At(f, absl::StrCat("binding ", k, " (r", reg, ") views ", f.view_bytes[reg],
                                  " bytes; executable ", ops[0], " needs ",
                                  e->binding_bytes()->Get(k)));
      }
    }
    if (absl::Status s = CheckWrites(*e, ops, f.views, &f.output_written); !s.ok()) {
      return At(f, std::string(s.message()));
    }
    return absl::OkStatus();
  }

  // DISPATCH_DYN: sizes are checked at run time (kiln_check_dynamic_dispatch);
  // what is static here is which views a kernel may write, and that each
  // patch names one of the executable's iparams.
  absl::Status CheckDynamicDispatch(FunctionState& f, const uint32_t* ops) const {
    const fb::Executable* e = module_->executables()->Get(ops[0]);
    if (absl::Status s = CheckBindingCount(f, *e, ops); !s.ok()) return s;
    const KernelInfo* kernel = FindKernel(e->kernel()->string_view());
    for (uint32_t k = 0; k < ops[1]; ++k) {
      const uint32_t reg = ops[2 + k];
      if (f.view_bytes[reg] == -1) {
        return At(f, absl::StrCat("register r", reg, " is read before it is set"));
      }
      const View& v = f.views[reg];
      if ((kernel->writes >> k & 1u) != 0 && (v.kind == View::kInput || v.kind == View::kConstant)) {
        return At(f, absl::StrCat("binding ", k, " (r", reg, ") is written by ", kernel->symbol,
                                  " but views ", v.kind == View::kInput ? "an input" : "a constant"));
      }
      if ((kernel->writes >> k & 1u) != 0 && v.kind == View::kOutput) {
        f.output_written[v.index] = true;
      }
    }
    const uint32_t* patch = ops + 2 + ops[1];
    const uint32_t n_iparams = e->iparams() ? e->iparams()->size() : 0;
    for (uint32_t j = 0; j < patch[0]; ++j) {
      if (patch[1 + 2 * j] >= n_iparams) {
        return At(f, absl::StrCat("patch ", j, " names iparam ", patch[1 + 2 * j],
                                  "; executable ", ops[0], " has ", n_iparams));
      }
    }
    return absl::OkStatus();
  }

  // IF: a condition register, and what the two branches (already checked:
  // callees come first) both write.
  absl::Status CheckIf(FunctionState& f, const uint32_t* ops) {
    if (absl::Status s = CheckScalarView(f.view_bytes, f.dyn_bytes, ops[0], 1, "condition"); !s.ok()) {
      return At(f, std::string(s.message()));
    }
    // An output counts as written when both branches write it.
    const std::vector<bool>& a = outputs_written_by_[ops[1]];
    const std::vector<bool>& b = outputs_written_by_[ops[2]];
    for (uint32_t o = 0; o < f.n_outputs; ++o) {
      if (a[o] && b[o]) f.output_written[o] = true;
    }
    call_depth_[f.index] = std::max(call_depth_[f.index],
                                    1 + std::max(call_depth_[ops[1]], call_depth_[ops[2]]));
    return absl::OkStatus();
  }

  // LOOP and LOOP_DYN: scalar operand views, a loop that can end, and what a
  // body that surely runs writes.
  absl::Status CheckLoop(FunctionState& f, uint32_t opcode, const uint32_t* ops) {
    // LOOP_DYN's trip and expected counts are integer registers, which
    // the operand pass checked (in range, set before read).
    const bool dyn = opcode == KILN_OP_LOOP_DYN;
    struct Operand { uint32_t reg; uint64_t bytes; const char* what; };
    const Operand operands[] = {{dyn ? KILN_NO_REGISTER : ops[1], 8, "trip count"},
                                {ops[2], 1, "condition"},
                                {ops[3], 8, "iteration number"},
                                {ops[4], 1, "condition after an iteration"}};
    for (const Operand& o : operands) {
      if (o.reg == KILN_NO_REGISTER) continue;
      if (absl::Status s = CheckScalarView(f.view_bytes, f.dyn_bytes, o.reg, o.bytes, o.what); !s.ok()) {
        return At(f, std::string(s.message()));
      }
    }
    if (!dyn && ops[1] == KILN_NO_REGISTER && ops[4] == KILN_NO_REGISTER) {
      return At(f, "the loop has neither a trip count nor a condition the body sets: it never ends");
    }
    if (!dyn && ops[1] != KILN_NO_REGISTER && f.views[ops[1]].kind == View::kConstant) {
      if (absl::Status s = CheckConstantTrip(f.views[ops[1]].index); !s.ok()) {
        return At(f, std::string(s.message()));
      }
    }
    // LOOP_DYN's trip INT64_MAX means no limit: a constant one without
    // a condition the body sets is the endless loop refused above,
    // unless an expected count surely >= 0 stops it (with a failure).
    if (dyn && ops[4] == KILN_NO_REGISTER && f.int_known[ops[1]] && f.int_value[ops[1]] == INT64_MAX &&
        !f.int_positive[ops[5]] && !(f.int_known[ops[5]] && f.int_value[ops[5]] >= 0)) {
      return At(f, "the loop's trip count is the constant INT64_MAX (no limit) and neither a condition "
                   "the body sets nor an expected count ends it: it never ends");
    }
    if (ops[3] == KILN_NO_REGISTER || f.views[ops[3]].kind != View::kArena) {
      return At(f, "the iteration number must be written to an arena view");
    }
    // A loop that must run at least once writes what its body writes.
    const uint64_t expected = uint64_t{ops[5]} | (uint64_t{ops[6]} << 32);
    if (dyn ? static_cast<bool>(f.int_positive[ops[5]])
            : expected != KILN_ANY_ITERATION_COUNT && expected > 0) {
      for (uint32_t o = 0; o < f.n_outputs; ++o) {
        if (outputs_written_by_[ops[0]][o]) f.output_written[o] = true;
      }
    }
    call_depth_[f.index] = std::max(call_depth_[f.index], 1 + call_depth_[ops[0]]);
    return absl::OkStatus();
  }

  // After the last instruction: a RETURN ends the function, calls nest no
  // deeper than the interpreter allows, and the entry computes its shape
  // registers from the symbols and writes every output it must.
  absl::Status CheckFunctionEnd(const FunctionState& f) {
    if (!f.returned) return Error(absl::StrCat("function '", f.name, "' does not end in RETURN"));
    if (call_depth_[f.index] > kMaxCallDepth) {
      return Error(absl::StrCat("function '", f.name, "' nests calls ", call_depth_[f.index],
                                " deep; the limit is ", kMaxCallDepth));
    }
    outputs_written_by_[f.index] = f.output_written;
    if (f.index != 0) return absl::OkStatus();
    if (absl::Status s = CheckShapeRegisters(f.loaded ? f.set_before_load : f.int_set); !s.ok()) {
      return s;
    }
    for (uint32_t o = 0; o < f.n_outputs; ++o) {
      if (!f.output_written[o] && !HasSymbols(*f.sig.outputs()->Get(o)) &&
          TensorDescBytes(*f.sig.outputs()->Get(o)) > 0) {
        return Error(absl::StrCat("function '", f.name, "' never writes output ", o));
      }
    }
    return absl::OkStatus();
  }

  // The workspace size and the output dims that are expressions are read
  // before a run (VM BindInputs, AOT NAME_shapes(), which runs the integer
  // instructions before the entry's first ILOAD): each must be a register
  // the entry writes before that ILOAD, from the symbols alone.
  absl::Status CheckShapeRegisters(const std::vector<bool>& known) const {
    const int32_t ws = module_->memory()->workspace_register();
    if (ws >= 0 && !known[static_cast<uint32_t>(ws)]) {
      return Error(absl::StrCat("workspace register n", ws,
                                " is not written by the entry function before any ILOAD (the "
                                "workspace size must follow from the symbols alone)"));
    }
    const auto& outputs = *module_->signature()->outputs();
    for (uint32_t k = 0; k < outputs.size(); ++k) {
      const auto* registers = outputs.Get(k)->dim_registers();
      for (uint32_t d = 0; registers != nullptr && d < registers->size(); ++d) {
        const int32_t reg = registers->Get(d);
        if (reg >= 0 && !known[static_cast<uint32_t>(reg)]) {
          return Error(absl::StrCat("signature output ", k, " dim ", d, " names integer register n",
                                    reg, ", which the entry function does not write before any "
                                    "ILOAD (an output dim must follow from the symbols alone)"));
        }
      }
    }
    return absl::OkStatus();
  }

  // Whether the integer instruction `opcode` surely writes a value >= 1,
  // given which of its operands surely are (int_positive above).
  static bool IsPositive(uint32_t opcode, const uint32_t* ops, const std::vector<bool>& positive) {
    switch (opcode) {
      case KILN_OP_ISYM:
        return true;  // bound from the input shapes, 1..2^40 (kiln/dynamic_ops.h)
      case KILN_OP_ICONST:
        return static_cast<int64_t>(uint64_t{ops[1]} | (uint64_t{ops[2]} << 32)) > 0;
      case KILN_OP_IADD:
      case KILN_OP_IMUL:
      case KILN_OP_IMIN:
        return positive[ops[1]] && positive[ops[2]];
      case KILN_OP_IMAX:
        return positive[ops[1]] || positive[ops[2]];
      default:
        return false;  // ISUB, IDIV and ILOAD may give 0 or less
    }
  }

  // Whether the integer instruction `opcode` writes a value known without
  // running (into *value): a constant, or arithmetic on known values that
  // does not fail (the helpers the back ends run, kiln/dynamic_ops.h).
  static bool KnownValue(uint32_t opcode, const uint32_t* ops, const std::vector<bool>& known,
                         const std::vector<int64_t>& values, int64_t* value) {
    if (opcode == KILN_OP_ICONST) {
      *value = static_cast<int64_t>(uint64_t{ops[1]} | (uint64_t{ops[2]} << 32));
      return true;
    }
    if (kiln_int_binary_helper_name(opcode) == nullptr || !known[ops[1]] || !known[ops[2]])
      return false;
    return EvalIntBinary(opcode, values[ops[1]], values[ops[2]], value) == KILN_OK;
  }

  static bool HasDimRegisters(const fb::TensorDesc& desc) {
    if (desc.dim_registers() == nullptr) return false;
    for (int32_t reg : *desc.dim_registers()) {
      if (reg >= 0) return true;
    }
    return false;
  }

  // Kernels assume their outputs are writable and never alias another
  // binding: a written binding (one the kernel table marks, touching > 0
  // bytes) must view the arena or an output, and must not overlap any other
  // binding of the same dispatch that the kernel touches.
  absl::Status CheckWrites(const fb::Executable& e, const uint32_t* ops,
                           const std::vector<View>& views, std::vector<bool>* output_written) {
    const KernelInfo* kernel = FindKernel(e.kernel()->string_view());
    const uint32_t count = ops[1];
    for (uint32_t k = 0; k < count; ++k) {
      const uint64_t k_bytes = e.binding_bytes()->Get(k);
      if ((kernel->writes >> k & 1u) == 0 || k_bytes == 0) continue;
      const View& out = views[ops[2 + k]];
      if (out.kind == View::kInput || out.kind == View::kConstant) {
        return absl::InvalidArgumentError(absl::StrCat(
            "binding ", k, " (r", ops[2 + k], ") is written by ", kernel->symbol, " but views ",
            out.kind == View::kInput ? "an input" : "a constant"));
      }
      if (out.kind == View::kOutput) (*output_written)[out.index] = true;
      for (uint32_t j = 0; j < count; ++j) {
        if (j == k || e.binding_bytes()->Get(j) == 0) continue;
        const View& other = views[ops[2 + j]];
        if (Overlaps(out, k_bytes, other, e.binding_bytes()->Get(j))) {
          return absl::InvalidArgumentError(absl::StrCat(
              "binding ", k, " (r", ops[2 + k], "), written by ", kernel->symbol,
              ", overlaps binding ", j, " (r", ops[2 + j], ")"));
        }
      }
    }
    return absl::OkStatus();
  }

  // A LOOP's trip count read from constant `c` (kiln_trip_count: its first
  // 8 bytes, which CheckScalarView found there) may not exceed the largest
  // the module declares, or kUndeclaredTripLimit when it declares none: a
  // corrupted constant would otherwise make the run endless.
  absl::Status CheckConstantTrip(uint32_t c) const {
    const uint8_t* bytes = module_->constant_data()->data() + module_->constants()->Get(c)->offset();
    const int64_t trip = kiln_trip_count(bytes);
    const int64_t declared = module_->max_trip_count();
    const int64_t limit = declared >= 0 ? declared : kUndeclaredTripLimit;
    if (trip <= limit) return absl::OkStatus();
    const fb::Constant* constant = module_->constants()->Get(c);
    return absl::InvalidArgumentError(absl::StrCat(
        "LOOP's trip count is ", trip, " (constant ", c, " '",
        constant->name() ? constant->name()->str() : "", "'), above ",
        declared >= 0 ? absl::StrCat("the largest constant trip count the module declares (", limit,
                                     "): the module is corrupt")
                      : absl::StrCat("the limit ", limit,
                                     " for a module that declares no largest trip count (one "
                                     "written before modules declared it: recompile it)")));
  }

  // A register set to a view of at least `bytes` bytes (a branch condition,
  // trip count or iteration number): a static view, or a dynamic one whose
  // size is a constant (dyn_bytes).
  static absl::Status CheckScalarView(const std::vector<int64_t>& view_bytes,
                                      const std::vector<int64_t>& dyn_bytes, uint32_t reg,
                                      uint64_t bytes, const char* what) {
    if (view_bytes[reg] == -1) {
      return absl::InvalidArgumentError(absl::StrCat("register r", reg, " (", what,
                                                     ") is read before it is set"));
    }
    if (view_bytes[reg] == -2 && dyn_bytes[reg] >= 0 &&
        static_cast<uint64_t>(dyn_bytes[reg]) >= bytes) {
      return absl::OkStatus();
    }
    if (view_bytes[reg] < 0 || static_cast<uint64_t>(view_bytes[reg]) < bytes) {
      return absl::InvalidArgumentError(absl::StrCat("register r", reg, " (", what, ") views ",
                                                     view_bytes[reg] < 0 ? "a run-time size"
                                                         : absl::StrCat(view_bytes[reg], " bytes"),
                                                     "; it needs ", bytes));
    }
    return absl::OkStatus();
  }

  static bool Overlaps(const View& a, uint64_t a_bytes, const View& b, uint64_t b_bytes) {
    if (a.kind != b.kind || a.index != b.index) return false;
    return a.offset < b.offset + b_bytes && b.offset < a.offset + a_bytes;
  }

  const uint8_t* data_;
  size_t size_;
  const std::string& origin_;
  const fb::Module* module_ = nullptr;
  std::vector<bool> symbol_bound_;    // per symbol: some input dim binds it
  std::vector<bool> static_checked_;  // per executable: static check passed
  // Per function: the outputs it surely writes, and its call nesting depth.
  std::vector<std::vector<bool>> outputs_written_by_;
  std::vector<uint32_t> call_depth_;
  // The interpreter recurses once per nested call.
  static constexpr uint32_t kMaxCallDepth = 32;
  // Result symbols are matched by name (quadratic checks); compiled modules
  // have one per data-dependent length.
  static constexpr uint32_t kMaxResultSymbols = 1024;
};

}  // namespace

bool HasSymbols(const fb::TensorDesc& desc) {
  for (int64_t dim : *desc.shape()) {
    if (dim < 0) return true;
  }
  return false;
}

uint64_t TensorDescBytes(const fb::TensorDesc& desc) {
  uint64_t bytes = DTypeSize(desc.dtype());
  for (int64_t dim : *desc.shape()) bytes *= dim < 0 ? 1 : static_cast<uint64_t>(dim);
  // A capacity only ever narrows the bound shape's bytes.
  const uint64_t capacity = desc.capacity_bytes();
  return capacity != 0 && capacity < bytes ? capacity : bytes;
}

absl::StatusOr<const fb::Module*> VerifyModuleBytes(const uint8_t* data, size_t size,
                                                    const std::string& origin) {
  return Verifier(data, size, origin).Run();
}

}  // namespace kiln::vm
