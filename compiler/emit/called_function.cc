// Functions that IF and LOOP call (ONNX subgraphs): lowered by a context of
// their own that shares the module's executables and constants with its
// caller and reaches its graph inputs and outputs through a FunctionFrame.
#include <algorithm>
#include <map>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "compiler/emit/bytecode_builder.h"
#include "compiler/emit/lowering_context.h"
#include "compiler/emit/shape_program.h"

namespace kiln::compiler::emit {

int64_t AlignSlot(ir::DimPool& dims, int64_t bytes) {
  constexpr int64_t kSlotAlignment = 64;
  return dims.Mul(dims.CeilDiv(bytes, kSlotAlignment), kSlotAlignment);
}

int64_t BindingBytes(const Binding& b) {
  return b.symbolic_bytes != 0 ? b.symbolic_bytes : static_cast<int64_t>(b.bytes);
}

int64_t LargerDim(ir::DimPool& dims, int64_t a, int64_t b) {
  if (dims.KnownNonNegative(dims.Sub(a, b))) return a;
  if (dims.KnownNonNegative(dims.Sub(b, a))) return b;
  return dims.Max(a, b);
}

Binding FixedSlot(int64_t offset, int64_t bytes) {
  Binding b;
  b.kind = Binding::Kind::kFixed;
  b.absolute = true;
  if (ir::IsSymbolic(offset)) {
    b.symbolic_offset = offset;
  } else {
    b.index = static_cast<uint64_t>(offset);
  }
  if (ir::IsSymbolic(bytes)) {
    b.symbolic_bytes = bytes;
  } else {
    b.bytes = static_cast<uint64_t>(bytes);
  }
  return b;
}

Binding LoweringContext::Resolve(const Binding& b) const {
  if (b.absolute || b.kind == Binding::Kind::kFixed) return b;
  Binding out = b;
  switch (b.kind) {
    case Binding::Kind::kInput:
      if (called_) out = frame_.inputs[b.index];
      break;
    case Binding::Kind::kOutput:
      if (called_) out = frame_.outputs[b.index];
      break;
    case Binding::Kind::kArena: {
      auto slot = count_slots_.find(static_cast<ir::ValueId>(b.index));
      if (slot != count_slots_.end()) {
        out = FixedSlot(static_cast<int64_t>(slot->second), 8);
        break;
      }
      const compiler::ValueStorage& s = plan_.storage[b.index];
      if (!ir::IsSymbolic(frame_.arena_base) && !ir::IsSymbolic(s.offset_expr) &&
          !ir::IsSymbolic(s.size_expr)) {
        out.kind = Binding::Kind::kFixed;
        out.index = static_cast<uint64_t>(frame_.arena_base) + s.offset;
        out.bytes = s.size;
        break;
      }
      out = FixedSlot(dims().Add(frame_.arena_base, s.offset_expr), s.size_expr);
      break;
    }
    default:
      break;
  }
  out.absolute = true;
  return out;
}

void LoweringContext::FindCountSlots() {
  const auto& data = dims().data_symbols();
  for (const auto& [k, offset] : shared_->callee_count_slots) {
    const ir::DimPool::DataSymbol& d = data[static_cast<size_t>(k)];
    if (d.scope == graph_.scope) count_slots_[d.count_value] = offset;
  }
}

absl::StatusOr<Binding> LoweringContext::Locate(const ir::Node& node, ir::ValueId v) {
  auto b = Bind(node, v);
  if (!b.ok()) return b.status();
  // A tail tensor's offset is relative to the end of the workspace, which
  // the called functions' regions extend: no function can name it.
  if (InTail(v)) {
    return Unimplemented(
        node, absl::StrCat("'", value(v).name, "' is sized by a length found during the run "
                           "without a bound (its tensor lies in the workspace's tail), which an "
                           "If/Loop/Scan body cannot reach yet; a graph output can be, or bind "
                           "the sizes at compile time (--input-value, --input-shape)"));
  }
  return Resolve(*b);
}

int64_t LoweringContext::ArenaEnd() const {
  // The base is slot-aligned already (64); so is the end.
  if (plan_.workspace_expr == 0) return frame_.arena_base;
  return AlignSlot(dims(), dims().Add(frame_.arena_base, plan_.workspace_expr));
}

uint32_t LoweringContext::ReserveFunction(const std::string& name) {
  shared_->called_functions.push_back({name, {}, 0});
  return static_cast<uint32_t>(shared_->called_functions.size());  // functions[0] is the entry
}

void LoweringContext::Control(const ir::Node& node, PendingDispatch p) {
  p.nodes.push_back(node.name);
  p.op_types.push_back(node.op_type);
  pending_.push_back(std::move(p));
}

absl::Status LoweringContext::FinishFunction(uint32_t index) {
  BytecodeBuilder bc;
  // Sizes that depend on the symbols are computed here again, from ISYM,
  // where first needed (the function's own integer registers).
  ShapeProgram shapes(dims(), bc);
  // Views are made where first needed: the code is straight-line.
  std::map<std::tuple<int, uint64_t, uint64_t, int64_t, int64_t>, uint32_t> regs;
  auto reg_of = [&](const Binding& binding) -> uint32_t {
    const Binding b = Resolve(binding);
    const auto key = std::make_tuple(static_cast<int>(b.kind), b.index, b.bytes, b.symbolic_offset,
                                     b.symbolic_bytes);
    auto it = regs.find(key);
    if (it != regs.end()) return it->second;
    const uint32_t r = bc.NewRegister();
    const bool dynamic = b.symbolic_bytes != 0 || b.symbolic_offset != 0;
    const uint32_t slot = static_cast<uint32_t>(b.index);
    switch (b.kind) {
      case Binding::Kind::kInput:
        dynamic ? bc.ViewInputDyn(r, slot, shapes.Register(b.symbolic_bytes)) : bc.ViewInput(r, slot);
        break;
      case Binding::Kind::kOutput:
        dynamic ? bc.ViewOutputDyn(r, slot, shapes.Register(b.symbolic_bytes)) : bc.ViewOutput(r, slot);
        break;
      case Binding::Kind::kConstant: bc.ViewConst(r, slot); break;
      default:  // kFixed
        if (dynamic) {
          const int64_t offset = b.symbolic_offset != 0 ? b.symbolic_offset : static_cast<int64_t>(b.index);
          bc.ViewArenaDyn(r, shapes.Register(offset), shapes.Register(BindingBytes(b)));
        } else {
          bc.ViewArena(r, b.index, b.bytes);
        }
        break;
    }
    regs.emplace(key, r);
    return r;
  };
  // The debug dims of values sized by the symbols (--dump, --check-nan and
  // kiln compare read them as each dispatch completes): computed first.
  PrepareDataSymbols(&shapes);
  EmitReady(bc, &shapes);
  for (size_t v = 0; v < plan_.storage.size(); ++v) {
    const compiler::StorageKind kind = plan_.storage[v].kind;
    if (kind != compiler::StorageKind::kArena && kind != compiler::StorageKind::kOutput) continue;
    for (int64_t d : graph_.values[v].shape) {
      if (dims().Known(d) && shapes.Ready(d)) shapes.Register(d);
    }
  }
  EmitPending(bc, reg_of, &shapes, index);
  AttachDebugValues(&shapes);
  if (!shapes.ok()) {
    return absl::InternalError(absl::StrCat(graph_.source, ": a called function's size uses a "
                                            "run-time length"));
  }
  bc.Return();
  FunctionDesc& f = shared_->called_functions[index - 1];
  f.bytecode = bc.words();
  f.register_count = bc.register_count();
  f.int_register_count = bc.int_register_count();
  for (DispatchDebugDesc& d : module_.dispatches) shared_->dispatches.push_back(std::move(d));
  const int64_t end = ArenaEnd();
  if (ir::IsSymbolic(end)) {
    const int64_t before = shared_->called_workspace_end;
    shared_->called_workspace_end = before == 0 ? end : LargerDim(dims(), before, end);
  } else {
    shared_->arena_size = std::max(shared_->arena_size, static_cast<uint64_t>(end));
  }
  return absl::OkStatus();
}

}  // namespace kiln::compiler::emit
