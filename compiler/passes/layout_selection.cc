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

// A window conv2d_packed_cl_f32 takes and a route of it that is fast in
// NHWC: with one group a 1x1 (one GEMM), one input channel, or enough
// channels; with groups of whole panels (PanelGroups) the tiles, given
// enough channels per group (RegNet's 16, ResNeXt's later stages; there
// the grouped layers in NHWC let the 1x1 layers around them run as GEMMs).
bool PackedConv(const ir::Graph& g, const ir::Node& n) {
  int64_t groups = 0;
  if (!PlainConv2d(g, n, &groups)) return false;
  const std::vector<int64_t>& w = g.value(n.inputs[1]).shape;
  if (w[2] * w[3] > kMaxPackedConvTaps) return false;
  if (groups != 1) return PanelGroups(groups, w[0]) && w[1] >= kTileMinChannels;
  const bool pointwise = w[2] == 1 && w[3] == 1;
  return pointwise || w[1] == 1 || w[1] >= kTileMinChannels;
}

// A one-group conv over an NCHW image's few channels (an RGB stem) that
// conv2d_packed_cl_f32 runs straight into NHWC rows
// (runtime/kernels/conv_stem_nhwc.h: horizontal stride 1 or 2, no horizontal
// dilation, at most 16 x 16 taps), so the layers after it can start NHWC.
bool SmallChannelStem(const ir::Graph& g, const ir::Node& n) {
  int64_t groups = 0;
  if (!PlainConv2d(g, n, &groups) || groups != 1 || g.value(n.inputs[0]).channels_last) {
    return false;
  }
  const std::vector<int64_t>& w = g.value(n.inputs[1]).shape;
  const std::vector<int64_t> strides = n.GetInts("strides", {1, 1});
  const std::vector<int64_t> dilations = n.GetInts("dilations", {1, 1});
  return w[1] >= 2 && w[1] <= KILN_CONVP_SMALL_C && w[2] <= 16 && w[3] <= 16 &&
         w[2] * w[3] <= kMaxPackedConvTaps && strides.size() == 2 &&
         (strides[1] == 1 || strides[1] == 2) && dilations == std::vector<int64_t>{1, 1};
}

// A one-group 1x1 conv with stride 1 and no padding: conv2d_packed_cl_f32
// runs it into NHWC as one GEMM per image whatever x's layout (an NCHW x
// is read as the transposed A), as fast as conv2d_f32 writes NCHW.
bool PointwiseGemm(const ir::Graph& g, const ir::Node& n) {
  if (!PackedConv(g, n) || n.GetInt("group", 1) != 1) return false;
  const std::vector<int64_t>& w = g.value(n.inputs[1]).shape;
  const std::vector<int64_t> strides = n.GetInts("strides", {1, 1});
  const std::vector<int64_t> pads = n.GetInts("pads", {0, 0, 0, 0});
  return w[2] == 1 && w[3] == 1 && strides == std::vector<int64_t>{1, 1} &&
         pads == std::vector<int64_t>{0, 0, 0, 0};
}

// One group per channel and no fused residual.
bool Depthwise(const ir::Graph& g, const ir::Node& n) {
  int64_t groups = 0;
  if (!PlainConv2d(g, n, &groups) || HasResidual(n)) return false;
  const ir::Value& x = g.value(n.inputs[0]);
  const ir::Value& y = g.value(n.outputs[0]);
  return groups > 1 && groups == x.shape[1] && groups == y.shape[1];
}

// A 2-D MaxPool or AveragePool over a static float image whose Indices
// output nobody reads: pool2d_nhwc_f32 runs it channels last in and out.
bool WindowPool(const ir::Graph& g, const ir::Node& n) {
  if (!n.domain.empty() || (n.op_type != "MaxPool" && n.op_type != "AveragePool") ||
      n.inputs.empty() || n.outputs.empty()) {
    return false;
  }
  for (size_t k = 1; k < n.outputs.size(); ++k) {
    const ir::ValueId indices = n.outputs[k];
    if (indices != ir::kNoValue && (!g.Users(indices).empty() || g.IsGraphOutput(indices))) {
      return false;
    }
  }
  return StaticRank4F32(g.value(n.inputs[0])) && StaticRank4F32(g.value(n.outputs[0]));
}

// A Concat of static float images along the channels (axis 1): its lowering
// copies each input in its own layout into the output's, so the output can
// be NHWC whatever its inputs are (an NCHW input is transposed as it is
// copied, which the forward pass in ChooseLayouts avoids where it can).
bool ChannelConcat(const ir::Graph& g, const ir::Node& n) {
  if (!n.domain.empty() || n.op_type != "Concat" || n.inputs.empty() || n.outputs.size() != 1 ||
      !StaticRank4F32(g.value(n.outputs[0]))) {
    return false;
  }
  const int64_t axis = n.GetInt("axis", 0);
  if (axis != 1 && axis != -3) return false;
  for (ir::ValueId v : n.inputs) {
    if (v == ir::kNoValue || !StaticRank4F32(g.value(v))) return false;
  }
  return true;
}

