#include "compiler/passes/memory_planning.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <map>

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

constexpr uint64_t kGroupAlignment = 16;

// A symbolic size as coeff * monomial bytes: c*m itself, or for a sum or a
// min/max (S + T rows, ...) 16 * ceil(size / 16), within 15 bytes of it.
void SplitSize(ir::DimPool& dims, int64_t size, int64_t* coeff, int64_t* monomial) {
  if (dims.SplitMonomial(size, coeff, monomial)) return;
  *coeff = static_cast<int64_t>(kGroupAlignment);
  *monomial = dims.CeilDiv(size, *coeff);
}

// Places the tensors selected by `in_group` (symbolic sizes), grouped by the
// product of symbols they scale with, in order of the groups' first
// definitions: group m at base + (the groups before it) + m * offset, the
// offsets by the greedy rule on the coefficients. Returns the end of the
// last group. A tensor's offset involves only its own monomial and those of
// groups defined before it, so it is known once its own size is.
int64_t PlaceSymbolicGroups(ir::DimPool& dims, MemoryPlan& plan, int64_t base,
                            const std::function<bool(const ArenaTensor&)>& in_group) {
  std::vector<int64_t> keys;                       // group monomials, first-seen order
  std::map<int64_t, std::vector<size_t>> members;  // monomial -> indices into plan.arena
  for (size_t k = 0; k < plan.arena.size(); ++k) {
    const ArenaTensor& t = plan.arena[k];
    if (!in_group(t)) continue;
    int64_t coeff = 1, monomial = t.size_expr;
    SplitSize(dims, t.size_expr, &coeff, &monomial);
    if (!members.count(monomial)) keys.push_back(monomial);
    members[monomial].push_back(k);
  }
  int32_t group_index = 0;
  for (int64_t monomial : keys) {
    std::vector<ArenaTensor> group;
    for (size_t k : members[monomial]) {
      ArenaTensor t = plan.arena[k];
      int64_t coeff = 1, m = 0;
      SplitSize(dims, t.size_expr, &coeff, &m);
      t.size = static_cast<uint64_t>(coeff);
      group.push_back(t);
    }
    // Offsets are monomial * (a multiple of 16): 16-byte aligned for every
    // symbol value, as the verifier demands of arena views, without padding
    // each coefficient to 64.
    const uint64_t group_bytes = Place(group, kGroupAlignment);
    for (size_t j = 0; j < group.size(); ++j) {
      ArenaTensor& t = plan.arena[members[monomial][j]];
      t.offset = 0;  // only known at run time
      t.offset_expr = dims.Add(base, dims.Mul(monomial, static_cast<int64_t>(group[j].offset)));
      t.group = group_index;
      t.group_end = group[j].offset + group[j].size;
    }
    base = dims.Add(base, dims.Mul(monomial, static_cast<int64_t>(group_bytes)));
    ++group_index;
  }
  return base;
}

// Places the static tensors as one arena, then the symbolic ones and the
// tail (see the header).
void PlaceGroups(ir::DimPool& dims, const std::vector<int32_t>& callee_lengths, MemoryPlan& plan) {
  std::vector<ArenaTensor> fixed;
  for (const ArenaTensor& t : plan.arena) {
    if (!ir::IsSymbolic(t.size_expr)) fixed.push_back(t);
  }
  plan.arena_size = Place(fixed, plan.alignment);
  if (!callee_lengths.empty()) {
    // 16 bytes each: an int64 count, at an offset the verifier accepts for a view.
    for (size_t j = 0; j < callee_lengths.size(); ++j) {
      plan.callee_count_slots[callee_lengths[j]] = plan.arena_size + kGroupAlignment * j;
    }
    plan.arena_size =
        AlignUp(plan.arena_size + kGroupAlignment * callee_lengths.size(), plan.alignment);
  }
  for (ArenaTensor& t : plan.arena) {
    if (ir::IsSymbolic(t.size_expr)) continue;
    for (const ArenaTensor& f : fixed) {
      if (f.value == t.value) t.offset = f.offset;
    }
    t.offset_expr = static_cast<int64_t>(t.offset);
  }
  plan.workspace_expr =
      PlaceSymbolicGroups(dims, plan, static_cast<int64_t>(plan.arena_size), [](const ArenaTensor& t) {
        return ir::IsSymbolic(t.size_expr) && !t.tail;
      });
  // The tail, relative to the workspace's end: grouped the same way, so
  // tensors of one resolution reuse each other's bytes once dead.
  plan.tail_expr = PlaceSymbolicGroups(dims, plan, 0, [](const ArenaTensor& t) { return t.tail; });
}

}  // namespace

int64_t ValueBytesExpr(const ir::Graph& graph, const ir::Value& value) {
  bool symbolic = false;
  for (int64_t d : value.shape) symbolic = symbolic || ir::IsSymbolic(d);
  if (!symbolic) return ValueBytes(value);
  const int64_t e = static_cast<int64_t>(ir::DTypeSize(value.dtype));
  if (!value.has_shape || e == 0) return -1;
  const int64_t bytes = graph.dims.Mul(graph.dims.Product(value.shape), e);
  return graph.dims.ok() ? bytes : -1;
}

