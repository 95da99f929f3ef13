#include "compiler/passes/layer_norm_fusion.h"

#include <cstring>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"

namespace kiln::compiler {
namespace {

using ir::DType;
using ir::Graph;
using ir::Node;
using ir::NodeId;
using ir::ValueId;

bool Is(const Node& n, const char* op) {
  return !n.removed && n.domain.empty() && n.op_type == op && n.outputs.size() == 1 &&
         n.outputs[0] != ir::kNoValue;
}

bool IsF32(const Graph& g, ValueId v) {
  return v != ir::kNoValue && g.value(v).dtype == DType::F32 && g.value(v).has_shape;
}

// The single node reading `v` (which is not a graph output), or kNoNode.
NodeId SoleUser(const Graph& g, ValueId v) {
  if (g.IsGraphOutput(v)) return ir::kNoNode;
  const std::vector<NodeId> users = g.Users(v);
  return users.size() == 1 ? users[0] : ir::kNoNode;
}

// The other operand of binary `n` when one of its inputs is `v`.
ValueId OtherOperand(const Node& n, ValueId v) {
  if (n.inputs.size() != 2) return ir::kNoValue;
  if (n.inputs[0] == v && n.inputs[1] != v) return n.inputs[1];
  if (n.inputs[1] == v && n.inputs[0] != v) return n.inputs[0];
  return ir::kNoValue;
}

// A float32 constant with one element; stores it in `*out`.
bool ScalarConstant(const Graph& g, ValueId v, double* out) {
  if (v == ir::kNoValue) return false;
  const ir::Value& c = g.value(v);
  if (!c.constant || c.constant->dtype != DType::F32 || c.constant->element_count() != 1) {
    return false;
  }
  *out = c.constant->FloatAt(0);
  return true;
}

// A float32 constant of `n` elements laid along the last axis only (shape
// [n], [1, n], [1, 1, n], ...) and of rank at most `rank`.
bool RowConstant(const Graph& g, ValueId v, int64_t n, size_t rank) {
  if (v == ir::kNoValue) return false;
  const ir::Value& c = g.value(v);
  if (!c.constant || c.constant->dtype != DType::F32 || c.shape.empty() || c.shape.size() > rank) {
    return false;
  }
  for (size_t k = 0; k + 1 < c.shape.size(); ++k) {
    if (c.shape[k] != 1) return false;
  }
  return c.shape.back() == n;
}

// ReduceMean over exactly the last axis of a rank-`rank` input, keeping it.
bool MeanOverLastAxis(const Graph& g, const Node& r, size_t rank) {
  if (r.GetInt("keepdims", 1) != 1) return false;
  std::vector<int64_t> axes;
  if (r.inputs.size() >= 2 && r.inputs[1] != ir::kNoValue) {  // opset 18: axes input
    const ir::Value& a = g.value(r.inputs[1]);
    if (!a.constant) return false;
    for (int64_t k = 0; k < a.constant->element_count(); ++k) axes.push_back(a.constant->IntAt(k));
  } else {
    axes = r.GetInts("axes", {});
  }
  if (axes.size() != 1) return false;
  const int64_t last = static_cast<int64_t>(rank) - 1;
  return axes[0] == -1 || axes[0] == last;
}

// Tries the chain starting at ReduceMean `r1_id`; returns true when it fused.
bool TryFuse(Graph& g, NodeId r1_id) {
  const Node& r1 = g.nodes[r1_id];
  if (!Is(r1, "ReduceMean") || r1.inputs.empty()) return false;
  const ValueId x = r1.inputs[0];
  if (!IsF32(g, x)) return false;
  const std::vector<int64_t>& shape = g.value(x).shape;
  if (shape.empty() || shape.back() <= 0) return false;
  const size_t rank = shape.size();
  const int64_t n = shape.back();
  if (!MeanOverLastAxis(g, r1, rank)) return false;
  const ValueId mean = r1.outputs[0];

  // d = x - mean, read by the Pow and the Div only.
  const NodeId sub_id = SoleUser(g, mean);
  if (sub_id == ir::kNoNode || !Is(g.nodes[sub_id], "Sub")) return false;
  const Node& sub = g.nodes[sub_id];
  if (sub.inputs.size() != 2 || sub.inputs[0] != x || sub.inputs[1] != mean) return false;
  const ValueId d = sub.outputs[0];
  if (!IsF32(g, d) || g.value(d).shape != shape || g.IsGraphOutput(d)) return false;
  const std::vector<NodeId> d_users = g.Users(d);
  if (d_users.size() != 2) return false;
  NodeId pow_id = d_users[0], div_id = d_users[1];
  if (!Is(g.nodes[pow_id], "Pow")) std::swap(pow_id, div_id);
  const Node& pow = g.nodes[pow_id];
  double exponent = 0.0;
  if (!Is(pow, "Pow") || pow.inputs.size() != 2 || pow.inputs[0] != d ||
      !ScalarConstant(g, pow.inputs[1], &exponent) || exponent != 2.0) {
    return false;
  }

  // var = ReduceMean(d^2) -> + eps -> Sqrt -> d / that.
  const NodeId r2_id = SoleUser(g, pow.outputs[0]);
  if (r2_id == ir::kNoNode || !Is(g.nodes[r2_id], "ReduceMean")) return false;
  const Node& r2 = g.nodes[r2_id];
  if (r2.inputs[0] != pow.outputs[0] || !MeanOverLastAxis(g, r2, rank)) return false;
  const NodeId eps_id = SoleUser(g, r2.outputs[0]);
  if (eps_id == ir::kNoNode || !Is(g.nodes[eps_id], "Add")) return false;
  double eps = 0.0;
  if (!ScalarConstant(g, OtherOperand(g.nodes[eps_id], r2.outputs[0]), &eps) || !(eps >= 0.0)) {
    return false;
  }
  const NodeId sqrt_id = SoleUser(g, g.nodes[eps_id].outputs[0]);
  if (sqrt_id == ir::kNoNode || !Is(g.nodes[sqrt_id], "Sqrt")) return false;
  const Node& div = g.nodes[div_id];
  if (!Is(div, "Div") || div.inputs.size() != 2 || div.inputs[0] != d ||
      div.inputs[1] != g.nodes[sqrt_id].outputs[0] ||
      SoleUser(g, g.nodes[sqrt_id].outputs[0]) != div_id) {
    return false;
  }

  // Optional affine: * scale, then + bias.
  std::vector<NodeId> chain = {sub_id, pow_id, r2_id, eps_id, sqrt_id, div_id};
  ValueId out = div.outputs[0];
  ValueId scale = ir::kNoValue, bias = ir::kNoValue;
  NodeId next = SoleUser(g, out);
  if (next != ir::kNoNode && Is(g.nodes[next], "Mul") &&
      RowConstant(g, OtherOperand(g.nodes[next], out), n, rank)) {
    scale = OtherOperand(g.nodes[next], out);
    chain.push_back(next);
    out = g.nodes[next].outputs[0];
    next = SoleUser(g, out);
    if (next != ir::kNoNode && Is(g.nodes[next], "Add") &&
        RowConstant(g, OtherOperand(g.nodes[next], out), n, rank)) {
      bias = OtherOperand(g.nodes[next], out);
      chain.push_back(next);
      out = g.nodes[next].outputs[0];
    }
  }
  if (!IsF32(g, out) || g.value(out).shape != shape) return false;
  if (scale == ir::kNoValue) {  // LayerNormalization needs a scale: ones
    auto ones = std::make_shared<ir::ConstantData>();
    ones->dtype = DType::F32;
    ones->shape = {n};
    ones->bytes.resize(static_cast<size_t>(n) * sizeof(float));
    const float one = 1.0f;
    for (int64_t k = 0; k < n; ++k) std::memcpy(&ones->bytes[k * sizeof(float)], &one, sizeof one);
    scale = g.AddConstant(absl::StrCat(r1.name, ".kiln_ones"), std::move(ones));
  }

  // The ReduceMean becomes the LayerNormalization: it precedes every node
  // of the chain and reads only x and constants, so order stays topological.
  Node& ln = g.nodes[r1_id];
  ln.op_type = "LayerNormalization";
  ln.attributes.clear();
  ln.SetInt("axis", -1);
  ln.SetFloat("epsilon", static_cast<float>(eps));
  ln.inputs = {x, scale};
  if (bias != ir::kNoValue) ln.inputs.push_back(bias);
  ln.outputs = {out};
  g.value(out).producer = r1_id;
  for (NodeId id : chain) {
    Node& c = g.nodes[id];
    ln.fused.push_back({c.name, c.op_type});
    c.removed = true;
  }
  return true;
}

}  // namespace

absl::Status FuseLayerNorm(ir::Graph& graph) {
  bool changed = false;
  for (size_t k = 0; k < graph.nodes.size(); ++k) {
    changed |= TryFuse(graph, static_cast<NodeId>(k));
  }
  if (changed) graph.Compact();
  return absl::OkStatus();
}

}  // namespace kiln::compiler
