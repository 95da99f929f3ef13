#include "compiler/passes/symbolic_support.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace kiln::compiler {
namespace {

// Ops whose shape rule and lowering take symbolic dims (each audited: dims
// either pass through untouched or go through graph.dims arithmetic). Spatial
// dims of convolutions and pools must still be static; their rules say so.
const std::set<std::string>& SymbolicOps() {
  static const auto* ops = new std::set<std::string>{
      "Conv", "MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool",
      "BatchNormalization", "Flatten", "Gemm", "Add", "Sub", "Mul", "Div",
      "Relu", "Sigmoid", "Tanh", "Clip", "Identity", "Dropout", "Softmax", "Shape",
      "Transpose", "Split", "MatMul", "ReduceMean", "Pow", "Sqrt", "Reshape", "Unsqueeze",
      "Squeeze", "LayerNormalization"};
  return *ops;
}

// Ops that read symbolic shape values: the element movers constant folding
// evaluates (FoldsSymbolicValues), and Reshape, whose shape rule reads them.
const std::set<std::string>& ShapeValueOps() {
  static const auto* ops = new std::set<std::string>{
      "Shape", "Gather", "Unsqueeze", "Squeeze", "Concat", "Identity", "Slice", "Reshape",
      "Flatten", "Cast"};
  return *ops;
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
  return node.domain.empty() && ShapeValueOps().count(node.op_type) != 0 &&
         node.op_type != "Cast";  // a cast to a narrower type would cut encoded dims
}

absl::Status CheckSymbolicSupport(const ir::Graph& graph, const ir::Node& node,
                                  const std::vector<ir::ConstantPtr>* known) {
  if (graph.dims.empty()) return absl::OkStatus();
  if (ReadsSymbolicValue(graph, node, known) && ShapeValueOps().count(node.op_type) == 0) {
    return absl::UnimplementedError(absl::StrCat(
        graph.source, ": node ", node.Describe(), ": ", node.op_type,
        " reads a value computed from symbolic dimensions, which it does not support yet"));
  }
  if (!HasSymbolicShape(graph, node) || SymbolicOps().count(node.op_type) != 0) {
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
