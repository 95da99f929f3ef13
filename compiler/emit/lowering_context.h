// Internal to compiler/emit: state shared by the per-op lowering functions.
#ifndef KILN_COMPILER_EMIT_LOWERING_CONTEXT_H_
#define KILN_COMPILER_EMIT_LOWERING_CONTEXT_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "compiler/emit/kernel_builders.h"
#include "compiler/emit/lowering.h"

namespace kiln::compiler::emit {

class BytecodeBuilder;
class ShapeProgram;

// A buffer a kernel binds: which view and how many bytes it spans.
struct Binding {
  // kFixed: arena bytes at a fixed offset (index), outside the graph's own
  // plan: where control flow passes values between functions.
  enum class Kind { kInput, kOutput, kConstant, kArena, kFixed };
  Kind kind = Kind::kArena;
  uint64_t index = 0;  // input/output/constant ordinal, arena root value id, or offset
  uint64_t bytes = 0;  // the size of the view
  // An encoded symbolic size (ir/dim_expr.h) when the view's size is only
  // known at run time; 0 otherwise.
  int64_t symbolic_bytes = 0;
  // kFixed only: an encoded offset (ir/dim_expr.h) when the slot lies past
  // tensors whose sizes depend on the symbols; 0 otherwise (then `index`).
  int64_t symbolic_offset = 0;
  // Already in terms every function of the module can view (the signature's
  // buffers, module constants, kFixed): a called function's graph inputs
  // and outputs are not remapped through its frame.
  bool absolute = false;
};

// Control-flow slots (kFixed) and sizes as dims (ir/dim_expr.h): static, or
// encoded where they depend on the symbols (called_function.cc).
Binding FixedSlot(int64_t offset, int64_t bytes);
int64_t BindingBytes(const Binding& b);
// `bytes` rounded up to the 64-byte alignment of slots and called arenas.
int64_t AlignSlot(ir::DimPool& dims, int64_t bytes);
// max(a, b), or the one the pool knows is larger.
int64_t LargerDim(ir::DimPool& dims, int64_t a, int64_t b);

struct PendingDispatch {
  uint32_t executable = 0;
  std::vector<Binding> bindings;
  std::vector<std::string> nodes, op_types, outputs;
  // (value, binding index) of each value this dispatch writes (debug info).
  std::vector<std::pair<ir::ValueId, uint32_t>> writes;
  // Symbolic parameters: (iparam index, encoded dim) patched at run time;
  // with them or with a symbolic binding the dispatch is a DISPATCH_DYN.
  std::vector<std::pair<uint32_t, int64_t>> patches;
  bool dynamic = false;
  // Data symbols whose count this dispatch's kernel writes: each is loaded
  // into an integer register (ILOAD) right after it.
  std::vector<int32_t> loads;
  // Control flow instead of a dispatch: IF or LOOP (kiln/opcodes.def) with
  // these function and register operands (nullopt: none) in opcode order.
  uint32_t control_opcode = 0;
  std::vector<uint32_t> functions;
  std::vector<std::optional<Binding>> control_operands;
  uint64_t expected_iterations = 0;
  // LOOP_DYN: the trip count and the expected iterations (-1: any) as dims,
  // whose integer registers the emitter fills in.
  std::vector<int64_t> control_dims;
};

// How a called function (a subgraph of If, Loop, Scan) reaches buffers:
// where each of its graph inputs and outputs lives, as bindings every
// function can view (kInput/kOutput of the signature, kConstant, kFixed).
struct FunctionFrame {
  std::vector<Binding> inputs;
  std::vector<Binding> outputs;
  // Its own arena tensors start here: a dim (ir/dim_expr.h), encoded when
  // the caller's tensors before it have symbolic sizes.
  int64_t arena_base = 0;
};

class LoweringContext {
 public:
  LoweringContext(const ir::Graph& graph, const compiler::MemoryPlan& plan)
      : graph_(graph), plan_(plan), shared_(&module_), pool_(&graph.dims) {
    module_.callee_count_slots = plan.callee_count_slots;
  }
  // Lowers a subgraph into a function called from `caller`'s module. The
  // subgraph's dims are encoded in the model's pool (passes/control_flow.h).
  LoweringContext(const ir::Graph& graph, const compiler::MemoryPlan& plan,
                  LoweringContext& caller, FunctionFrame frame)
      : graph_(graph), plan_(plan), shared_(caller.shared_), frame_(std::move(frame)),
        called_(true), pool_(caller.pool_) {
    FindCountSlots();
  }

  const ir::Graph& graph() const { return graph_; }
  // Shape arithmetic on dims that may be symbolic; a lowering that takes
  // symbolic dims (passes/symbolic_support.cc) computes its parameters here,
  // and Dispatch() turns the symbolic ones into run-time patches.
  ir::DimPool& dims() const { return *pool_; }
  const ir::Value& value(ir::ValueId v) const { return graph_.value(v); }

