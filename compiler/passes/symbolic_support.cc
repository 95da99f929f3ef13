#include "compiler/passes/symbolic_support.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/ops/op_registry.h"

namespace kiln::compiler {
namespace {

// Whether input `input` of the default-domain op may hold a value computed
// from symbolic dims: each op declares it (OpDef::symbolic_values). The
// element movers constant folding evaluates (FoldsSymbolicValues) take them
// as data only; a symbolic Slice bound or Gather index would be read as a
// number.
bool TakesSymbolicValueAt(const std::string& op, size_t input) {
  const OpDef* def = FindOpDef(op);  // compiler/ops/
  return def != nullptr && def->symbolic_values != nullptr && def->symbolic_values(input);
}

const ir::ConstantData* ConstantOf(const ir::Graph& graph, ir::ValueId v,
                                   const std::vector<ir::ConstantPtr>* known) {
  if (known != nullptr && static_cast<size_t>(v) < known->size() && (*known)[v]) {
    return (*known)[v].get();
  }
  return graph.value(v).constant.get();
}

bool ReadsSymbolicValue(const ir::Graph& graph, const ir::Node& node,
                        const std::vector<ir::ConstantPtr>* known) {
  for (ir::ValueId v : node.inputs) {
    if (v == ir::kNoValue) continue;
    const ir::ConstantData* c = ConstantOf(graph, v, known);
    if (c != nullptr && c->symbolic) return true;
  }
  return false;
}

bool HasSymbolicShape(const ir::Graph& graph, const ir::Node& node) {
  for (const auto* list : {&node.inputs, &node.outputs}) {
    for (ir::ValueId v : *list) {
      if (v != ir::kNoValue && HasSymbolicDims(graph.value(v).shape)) return true;
    }
  }
  return false;
}

}  // namespace

bool HasSymbolicDims(const std::vector<int64_t>& shape) {
  for (int64_t d : shape) {
    if (ir::IsSymbolic(d)) return true;
  }
  return false;
}

bool TouchesSymbols(const ir::Graph& graph, const ir::Node& node,
                    const std::vector<ir::ConstantPtr>* known) {
  if (graph.dims.empty()) return false;
  return HasSymbolicShape(graph, node) || ReadsSymbolicValue(graph, node, known);
}

bool FoldsSymbolicValues(const ir::Node& node) {
  // A cast to a narrower type would cut encoded dims; to int64 (as PyTorch
  // exports casts of sizes) they pass unchanged.
  constexpr int64_t kOnnxInt64 = 7;
  if (node.op_type == "Cast" && node.GetInt("to", 0) != kOnnxInt64) return false;
  return node.domain.empty() && TakesSymbolicValueAt(node.op_type, 0);
}

absl::Status CheckSymbolicSupport(const ir::Graph& graph, const ir::Node& node,
                                  const std::vector<ir::ConstantPtr>* known) {
  if (graph.dims.empty()) return absl::OkStatus();
  for (size_t k = 0; k < node.inputs.size(); ++k) {
    if (node.inputs[k] == ir::kNoValue) continue;
    const ir::ConstantData* c = ConstantOf(graph, node.inputs[k], known);
    if (c == nullptr || !c->symbolic || (node.domain.empty() && TakesSymbolicValueAt(node.op_type, k))) {
      continue;
    }
    return absl::UnimplementedError(absl::StrCat(
        graph.source, ": node ", node.Describe(), ": input ", k, " ('",
        graph.value(node.inputs[k]).name, "') is computed from symbolic dimensions, which ",
        node.op_type, " does not support there yet"));
  }
  const OpDef* def = FindOpDef(node);  // compiler/ops/
  if (!HasSymbolicShape(graph, node) || (def != nullptr && def->symbolic)) {
    return absl::OkStatus();
  }
  for (ir::ValueId v : node.inputs) {
    if (v == ir::kNoValue || !HasSymbolicDims(graph.value(v).shape)) continue;
    return absl::UnimplementedError(absl::StrCat(
        graph.source, ": node ", node.Describe(), ": input '", graph.value(v).name,
        "' has symbolic shape ", SymbolicShapeStr(graph, graph.value(v).shape), "; ",
        node.op_type, " does not support symbolic dimensions yet"));
  }
  return absl::UnimplementedError(absl::StrCat(graph.source, ": node ", node.Describe(), ": ",
                                               node.op_type,
                                               " does not support symbolic dimensions yet"));
}

std::string SymbolicShapeStr(const ir::Graph& graph, const std::vector<int64_t>& shape) {
  std::vector<std::string> dims;
  for (int64_t d : shape) dims.push_back(graph.dims.ToString(d));
  return absl::StrCat("[", absl::StrJoin(dims, ","), "]");
}

}  // namespace kiln::compiler
