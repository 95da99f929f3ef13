#include "compiler/passes/expand_variadic.h"

#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/ir/graph_util.h"
#include "compiler/ops/dropout.h"

namespace kiln::compiler {
namespace {

using ir::Node;
using ir::ValueId;

bool IsDefault(const Node& n) { return n.domain.empty() || n.domain == "ai.onnx"; }

// A node of `op` reading `inputs`, writing `out`, named after `from`.
Node Derived(const Node& from, const std::string& op, std::vector<ValueId> inputs, ValueId out,
             size_t part) {
  Node n;
  n.name = part == 0 ? from.name : absl::StrCat(from.name, "/", op, part);
  n.op_type = op;
  n.inputs = std::move(inputs);
  n.outputs = {out};
  return n;
}

// Sum/Mean/Max/Min with k inputs → k-1 binary nodes (+ a scale for Mean).
void ExpandVariadic(ir::Graph& g, const Node& n, std::vector<Node>* out) {
  const std::string bin = n.op_type == "Max" ? "Max" : n.op_type == "Min" ? "Min" : "Add";
  std::vector<ValueId> ins;
  for (ValueId v : n.inputs) {
    if (v != ir::kNoValue) ins.push_back(v);
  }
  const ValueId result = n.outputs[0];
  const bool mean = n.op_type == "Mean";
  if (ins.size() == 1) {
    out->push_back(Derived(n, "Identity", {ins[0]}, result, 0));
    return;
  }
  ValueId acc = ins[0];
  for (size_t k = 1; k < ins.size(); ++k) {
    const bool last = k + 1 == ins.size() && !mean;
    const ValueId dst = last ? result : g.AddValue(absl::StrCat(g.value(result).name, ".part", k));
    out->push_back(Derived(n, bin, {acc, ins[k]}, dst, k - 1));
    acc = dst;
  }
  if (mean) {
    const float inv = 1.0f / static_cast<float>(ins.size());
    std::vector<uint8_t> bytes(sizeof(float));
    std::memcpy(bytes.data(), &inv, sizeof(float));
    const ValueId scale = g.AddConstant(absl::StrCat(n.name, ".inv_count"),
                                        ir::MakeConstant(ir::DType::F32, {}, std::move(bytes)));
    out->push_back(Derived(n, "Mul", {acc, scale}, result, ins.size()));
  }
}

// Dropout's mask output in inference is all true: Shape → ConstantOfShape,
// which constant folding evaluates.
void SplitDropoutMask(ir::Graph& g, const Node& n, std::vector<Node>* out) {
  Node d = n;
  const ValueId mask = d.outputs[1];
  d.outputs.resize(1);
  out->push_back(d);
  const ValueId shape = g.AddValue(absl::StrCat(g.value(mask).name, ".shape"));
  out->push_back(Derived(n, "Shape", {n.inputs[0]}, shape, 1));
  Node fill = Derived(n, "ConstantOfShape", {shape}, mask, 2);
  ir::Attribute value;
  value.kind = ir::Attribute::Kind::kTensor;
  value.tensor = ir::MakeConstant(ir::DType::Bool, {1}, {1});
  fill.attributes["value"] = value;
  out->push_back(std::move(fill));
}

}  // namespace

absl::Status ExpandVariadicOps(ir::Graph& graph) {
  ir::RewriteNodes(graph, [](ir::Graph& g, const Node& n, std::vector<Node>* out) {
    const bool variadic = IsDefault(n) && !n.removed && !n.outputs.empty() &&
                          n.outputs[0] != ir::kNoValue &&
                          (n.op_type == "Sum" || n.op_type == "Mean" ||
                           ((n.op_type == "Max" || n.op_type == "Min") && n.inputs.size() != 2));
    const bool dropout_mask = IsDefault(n) && !n.removed && n.op_type == "Dropout" &&
                              !n.inputs.empty() && n.inputs[0] != ir::kNoValue &&
                              n.outputs.size() > 1 && n.outputs[1] != ir::kNoValue &&
                              !DropoutMayTrain(g, n);  // else the dropout kernel writes it
    if (variadic && !n.inputs.empty()) {
      ExpandVariadic(g, n, out);
      return true;
    }
    if (dropout_mask) {
      SplitDropoutMask(g, n, out);
      return true;
    }
    return false;
  });
  return absl::OkStatus();
}

}  // namespace kiln::compiler
