#include "compiler/passes/output_shape_hints.h"

#include <set>
#include <string>
#include <vector>

namespace kiln::compiler {
namespace {

// Elementwise ops whose output has the broadcast shape of their inputs.
bool IsElementwise(const ir::Node& node) {
  static const auto* ops = new std::set<std::string>{
      "Identity", "Cast", "Neg", "Abs", "Exp", "Log", "Sqrt", "Reciprocal", "Sin", "Cos", "Tan",
      "Sinh", "Cosh", "Asin", "Acos", "Atan", "Tanh", "Sigmoid", "Relu", "Floor", "Ceil", "Round",
      "Sign", "Erf", "Not", "LeakyRelu", "Elu", "Selu", "Softplus", "Softsign", "HardSigmoid",
      "Add", "Sub", "Mul", "Div", "Pow", "Mod", "And", "Or", "Xor", "Where"};
  return (node.domain.empty() || node.domain == "ai.onnx") && ops->count(node.op_type) != 0;
}

// A constant of one element with no dims: broadcasting never gives it the hint.
bool IsScalarConstant(const ir::Graph& graph, ir::ValueId v) {
  const ir::Value& value = graph.value(v);
  if (value.constant != nullptr) return value.constant->shape.empty();
  if (value.producer == ir::kNoNode) return false;
  const ir::Node& p = graph.nodes[value.producer];
  if (p.op_type != "Constant" || !(p.domain.empty() || p.domain == "ai.onnx")) return false;
  for (const auto& [key, a] : p.attributes) {
    if (a.kind == ir::Attribute::Kind::kTensor && a.tensor) return a.tensor->shape.empty();
    if (a.kind == ir::Attribute::Kind::kInt || a.kind == ir::Attribute::Kind::kFloat) return true;
  }
  return false;
}

bool StaticShape(const std::vector<int64_t>& shape) {
  for (int64_t d : shape) {
    if (d < 0) return false;
  }
  return true;
}

}  // namespace

absl::Status PropagateOutputShapeHints(ir::Graph& graph) {
  std::vector<ir::ValueId> work;
  for (ir::ValueId v : graph.outputs) {
    const ir::Value& value = graph.value(v);
    if (value.has_declared_shape && StaticShape(value.declared_shape)) work.push_back(v);
  }
  std::set<ir::ValueId> seen(work.begin(), work.end());
  while (!work.empty()) {
    const ir::ValueId v = work.back();
    work.pop_back();
    const ir::Value& value = graph.value(v);
    if (value.producer == ir::kNoNode) continue;
    const ir::Node& node = graph.nodes[value.producer];
    if (node.removed || !IsElementwise(node) || node.outputs.empty() || node.outputs[0] != v) continue;
    const std::vector<int64_t> hint = value.declared_shape;
    const size_t first = node.op_type == "Where" ? 1 : 0;  // Where's condition may broadcast
    for (size_t k = first; k < node.inputs.size(); ++k) {
      const ir::ValueId in = node.inputs[k];
      if (in == ir::kNoValue || seen.count(in) || IsScalarConstant(graph, in)) continue;
      ir::Value& input = graph.value(in);
      // Graph inputs and constants have their shapes already.
      if (input.has_declared_shape || input.constant != nullptr || input.producer == ir::kNoNode) {
        continue;
      }
      input.declared_shape = hint;
      input.has_declared_shape = true;
      seen.insert(in);
      work.push_back(in);
    }
  }
  return absl::OkStatus();
}

}  // namespace kiln::compiler
