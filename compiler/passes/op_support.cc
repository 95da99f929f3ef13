#include "compiler/passes/op_support.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/ops/op_registry.h"
#include "compiler/passes/shape_rules_runtime.h"
#include "compiler/passes/shape_rules_runtime_params.h"
#include "compiler/passes/shape_rules_training.h"
#include "compiler/passes/symbolic_support.h"

namespace kiln::compiler {

bool IsKernelOp(const std::string& op_type) {
  const OpDef* def = FindOpDef(op_type);  // compiler/ops/
  return def != nullptr && !def->internal && !def->fold_only;
}

bool IsFoldOnlyOp(const std::string& op_type) {
  const OpDef* def = FindOpDef(op_type);
  return def != nullptr && def->fold_only;
}

namespace {

std::string Label(const ir::Node& node) {
  const std::string op = node.domain.empty() ? node.op_type
                                             : absl::StrCat(node.domain, ":", node.op_type);
  return absl::StrCat("node '", node.name, "' (", op, ")");
}

}  // namespace

absl::Status CheckOpsSupported(const ir::Graph& graph) {
  // Subgraphs first, in node order: each names its own source.
  for (const ir::Node& node : graph.nodes) {
    if (node.removed) continue;
    for (const auto& [name, attr] : node.attributes) {
      if (attr.kind != ir::Attribute::Kind::kGraph || attr.graph == nullptr) continue;
      if (absl::Status s = CheckOpsSupported(*attr.graph); !s.ok()) return s;
    }
  }
  std::vector<std::string> bad;
  for (const ir::Node& node : graph.nodes) {
    if (node.removed || IsTrainingOp(node)) continue;  // shape_rules_training.h
    const bool default_domain = node.domain.empty() || node.domain == "ai.onnx";
    if (!default_domain || (!IsKernelOp(node.op_type) && !IsFoldOnlyOp(node.op_type))) {
      bad.push_back(Label(node));
    }
  }
  if (bad.empty()) return absl::OkStatus();
  // Unimplemented: a valid model that uses what Kiln cannot compile yet.
  return absl::UnimplementedError(absl::StrCat(
      graph.source, ": ", bad.size(), " unsupported op", bad.size() == 1 ? "" : "s", ": ",
      absl::StrJoin(bad, ", ")));
}

absl::Status CheckAllFolded(const ir::Graph& graph) {
  std::vector<std::string> bad;
  for (const ir::Node& node : graph.nodes) {
    // A run-time ConstantOfShape input is checked and filled by kernels
    // (shape_rules_runtime.h); shape inference accepted its declared shape.
    // ConstantOfShape and Range sized by the symbols run as kernels too
    // (fill, arange: emit/lower_shape_check.cc).
    const bool sized_by_symbols = !node.outputs.empty() && node.outputs[0] != ir::kNoValue &&
                                  HasSymbolicDims(graph.value(node.outputs[0]).shape);
    if (!node.removed && IsFoldOnlyOp(node.op_type) && RuntimeShapeInput(graph, node) < 0 &&
        !HasRuntimeParams(graph, node) &&  // Range: shape_rules_runtime_params.h
        !sized_by_symbols) {
      bad.push_back(Label(node));
    }
  }
  if (bad.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      graph.source, ": ", absl::StrJoin(bad, ", "),
      bad.size() == 1 ? " depends" : " depend",
      " on run-time data; Kiln evaluates these ops only at compile time (on constants and "
      "static shapes)"));
}

}  // namespace kiln::compiler