  // The view holding value `v` (its root's storage).
  absl::StatusOr<Binding> Bind(const ir::Node& node, ir::ValueId v);
  // A constant computed during lowering (e.g. BatchNorm scale/shift).
  Binding BindNewConstant(const std::string& name, ir::ConstantPtr data, uint8_t layout = 0);

  // Adds an executable of the kernel `params` names (its struct in
  // kernel_builders.h) and its dispatch, attributed to `node`. A field left
  // unset, or an array whose length is not its count, is refused.
  // binding_bytes default to the bound views' sizes; `bytes_override` (same
  // length, -1 = keep) replaces individual entries.
  template <typename Params>
  absl::Status Dispatch(const ir::Node& node, const Params& params,
                        const std::vector<Binding>& bindings,
                        const std::vector<int64_t>& bytes_override = {}) {
    kernel::KernelParamCollector c(Params::kKernel);
    params.Collect(c);
    if (!c.error().empty()) return Error(absl::StatusCode::kInternal, node, c.error());
    return Dispatch(node, Params::kKernel, std::move(c.ints()), std::move(c.floats()), bindings,
                    bytes_override);
  }
  // A copy into graph output `output_index` (plan.output_copies).
  absl::Status OutputCopy(int32_t output_index, ir::ValueId source);

  // Error helpers: "<file>: node 'n' (Op): msg".
  absl::Status Error(absl::StatusCode code, const ir::Node& node, const std::string& msg) const;
  absl::Status Unimplemented(const ir::Node& node, const std::string& msg) const {
    return Error(absl::StatusCode::kUnimplemented, node, msg);
  }
  absl::Status Invalid(const ir::Node& node, const std::string& msg) const {
    return Error(absl::StatusCode::kInvalidArgument, node, msg);
  }

  // Static shape of input/output k of `node`; fails if absent or unknown.
  absl::StatusOr<std::vector<int64_t>> InputShape(const ir::Node& node, size_t k) const;
  absl::StatusOr<std::vector<int64_t>> OutputShape(const ir::Node& node, size_t k) const;
  // Fails unless every present input and output of `node` is float32.
  absl::Status RequireF32(const ir::Node& node) const;
  // Fails unless every dim in `dims` is static (for parameters whose
  // arithmetic is not symbolic yet, e.g. sizes baked into constant tables).
  absl::Status RequireStatic(const ir::Node& node, const std::vector<int64_t>& dims,
                             const char* what) const;
  // `shape` with each length known only during the run replaced by its
  // bound: the capacity the kernel computing that length writes into.
  absl::StatusOr<std::vector<int64_t>> BoundShape(const ir::Node& node,
                                                  std::vector<int64_t> shape) const;

  absl::StatusOr<LoweredModule> Finish();

  // Control flow (lower_control_flow.cc). Where `v` lives, in terms any
  // function of the module can view (never kArena).
  absl::StatusOr<Binding> Locate(const ir::Node& node, ir::ValueId v);
  // Whether `v` lies in the workspace's tail (which Locate refuses).
  bool InTail(ir::ValueId v) const {
    return plan_.storage[v].kind == compiler::StorageKind::kArena && plan_.storage[v].tail;
  }
  Binding Resolve(const Binding& b) const;
  // The first arena byte past this function's own tensors (64-aligned):
  // where the functions it calls put theirs. A dim: encoded when sizes
  // before it depend on the symbols.
  int64_t ArenaEnd() const;
  // A function index for a subgraph lowered later (callees get indices
  // above their caller's, as the verifier demands).
  uint32_t ReserveFunction(const std::string& name);
  // The data symbols of this function's graph whose count is value
  // `written` (each loaded right after the dispatch writing it). A called
  // function's counts must lie at static arena offsets: those are recorded.
  absl::StatusOr<std::vector<int32_t>> LoadsOf(const ir::Node& node, ir::ValueId written);
  // Appends IF or LOOP (p.control_opcode) at this point of the function.
  void Control(const ir::Node& node, PendingDispatch p);
  // A LOOP's trip count operand: when it views a constant, its value joins
  // the module's declared Module.max_trip_count.
  void DeclareTripCount(const Binding& trip);
  // Ends a called function: its bytecode and debug info into slot `index`.
  absl::Status FinishFunction(uint32_t index);

