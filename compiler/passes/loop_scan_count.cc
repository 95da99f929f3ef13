#include "compiler/passes/loop_scan_count.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/ir/graph_util.h"

namespace kiln::compiler {
namespace {

using ir::Node;
using ir::ValueId;

ValueId InputOr(const Node& n, size_t k) { return k < n.inputs.size() ? n.inputs[k] : ir::kNoValue; }

bool NeedsCount(const ir::Graph& g, const Node& n) {
  if (n.removed || !(n.domain.empty() || n.domain == "ai.onnx") || n.op_type != "Loop" ||
      n.GetInt(kScanCountAttr, 0) != 0) {
    return false;
  }
  const ValueId trip = InputOr(n, 0), cond = InputOr(n, 1);
  if (trip == ir::kNoValue) return false;  // no trip count: the body decides
  // Not yet folded values count as run-time ones: the count folds with them.
  if (g.value(trip).constant != nullptr &&
      (cond == ir::kNoValue || g.value(cond).constant != nullptr)) {
    return false;
  }
  // Scan outputs: the node's outputs past the loop-carried values.
  const size_t captures = static_cast<size_t>(n.GetInt(ir::kCaptureCountAttr, 0));
  if (n.inputs.size() < 2 + captures) return false;
  const size_t states = n.inputs.size() - 2 - captures;
  if (n.outputs.size() <= states) return false;
  for (size_t k = states; k < n.outputs.size(); ++k) {
    if (n.outputs[k] != ir::kNoValue && g.value(n.outputs[k]).has_declared_shape) return false;
  }
  return true;
}

ValueId Scalar(ir::Graph& g, const std::string& name) {
  const ValueId v = g.AddValue(name);
  g.value(v).dtype = ir::DType::I64;
  g.value(v).shape = {};
  g.value(v).has_shape = true;
  return v;
}

Node Op(const std::string& name, const std::string& op, std::vector<ValueId> in, ValueId out) {
  Node n;
  n.name = name;
  n.op_type = op;
  n.inputs = std::move(in);
  n.outputs = {out};
  return n;
}

void AddCount(ir::Graph& g, const Node& loop, std::vector<Node>* out) {
  const std::string base = absl::StrCat(loop.name, "/scan_count");
  const ValueId zero = g.AddConstant(absl::StrCat(base, ".zero"), ir::MakeI64Constant({}, {0}));
  ValueId count = Scalar(g, absl::StrCat(base, ".trips"));
  out->push_back(Op(absl::StrCat(base, "/Max"), "Max", {loop.inputs[0], zero}, count));
  if (loop.inputs[1] != ir::kNoValue) {
    const ValueId taken = Scalar(g, absl::StrCat(base, ".taken"));
    Node cast = Op(absl::StrCat(base, "/Cast"), "Cast", {loop.inputs[1]}, taken);
    cast.SetInt("to", 7);  // INT64
    out->push_back(std::move(cast));
    const ValueId both = Scalar(g, base);
    out->push_back(Op(absl::StrCat(base, "/Mul"), "Mul", {count, taken}, both));
    count = both;
  }
  Node counted = loop;
  counted.inputs[0] = count;
  counted.inputs[1] = ir::kNoValue;
  counted.SetInt(kScanCountAttr, 1);
  out->push_back(std::move(counted));
}

}  // namespace

absl::Status CountLoopScans(ir::Graph& graph) {
  if (!graph.scope.empty()) return absl::OkStatus();
  ir::RewriteNodes(graph, [](ir::Graph& g, const Node& n, std::vector<Node>* out) {
    if (!NeedsCount(g, n)) return false;
    AddCount(g, n, out);
    return true;
  });
  return absl::OkStatus();
}

}  // namespace kiln::compiler
