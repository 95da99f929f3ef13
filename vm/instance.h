// A loaded module ready to run: executables resolved to function pointers,
// constants located in the mapped image, the arena and register file
// allocated once. Run() allocates nothing.
#ifndef KILN_VM_INSTANCE_H_
#define KILN_VM_INSTANCE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "kiln/kernel_abi.h"
#include "vm/interpreter.h"
#include "vm/large_buffer.h"
#include "vm/kernel_paths.h"
#include "vm/module_image.h"
#include "vm/observer.h"
#include "vm/run_budget.h"
#include "vm/thread_pool.h"

namespace kiln::vm {

// A caller-owned buffer bound to one signature input or output.
struct HostTensor {
  fb::DType dtype = fb::DType::Unknown;
  absl::Span<const int64_t> shape;
  void* data = nullptr;
  uint64_t bytes = 0;
};

class Instance {
 public:
  // threads > 1 starts threads - 1 pool workers now, never on the run path.
  // kernel_path: the SIMD path whose kernels run ("" or "auto": KILN_ISA
  // when set, else the widest this CPU runs; vm/kernel_paths.h).
  static absl::StatusOr<std::unique_ptr<Instance>> Create(
      std::shared_ptr<const ModuleImage> image, int threads = 1,
      std::string_view kernel_path = "");
  ~Instance();

  const ModuleImage& image() const { return *image_; }
  KernelPath kernel_path() const { return kernel_path_; }
  const fb::Signature& signature() const { return *image_->module().signature(); }
  // The workspace: the static arena, or for a module with symbols what
  // Reserve() made room for.
  uint64_t arena_bytes() const { return arena_capacity_; }

  // Symbolic dimensions. A module with symbols takes inputs whose symbolic
  // dims may change from run to run; the symbols are bound from the input
  // shapes. Reserve() sizes the workspace for given inputs (it allocates, so
  // call it before running; Run() never allocates and refuses inputs that
  // need more workspace than reserved).
  bool has_symbols() const { return !symbols_.empty(); }
  absl::Status Reserve(absl::Span<const HostTensor> inputs);
  // Binds the symbols from `inputs` (checking every dtype and static dim) and
  // evaluates the shape arithmetic; afterwards OutputShape() and
  // workspace_needed() describe a run on these inputs.
  absl::Status BindInputs(absl::Span<const HostTensor> inputs);
  // Output k's shape for the inputs last bound (the static shape without
  // symbols). A dim known only after a run (a result symbol, e.g. NonZero's
  // count) is its bound until a run ends, then that run's value; the output
  // buffer must hold the bound, and the result fills its first bytes.
  std::vector<int64_t> OutputShape(size_t k) const;
  // The same into `dims` (the output's rank entries), allocating nothing.
  void OutputShapeInto(size_t k, int64_t* dims) const;
  uint64_t workspace_needed() const { return workspace_needed_; }

  // A size found during the run with no bound the compiler could give (a
  // ConstantOfShape's dims read from data) is checked when the run reaches
  // it: a run that finds its workspace or an output buffer too small stops
  // with a ResourceExhausted status, and shortfall() says which buffer and
  // how many bytes it needs (at least). Grow it (ReserveWorkspace, or a
  // larger output buffer) and run again; vm/run_growing.h does so. Outputs
  // with such dims take any buffer up front (OutputShape gives 0 for those
  // dims until a run ends).
  struct Shortfall {
    int32_t output = -1;  // the output's index; -1: the workspace
    uint64_t bytes = 0;
  };
  const std::optional<Shortfall>& shortfall() const { return shortfall_; }
  // Whether some size is found during the run without a bound (a run may
  // stop short, above).
  bool has_unbounded_sizes() const { return has_unbounded_sizes_; }
  // Whether output k has such a size (its buffer may be any size up front).
  bool output_grows(size_t k) const { return k < output_unbounded_.size() && output_unbounded_[k]; }
  absl::Status ReserveWorkspace(uint64_t bytes) { return GrowArena(bytes); }
  // Symbol ordinal and value for the inputs last bound.
  absl::Span<const int64_t> symbol_values() const { return symbols_; }

  // Checks every buffer's dtype, shape and size against the signature, then runs.
  // With an observer (vm/observer.h) the instrumented interpreter loop runs.
  // `limits` bound the run (vm/run_budget.h): a run they stop returns a
  // Cancelled, DeadlineExceeded or ResourceExhausted status naming where
  // (StopCode() gives its code), and the instance runs again as before.
  absl::Status Run(absl::Span<const HostTensor> inputs, absl::Span<const HostTensor> outputs,
                   DispatchObserver* observer = nullptr, const RunLimits& limits = {});

