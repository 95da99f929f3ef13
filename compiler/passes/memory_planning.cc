#include "compiler/passes/memory_planning.h"

#include <algorithm>
#include <limits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "compiler/passes/dispatch_formation.h"

namespace kiln::compiler {
namespace {

uint64_t AlignUp(uint64_t x, uint64_t a) { return (x + a - 1) / a * a; }

bool Overlaps(const ArenaTensor& a, const ArenaTensor& b) {
  return a.first <= b.last && b.first <= a.last;
}

// Greedy-by-size placement (see the header).
uint64_t Place(std::vector<ArenaTensor>& tensors, uint64_t alignment) {
  std::vector<size_t> order(tensors.size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (tensors[a].size != tensors[b].size) return tensors[a].size > tensors[b].size;
    return tensors[a].first < tensors[b].first;
  });
  std::vector<size_t> placed;
  uint64_t arena = 0;
  for (size_t k : order) {
    ArenaTensor& t = tensors[k];
    std::vector<const ArenaTensor*> live;
    for (size_t p : placed) {
      if (Overlaps(tensors[p], t) && tensors[p].size > 0) live.push_back(&tensors[p]);
    }
    std::sort(live.begin(), live.end(),
              [](const ArenaTensor* a, const ArenaTensor* b) { return a->offset < b->offset; });
    uint64_t offset = 0;
    for (const ArenaTensor* other : live) {
      if (t.size == 0 || offset + t.size <= other->offset) break;
      offset = std::max(offset, AlignUp(other->offset + other->size, alignment));
    }
    t.offset = offset;
    arena = std::max(arena, offset + t.size);
    placed.push_back(k);
  }
  return AlignUp(arena, alignment);
}

}  // namespace

int64_t ValueBytes(const ir::Value& value) {
  if (!value.has_shape) return -1;
  const int64_t n = ir::ElementCount(value.shape);
  const int64_t e = static_cast<int64_t>(ir::DTypeSize(value.dtype));
  if (n < 0 || e == 0 || n > std::numeric_limits<int64_t>::max() / e) return -1;
  return n * e;
}

absl::StatusOr<MemoryPlan> PlanMemory(const ir::Graph& graph) {
  MemoryPlan plan;
  std::vector<ValueStorage>& st = plan.storage;
  st.resize(graph.values.size());
  const int32_t end_step = static_cast<int32_t>(graph.nodes.size());

  auto size_of = [&](ir::ValueId v) -> absl::StatusOr<uint64_t> {
    const int64_t bytes = ValueBytes(graph.value(v));
    if (bytes < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          graph.source, ": value '", graph.value(v).name,
          "' has no static shape or known dtype; cannot plan its memory"));
    }
    return static_cast<uint64_t>(bytes);
  };

  for (size_t k = 0; k < graph.inputs.size(); ++k) {
    const ir::ValueId v = graph.inputs[k];
    st[v] = {StorageKind::kInput, v, static_cast<int32_t>(k), 0, 0};
    auto size = size_of(v);
    if (!size.ok()) return size.status();
    st[v].size = *size;
  }
  for (size_t v = 0; v < graph.values.size(); ++v) {
    const ir::Value& val = graph.values[v];
    if (val.constant && val.producer == ir::kNoNode) {
      const ir::ValueId id = static_cast<ir::ValueId>(v);
      st[v] = {StorageKind::kConstant, id, -1, 0, val.constant->bytes.size()};
    }
  }

  // Roots and the arena candidates, in node order.
  std::vector<int32_t> first(graph.values.size(), -1), last(graph.values.size(), -1);
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    const ir::Node& node = graph.nodes[n];
    if (node.removed) continue;
    const int32_t step = static_cast<int32_t>(n);
    for (ir::ValueId in : node.inputs) {
      if (in == ir::kNoValue) continue;
      if (st[in].kind == StorageKind::kNone) {
        return absl::InvalidArgumentError(
            absl::StrCat(graph.source, ": node ", node.Describe(), " reads '",
                         graph.value(in).name, "', which nothing produces"));
      }
      const ir::ValueId root = st[in].root;
      last[root] = std::max(last[root], step);
    }
    const bool alias = IsAliasNode(node) && !node.inputs.empty() &&
                       node.inputs[0] != ir::kNoValue;
    for (size_t k = 0; k < node.outputs.size(); ++k) {
      const ir::ValueId out = node.outputs[k];
      if (out == ir::kNoValue) continue;
      if (alias && k == 0) {
        st[out] = st[node.inputs[0]];
        continue;
      }
      if (alias) {
        if (!graph.Users(out).empty() || graph.IsGraphOutput(out)) {
          return absl::UnimplementedError(absl::StrCat(
              graph.source, ": node ", node.Describe(), ": output ", k, " ('",
              graph.value(out).name, "') is not supported"));
        }
        continue;
      }
      auto size = size_of(out);
      if (!size.ok()) return size.status();
      st[out] = {StorageKind::kArena, out, -1, 0, *size};
      first[out] = step;
      last[out] = std::max(last[out], step);
    }
  }

  // Outputs: kernels write the caller's buffer directly when they can.
  std::vector<bool> claimed(graph.values.size(), false);
  for (size_t k = 0; k < graph.outputs.size(); ++k) {
    const ir::ValueId v = graph.outputs[k];
    if (v == ir::kNoValue || st[v].kind == StorageKind::kNone) {
      return absl::InvalidArgumentError(absl::StrCat(
          graph.source, ": graph output ", k, " is not produced by the graph"));
    }
    const ir::ValueId root = st[v].root;
    if (st[root].kind == StorageKind::kArena && !claimed[root]) {
      claimed[root] = true;
      st[root].kind = StorageKind::kOutput;
      st[root].index = static_cast<int32_t>(k);
    } else {
      plan.output_copies.push_back({static_cast<int32_t>(k), v});
      last[root] = end_step;
    }
  }
  // Propagate the final root storage to every alias.
  for (size_t v = 0; v < st.size(); ++v) {
    if (st[v].kind != StorageKind::kNone && st[v].root != static_cast<ir::ValueId>(v)) {
      st[v] = st[st[v].root];
    }
  }

  for (size_t v = 0; v < st.size(); ++v) {
    if (st[v].kind == StorageKind::kArena && st[v].root == static_cast<ir::ValueId>(v)) {
      plan.arena.push_back({static_cast<ir::ValueId>(v), 0, st[v].size, first[v], last[v]});
    }
  }
  std::stable_sort(plan.arena.begin(), plan.arena.end(),
                   [](const ArenaTensor& a, const ArenaTensor& b) { return a.first < b.first; });
  plan.arena_size = Place(plan.arena, plan.alignment);
  for (const ArenaTensor& t : plan.arena) st[t.value].offset = t.offset;
  for (size_t v = 0; v < st.size(); ++v) {
    if (st[v].kind == StorageKind::kArena) st[v].offset = st[st[v].root].offset;
  }

  for (int32_t step = 0; step <= end_step; ++step) {
    uint64_t live = 0;
    for (const ArenaTensor& t : plan.arena) {
      if (t.first <= step && step <= t.last) live += t.size;
    }
    plan.lower_bound = std::max(plan.lower_bound, live);
  }
  return plan;
}

}  // namespace kiln::compiler
