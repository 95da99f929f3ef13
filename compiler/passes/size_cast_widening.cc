#include "compiler/passes/size_cast_widening.h"

#include <set>
#include <string>

namespace kiln::compiler {
namespace {

constexpr int64_t kOnnxInt32 = 6;
constexpr int64_t kOnnxInt64 = 7;

// Ops that pass elements of their input `k` through unchanged.
bool MovesElements(const ir::Node& node, size_t k) {
  static const std::set<std::string> movers = {"Slice", "Gather", "Squeeze", "Unsqueeze",
                                               "Identity", "Reshape"};
  return node.domain.empty() && k == 0 && movers.count(node.op_type) != 0;
}

bool IsCastTo(const ir::Node& node, int64_t to) {
  return node.domain.empty() && node.op_type == "Cast" && node.GetInt("to", 0) == to;
}

// Whether every path from `value` ends in a cast to int64 after element
// movers only (not a graph output; subgraphs read captures as their node's
// inputs, which are not movers).
bool EndsInInt64Casts(const ir::Graph& graph, ir::ValueId value, int depth) {
  if (depth > 16) return false;
  for (ir::ValueId out : graph.outputs) {
    if (out == value) return false;
  }
  bool used = false;
  for (const ir::Node& node : graph.nodes) {
    if (node.removed) continue;
    for (size_t k = 0; k < node.inputs.size(); ++k) {
      if (node.inputs[k] != value) continue;
      used = true;
      if (IsCastTo(node, kOnnxInt64)) continue;
      if (!MovesElements(node, k)) return false;
      for (ir::ValueId next : node.outputs) {
        if (next != ir::kNoValue && !EndsInInt64Casts(graph, next, depth + 1)) return false;
      }
    }
  }
  return used;
}

}  // namespace

bool WidenSizeCast(ir::Graph& graph, size_t n, const std::vector<ir::ConstantPtr>& known) {
  ir::Node& node = graph.nodes[n];
  if (!IsCastTo(node, kOnnxInt32) || node.inputs.empty() || node.outputs.empty()) return false;
  const ir::ValueId in = node.inputs[0];
  if (in == ir::kNoValue || static_cast<size_t>(in) >= known.size() || !known[in] ||
      !known[in]->symbolic || node.outputs[0] == ir::kNoValue) {
    return false;
  }
  if (!EndsInInt64Casts(graph, node.outputs[0], 0)) return false;
  node.SetInt("to", kOnnxInt64);
  return true;
}

}  // namespace kiln::compiler
