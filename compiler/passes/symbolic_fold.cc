#include "compiler/passes/symbolic_fold.h"

#include <memory>

#include "compiler/ir/graph_util.h"

namespace kiln::compiler {
namespace {

// Small shape values only: these are Shape elements, not tensors.
constexpr int64_t kMaxElements = 64;

const ir::ConstantData* ConstantOf(const ir::Graph& graph, ir::ValueId v,
                                   const std::vector<ir::ConstantPtr>& known) {
  if (static_cast<size_t>(v) < known.size() && known[v]) return known[v].get();
  return graph.value(v).constant.get();
}

// Element of `c` (shape `in`) read at output index `k` of the broadcast to `out`.
int64_t BroadcastAt(const ir::ConstantData& c, const std::vector<int64_t>& out, int64_t k) {
  const std::vector<int64_t>& in = c.shape;
  int64_t offset = 0, stride = 1;
  for (size_t d = out.size(); d-- > 0;) {
    const int64_t coord = k % out[d];
    k /= out[d];
    const size_t back = out.size() - 1 - d;
    if (back < in.size()) {
      const int64_t dim = in[in.size() - 1 - back];
      if (dim != 1) offset += coord * stride;
      stride *= dim;
    }
  }
  return c.data<int64_t>()[offset];
}

}  // namespace

bool IsSymbolicArithmetic(const ir::Node& node) {
  return node.domain.empty() && (node.op_type == "Add" || node.op_type == "Sub" ||
                                 node.op_type == "Mul" || node.op_type == "Div");
}

ir::ConstantPtr FoldSymbolicArithmetic(const ir::Graph& graph, const ir::Node& node,
                                       const std::vector<ir::ConstantPtr>& known) {
  if (!IsSymbolicArithmetic(node) || node.inputs.size() != 2 || node.outputs.empty() ||
      node.outputs[0] == ir::kNoValue) {
    return nullptr;
  }
  const ir::ConstantData* a = ConstantOf(graph, node.inputs[0], known);
  const ir::ConstantData* b = ConstantOf(graph, node.inputs[1], known);
  if (a == nullptr || b == nullptr || a->dtype != ir::DType::I64 || b->dtype != ir::DType::I64) {
    return nullptr;
  }
  std::vector<int64_t> out_shape;
  if (!ir::BroadcastShapes(a->shape, b->shape, &out_shape)) return nullptr;
  const int64_t n = ir::ElementCount(out_shape);
  if (n < 0 || n > kMaxElements) return nullptr;
  ir::DimPool& dims = graph.dims;
  std::vector<int64_t> values(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) {
    const int64_t x = BroadcastAt(*a, out_shape, k), y = BroadcastAt(*b, out_shape, k);
    if (node.op_type == "Add") {
      values[k] = dims.Add(x, y);
    } else if (node.op_type == "Sub") {
      values[k] = dims.Sub(x, y);
    } else if (node.op_type == "Mul") {
      values[k] = dims.Mul(x, y);
    } else {
      // Truncation equals the floor only for a non-negative dividend.
      const bool positive_divisor = dims.Known(y) ? dims.KnownNonNegative(y) : y > 0;
      if (!dims.KnownNonNegative(x) || !positive_divisor) return nullptr;
      values[k] = dims.FloorDiv(x, y);
    }
  }
  if (!dims.ok()) {
    dims.ClearError();
    return nullptr;
  }
  auto result = std::const_pointer_cast<ir::ConstantData>(ir::MakeI64Constant(out_shape, values));
  for (int64_t v : values) result->symbolic = result->symbolic || dims.Known(v);
  return result;
}

}  // namespace kiln::compiler