bool IsGlobalPool(const ir::Node& n) {
  return n.domain.empty() && (n.op_type == "GlobalAveragePool" || n.op_type == "GlobalMaxPool");
}

// The operand slot of a squeeze-excitation gate that carries the data: a Mul
// of a static float [N, C, H, W] by a per-channel gate ([N or 1, C, 1, 1],
// or fewer leading dims) giving [N, C, H, W]; -1 if n is none. The gate's
// bytes read the same as [N, 1, 1, C], so binary_f32 takes it in NHWC too.
int GateDataSlot(const ir::Graph& g, const ir::Node& n) {
  if (!n.domain.empty() || n.op_type != "Mul" || n.inputs.size() != 2 || n.outputs.size() != 1) {
    return -1;
  }
  const ir::Value& y = g.value(n.outputs[0]);
  if (!StaticRank4F32(y)) return -1;
  for (int slot = 0; slot < 2; ++slot) {
    const ir::Value& x = g.value(n.inputs[slot]);
    const ir::Value& s = g.value(n.inputs[1 - slot]);
    if (!StaticRank4F32(x) || x.shape != y.shape || s.dtype != ir::DType::F32 || !s.has_shape ||
        s.shape.size() > 4 || s.shape.size() < 3) {
      continue;
    }
    const size_t r = s.shape.size();
    const bool per_channel = s.shape[r - 1] == 1 && s.shape[r - 2] == 1 &&
                             (s.shape[r - 3] == y.shape[1] || s.shape[r - 3] == 1) &&
                             (r == 3 || s.shape[0] == 1 || s.shape[0] == y.shape[0]);
    if (per_channel) return slot;
  }
  return -1;
}

// A value the host or a later run sees as it is, or a constant.
bool Pinned(const ir::Graph& g, ir::ValueId v) {
  const ir::Value& value = g.value(v);
  return value.constant != nullptr || value.producer == ir::kNoNode || g.IsGraphOutput(v) ||
         value.live_to_end;
}

// How deep ReadersTakeNhwc and CanBeChannelsLast may call each other (a
// residual's check asks about the block's input): past it, the answer is no.
constexpr int kMaxLayoutDepth = 32;

bool ReadersTakeNhwc(const ir::Graph& g, ir::ValueId v, const std::set<ir::NodeId>& chosen,
                     int depth = 0);
bool CanBeChannelsLast(const ir::Graph& g, ir::ValueId v, const std::set<ir::NodeId>& chosen,
                       int depth = 0);

// A packed conv with a fused residual (the sum of a block and its shortcut)
// whose output can be NHWC: its input is or can be, and every reader of the
// output takes NHWC. The kernel reads the residual in the output's layout,
// so the shortcut must be NHWC too; the forward pass in ChooseLayouts marks
// the shortcut first (it is produced earlier) and then this output.
bool ResidualConvWritesNhwc(const ir::Graph& g, const ir::Node& n,
                            const std::set<ir::NodeId>& chosen, int depth) {
  if (!PackedConv(g, n) || !HasResidual(n) || n.outputs.size() != 1 || Pinned(g, n.outputs[0]) ||
      depth > kMaxLayoutDepth) {
    return false;
  }
  const ir::ValueId x = n.inputs[0];
  return (g.value(x).channels_last || CanBeChannelsLast(g, x, chosen, depth + 1)) &&
         ReadersTakeNhwc(g, n.outputs[0], chosen, depth + 1);
}

// Whether every kernel reading `v` takes it in NHWC: a chosen depthwise
// conv, a packed conv or a global pool (as its input), a residual conv that
// will write NHWC (as its shortcut), or a window pool, a gate's data
// operand or a channel Concat whose output every reader takes in NHWC too
// (all three keep the layout).
bool ReadersTakeNhwc(const ir::Graph& g, ir::ValueId v, const std::set<ir::NodeId>& chosen,
                     int depth) {
  if (depth > kMaxLayoutDepth) return false;
  for (ir::NodeId u : g.Users(v)) {
    const ir::Node& user = g.nodes[u];
    for (size_t slot = 0; slot < user.inputs.size(); ++slot) {
      if (user.inputs[slot] != v) continue;
      bool reads = slot == 0 && (chosen.count(u) != 0 || PackedConv(g, user) ||
                                 IsGlobalPool(user));
      if (!reads && slot == 3) reads = ResidualConvWritesNhwc(g, user, chosen, depth + 1);
      if (!reads && GateDataSlot(g, user) == static_cast<int>(slot)) {
        const ir::ValueId product = user.outputs[0];
        reads = !Pinned(g, product) && ReadersTakeNhwc(g, product, chosen, depth + 1);
      }
      if (!reads && slot == 0 && WindowPool(g, user)) {
        const ir::ValueId pooled = user.outputs[0];
        reads = !Pinned(g, pooled) && ReadersTakeNhwc(g, pooled, chosen, depth + 1);
      }
      if (!reads && ChannelConcat(g, user)) {
        const ir::ValueId joined = user.outputs[0];
        reads = !Pinned(g, joined) && ReadersTakeNhwc(g, joined, chosen, depth + 1);
      }
      if (!reads) return false;
    }
  }
  return true;
}

