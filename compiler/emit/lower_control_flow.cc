// If, Loop and Scan: each subgraph (compiled by passes/control_flow.cc)
// becomes a function of the module, which IF or LOOP calls.
//
// Memory: a called function's tensors live past its caller's arena
// (LoweringContext::ArenaEnd); a Loop or Scan first takes slots there for
// what crosses iterations — the iteration number, each state value as it
// enters (in) and leaves (out) the body, the body's condition and scan
// output slices — and its body's own tensors follow. The caller copies the
// initial states in before LOOP and the final ones out after it; the body
// copies out -> in at its end and writes scan output slice i with
// iteration_slice_write (a Scan body first reads its input slices with
// iteration_slice_read). An If branch writes the node's outputs directly.
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "compiler/emit/lower_ops.h"
#include "compiler/ir/graph_util.h"
#include "compiler/passes/control_flow.h"
#include "compiler/passes/memory_planning.h"
#include "kiln/control_ops.h"
#include "kiln/opcodes.h"

namespace kiln::compiler::emit {
namespace {

using compiler::ControlFlow;

// Slots in the region after the caller's arena, 64-byte aligned; offsets
// and sizes are dims (symbolic when they depend on the symbols).
class Slots {
 public:
  Slots(ir::DimPool& dims, int64_t base) : dims_(dims), next_(base) {}
  Binding Take(int64_t bytes) {
    const Binding b = FixedSlot(next_, bytes);
    next_ = dims_.Add(next_, AlignSlot(dims_, bytes));
    return b;
  }
  int64_t end() const { return next_; }

