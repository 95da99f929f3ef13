#include "compiler/ir/graph_util.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace kiln::ir {

DType DTypeFromOnnx(int64_t onnx_elem_type) {
  // Codes from onnx.proto TensorProto.DataType.
  switch (onnx_elem_type) {
    case 1: return DType::F32;
    case 2: return DType::U8;
    case 3: return DType::I8;
    case 5: return DType::I16;
    case 6: return DType::I32;
    case 7: return DType::I64;
    case 9: return DType::Bool;
    case 10: return DType::F16;
    case 11: return DType::F64;
    case 4: return DType::U16;
    case 12: return DType::U32;
    case 13: return DType::U64;
    case 16: return DType::BF16;
    default: return DType::Unknown;
  }
}

std::string ShapeStr(const std::vector<int64_t>& shape) {
  return absl::StrCat("[", absl::StrJoin(shape, ","), "]");
}

ConstantPtr MakeConstant(DType dtype, std::vector<int64_t> shape, std::vector<uint8_t> bytes) {
  auto c = std::make_shared<ConstantData>();
  c->dtype = dtype;
  c->shape = std::move(shape);
  c->bytes = std::move(bytes);
  return c;
}

ConstantPtr MakeI64Constant(std::vector<int64_t> shape, const std::vector<int64_t>& values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(int64_t));
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return MakeConstant(DType::I64, std::move(shape), std::move(bytes));
}

bool BroadcastShapes(const std::vector<int64_t>& a, const std::vector<int64_t>& b,
                     std::vector<int64_t>* out, DimPool* dims) {
  const size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> result(rank);
  for (size_t k = 0; k < rank; ++k) {
    const int64_t da = k < rank - a.size() ? 1 : a[k - (rank - a.size())];
    const int64_t db = k < rank - b.size() ? 1 : b[k - (rank - b.size())];
    if (da == db || db == 1) {
      result[k] = da;
    } else if (da == 1) {
      result[k] = db;
    } else if (dims != nullptr && (IsSymbolic(da) || IsSymbolic(db))) {
      result[k] = dims->AssumeEqual(da, db);  // checked at run time
    } else {
      return false;
    }
  }
  *out = std::move(result);
  return true;
}

void RewriteNodes(Graph& graph,
                  const std::function<bool(Graph&, const Node&, std::vector<Node>*)>& expand) {
  bool changed = false;
  std::vector<Node> nodes;
  nodes.reserve(graph.nodes.size());
  for (Node& n : graph.nodes) {
    if (expand(graph, n, &nodes)) {
      changed = true;
    } else {
      nodes.push_back(std::move(n));
    }
  }
  graph.nodes = std::move(nodes);
  if (!changed) return;
  for (size_t id = 0; id < graph.nodes.size(); ++id) {
    for (ValueId v : graph.nodes[id].outputs) {
      if (v != kNoValue) graph.value(v).producer = static_cast<NodeId>(id);
    }
  }
}

}  // namespace kiln::ir