// Whether value `v` can be stored channels last given the chosen depthwise
// convs: every kernel that writes or reads it takes NHWC there.
bool CanBeChannelsLast(const ir::Graph& g, ir::ValueId v, const std::set<ir::NodeId>& chosen,
                       int depth) {
  if (Pinned(g, v) || depth > kMaxLayoutDepth) return false;
  const ir::Node& producer = g.nodes[g.value(v).producer];
  if (producer.outputs.size() != 1 || producer.outputs[0] != v) return false;
  const bool written =
      chosen.count(g.value(v).producer) != 0 || ChannelConcat(g, producer) ||
      (SmallChannelStem(g, producer) && !HasResidual(producer)) ||
      (WindowPool(g, producer) && g.value(producer.inputs[0]).channels_last) ||
      (PackedConv(g, producer) &&
       (!HasResidual(producer) || g.value(producer.inputs[3]).channels_last));
  return written && ReadersTakeNhwc(g, v, chosen, depth + 1);
}

// Marks `v` channels last, and with it the output of each gate and window
// pool reading it (ReadersTakeNhwc has checked that their readers take
// NHWC).
void MarkChannelsLast(ir::Graph& g, ir::ValueId v) {
  g.value(v).channels_last = true;
  for (ir::NodeId u : g.Users(v)) {
    const ir::Node& user = g.nodes[u];
    const int slot = GateDataSlot(g, user);
    const bool carries = (slot >= 0 && user.inputs[slot] == v) ||
                         (WindowPool(g, user) && user.inputs[0] == v);
    if (carries && !g.value(user.outputs[0]).channels_last) {
      MarkChannelsLast(g, user.outputs[0]);
    }
  }
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
    MarkChannelsLast(graph, graph.nodes[n].inputs[0]);
    MarkChannelsLast(graph, graph.nodes[n].outputs[0]);
  }
  // A packed conv reading NHWC keeps it for its output where every
  // reader takes NHWC too (nodes are in topological order, so chains carry);
  // a residual conv also needs its shortcut NHWC, marked when its producer
  // came by (ReadersTakeNhwc counted this conv as an NHWC reader of it).
  // An image stem starts such a chain where every reader of its output
  // takes NHWC (a ResNet's stem, max pool and blocks): the packed convs run
  // 10-20% faster channels last (benchmarks/kernels_benchmark.cc,
  // BM_Conv2dPackedCl against BM_Conv2dPacked).
  for (const ir::Node& node : graph.nodes) {
    // An absent first output (an LSTM's Y when only Y_h is used) has no value.
    if (node.removed || node.outputs.empty() || node.outputs[0] == ir::kNoValue ||
        graph.value(node.outputs[0]).channels_last) {
      continue;
    }
    // A residual conv whose shortcut was made NHWC must write NHWC: its
    // kernel reads the residual in the output's layout.
    const bool stem = SmallChannelStem(graph, node) && !HasResidual(node);
    // So does a pointwise GEMM (the first 1x1 of a block after an NCHW
    // stretch: ResNeXt's stages after its NCHW grouped ones).
    const bool gemm_start = PointwiseGemm(graph, node) && !HasResidual(node);
    const bool nhwc_conv =
        PackedConv(graph, node) && (graph.value(node.inputs[0]).channels_last ||
                                    (HasResidual(node) && graph.value(node.inputs[3]).channels_last));
    // A channel Concat (an Inception block's join) goes NHWC when most of
    // what it copies already is, so that few inputs need transposing.
    bool nhwc_concat = false;
    if (ChannelConcat(graph, node)) {
      int64_t nhwc = 0, all = 0;
      for (ir::ValueId v : node.inputs) {
        const int64_t channels = graph.value(v).shape[1];
        all += channels;
        if (graph.value(v).channels_last) nhwc += channels;
      }
      nhwc_concat = 2 * nhwc > all;
    }
    if ((stem || gemm_start || nhwc_conv || nhwc_concat) &&
        CanBeChannelsLast(graph, node.outputs[0], chosen)) {
      MarkChannelsLast(graph, node.outputs[0]);
    }
  }
  return absl::OkStatus();
}

}  // namespace kiln::compiler
