// Debug info for tools that look inside a run (kiln run --dump/--check-nan,
// kiln compare, kiln inspect): which binding of which dispatch holds each ONNX
// value once it is complete, and the dispatch range each arena tensor lives in.
#include <algorithm>
#include <map>

#include "compiler/emit/lowering_context.h"
#include "compiler/emit/shape_program.h"

namespace kiln::compiler::emit {

void LoweringContext::RecordWrites(const ir::Node& node, const std::vector<Binding>& bindings,
                                   PendingDispatch* p) const {
  for (ir::ValueId out : node.outputs) {
    if (out == ir::kNoValue || static_cast<size_t>(out) >= plan_.storage.size()) continue;
    const compiler::ValueStorage& s = plan_.storage[out];
    Binding::Kind kind;
    uint64_t index;
    if (s.kind == compiler::StorageKind::kArena) {
      kind = Binding::Kind::kArena;
      index = static_cast<uint64_t>(s.root);
    } else if (s.kind == compiler::StorageKind::kOutput) {
      kind = Binding::Kind::kOutput;
      index = static_cast<uint64_t>(s.index);
    } else {
      continue;
    }
    // Outputs come last in every kernel's binding list: search from the back.
    for (size_t k = bindings.size(); k-- > 0;) {
      if (bindings[k].kind == kind && bindings[k].index == index) {
        p->writes.push_back({out, static_cast<uint32_t>(k)});
        break;
      }
    }
  }
}

void LoweringContext::AttachDebugValues(ShapeProgram* shapes) {
  // The last dispatch writing a value is where it is complete (Concat writes
  // its output in parts, one dispatch each).
  std::map<ir::ValueId, std::pair<uint32_t, uint32_t>> written_at;  // -> (dispatch, binding)
  for (uint32_t d = 0; d < pending_.size(); ++d) {
    for (const auto& [v, binding] : pending_[d].writes) written_at[v] = {d, binding};
  }
  std::vector<std::vector<ir::ValueId>> values_of(pending_.size());
  std::vector<std::vector<uint32_t>> binding_of(pending_.size());
  for (const auto& [v, at] : written_at) {
    values_of[at.first].push_back(v);
    binding_of[at.first].push_back(at.second);
  }
  // Aliases (Reshape, Flatten, ...) share their root's bytes.
  for (size_t v = 0; v < plan_.storage.size(); ++v) {
    const compiler::ValueStorage& s = plan_.storage[v];
    const ir::ValueId id = static_cast<ir::ValueId>(v);
    if (written_at.count(id) || s.root == id || s.root == ir::kNoValue) continue;
    if (s.kind != compiler::StorageKind::kArena && s.kind != compiler::StorageKind::kOutput) {
      continue;
    }
    auto root = written_at.find(s.root);
    if (root == written_at.end()) continue;
    values_of[root->second.first].push_back(id);
    binding_of[root->second.first].push_back(root->second.second);
  }
  // Control flow (IF, LOOP) takes a place in pending_ but is no dispatch.
  std::vector<int64_t> dispatch_of(pending_.size(), -1);
  for (uint32_t d = 0, n = 0; d < pending_.size(); ++d) {
    if (pending_[d].control_opcode == 0) dispatch_of[d] = n++;
  }
  for (uint32_t d = 0; d < pending_.size(); ++d) {
    if (dispatch_of[d] < 0 || static_cast<size_t>(dispatch_of[d]) >= module_.dispatches.size()) {
      continue;
    }
    for (size_t j = 0; j < values_of[d].size(); ++j) {
      const ir::Value& val = value(values_of[d][j]);
      if (!val.has_shape || val.name.empty()) continue;
      ValueDebugDesc desc{val.name, val.dtype, val.shape, binding_of[d][j], val.channels_last, {}};
      if (std::any_of(val.shape.begin(), val.shape.end(), [](int64_t x) { return x < 0; })) {
        // Symbolic dims: where the run keeps their values, in this
        // function's integer registers. The entry's land after its
        // dispatches (the VM evaluates them all before a run); a called
        // function computes them first (FinishFunction).
        const bool known = std::all_of(val.shape.begin(), val.shape.end(), [&](int64_t x) {
          return x >= 0 || dims().Known(x);
        });
        if (shapes == nullptr || !known) continue;
        desc.dim_registers.assign(val.shape.size(), -1);
        for (size_t k = 0; k < val.shape.size(); ++k) {
          if (val.shape[k] >= 0) continue;
          desc.dim_registers[k] = static_cast<int32_t>(shapes->Register(val.shape[k]));
          desc.shape[k] = -1;
        }
      }
      module_.dispatches[dispatch_of[d]].values.push_back(std::move(desc));
    }
  }

  // Arena lifetimes in dispatch indices: the dispatches binding each root.
  std::map<uint64_t, std::pair<uint32_t, uint32_t>> range;
  for (uint32_t d = 0; d < pending_.size(); ++d) {
    if (dispatch_of[d] < 0) continue;
    const uint32_t n = static_cast<uint32_t>(dispatch_of[d]);
    for (const Binding& b : pending_[d].bindings) {
      if (b.kind != Binding::Kind::kArena) continue;
      auto [it, fresh] = range.emplace(b.index, std::make_pair(n, n));
      if (!fresh) it->second.second = n;
    }
  }
  for (const compiler::ArenaTensor& t : plan_.arena) {
    if (ir::IsSymbolic(t.size_expr)) continue;  // placed at run time
    ArenaTensorDesc desc;
    desc.value = value(t.value).name;
    desc.offset = t.offset;
    desc.size = t.size;
    auto it = range.find(static_cast<uint64_t>(t.value));
    if (it != range.end()) {
      desc.first_dispatch = it->second.first;
      desc.last_dispatch = it->second.second;
    }
    module_.arena_tensors.push_back(std::move(desc));
  }
}

}  // namespace kiln::compiler::emit