int64_t PlannedBytesExpr(const ir::Graph& graph, const ir::Value& value) {
  const int64_t bytes = ValueBytesExpr(graph, value);
  if (!graph.dims.HasData(bytes)) return bytes;
  int64_t bound = -1;
  if (graph.dims.UpperBound(bytes, &bound)) {
    if (value.capacity_bytes >= 0 && value.capacity_bytes < bound) return value.capacity_bytes;
    return bound >= 0 ? bound : -1;
  }
  // Beside the model's symbols: a formula of them (20*N for [N, n <= 5] floats).
  if (graph.dims.DataAtBound(bytes, &bound) && graph.dims.KnownNonNegative(bound)) return bound;
  graph.dims.ClearError();
  return -1;
}

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

  // Bytes as an encoded dim; the static size field is 0 for symbolic ones.
  // Lengths known only during the run take their bound's bytes.
  auto size_of = [&](ir::ValueId v, ValueStorage* out) -> absl::Status {
    int64_t bytes = PlannedBytesExpr(graph, graph.value(v));
    // A length without a bound: the tensor goes to the workspace's tail.
    if (bytes == -1) {
      const int64_t exact = ValueBytesExpr(graph, graph.value(v));
      if (exact != -1 && graph.dims.HasUnbounded(exact)) bytes = exact;
      graph.dims.ClearError();
    }
    if (bytes == -1) {
      graph.dims.ClearError();
      return absl::InvalidArgumentError(absl::StrCat(
          graph.source, ": value '", graph.value(v).name,
          "' has no static shape or known dtype, or no bound for its run-time length; "
          "cannot plan its memory"));
    }
    out->size_expr = bytes;
    out->size = ir::IsSymbolic(bytes) ? 0 : static_cast<uint64_t>(bytes);
    return absl::OkStatus();
  };

  for (size_t k = 0; k < graph.inputs.size(); ++k) {
    const ir::ValueId v = graph.inputs[k];
    st[v] = {StorageKind::kInput, v, static_cast<int32_t>(k), 0, 0};
    if (absl::Status s = size_of(v, &st[v]); !s.ok()) return s;
  }
  for (size_t v = 0; v < graph.values.size(); ++v) {
    const ir::Value& val = graph.values[v];
    if (val.constant && val.producer == ir::kNoNode) {
      const ir::ValueId id = static_cast<ir::ValueId>(v);
      st[v] = {StorageKind::kConstant, id, -1, 0, val.constant->bytes.size()};
      st[v].size_expr = static_cast<int64_t>(st[v].size);
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
      // The dims a shape_resolve kernel reports for the aliased output
      // (shape_rules_runtime.cc) live in the arena like any result.
      const bool reported_dims =
          node.GetInt("kiln.result_dims", 0) != 0 && k + 1 == node.outputs.size();
      if (alias && !reported_dims) {
        if (!graph.Users(out).empty() || graph.IsGraphOutput(out)) {
          return absl::UnimplementedError(absl::StrCat(
              graph.source, ": node ", node.Describe(), ": output ", k, " ('",
              graph.value(out).name, "') is not supported"));
        }
        continue;
      }
      st[out] = {StorageKind::kArena, out, -1, 0, 0};
      if (absl::Status s = size_of(out, &st[out]); !s.ok()) return s;
      first[out] = step;
      last[out] = std::max(last[out], step);
    }
  }

  // Outputs: kernels write the caller's buffer directly when they can.
  for (size_t v = 0; v < graph.values.size(); ++v) {
    if (graph.values[v].live_to_end && st[v].kind != StorageKind::kNone) last[st[v].root] = end_step;
  }
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
      ArenaTensor t{static_cast<ir::ValueId>(v), 0, st[v].size, first[v], last[v]};
      t.size_expr = st[v].size_expr;
      t.tail = graph.dims.HasUnbounded(t.size_expr);
      if (t.tail && !graph.scope.empty()) {
        return absl::UnimplementedError(absl::StrCat(
            graph.source, ": value '", graph.value(v).name, "' of a control-flow body has a "
            "run-time length without a bound; such lengths are only supported outside If/Loop"));
      }
      plan.arena.push_back(t);
    }
  }
  std::stable_sort(plan.arena.begin(), plan.arena.end(),
                   [](const ArenaTensor& a, const ArenaTensor& b) { return a.first < b.first; });
  std::vector<int32_t> callee_lengths;
  if (graph.scope.empty() && !graph.dims.symbols().empty()) {
    const auto& data = graph.dims.data_symbols();
    for (size_t k = 0; k < data.size(); ++k) {
      if (!data[k].scope.empty()) callee_lengths.push_back(static_cast<int32_t>(k));
    }
  }
  PlaceGroups(graph.dims, callee_lengths, plan);
  if (!graph.dims.ok()) {
    graph.dims.ClearError();
    return absl::InvalidArgumentError(
        absl::StrCat(graph.source, ": the symbolic workspace size overflows"));
  }
  for (const ArenaTensor& t : plan.arena) {
    st[t.value].offset = t.offset;
    st[t.value].offset_expr = t.offset_expr;
    st[t.value].tail = t.tail;
  }
  for (size_t v = 0; v < st.size(); ++v) {
    if (st[v].kind == StorageKind::kArena) {
      st[v].offset = st[st[v].root].offset;
      st[v].offset_expr = st[st[v].root].offset_expr;
      st[v].tail = st[st[v].root].tail;
    }
  }

  // The bound is over the static tensors (symbolic ones have no one size).
  for (int32_t step = 0; step <= end_step; ++step) {
    uint64_t live = 0;
    for (const ArenaTensor& t : plan.arena) {
      if (t.first <= step && step <= t.last && !ir::IsSymbolic(t.size_expr)) live += t.size;
    }
    plan.lower_bound = std::max(plan.lower_bound, live);
  }
  return plan;
}

}  // namespace kiln::compiler
