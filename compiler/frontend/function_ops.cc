// Function ops → the ops of their bodies; see function_ops.h.
#include "compiler/frontend/function_ops.h"

#include <cstring>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/ir/graph_util.h"

namespace kiln::compiler {
namespace {

using ir::DType;
using ir::Graph;
using ir::Node;
using ir::ValueId;

// Appends nodes named after the expanded node, in order.
class Expansion {
 public:
  Expansion(Node& node, Graph& graph) : node_(node), graph_(graph) {}

  ValueId I64(const std::vector<int64_t>& values) {
    return graph_.AddConstant(
        "", ir::MakeI64Constant({static_cast<int64_t>(values.size())}, values));
  }
  ValueId F32(std::vector<float> values) {
    std::vector<uint8_t> bytes(4 * values.size());
    if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
    return graph_.AddConstant(
        "", ir::MakeConstant(DType::F32, {static_cast<int64_t>(values.size())}, std::move(bytes)));
  }
  // One node of the body; returns its (single) output.
  ValueId Add(const std::string& op, std::vector<ValueId> inputs) {
    Node n;
    n.name = absl::StrCat(node_.name, ".", op, count_++);
    n.op_type = op;
    n.inputs = std::move(inputs);
    const ValueId out = graph_.AddValue("");
    n.outputs = {out};
    graph_.AddNode(std::move(n));
    return out;
  }
  Node& last() { return graph_.nodes.back(); }
  // The body's last node becomes `node` itself, keeping its outputs.
  void Finish(const std::string& op, std::vector<ValueId> inputs) {
    node_.op_type = op;
    node_.inputs = std::move(inputs);
    node_.attributes.clear();
  }

 private:
  Node& node_;
  Graph& graph_;
  int count_ = 0;
};

// GroupNormalization(X, scale, bias; num_groups, epsilon): X [N, C, ...]
// viewed as [N, G, C/G * ...] is normalized per (n, group) over its last
// axis, by InstanceNormalization with unit scale and zero bias; then the
// affine: opset 18 has one scale/bias per group (applied in that view),
// opset 21 one per channel (applied in the view [N, C, ...]).
absl::Status ExpandGroupNormalization(int64_t opset, const std::string& where, Node& node,
                                      Graph& graph) {
  if (node.inputs.size() != 3 || node.inputs[1] == ir::kNoValue ||
      node.inputs[2] == ir::kNoValue) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": GroupNormalization takes X, scale and bias"));
  }
  const int64_t groups = node.GetInt("num_groups", 0);
  if (groups <= 0 || groups > (int64_t{1} << 40)) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, ": GroupNormalization needs num_groups between 1 and 2^40, not ", groups));
  }
  const float epsilon = node.GetFloat("epsilon", 1e-5f);
  const ValueId x = node.inputs[0], scale = node.inputs[1], bias = node.inputs[2];
  Expansion e(node, graph);
  const ValueId grouped = e.Add("Reshape", {x, e.I64({0, groups, -1})});
  const ValueId normalized =
      e.Add("InstanceNormalization", {grouped, e.F32(std::vector<float>(groups, 1.0f)),
                                      e.F32(std::vector<float>(groups, 0.0f))});
  e.last().SetFloat("epsilon", epsilon);
  const ValueId x_shape = e.Add("Shape", {x});
  ValueId affine_in = normalized;
  if (opset >= 21) {  // per channel: the view [N, C, rest]
    const ValueId nc = e.Add("Slice", {x_shape, e.I64({0}), e.I64({2})});
    const ValueId view = e.Add("Concat", {nc, e.I64({-1})});
    e.last().SetInt("axis", 0);
    affine_in = e.Add("Reshape", {normalized, view});
  }
  const ValueId axis1 = e.I64({1});
  const ValueId scaled = e.Add("Mul", {affine_in, e.Add("Unsqueeze", {scale, axis1})});
  const ValueId shifted = e.Add("Add", {scaled, e.Add("Unsqueeze", {bias, axis1})});
  e.Finish("Reshape", {shifted, x_shape});
  return absl::OkStatus();
}

}  // namespace

absl::Status ExpandFunctionOp(int64_t opset, const std::string& where, Node* node, Graph* graph) {
  if (!node->domain.empty() && node->domain != "ai.onnx") return absl::OkStatus();
  if (node->op_type == "GroupNormalization") {
    return ExpandGroupNormalization(opset, where, *node, *graph);
  }
  return absl::OkStatus();
}

}  // namespace kiln::compiler