 private:
  // The dispatch with its parameters flattened (the kernel table's order).
  absl::Status Dispatch(const ir::Node& node, const std::string& kernel,
                        std::vector<int64_t> iparams, std::vector<float> fparams,
                        const std::vector<Binding>& bindings,
                        const std::vector<int64_t>& bytes_override);
  absl::Status AddPending(PendingDispatch p, ExecutableDesc exe);
  // Emits the pending dispatches and IF/LOOPs in order (registers from
  // `register_of`; a dynamic dispatch's patches from `shapes`), recording
  // each dispatch's debug info as in `function`.
  void EmitPending(BytecodeBuilder& bc, const std::function<uint32_t(const Binding&)>& register_of,
                   ShapeProgram* shapes, uint32_t function);
  // After a data symbol's ILOAD: the run-time checks and the debug dims that
  // waited for it.
  void EmitReady(BytecodeBuilder& bc, ShapeProgram* shapes);
  // Before the first instruction: what waits for this function's data
  // symbols (EmitReady); a called function also loads those of the graphs
  // around it that its sizes use (their counts are kept to the run's end).
  void PrepareDataSymbols(ShapeProgram* shapes);
  // A called function's counts that the entry plan gave static slots.
  void FindCountSlots();
  // Debug info (lowering_debug.cc): which binding holds each output of `node`,
  // then per dispatch the values (and aliases) complete after it, and the
  // arena tensors' dispatch lifetimes. Values with symbolic dims name the
  // integer registers of `shapes` holding them (null: such values are left out).
  void RecordWrites(const ir::Node& node, const std::vector<Binding>& bindings,
                    PendingDispatch* p) const;
  void AttachDebugValues(ShapeProgram* shapes);

  // Finish's steps (lowering.cc), in the order it takes them.
  // An output dim that is an expression of the symbols (S + T rows): its
  // register is filled in once the shape program exists.
  struct ExprDim {
    size_t output, dim;
    int64_t expr;
  };
  struct EntryViews;  // the entry function's view registers (lowering.cc)
  // The module's source, arena and symbols; then its result symbols (the
  // data symbols, each read from the arena slot of its count).
  void DescribeModule();
  absl::Status AddResultSymbols();
  // The signature's inputs and outputs (one TensorDesc each), collecting
  // the output dims that are expressions.
  absl::Status DescribeSignature(std::vector<ExprDim>* expr_dims);
  absl::StatusOr<TensorDesc> SignatureDesc(ir::ValueId v, std::vector<ExprDim>* expr_dims);
  // The integer registers read before a run (expression output dims, the
  // workspace size); returns the workspace's size as a dim.
  int64_t RegisterReadBeforeRun(ShapeProgram& shapes, const std::vector<ExprDim>& expr_dims);
  // The entry's views: the signature's buffers and the constants, the
  // arena tensors (tail views deferred), control flow's slots.
  void ViewSignature(EntryViews& views);
  void ViewArena(EntryViews& views);
  void ViewFixedSlots(EntryViews& views);
  // The register viewing `b`, emitting a deferred view on its first use.
  uint32_t EntryRegister(EntryViews& views, const Binding& b);
  uint32_t DeferredView(EntryViews& views, uint32_t r);
  void ViewReadyTail(EntryViews& views);
  // Ends the entry function: debug info (the called functions' after its
  // own), RETURN, and the module.
  absl::StatusOr<LoweredModule> WriteEntryFunction(BytecodeBuilder& bc, ShapeProgram& shapes,
                                                   std::vector<DispatchDebugDesc> called);

  const ir::Graph& graph_;
  const compiler::MemoryPlan& plan_;
  LoweredModule module_;   // this function's bytecode and debug info
  // The module being built (executables, constants, functions): module_
  // of the entry function's context.
  LoweredModule* shared_;
  FunctionFrame frame_;    // of a called function
  bool called_ = false;
  ir::DimPool* pool_;      // the model's: the entry graph's dims
  std::map<ir::ValueId, uint32_t> constant_of_value_;
  std::vector<PendingDispatch> pending_;
  std::set<int32_t> loaded_data_;  // data symbols some dispatch already loads
  // Assumed-equal pairs and debug dims involving this function's data
  // symbols, emitted as soon as those are loaded.
  std::vector<std::pair<int64_t, int64_t>> waiting_assumptions_;
  std::vector<int64_t> waiting_dims_;
  std::map<ir::ValueId, uint64_t> count_slots_;  // see FindCountSlots
};

// Per-op lowering; each emits one or more dispatches for `node`.
absl::Status LowerNode(LoweringContext& ctx, const ir::Node& node);

// Row-major element strides of `shape` (static dims only).
std::vector<int64_t> ContiguousStrides(const std::vector<int64_t>& shape);
// The same for a shape that may have symbolic dims.
std::vector<int64_t> ContiguousStrides(const std::vector<int64_t>& shape, ir::DimPool& dims);
// Element strides of `in` read as its right-aligned numpy broadcast to `out`
// (0 along broadcast dims); false if it does not broadcast.
bool BroadcastStrides(const std::vector<int64_t>& in, const std::vector<int64_t>& out,
                      ir::DimPool& dims, std::vector<int64_t>* strides);

}  // namespace kiln::compiler::emit

#endif  // KILN_COMPILER_EMIT_LOWERING_CONTEXT_H_
