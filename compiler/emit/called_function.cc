// Functions that IF and LOOP call (ONNX subgraphs): lowered by a context of
// their own that shares the module's executables and constants with its
// caller and reaches its graph inputs and outputs through a FunctionFrame.
#include <algorithm>
#include <map>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "compiler/emit/bytecode_builder.h"
#include "compiler/emit/lowering_context.h"

namespace kiln::compiler::emit {

namespace {
constexpr uint64_t kSlotAlignment = 64;
uint64_t AlignUp(uint64_t v) { return (v + kSlotAlignment - 1) / kSlotAlignment * kSlotAlignment; }
}  // namespace

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
      const compiler::ValueStorage& s = plan_.storage[b.index];
      out.kind = Binding::Kind::kFixed;
      out.index = frame_.arena_base + s.offset;
      out.bytes = s.size;
      break;
    }
    default:
      break;
  }
  out.absolute = true;
  return out;
}

absl::StatusOr<Binding> LoweringContext::Locate(const ir::Node& node, ir::ValueId v) {
  auto b = Bind(node, v);
  if (!b.ok()) return b.status();
  if (b->symbolic_bytes != 0) return Unimplemented(node, "control flow over symbolic sizes");
  return Resolve(*b);
}

uint64_t LoweringContext::ArenaEnd() const { return AlignUp(frame_.arena_base + plan_.arena_size); }

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
  // Views are made where first needed: the code is straight-line.
  std::map<std::tuple<int, uint64_t, uint64_t>, uint32_t> regs;
  auto reg_of = [&](const Binding& binding) -> uint32_t {
    const Binding b = Resolve(binding);
    const auto key = std::make_tuple(static_cast<int>(b.kind), b.index, b.bytes);
    auto it = regs.find(key);
    if (it != regs.end()) return it->second;
    const uint32_t r = bc.NewRegister();
    switch (b.kind) {
      case Binding::Kind::kInput: bc.ViewInput(r, static_cast<uint32_t>(b.index)); break;
      case Binding::Kind::kOutput: bc.ViewOutput(r, static_cast<uint32_t>(b.index)); break;
      case Binding::Kind::kConstant: bc.ViewConst(r, static_cast<uint32_t>(b.index)); break;
      default: bc.ViewArena(r, b.index, b.bytes); break;  // kFixed
    }
    regs.emplace(key, r);
    return r;
  };
  for (const PendingDispatch& p : pending_) {
    if (p.dynamic) return absl::UnimplementedError("control flow over symbolic sizes");
  }
  EmitPending(bc, reg_of, nullptr, index);
  AttachDebugValues(nullptr);
  bc.Return();
  FunctionDesc& f = shared_->called_functions[index - 1];
  f.bytecode = bc.words();
  f.register_count = bc.register_count();
  for (DispatchDebugDesc& d : module_.dispatches) shared_->dispatches.push_back(std::move(d));
  shared_->arena_size = std::max(shared_->arena_size, ArenaEnd());
  return absl::OkStatus();
}

}  // namespace kiln::compiler::emit