 private:
  ir::DimPool& dims_;
  int64_t next_;
};

int64_t Bytes(ir::DimPool& dims, ir::DType dtype, const std::vector<int64_t>& shape) {
  return dims.Mul(dims.Product(shape), static_cast<int64_t>(ir::DTypeSize(dtype)));
}

// A dispatch of a called function's own making (copies, slices): attributed
// to the control-flow node by name but writing none of its values.
ir::Node Attribution(const ir::Node& node) {
  ir::Node n;
  n.name = node.name;
  n.op_type = node.op_type;
  return n;
}

using Extra = std::function<absl::Status(LoweringContext&)>;

// Lowers `body` into a new function. `inputs` and `outputs` give where each
// of its ONNX graph inputs (before constant substitution) and outputs live.
absl::StatusOr<uint32_t> LowerFunction(LoweringContext& caller, const ir::Node& node,
                                       const PreparedSubgraph& body, const char* which,
                                       const std::vector<Binding>& inputs,
                                       const std::vector<Binding>& outputs, int64_t arena_base,
                                       const Extra& prologue, const Extra& epilogue) {
  const uint32_t index = caller.ReserveFunction(absl::StrCat(node.name, ".", which));
  const ir::Graph& graph = *body.graph;
  // Planning writes sizes and offsets as dims: in the model's pool, which
  // the caller may have extended since the subgraph was compiled (slots).
  graph.dims = caller.dims();
  absl::StatusOr<compiler::MemoryPlan> plan = compiler::PlanMemory(graph);
  if (!plan.ok()) return plan.status();
  caller.dims() = graph.dims;
  FunctionFrame frame;
  for (size_t k : body.kept) frame.inputs.push_back(inputs[k]);
  frame.outputs = outputs;
  frame.arena_base = arena_base;
  LoweringContext ctx(graph, *plan, caller, std::move(frame));
  if (prologue) {
    if (absl::Status s = prologue(ctx); !s.ok()) return s;
  }
  for (const ir::Node& n : graph.nodes) {
    if (n.removed) continue;
    if (absl::Status s = LowerNode(ctx, n); !s.ok()) return s;
  }
  for (const compiler::OutputCopy& c : plan->output_copies) {
    if (absl::Status s = ctx.OutputCopy(c.output_index, c.source); !s.ok()) return s;
  }
  if (epilogue) {
    if (absl::Status s = epilogue(ctx); !s.ok()) return s;
  }
  if (absl::Status s = ctx.FinishFunction(index); !s.ok()) return s;
  return index;
}

// Where node output k goes, or a scratch slot when nothing reads it.
absl::StatusOr<Binding> OutputLocation(LoweringContext& ctx, const ir::Node& node, size_t k,
                                       const ControlFlow& cf, Slots& slots) {
  if (node.outputs[k] != ir::kNoValue) {
    auto b = ctx.Locate(node, node.outputs[k]);
    if (b.ok() || ctx.InTail(node.outputs[k])) return b;
  }
  return slots.Take(Bytes(ctx.dims(), cf.output_dtypes[k], cf.output_shapes[k]));
}

absl::StatusOr<std::vector<Binding>> CaptureLocations(LoweringContext& ctx, const ir::Node& node,
                                                      size_t formal) {
  std::vector<Binding> out;
  for (size_t k = formal; k < node.inputs.size(); ++k) {
    // A shape value computed from the symbols is a constant of the
    // subgraph (passes/control_flow.cc): never read as a buffer.
    const ir::ConstantPtr& c = ctx.value(node.inputs[k]).constant;
    if (c != nullptr && c->symbolic) {
      out.emplace_back();
      continue;
    }
    auto b = ctx.Locate(node, node.inputs[k]);
    if (!b.ok()) return b.status();
    out.push_back(*b);
  }
  return out;
}

size_t FormalInputs(const ir::Node& node) {
  return node.inputs.size() - static_cast<size_t>(node.GetInt(ir::kCaptureCountAttr, 0));
}

// Copies a whole slot (`to`'s size, a dim).
absl::Status Copy(LoweringContext& ctx, const ir::Node& node, const Binding& from,
                  const Binding& to) {
  kernel::Copy copy;
  copy.bytes = BindingBytes(to);
  return ctx.Dispatch(node, copy, {from, to});
}

// iteration_slice_{read,write} parameters for slices along `axis` of `shape`.
kernel::IterationSliceRead SliceParams(ir::DimPool& dims, const std::vector<int64_t>& shape,
                                       ir::DType dtype, const compiler::ScanAxis& axis) {
  int64_t outer = 1, inner = static_cast<int64_t>(ir::DTypeSize(dtype));
  for (int64_t d = 0; d < axis.axis; ++d) outer = dims.Mul(outer, shape[d]);
  for (size_t d = axis.axis + 1; d < shape.size(); ++d) inner = dims.Mul(inner, shape[d]);
  kernel::IterationSliceRead slice;
  slice.outer = outer;
  slice.count = shape[axis.axis];
  slice.inner_bytes = inner;
  slice.reverse = axis.reverse ? 1 : 0;
  return slice;
}

absl::Status LowerIf(LoweringContext& ctx, const ir::Node& node, const ControlFlow& cf) {
  Slots slots(ctx.dims(), ctx.ArenaEnd());
  std::vector<Binding> outputs;
  for (size_t k = 0; k < cf.output_shapes.size(); ++k) {
    auto b = OutputLocation(ctx, node, k, cf, slots);
    if (!b.ok()) return b.status();
    outputs.push_back(*b);
  }
  auto captures = CaptureLocations(ctx, node, FormalInputs(node));
  if (!captures.ok()) return captures.status();
  PendingDispatch p;
  p.control_opcode = KILN_OP_IF;
  auto cond = ctx.Bind(node, node.inputs[0]);
  if (!cond.ok()) return cond.status();
  p.control_operands = {*cond};
  // Branches of different lengths: the one taken writes its own into the
  // count the IF's ILOADs read (its output fills the start of the buffer,
  // sized for the larger).
  std::vector<Binding> counts;
  for (const ControlFlow::BranchLength& l : cf.lengths) {
    auto b = ctx.Locate(node, node.outputs[l.count_output]);
    if (!b.ok()) return b.status();
    counts.push_back(*b);
    auto loads = ctx.LoadsOf(node, node.outputs[l.count_output]);
    if (!loads.ok()) return loads.status();
    p.loads.insert(p.loads.end(), loads->begin(), loads->end());
  }
  const ir::Node self = Attribution(node);
  const char* names[] = {"then_branch", "else_branch"};
  for (size_t b = 0; b < 2; ++b) {
    auto write_lengths = [&](LoweringContext& f) -> absl::Status {
      for (size_t j = 0; j < cf.lengths.size(); ++j) {
        const ControlFlow::BranchLength& l = cf.lengths[j];
        const int64_t length = b == 0 ? l.then_value : l.else_value;
        Binding value;
        if (ir::IsSymbolic(length)) {
          // A length the branch computed: its kernel's count (element 0,
          // kept to the end of the branch), copied out as it is.
          const int32_t k = f.dims().BareData(length);
          if (k < 0) return f.Invalid(self, "a branch length is not one the branch computes");
          const ir::DimPool::DataSymbol& sym = f.dims().data_symbols()[static_cast<size_t>(k)];
          auto count = f.Locate(self, static_cast<ir::ValueId>(sym.count_value));
          if (!count.ok()) return count.status();
          value = *count;
        } else {
          value = f.BindNewConstant(absl::StrCat(node.name, ".", names[b], ".length", j),
                                    ir::MakeI64Constant({1}, {length}));
        }
        if (absl::Status s = Copy(f, self, value, counts[j]); !s.ok()) return s;
      }
      return absl::OkStatus();
    };
    auto f = LowerFunction(ctx, node, cf.bodies[b], names[b], *captures, outputs, slots.end(),
                           nullptr, cf.lengths.empty() ? Extra() : Extra(write_lengths));
    if (!f.ok()) return f.status();
    p.functions.push_back(*f);
  }
  ctx.Control(node, std::move(p));
  return absl::OkStatus();
}

// Loop and Scan: states cross iterations through in/out slots.
absl::Status LowerIterations(LoweringContext& ctx, const ir::Node& node, const ControlFlow& cf) {
  const bool loop = cf.kind == ControlFlow::Kind::kLoop;
  ir::DimPool& dims = ctx.dims();
  Slots slots(dims, ctx.ArenaEnd());
  const Binding iteration = slots.Take(sizeof(int64_t));
  const Binding condition = slots.Take(1);
  std::vector<Binding> state_in, state_out, staging, slices;
  const ir::Graph& body = *cf.bodies[0].graph;
  const size_t first_output = loop ? 1 : 0;  // the body's condition comes first in a Loop
  for (size_t k = 0; k < cf.states; ++k) {
    const ir::Value& v = body.value(body.outputs[first_output + k]);
    state_in.push_back(slots.Take(Bytes(dims, v.dtype, v.shape)));
    state_out.push_back(slots.Take(Bytes(dims, v.dtype, v.shape)));
  }
  for (size_t j = 0; j < cf.scan_outputs; ++j) {
    const ir::Value& v = body.value(body.outputs[first_output + cf.states + j]);
    staging.push_back(slots.Take(Bytes(dims, v.dtype, v.shape)));
  }
  std::vector<Binding> scan_in;  // Scan: the node's scan inputs
  for (size_t j = 0; j < cf.scan_inputs; ++j) {
    const ir::ValueId v = node.inputs[cf.first_state + cf.states + j];
    auto whole = ctx.Locate(node, v);
    if (!whole.ok()) return whole.status();
    scan_in.push_back(*whole);
    const ir::Value& value = ctx.value(v);
    std::vector<int64_t> slice = value.shape;
    slice.erase(slice.begin() + cf.scan_input_axes[j].axis);
    slices.push_back(slots.Take(Bytes(dims, value.dtype, slice)));
  }
  std::vector<Binding> scan_out;  // the node's scan outputs (a slot if unread)
  for (size_t j = 0; j < cf.scan_outputs; ++j) {
    auto b = OutputLocation(ctx, node, cf.states + j, cf, slots);
    if (!b.ok()) return b.status();
    scan_out.push_back(*b);
  }
  auto captures = CaptureLocations(ctx, node, FormalInputs(node));
  if (!captures.ok()) return captures.status();

  // The body's ONNX inputs and outputs, in order.
  std::vector<Binding> inputs, outputs;
  if (loop) inputs = {iteration, condition};
  inputs.insert(inputs.end(), state_in.begin(), state_in.end());
  inputs.insert(inputs.end(), slices.begin(), slices.end());
  inputs.insert(inputs.end(), captures->begin(), captures->end());
  if (loop) outputs.push_back(condition);
  outputs.insert(outputs.end(), state_out.begin(), state_out.end());
  outputs.insert(outputs.end(), staging.begin(), staging.end());

  const ir::Node self = Attribution(node);
  auto prologue = [&](LoweringContext& b) -> absl::Status {
    for (size_t j = 0; j < cf.scan_inputs; ++j) {
      const ir::Value& v = ctx.value(node.inputs[cf.first_state + cf.states + j]);
      if (absl::Status s = b.Dispatch(self,
                                      SliceParams(dims, v.shape, v.dtype, cf.scan_input_axes[j]),
                                      {iteration, scan_in[j], slices[j]});
          !s.ok()) {
        return s;
      }
    }
    return absl::OkStatus();
  };
  auto epilogue = [&](LoweringContext& b) -> absl::Status {
    for (size_t k = 0; k < cf.states; ++k) {
      if (absl::Status s = Copy(b, self, state_out[k], state_in[k]); !s.ok()) {
        return s;
      }
    }
    for (size_t j = 0; j < cf.scan_outputs; ++j) {
      const size_t k = cf.states + j;
      if (absl::Status s = b.Dispatch(
              self,
              kernel::IterationSliceWrite(SliceParams(dims, cf.output_shapes[k],
                                                      cf.output_dtypes[k], cf.scan_output_axes[j])),
              {iteration, staging[j], scan_out[j]});
          !s.ok()) {
        return s;
      }
    }
    return absl::OkStatus();
  };
  auto function = LowerFunction(ctx, node, cf.bodies[0], "body", inputs, outputs, slots.end(),
                                prologue, epilogue);
  if (!function.ok()) return function.status();

  // Before the loop: the initial states in.
  for (size_t k = 0; k < cf.states; ++k) {
    auto init = ctx.Bind(node, node.inputs[cf.first_state + k]);
    if (!init.ok()) return init.status();
    if (absl::Status s = Copy(ctx, self, *init, state_in[k]); !s.ok()) return s;
  }
  PendingDispatch p;
  p.control_opcode = KILN_OP_LOOP;
  p.functions = {*function};
  const bool counted = ir::IsSymbolic(cf.iterations) || cf.iterations >= 0;
  std::optional<Binding> trip, cond;
  // A trip count or scan length given by the symbols: LOOP_DYN reads it
  // from an integer register.
  std::optional<int64_t> symbolic_trip;
  if (loop) {
    for (size_t k = 0; k < 2; ++k) {
      if (node.inputs.size() <= k || node.inputs[k] == ir::kNoValue) continue;
      const ir::ConstantPtr& c = ctx.value(node.inputs[k]).constant;
      if (k == 0 && c != nullptr && c->symbolic) {
        symbolic_trip = c->IntAt(0);
        continue;
      }
      // A trip count that is the scan length found during the run
      // (loop_scan_count.h): loaded into its integer register already.
      const int32_t data = ctx.dims().BareData(cf.iterations);
      if (k == 0 && data >= 0 &&
          ctx.dims().data_symbols()[static_cast<size_t>(data)].count_value == node.inputs[0]) {
        symbolic_trip = cf.iterations;
        continue;
      }
      auto b = ctx.Bind(node, node.inputs[k]);
      if (!b.ok()) return b.status();
      (k == 0 ? trip : cond) = *b;
    }
  } else if (ir::IsSymbolic(cf.iterations)) {
    symbolic_trip = cf.iterations;
  } else {
    trip = ctx.BindNewConstant(absl::StrCat(node.name, ".iterations"),
                               ir::MakeI64Constant({}, {cf.iterations}));
  }
  if (trip) ctx.DeclareTripCount(*trip);
  p.control_operands = {trip, cond, iteration, loop ? std::optional<Binding>(condition) : std::nullopt};
  const bool expected = counted && (cf.scan_outputs > 0 || !loop);
  if (symbolic_trip || ir::IsSymbolic(cf.iterations)) {
    if (trip) return ctx.Unimplemented(node, "a run-time trip count with a symbolic scan length");
    p.control_opcode = KILN_OP_LOOP_DYN;
    p.control_operands.erase(p.control_operands.begin());  // the trip count is an integer register
    p.control_dims = {symbolic_trip.value_or(cf.iterations), expected ? cf.iterations : -1};
  }
  p.expected_iterations = expected ? static_cast<uint64_t>(cf.iterations) : KILN_ANY_ITERATION_COUNT;
  ctx.Control(node, std::move(p));
  // After it: the final states out.
  for (size_t k = 0; k < cf.states; ++k) {
    if (node.outputs[k] == ir::kNoValue) continue;
    auto out = ctx.Bind(node, node.outputs[k]);
    if (!out.ok()) continue;  // never read: not materialised
    if (absl::Status s = Copy(ctx, node, state_in[k], *out); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status LowerControlFlow(LoweringContext& ctx, const ir::Node& node) {
  ControlFlow cf;
  absl::Status status;
  compiler::AnalyzeControlFlow(ctx.graph(), node, nullptr, &cf, &status, &ctx.dims());
  if (!status.ok()) return status;
  if (cf.kind == ControlFlow::Kind::kIf) return LowerIf(ctx, node, cf);
  return LowerIterations(ctx, node, cf);
}


}  // namespace kiln::compiler::emit
