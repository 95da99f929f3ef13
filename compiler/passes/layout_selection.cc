#include "compiler/passes/layout_selection.h"

#include <set>
#include <vector>

namespace kiln::compiler {
namespace {

// Input channels from which the packed conv's tiles stream well in NHWC:
// with fewer, each tap costs more in row setup than in FMAs.
constexpr int64_t kTileMinChannels = 16;

bool StaticRank4F32(const ir::Value& v) {
  if (v.dtype != ir::DType::F32 || !v.has_shape || v.shape.size() != 4) return false;
  for (int64_t d : v.shape) {
    if (ir::IsSymbolic(d)) return false;
  }
  return true;
}

// A 2-D float Conv with constant weights and static shapes; `groups` is set
// to its group count.
bool PlainConv2d(const ir::Graph& g, const ir::Node& n, int64_t* groups) {
  if (n.op_type != "Conv" || !n.domain.empty() || n.inputs.size() < 2 || n.outputs.empty()) {
    return false;
  }
  const ir::Value& w = g.value(n.inputs[1]);
  if (w.constant == nullptr || w.constant->dtype != ir::DType::F32) return false;
  if (!StaticRank4F32(g.value(n.inputs[0])) || !StaticRank4F32(g.value(n.outputs[0]))) {
    return false;
  }
  *groups = n.GetInt("group", 1);
  return true;
}

bool HasResidual(const ir::Node& n) { return n.inputs.size() > 3 && n.inputs[3] != ir::kNoValue; }

// One group, a window conv2d_packed_cl_f32 takes, and a route of it that is
// fast in NHWC: a 1x1 (one GEMM), one input channel, or enough channels.
bool PackedConv(const ir::Graph& g, const ir::Node& n) {
  int64_t groups = 0;
  if (!PlainConv2d(g, n, &groups) || groups != 1) return false;
  const std::vector<int64_t>& w = g.value(n.inputs[1]).shape;
  const bool pointwise = w[2] == 1 && w[3] == 1;
  return w[2] * w[3] <= kMaxPackedConvTaps &&
         (pointwise || w[1] == 1 || w[1] >= kTileMinChannels);
}

// One group per channel and no fused residual.
bool Depthwise(const ir::Graph& g, const ir::Node& n) {
  int64_t groups = 0;
  if (!PlainConv2d(g, n, &groups) || HasResidual(n)) return false;
  const ir::Value& x = g.value(n.inputs[0]);
  const ir::Value& y = g.value(n.outputs[0]);
  return groups > 1 && groups == x.shape[1] && groups == y.shape[1];
}

bool IsGlobalPool(const ir::Node& n) {
  return n.domain.empty() && (n.op_type == "GlobalAveragePool" || n.op_type == "GlobalMaxPool");
}

// Whether value `v` can be stored channels last given the chosen depthwise
// convs: every kernel that writes or reads it takes NHWC there.
bool CanBeChannelsLast(const ir::Graph& g, ir::ValueId v, const std::set<ir::NodeId>& chosen) {
  const ir::Value& value = g.value(v);
  if (value.constant != nullptr || value.producer == ir::kNoNode || g.IsGraphOutput(v) ||
      value.live_to_end) {
    return false;
  }
  const ir::Node& producer = g.nodes[value.producer];
  if (producer.outputs.size() != 1 || producer.outputs[0] != v) return false;
  const bool written = chosen.count(value.producer) != 0 ||
                       (PackedConv(g, producer) && !HasResidual(producer));
  if (!written) return false;
  for (ir::NodeId u : g.Users(v)) {
    const ir::Node& user = g.nodes[u];
    for (size_t slot = 0; slot < user.inputs.size(); ++slot) {
      if (user.inputs[slot] != v) continue;
      const bool reads = slot == 0 && (chosen.count(u) != 0 || PackedConv(g, user) ||
                                       IsGlobalPool(user));
      if (!reads) return false;
    }
  }
  return true;
}

}  // namespace

absl::Status ChooseLayouts(ir::Graph& graph) {
  std::set<ir::NodeId> chosen;
  for (ir::NodeId n = 0; n < static_cast<ir::NodeId>(graph.nodes.size()); ++n) {
    if (!graph.nodes[n].removed && Depthwise(graph, graph.nodes[n])) chosen.insert(n);
  }
  // Dropping one conv can leave a neighbour's input or output without an
  // NHWC reader or writer, so repeat until nothing changes.
  for (bool changed = true; changed;) {
    changed = false;
    for (auto it = chosen.begin(); it != chosen.end();) {
      const ir::Node& node = graph.nodes[*it];
      if (CanBeChannelsLast(graph, node.inputs[0], chosen) &&
          CanBeChannelsLast(graph, node.outputs[0], chosen)) {
        ++it;
      } else {
        it = chosen.erase(it);
        changed = true;
      }
    }
  }
  for (ir::NodeId n : chosen) {
    graph.value(graph.nodes[n].inputs[0]).channels_last = true;
    graph.value(graph.nodes[n].outputs[0]).channels_last = true;
  }
  // A one-group conv reading NHWC keeps it for its output where every
  // reader takes NHWC too (nodes are in topological order, so chains carry).
  for (const ir::Node& node : graph.nodes) {
    if (node.removed || !PackedConv(graph, node) || HasResidual(node) ||
        !graph.value(node.inputs[0]).channels_last) {
      continue;
    }
    if (CanBeChannelsLast(graph, node.outputs[0], chosen)) {
      graph.value(node.outputs[0]).channels_last = true;
    }
  }
  return absl::OkStatus();
}

}  // namespace kiln::compiler
