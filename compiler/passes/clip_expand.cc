#include "compiler/passes/clip_expand.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/ir/graph_util.h"

namespace kiln::compiler {
namespace {

using ir::Node;
using ir::ValueId;

bool NeedsExpansion(const ir::Graph& g, const Node& n) {
  if (n.removed || !n.domain.empty() || n.op_type != "Clip" || n.inputs.empty() ||
      n.inputs[0] == ir::kNoValue || n.outputs.size() != 1 || n.outputs[0] == ir::kNoValue) {
    return false;
  }
  if (g.value(n.inputs[0]).dtype != ir::DType::F32) return true;
  for (size_t k = 1; k < n.inputs.size() && k < 3; ++k) {
    if (n.inputs[k] != ir::kNoValue && !g.value(n.inputs[k]).constant) return true;
  }
  return false;
}

void Expand(ir::Graph& g, const Node& clip, std::vector<Node>* out) {
  const ValueId result = clip.outputs[0];
  const auto bound = [&](size_t k) {
    return k < clip.inputs.size() ? clip.inputs[k] : ir::kNoValue;
  };
  // Attribute bounds (opset < 11 form) on a non-float32 tensor cannot occur:
  // that form only exists for float types, which the attributes describe.
  std::vector<std::pair<std::string, ValueId>> steps;
  if (bound(1) != ir::kNoValue) steps.push_back({"Max", bound(1)});
  if (bound(2) != ir::kNoValue) steps.push_back({"Min", bound(2)});
  ValueId acc = clip.inputs[0];
  if (steps.empty()) {
    Node id;
    id.name = clip.name;
    id.op_type = "Identity";
    id.inputs = {acc};
    id.outputs = {result};
    out->push_back(std::move(id));
    return;
  }
  for (size_t s = 0; s < steps.size(); ++s) {
    const bool last = s + 1 == steps.size();
    ValueId dst = result;
    if (!last) {
      dst = g.AddValue(absl::StrCat(g.value(result).name, ".lower_bounded"));
      ir::Value& v = g.value(dst);
      const ir::Value& a = g.value(acc);
      v.dtype = a.dtype;
      ir::BroadcastShapes(a.shape, g.value(steps[s].second).shape, &v.shape);
      v.has_shape = true;
    }
    Node n;
    n.name = last ? clip.name : absl::StrCat(clip.name, "/", steps[s].first);
    n.op_type = steps[s].first;
    n.inputs = {acc, steps[s].second};
    n.outputs = {dst};
    n.fused = clip.fused;
    out->push_back(std::move(n));
    acc = dst;
  }
}

}  // namespace

absl::Status ExpandClip(ir::Graph& graph) {
  ir::RewriteNodes(graph, [](ir::Graph& g, const Node& n, std::vector<Node>* out) {
    if (!NeedsExpansion(g, n)) return false;
    Expand(g, n, out);
    return true;
  });
  return absl::OkStatus();
}

}  // namespace kiln::compiler
