#include "compiler/passes/materialize_symbolic_values.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/ir/graph_util.h"

namespace kiln::compiler {
namespace {

// Inputs whose lowering reads a symbolic value as dims, never as a buffer.
bool ReadsAsDims(const ir::Node& node, size_t k) {
  if (!node.domain.empty() && node.domain != "ai.onnx") return false;
  const std::string& op = node.op_type;
  if (op == "If" || op == "Loop" || op == "Scan") return true;  // passes/control_flow.cc
  if (op == "Reshape" || op == "Expand" || op == "Tile") return k == 1;
  if (op == "ConstantOfShape") return k == 0;
  if (op == "Pad") return k == 1;  // its pads (ops/pad.cc: patched into the kernel's)
  if (op == "Range") return k <= 2;
  if (op == "Slice") return k >= 1;
  if (op == "Resize") return k == 3;  // its sizes (lower_resize_sym.cc patches them)
  return false;
}

bool IsSymbolicValue(const ir::Graph& graph, ir::ValueId v) {
  if (v == ir::kNoValue) return false;
  const ir::ConstantPtr& c = graph.value(v).constant;
  return c != nullptr && c->symbolic && c->dtype == ir::DType::I64;
}

ir::Node ValueNode(const ir::Graph& graph, ir::ValueId constant, ir::ValueId out) {
  const ir::ConstantData& c = *graph.value(constant).constant;
  std::vector<int64_t> dims;
  for (int64_t k = 0; k < c.element_count(); ++k) dims.push_back(c.IntAt(k));
  return SymbolicValueNode(graph, std::move(dims), out);
}

}  // namespace

ir::Node SymbolicValueNode(const ir::Graph& graph, std::vector<int64_t> dims, ir::ValueId out) {
  ir::Node n;
  n.name = absl::StrCat(graph.value(out).name, "/", kSymbolicValueOp);
  n.domain = kSymbolicValueDomain;
  n.op_type = kSymbolicValueOp;
  n.outputs = {out};
  ir::Attribute values;
  values.kind = ir::Attribute::Kind::kInts;
  values.ints = std::move(dims);
  n.attributes["values"] = std::move(values);
  return n;
}

absl::Status MaterializeSymbolicValues(ir::Graph& graph) {
  if (graph.dims.empty()) return absl::OkStatus();
  // The run-time tensor standing for each symbolic value read as data.
  std::map<ir::ValueId, ir::ValueId> tensor_of;
  auto tensor_for = [&](ir::Graph& g, ir::ValueId v, std::vector<ir::Node>* out) {
    auto it = tensor_of.find(v);
    if (it != tensor_of.end()) return it->second;
    const ir::ValueId t = g.AddValue(absl::StrCat(g.value(v).name, ".value"));
    ir::Value& tv = g.value(t);
    tv.dtype = ir::DType::I64;
    tv.shape = g.value(v).constant->shape;
    tv.has_shape = true;
    out->push_back(ValueNode(g, v, t));
    tensor_of[v] = t;
    return t;
  };
  ir::RewriteNodes(graph, [&](ir::Graph& g, const ir::Node& n, std::vector<ir::Node>* out) {
    if (n.removed) return false;
    bool reads = false;
    for (size_t k = 0; k < n.inputs.size(); ++k) {
      reads = reads || (IsSymbolicValue(g, n.inputs[k]) && !ReadsAsDims(n, k));
    }
    if (!reads) return false;
    ir::Node reader = n;
    for (size_t k = 0; k < reader.inputs.size(); ++k) {
      if (IsSymbolicValue(g, reader.inputs[k]) && !ReadsAsDims(n, k)) {
        reader.inputs[k] = tensor_for(g, reader.inputs[k], out);
      }
    }
    out->push_back(std::move(reader));
    return true;
  });
  // A graph output that is a symbolic value: written at the end under its
  // own name (the constant keeps serving readers that take it as dims).
  for (ir::ValueId& o : graph.outputs) {
    if (!IsSymbolicValue(graph, o)) continue;
    const std::string name = graph.value(o).name;
    graph.RenameValue(o, absl::StrCat(name, ".dims"));
    const ir::ValueId t = graph.AddValue(name);
    ir::Value& tv = graph.value(t);
    tv.dtype = ir::DType::I64;
    tv.shape = graph.value(o).constant->shape;
    tv.has_shape = true;
    graph.AddNode(ValueNode(graph, o, t));
    o = t;
  }
  return absl::OkStatus();
}

}  // namespace kiln::compiler
