#include "compiler/passes/if_inlining.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

namespace kiln::compiler {
namespace {

// `name` when the graph has no value of that name, else a fresh one.
std::string FreeName(const ir::Graph& graph, const std::string& name) {
  return name.empty() || graph.FindValue(name) != ir::kNoValue ? std::string() : name;
}

}  // namespace

absl::StatusOr<bool> InlineKnownIf(ir::Graph& graph, size_t n, const ir::ConstantPtr& cond) {
  const ir::Node node = graph.nodes[n];
  if (node.op_type != "If" || !node.domain.empty() || cond == nullptr ||
      cond->element_count() != 1 || node.inputs.empty()) {
    return false;
  }
  const char* taken = cond->IntAt(0) != 0 ? "then_branch" : "else_branch";
  const auto attr = node.attributes.find(taken);
  if (attr == node.attributes.end() || attr->second.graph == nullptr) return false;
  const ir::Graph& branch = *attr->second.graph;
  if (branch.inputs.size() + 1 != node.inputs.size() ||
      branch.outputs.size() != node.outputs.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "node ", node.Describe(), ": its ", taken, " has ", branch.inputs.size(), " captures and ",
        branch.outputs.size(), " outputs; the node has ", node.inputs.size() - 1, " and ",
        node.outputs.size()));
  }

  // Branch value -> graph value: captures are the node's extra inputs,
  // constants are copied, the outputs are the node's.
  std::vector<ir::ValueId> map(branch.values.size(), ir::kNoValue);
  for (size_t k = 0; k < branch.inputs.size(); ++k) map[branch.inputs[k]] = node.inputs[k + 1];
  for (size_t v = 0; v < branch.values.size(); ++v) {
    const ir::Value& value = branch.values[v];
    if (value.constant != nullptr && map[v] == ir::kNoValue) {
      map[v] = graph.AddConstant(FreeName(graph, value.name), value.constant);
    }
  }
  std::vector<ir::Node> inlined;
  std::vector<std::pair<ir::ValueId, ir::ValueId>> copies;  // (from, to) as Identity
  for (size_t j = 0; j < branch.outputs.size(); ++j) {
    const ir::ValueId out = branch.outputs[j];
    if (node.outputs[j] == ir::kNoValue) continue;
    const bool produced = out != ir::kNoValue && branch.values[out].producer != ir::kNoNode &&
                          map[out] == ir::kNoValue;
    if (produced) {
      map[out] = node.outputs[j];
    } else {
      copies.emplace_back(out, node.outputs[j]);  // a capture, a constant, or repeated
    }
  }
  for (const ir::Node& b : branch.nodes) {
    if (b.removed) continue;
    ir::Node copy = b;
    copy.name = absl::StrCat(node.name, "/", b.name);
    for (ir::ValueId& in : copy.inputs) {
      if (in != ir::kNoValue) in = map[in];
    }
    for (ir::ValueId& out : copy.outputs) {
      if (out == ir::kNoValue) continue;
      if (map[out] == ir::kNoValue) {
        const ir::ValueId fresh = graph.AddValue(FreeName(graph, branch.values[out].name));
        graph.value(fresh).dtype = branch.values[out].dtype;
        map[out] = fresh;
      }
      out = map[out];
    }
    inlined.push_back(std::move(copy));
  }
  for (const auto& [from, to] : copies) {
    ir::Node identity;
    identity.name = absl::StrCat(node.name, "/output_", inlined.size());
    identity.op_type = "Identity";
    identity.inputs = {map[from]};
    identity.outputs = {to};
    inlined.push_back(std::move(identity));
  }
  graph.nodes.erase(graph.nodes.begin() + static_cast<std::ptrdiff_t>(n));
  graph.nodes.insert(graph.nodes.begin() + static_cast<std::ptrdiff_t>(n),
                     std::make_move_iterator(inlined.begin()),
                     std::make_move_iterator(inlined.end()));
  for (ir::Value& v : graph.values) v.producer = ir::kNoNode;
  for (size_t k = 0; k < graph.nodes.size(); ++k) {
    for (ir::ValueId out : graph.nodes[k].outputs) {
      if (out != ir::kNoValue) graph.value(out).producer = static_cast<ir::NodeId>(k);
    }
  }
  return true;
}

}  // namespace kiln::compiler
