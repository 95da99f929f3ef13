#include "compiler/passes/op_support.h"

#include <set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace kiln::compiler {

bool IsKernelOp(const std::string& op_type) {
  static const std::set<std::string> kOps = {
      "Conv",     "Gemm",          "MatMul",   "Add",         "Sub",
      "Mul",      "Div",           "Relu",     "Clip",        "Sigmoid",
      "Tanh",     "Softmax",       "MaxPool",  "AveragePool", "GlobalAveragePool",
      "GlobalMaxPool", "BatchNormalization", "Flatten", "Reshape", "Transpose",
      "Concat",   "Identity",      "Constant", "Dropout",     "Squeeze",
      "Unsqueeze"};
  return kOps.count(op_type) != 0;
}

bool IsFoldOnlyOp(const std::string& op_type) {
  static const std::set<std::string> kOps = {
      "Shape", "Gather", "Cast",  "Slice", "ConstantOfShape", "Range", "Equal",
      "Where", "ReduceProd", "Floor", "Sqrt", "Pow", "Neg", "Expand"};
  return kOps.count(op_type) != 0;
}

namespace {

std::string Label(const ir::Node& node) {
  const std::string op = node.domain.empty() ? node.op_type
                                             : absl::StrCat(node.domain, ":", node.op_type);
  return absl::StrCat("node '", node.name, "' (", op, ")");
}

}  // namespace

absl::Status CheckOpsSupported(const ir::Graph& graph) {
  std::vector<std::string> bad;
  for (const ir::Node& node : graph.nodes) {
    if (node.removed) continue;
    const bool default_domain = node.domain.empty() || node.domain == "ai.onnx";
    if (!default_domain || (!IsKernelOp(node.op_type) && !IsFoldOnlyOp(node.op_type))) {
      bad.push_back(Label(node));
    }
  }
  if (bad.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      graph.source, ": ", bad.size(), " unsupported op", bad.size() == 1 ? "" : "s", ": ",
      absl::StrJoin(bad, ", ")));
}

absl::Status CheckAllFolded(const ir::Graph& graph) {
  std::vector<std::string> bad;
  for (const ir::Node& node : graph.nodes) {
    if (!node.removed && IsFoldOnlyOp(node.op_type)) bad.push_back(Label(node));
  }
  if (bad.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      graph.source, ": ", absl::StrJoin(bad, ", "),
      bad.size() == 1 ? " depends" : " depend",
      " on run-time data; Kiln evaluates these ops only at compile time (on constants and "
      "static shapes)"));
}

}  // namespace kiln::compiler
