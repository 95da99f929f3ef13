#include "compiler/passes/constant_folding.h"

#include "compiler/passes/if_inlining.h"
#include "compiler/passes/shape_inference.h"
#include "compiler/passes/size_cast_widening.h"

namespace kiln::compiler {

const ir::ConstantData* KnownValue(const ir::Graph& graph, ir::ValueId v,
                                   const std::vector<ir::ConstantPtr>& known) {
  if (v == ir::kNoValue) return nullptr;
  if (static_cast<size_t>(v) < known.size() && known[v]) return known[v].get();
  return graph.value(v).constant.get();
}

absl::Status PropagateShapesAndConstants(ir::Graph& graph, bool commit) {
  graph.dims.set_scope(graph.scope);  // requirements found here are checked here
  std::vector<ir::ConstantPtr> known(graph.values.size());
  for (size_t v = 0; v < graph.values.size(); ++v) known[v] = graph.values[v].constant;
  bool folded_any = false;
  for (size_t n = 0; n < graph.nodes.size(); ++n) {
    if (graph.nodes[n].removed) continue;
    if (commit && graph.nodes[n].op_type == "If" && !graph.nodes[n].inputs.empty() &&
        graph.nodes[n].inputs[0] != ir::kNoValue) {
      auto inlined = InlineKnownIf(graph, n, known[graph.nodes[n].inputs[0]]);
      if (!inlined.ok()) return inlined.status();
      if (*inlined) {  // node n is now the taken branch's first
        known.resize(graph.values.size());
        for (size_t v = 0; v < graph.values.size(); ++v) {
          if (known[v] == nullptr) known[v] = graph.values[v].constant;
        }
        --n;
        continue;
      }
    }
    WidenSizeCast(graph, n, known);
    absl::Status s = InferNodeShapes(graph, static_cast<ir::NodeId>(n), known);
    if (!s.ok()) return s;
    auto results = EvaluateNode(graph, graph.nodes[n], known);
    if (!results.ok()) return results.status();
    if (results->empty()) continue;
    ir::Node& node = graph.nodes[n];
    bool all = true;
    for (size_t k = 0; k < node.outputs.size(); ++k) {
      const ir::ValueId out = node.outputs[k];
      if (out == ir::kNoValue) continue;
      if (k >= results->size()) {
        all = false;
        continue;
      }
      known[out] = (*results)[k];
    }
    if (!commit || !all) continue;
    for (size_t k = 0; k < node.outputs.size(); ++k) {
      const ir::ValueId out = node.outputs[k];
      if (out == ir::kNoValue) continue;
      ir::Value& v = graph.value(out);
      v.constant = known[out];
      v.dtype = v.constant->dtype;
      v.shape = v.constant->shape;
      v.has_shape = true;
      v.producer = ir::kNoNode;
    }
    node.removed = true;
    folded_any = true;
  }
  if (commit && folded_any) graph.Compact();
  return absl::OkStatus();
}

absl::Status FoldConstants(ir::Graph& graph) {
  return PropagateShapesAndConstants(graph, /*commit=*/true);
}

}  // namespace kiln::compiler