  // Runs with buffers already checked by the caller (in signature order).
  // For a module with symbols, BindInputs() must have bound them and the
  // caller's buffers must hold what those shapes need. A module with sizes
  // found during the run (has_unbounded_sizes) checks its outputs against
  // the sizes the last Run() was given: call Run() for those.
  absl::Status RunUnchecked(const void* const* inputs, void* const* outputs,
                            const RunLimits& limits = {});
  // The same, reporting each dispatch to `observer`; an observer that stops
  // the run makes this return an Aborted status naming the dispatch.
  absl::Status RunObserved(const void* const* inputs, void* const* outputs,
                           DispatchObserver& observer, const RunLimits& limits = {});

 private:
  explicit Instance(std::shared_ptr<const ModuleImage> image) : image_(std::move(image)) {}
  absl::Status DispatchError(uint32_t function, uint32_t pc, int code) const;
  // The status of a dynamic view that found its buffer too small (sets
  // shortfall_), or nullopt for other failures.
  std::optional<absl::Status> ShortfallError(uint32_t function, uint32_t pc, int code,
                                             const std::string& where) const;
  // The status of a run that ended with `rc` at `pc` of `function`: the
  // budget's stop, or DispatchError.
  absl::Status RunError(uint32_t function, uint32_t pc, int rc, const RunLimits& limits) const;
  // The interpreter's view of this instance for one run (plain or observed).
  InterpreterFrame Frame(const void* const* inputs, void* const* outputs);

  absl::Status CheckBuffer(const fb::TensorDesc& desc, const HostTensor& t, const char* kind,
                           size_t index, const std::vector<int32_t>& dim_symbols,
                           const std::vector<int32_t>* dim_registers = nullptr) const;
  absl::Status GrowArena(uint64_t bytes);
  // Why an IASSERT_EQ at `pc` of `function` failed, with the expressions
  // and values.
  std::string AssumptionMessage(uint32_t function, uint32_t pc) const;

  std::shared_ptr<const ModuleImage> image_;
  KernelPath kernel_path_ = KernelPath::kPortable;
  std::vector<ResolvedExecutable> executables_;
  std::vector<const void*> constants_;
  std::vector<uint64_t> constant_bytes_;
  std::vector<void*> registers_;         // every function's, one after another
  std::vector<uint64_t> register_bytes_;
  std::vector<InterpreterFunction> functions_;
  uint32_t failed_function_ = kNoFailedFunction;  // set by the interpreter
  uint32_t FailedFunction() const {
    return failed_function_ == kNoFailedFunction ? 0 : failed_function_;
  }
  std::vector<void*> bindings_;
  std::vector<uint64_t> binding_bytes_;
  std::vector<uint64_t> input_view_bytes_, output_view_bytes_;
  // Caller buffer sizes of the run in progress (*_DYN views stay inside).
  std::vector<uint64_t> input_capacity_, output_capacity_;
  LargeBuffer arena_;
  uint64_t arena_capacity_ = 0;
  std::unique_ptr<ThreadPool> pool_;  // null: kernels run serially
  // Symbolic dimensions: values, and per signature dim the symbol ordinal
  // (-1: static), resolved by name once at load.
  std::vector<int64_t> symbols_;
  std::vector<std::vector<int32_t>> input_dim_symbols_, output_dim_symbols_;
  // Per output dim the integer register holding an expression dim (-1: none).
  std::vector<std::vector<int32_t>> output_dim_registers_;
  std::vector<int64_t> int_registers_;  // every function's, the entry's first
  std::vector<uint8_t> int_unknown_;  // EvaluateIntegers' scratch
  // Result symbols: where each run leaves the value, its bound, the value
  // after the last run; per output dim the result ordinal (-1: none).
  std::vector<ResultSlot> results_;
  std::vector<int64_t> result_values_;
  std::vector<std::vector<int32_t>> output_result_dims_;
  std::vector<uint8_t> result_sizes_output_;  // per result: some output dim is it
  // Reads the result symbols that size outputs, as a successful run left
  // them (checked against bounds). A length only a called function loads
  // is its own: its slot may hold other data once the function returned.
  absl::Status ReadResults();
  std::vector<int64_t> iparam_scratch_;
  uint64_t workspace_needed_ = 0;
  mutable std::optional<Shortfall> shortfall_;  // set by a failed run
  bool has_unbounded_sizes_ = false;
  // Per output: some dim is a result symbol without a bound.
  std::vector<uint8_t> output_unbounded_;
  bool dynamic_code_ = false;  // the entry function uses the dynamic opcodes
};

}  // namespace kiln::vm

#endif  // KILN_VM_INSTANCE_H_
