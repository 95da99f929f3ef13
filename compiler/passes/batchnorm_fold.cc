#include "compiler/passes/batchnorm_fold.h"

#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"

namespace kiln::compiler {
namespace {

using ir::ConstantData;
using ir::ConstantPtr;
using ir::DType;
using ir::Graph;
using ir::Node;
using ir::ValueId;

const ConstantData* F32Constant(const Graph& g, const Node& n, size_t input) {
  if (input >= n.inputs.size() || n.inputs[input] == ir::kNoValue) return nullptr;
  const ir::Value& v = g.value(n.inputs[input]);
  if (!v.constant || v.constant->dtype != DType::F32) return nullptr;
  return v.constant.get();
}

// Only output 0 of an inference BN may be in use.
bool OnlyFirstOutputUsed(const Graph& g, const Node& n) {
  for (size_t k = 1; k < n.outputs.size(); ++k) {
    const ValueId v = n.outputs[k];
    if (v != ir::kNoValue && (!g.Users(v).empty() || g.IsGraphOutput(v))) return false;
  }
  return !n.outputs.empty() && n.outputs[0] != ir::kNoValue;
}

// Tries to fold BN node `bn_id`; returns true when it did.
bool TryFold(Graph& g, ir::NodeId bn_id) {
  const Node& bn = g.nodes[bn_id];
  if (bn.inputs.size() < 5 || bn.inputs[0] == ir::kNoValue) return false;
  if (bn.GetInt("spatial", 1) != 1 || bn.GetInt("training_mode", 0) != 0) return false;
  if (!OnlyFirstOutputUsed(g, bn)) return false;
  const ValueId conv_out = bn.inputs[0];
  const ir::NodeId conv_id = g.value(conv_out).producer;
  if (conv_id == ir::kNoNode) return false;
  const Node& conv = g.nodes[conv_id];
  if (conv.removed || conv.op_type != "Conv" || !conv.domain.empty()) return false;
  if (conv.HasAttr("kiln.activation")) return false;
  if (conv.outputs.size() != 1 || conv.outputs[0] != conv_out) return false;
  if (g.IsGraphOutput(conv_out) || g.Users(conv_out).size() != 1) return false;

  const ConstantData* w = F32Constant(g, conv, 1);
  if (!w || w->shape.empty() || w->shape[0] <= 0) return false;
  const bool has_bias = conv.inputs.size() > 2 && conv.inputs[2] != ir::kNoValue;
  const ConstantData* b = has_bias ? F32Constant(g, conv, 2) : nullptr;
  if (has_bias && !b) return false;
  const ConstantData* scale = F32Constant(g, bn, 1);
  const ConstantData* shift = F32Constant(g, bn, 2);
  const ConstantData* mean = F32Constant(g, bn, 3);
  const ConstantData* var = F32Constant(g, bn, 4);
  if (!scale || !shift || !mean || !var) return false;

  const int64_t oc = w->shape[0];
  const int64_t total = w->element_count();
  if (total < 0 || total % oc != 0) return false;
  for (const ConstantData* c : {scale, shift, mean, var}) {
    if (c->element_count() != oc) return false;
  }
  if (b && b->element_count() != oc) return false;

  const double eps = bn.GetFloat("epsilon", 1e-5f);
  const int64_t per_oc = total / oc;
  auto new_w = std::make_shared<ConstantData>();
  new_w->dtype = DType::F32;
  new_w->shape = w->shape;
  new_w->bytes.resize(static_cast<size_t>(total) * sizeof(float));
  auto new_b = std::make_shared<ConstantData>();
  new_b->dtype = DType::F32;
  new_b->shape = {oc};
  new_b->bytes.resize(static_cast<size_t>(oc) * sizeof(float));
  float* wd = reinterpret_cast<float*>(new_w->bytes.data());
  float* bd = reinterpret_cast<float*>(new_b->bytes.data());
  const float* ws = w->data<float>();
  for (int64_t o = 0; o < oc; ++o) {
    const double s = static_cast<double>(scale->data<float>()[o]) /
                     std::sqrt(static_cast<double>(var->data<float>()[o]) + eps);
    for (int64_t k = 0; k < per_oc; ++k) {
      wd[o * per_oc + k] = static_cast<float>(ws[o * per_oc + k] * s);
    }
    const double bias = b ? b->data<float>()[o] : 0.0;
    bd[o] = static_cast<float>((bias - mean->data<float>()[o]) * s + shift->data<float>()[o]);
  }

  const std::string w_name = g.value(conv.inputs[1]).name;
  const ValueId w_id = g.AddConstant(absl::StrCat(w_name, ".bn_folded"), new_w);
  const ValueId b_id = g.AddConstant(absl::StrCat(conv.name, ".bn_folded_bias"), new_b);
  // AddConstant may grow `values` but not `nodes`; node references stay valid.
  Node& c = g.nodes[conv_id];
  Node& n = g.nodes[bn_id];
  c.inputs.resize(3, ir::kNoValue);
  c.inputs[1] = w_id;
  c.inputs[2] = b_id;
  const ValueId bn_out = n.outputs[0];
  c.outputs[0] = bn_out;
  g.value(bn_out).producer = conv_id;
  c.fused.push_back({n.name, n.op_type});
  n.removed = true;
  return true;
}

}  // namespace

absl::Status FoldBatchNormIntoConv(ir::Graph& graph) {
  bool changed = false;
  for (size_t k = 0; k < graph.nodes.size(); ++k) {
    const Node& n = graph.nodes[k];
    if (n.removed || n.op_type != "BatchNormalization" || !n.domain.empty()) continue;
    changed |= TryFold(graph, static_cast<ir::NodeId>(k));
  }
  if (changed) graph.Compact();
  return absl::OkStatus();
}

}  // namespace kiln::compiler
