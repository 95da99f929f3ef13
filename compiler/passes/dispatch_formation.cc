#include "compiler/passes/dispatch_formation.h"

#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "compiler/ops/op_registry.h"
#include "compiler/passes/math_activations.h"
#include "kiln/kernels.h"

namespace kiln::compiler {
namespace {

using ir::Graph;
using ir::Node;
using ir::NodeId;
using ir::ValueId;

bool IsDefault(const Node& n, const char* op) { return n.domain.empty() && n.op_type == op; }

// The output of `v`'s producer may be rewritten only when nothing else sees it.
bool SoleUse(const Graph& g, ValueId v) {
  return !g.IsGraphOutput(v) && g.Users(v).size() == 1;
}

bool IsF32(const Graph& g, ValueId v) { return g.value(v).dtype == ir::DType::F32; }

// Moves `consumer`'s output 0 onto `producer` and retires the consumer; the
// nodes fused into the consumer before (a Gelu's chain) stay named.
void Absorb(Graph& g, NodeId producer, NodeId consumer) {
  Node& p = g.nodes[producer];
  Node& c = g.nodes[consumer];
  const ValueId out = c.outputs[0];
  p.outputs[0] = out;
  g.value(out).producer = producer;
  p.fused.push_back({c.name, c.op_type});
  p.fused.insert(p.fused.end(), c.fused.begin(), c.fused.end());
  c.removed = true;
}

// Turns n into a Kiln `op_type` node with no attributes but "kiln.source_op",
// which keeps naming the ONNX op it was for the debug info.
void Retype(Node& n, const char* op_type) {
  ir::Attribute src;
  src.kind = ir::Attribute::Kind::kString;
  src.s = n.op_type;
  n.attributes.clear();
  n.attributes["kiln.source_op"] = std::move(src);
  n.op_type = op_type;
}

// Whether `out` is float32 of x's (known) shape: an elementwise result, no
// broadcasting.
bool SameShapeF32(const Graph& g, ValueId x, ValueId out) {
  const ir::Value& xv = g.value(x);
  const ir::Value& ov = g.value(out);
  return xv.has_shape && ov.has_shape && xv.shape == ov.shape && IsF32(g, out);
}

bool MatMulToGemm(Graph& g, NodeId id) {
  Node& n = g.nodes[id];
  if (n.inputs.size() != 2 || n.outputs.size() != 1) return false;
  const ir::Value& a = g.value(n.inputs[0]);
  const ir::Value& b = g.value(n.inputs[1]);
  if (!a.has_shape || a.shape.size() < 2 || a.constant) return false;
  if (!b.constant || b.shape.size() != 2) return false;
  // A [..., M, K] times one matrix is a [rows, K] GEMM (the Gemm lowering
  // flattens it): static shapes only.
  for (int64_t d : a.shape) {
    if (ir::IsSymbolic(d)) return false;
  }
  Retype(n, "Gemm");
  return true;
}

// Returns the bias operand of `add` if it is a constant row vector of length N.
ValueId RowBias(const Graph& g, const Node& add, ValueId gemm_out) {
  if (add.inputs.size() != 2 || add.outputs.size() != 1) return ir::kNoValue;
  const ValueId other = add.inputs[0] == gemm_out ? add.inputs[1] : add.inputs[0];
  if (other == gemm_out) return ir::kNoValue;
  const ir::Value& y = g.value(gemm_out);
  const ir::Value& c = g.value(other);
  if (!c.constant || !IsF32(g, other) || !y.has_shape || y.shape.size() < 2) return ir::kNoValue;
  const int64_t n = y.shape.back();
  const bool row = (c.shape.size() == 1 && c.shape[0] == n) ||
                   (c.shape.size() == 2 && c.shape[0] == 1 && c.shape[1] == n);
  if (!row) return ir::kNoValue;
  const ir::Value& out = g.value(add.outputs[0]);
  if (!out.has_shape || out.shape != y.shape) return ir::kNoValue;
  return other;
}

bool FuseBias(Graph& g, NodeId id) {
  const Node& gemm = g.nodes[id];
  if (gemm.outputs.size() != 1) return false;
  if (gemm.inputs.size() > 2 && gemm.inputs[2] != ir::kNoValue) return false;
  if (gemm.HasAttr("kiln.activation")) return false;
  const ValueId y = gemm.outputs[0];
  if (!SoleUse(g, y)) return false;
  const NodeId add_id = g.Users(y)[0];
  const Node& add = g.nodes[add_id];
  if (!IsDefault(add, "Add")) return false;
  const ValueId bias = RowBias(g, add, y);
  if (bias == ir::kNoValue) return false;
  Node& gm = g.nodes[id];
  gm.inputs.resize(3, ir::kNoValue);
  gm.inputs[2] = bias;
  gm.SetFloat("beta", 1.0f);
  Absorb(g, id, add_id);
  return true;
}

// The value of a one-element float constant v.
bool ScalarConstant(const Graph& g, ValueId v, float* out) {
  if (v == ir::kNoValue || !IsF32(g, v)) return false;
  const ir::Value& c = g.value(v);
  if (!c.constant || c.constant->element_count() != 1) return false;
  *out = static_cast<float>(c.constant->FloatAt(0));
  return true;
}

// The only user of v when it is a default-domain `op` with one output.
NodeId SoleUserOf(const Graph& g, ValueId v, const char* op) {
  if (!SoleUse(g, v)) return ir::kNoNode;
  const NodeId u = g.Users(v)[0];
  const Node& n = g.nodes[u];
  return IsDefault(n, op) && n.outputs.size() == 1 ? u : ir::kNoNode;
}

// The operand of binary node n that is not v (kNoValue unless v is exactly one).
ValueId OtherOperand(const Node& n, ValueId v) {
  if (n.inputs.size() != 2 || (n.inputs[0] == v) == (n.inputs[1] == v)) return ir::kNoValue;
  return n.inputs[0] == v ? n.inputs[1] : n.inputs[0];
}

// A one-element float constant operand of n (beside v) equal to want, to
// within the rounding of the exporter's float literal.
bool ConstOperandIs(const Graph& g, const Node& n, ValueId v, double want) {
  float c;
  return ScalarConstant(g, OtherOperand(n, v), &c) && std::fabs(c - want) <= 1e-6 * want;
}

// GELU as PyTorch exports nn.GELU(): t = x / sqrt(2) (or x * 1/sqrt(2)),
// Erf, + 1, then (x * that) * 0.5 or (x * 0.5) * that, every intermediate
// used once → one Gelu node on x (KILN_ACT_GELU), which may then fuse into
// the Gemm or Conv producing x. The scaling node becomes the Gelu node.
bool FuseGelu(Graph& g, NodeId erf_id) {
  const Node& erf = g.nodes[erf_id];
  if (!IsDefault(erf, "Erf") || erf.inputs.size() != 1 || erf.outputs.size() != 1) return false;
  const ValueId t = erf.inputs[0];
  if (t == ir::kNoValue || !SoleUse(g, t)) return false;
  const NodeId s_id = g.value(t).producer;
  if (s_id == ir::kNoNode || g.nodes[s_id].outputs.size() != 1) return false;
  const Node& s = g.nodes[s_id];
  ValueId x = ir::kNoValue;
  if (IsDefault(s, "Div") && s.inputs.size() == 2 && ConstOperandIs(g, s, s.inputs[0], std::sqrt(2.0)))
    x = s.inputs[0];
  for (int side = 0; side < 2 && IsDefault(s, "Mul") && s.inputs.size() == 2; ++side) {
    if (ConstOperandIs(g, s, s.inputs[side], std::sqrt(0.5))) x = s.inputs[side];
  }
  if (x == ir::kNoValue || !IsF32(g, x)) return false;
  const ValueId e = erf.outputs[0];
  const NodeId add_id = SoleUserOf(g, e, "Add");
  if (add_id == ir::kNoNode || !ConstOperandIs(g, g.nodes[add_id], e, 1.0)) return false;
  const ValueId a = g.nodes[add_id].outputs[0];
  const NodeId m1_id = SoleUserOf(g, a, "Mul");
  if (m1_id == ir::kNoNode) return false;
  const ValueId m1_other = OtherOperand(g.nodes[m1_id], a);
  NodeId last = m1_id, half_id = ir::kNoNode;
  if (m1_other == x) {  // (x * (erf + 1)) * 0.5
    const ValueId m = g.nodes[m1_id].outputs[0];
    last = SoleUserOf(g, m, "Mul");
    if (last == ir::kNoNode || !ConstOperandIs(g, g.nodes[last], m, 0.5)) return false;
  } else {  // (x * 0.5) * (erf + 1)
    if (m1_other == ir::kNoValue || !SoleUse(g, m1_other)) return false;
    half_id = g.value(m1_other).producer;
    if (half_id == ir::kNoNode) return false;
    const Node& h = g.nodes[half_id];
    if (!IsDefault(h, "Mul") || h.outputs.size() != 1 || !ConstOperandIs(g, h, x, 0.5))
      return false;
  }
  if (!SameShapeF32(g, x, g.nodes[last].outputs[0])) return false;
  Node& gelu = g.nodes[s_id];
  Retype(gelu, "Gelu");
  gelu.inputs = {x};
  if (half_id != ir::kNoNode) Absorb(g, s_id, half_id);
  Absorb(g, s_id, erf_id);
  Absorb(g, s_id, add_id);
  Absorb(g, s_id, m1_id);
  if (last != m1_id) Absorb(g, s_id, last);
  return true;
}

// SiLU (Swish) as PyTorch exports nn.SiLU(): s = Sigmoid(x) used only by
// Mul(x, s) (either order), no broadcasting → one Silu node on x
// (KILN_ACT_SILU), which may then fuse into the Conv or Gemm producing x.
// The Sigmoid node becomes the Silu node.
bool FuseSilu(Graph& g, NodeId sigmoid_id) {
  const Node& s = g.nodes[sigmoid_id];
  if (!IsDefault(s, "Sigmoid") || s.inputs.size() != 1 || s.outputs.size() != 1) return false;
  const ValueId x = s.inputs[0];
  if (x == ir::kNoValue || !IsF32(g, x)) return false;
  const NodeId mul_id = SoleUserOf(g, s.outputs[0], "Mul");
  if (mul_id == ir::kNoNode || OtherOperand(g.nodes[mul_id], s.outputs[0]) != x) return false;
  if (!SameShapeF32(g, x, g.nodes[mul_id].outputs[0])) return false;
  Retype(g.nodes[sigmoid_id], "Silu");
  Absorb(g, sigmoid_id, mul_id);
  return true;
}

}  // namespace

bool ActivationParams(const Graph& g, const Node& n, int64_t* kind, float* alpha, float* beta) {
  *alpha = 0.0f;
  *beta = 0.0f;
  if (!n.domain.empty() || n.inputs.empty() || n.outputs.size() != 1) return false;
  if (n.op_type == "Relu") {
    *kind = KILN_ACT_RELU;
  } else if (n.op_type == "Sigmoid") {
    *kind = KILN_ACT_SIGMOID;
  } else if (n.op_type == "Tanh") {
    *kind = KILN_ACT_TANH;
  } else if (n.op_type == "Clip") {
    *kind = KILN_ACT_CLIP;
    const float inf = std::numeric_limits<float>::infinity();
    *alpha = n.GetFloat("min", -inf);
    *beta = n.GetFloat("max", inf);
    for (size_t k = 1; k < n.inputs.size() && k < 3; ++k) {
      if (n.inputs[k] == ir::kNoValue) continue;
      const ir::Value& b = g.value(n.inputs[k]);
      if (!b.constant || b.constant->element_count() != 1) return false;
      (k == 1 ? *alpha : *beta) = static_cast<float>(b.constant->FloatAt(0));
    }
  } else if (!MathActivationParams(n, kind, alpha, beta)) {  // math_activations.cc
    return false;
  }
  return true;
}

namespace {

bool FuseActivation(Graph& g, NodeId act_id) {
  const Node& act = g.nodes[act_id];
  int64_t kind;
  float alpha, beta;
  if (!ActivationParams(g, act, &kind, &alpha, &beta)) return false;
  const ValueId x = act.inputs[0];
  if (x == ir::kNoValue || !IsF32(g, x) || !SoleUse(g, x)) return false;
  const NodeId pid = g.value(x).producer;
  if (pid == ir::kNoNode) return false;
  const Node& p = g.nodes[pid];
  if (p.removed || p.HasAttr("kiln.activation")) return false;
  if (!(IsDefault(p, "Conv") || IsDefault(p, "Gemm") || IsDefault(p, "BatchNormalization"))) {
    return false;
  }
  if (p.outputs.empty() || p.outputs[0] != x) return false;
  for (size_t k = 1; k < p.outputs.size(); ++k) {
    if (p.outputs[k] != ir::kNoValue) return false;
  }
  Node& pm = g.nodes[pid];
  pm.SetInt("kiln.activation", kind);
  pm.SetFloat("kiln.act_alpha", alpha);
  pm.SetFloat("kiln.act_beta", beta);
  Absorb(g, pid, act_id);
  return true;
}

}  // namespace

bool IsAliasNode(const ir::Node& node) {
  if (!node.domain.empty()) return false;
  const std::string& op = node.op_type;
  const OpDef* def = FindOpDef(op);  // compiler/ops/
  return def != nullptr && def->alias != nullptr && def->alias(node);
}

namespace {

// Add(conv_out, r) -> Conv with r as a 4th input (kernel conv2d_res_f32):
// the residual is added in the conv's epilogue, before any activation that
// is fused later. The conv must run after r exists, so when both operands
// come from convs the later one absorbs the Add.
bool FuseResidual(Graph& g, NodeId add_id) {
  const Node& add = g.nodes[add_id];
  if (!IsDefault(add, "Add") || add.inputs.size() != 2 || add.outputs.size() != 1) return false;
  const ir::Value& out = g.value(add.outputs[0]);
  if (!out.has_shape || !IsF32(g, add.outputs[0])) return false;
  NodeId best = ir::kNoNode;
  ValueId residual = ir::kNoValue;
  for (int side = 0; side < 2; ++side) {
    const ValueId x = add.inputs[side], r = add.inputs[1 - side];
    if (x == r || x == ir::kNoValue || r == ir::kNoValue || !SoleUse(g, x)) continue;
    const ir::Value& rv = g.value(r);
    if (rv.constant || !rv.has_shape || rv.shape != out.shape || !IsF32(g, r)) continue;
    const ir::Value& xv = g.value(x);
    if (!xv.has_shape || xv.shape != out.shape) continue;
    const NodeId pid = xv.producer;
    if (pid == ir::kNoNode) continue;
    const Node& p = g.nodes[pid];
    if (p.removed || !IsDefault(p, "Conv") || p.HasAttr("kiln.activation")) continue;
    if (p.outputs.size() != 1 || p.outputs[0] != x || p.inputs.size() > 3) continue;
    if (rv.producer != ir::kNoNode && rv.producer >= pid) continue;  // r must exist first
    if (best == ir::kNoNode || pid > best) best = pid, residual = r;
  }
  if (best == ir::kNoNode) return false;
  Node& conv = g.nodes[best];
  conv.inputs.resize(4, ir::kNoValue);
  conv.inputs[3] = residual;
  Absorb(g, best, add_id);
  return true;
}

}  // namespace

absl::Status FormDispatches(ir::Graph& graph) {
  bool changed = false;
  for (size_t k = 0; k < graph.nodes.size(); ++k) {
    if (!graph.nodes[k].removed) changed |= FuseGelu(graph, static_cast<NodeId>(k));
  }
  for (size_t k = 0; k < graph.nodes.size(); ++k) {
    if (!graph.nodes[k].removed) changed |= FuseSilu(graph, static_cast<NodeId>(k));
  }
  for (size_t k = 0; k < graph.nodes.size(); ++k) {
    if (!graph.nodes[k].removed && IsDefault(graph.nodes[k], "MatMul")) {
      MatMulToGemm(graph, static_cast<NodeId>(k));
    }
  }
  for (size_t k = 0; k < graph.nodes.size(); ++k) {
    if (!graph.nodes[k].removed && IsDefault(graph.nodes[k], "Gemm")) {
      changed |= FuseBias(graph, static_cast<NodeId>(k));
    }
  }
  for (size_t k = 0; k < graph.nodes.size(); ++k) {
    if (!graph.nodes[k].removed) changed |= FuseResidual(graph, static_cast<NodeId>(k));
  }
  for (size_t k = 0; k < graph.nodes.size(); ++k) {
    if (!graph.nodes[k].removed) changed |= FuseActivation(graph, static_cast<NodeId>(k));
  }
  if (changed) graph.Compact();
  return absl::OkStatus();
}

}  // namespace kiln::compiler
