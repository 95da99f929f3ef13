#include "compiler/passes/symbolic_fold.h"

#include <algorithm>
#include <memory>

#include "compiler/ir/graph_util.h"
#include "compiler/passes/constant_folding.h"

namespace kiln::compiler {
namespace {

// Small shape values only: these are Shape elements, not tensors.
constexpr int64_t kMaxElements = 64;

// Flat index into a tensor of shape `in` read at output index `k` of its
// broadcast to `out`.
int64_t BroadcastOffset(const std::vector<int64_t>& in, const std::vector<int64_t>& out, int64_t k) {
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
  return offset;
}

// Element of int64 `c` read at output index `k` of its broadcast to `out`.
int64_t BroadcastAt(const ir::ConstantData& c, const std::vector<int64_t>& out, int64_t k) {
  return c.data<int64_t>()[BroadcastOffset(c.shape, out, k)];
}

}  // namespace

const ir::ConstantData* SymbolicSizeThroughCast(const ir::Graph& graph, ir::ValueId v,
                                                const std::vector<ir::ConstantPtr>& known) {
  if (v == ir::kNoValue || graph.value(v).producer == ir::kNoNode) return nullptr;
  const ir::Node& cast = graph.nodes[static_cast<size_t>(graph.value(v).producer)];
  const ir::DType to = graph.value(v).dtype;
  if (!cast.domain.empty() || cast.op_type != "Cast" || cast.inputs.empty() ||
      cast.inputs[0] == ir::kNoValue || (to != ir::DType::I32 && to != ir::DType::I64)) {
    return nullptr;
  }
  const ir::ConstantData* size = KnownValue(graph, cast.inputs[0], known);
  if (size == nullptr || !size->symbolic || size->dtype != ir::DType::I64 ||
      size->element_count() != 1) {
    return nullptr;
  }
  return size;
}

namespace {
bool IsSymbolicReduce(const std::string& op) {
  return op == "ReduceMin" || op == "ReduceMax" || op == "ReduceProd" || op == "ReduceSum";
}
}  // namespace

bool IsSymbolicArithmetic(const ir::Node& node) {
  return node.domain.empty() &&
         (node.op_type == "Add" || node.op_type == "Sub" || node.op_type == "Mul" ||
          node.op_type == "Div" || node.op_type == "Mod" || node.op_type == "Equal" ||
          node.op_type == "Where" ||
          node.op_type == "Min" || node.op_type == "Max" || IsSymbolicReduce(node.op_type));
}

namespace {

// x == y for dims, when the pool can tell: equal encodings, two numbers, or
// a dim that is never negative against a negative number (PyTorch's
// expand(B, -1, -1) compares its sizes with -1). Otherwise false.
bool DecideEqual(ir::DimPool& dims, int64_t x, int64_t y, bool* equal) {
  const bool sx = dims.Known(x), sy = dims.Known(y);
  if (x == y) return *equal = true, true;
  if (!sx && !sy) return *equal = false, true;
  const int64_t dim = sx ? x : y, other = sx ? y : x;
  if (!(sx && sy) && other < 0 && dims.KnownNonNegative(dim)) return *equal = false, true;
  return false;
}

// Equal of shape values (a bool constant) and Where choosing between them
// by a known condition (a shape value again).
ir::ConstantPtr FoldSymbolicSelect(const ir::Graph& graph, const ir::Node& node,
                                   const std::vector<ir::ConstantPtr>& known) {
  const bool where = node.op_type == "Where";
  if (node.inputs.size() != (where ? 3u : 2u)) return nullptr;
  std::vector<const ir::ConstantData*> in;
  for (ir::ValueId v : node.inputs) {
    const ir::ConstantData* c = v == ir::kNoValue ? nullptr : KnownValue(graph, v, known);
    if (c == nullptr) return nullptr;
    in.push_back(c);
  }
  if (where && (in[0]->dtype != ir::DType::Bool || in[0]->symbolic)) return nullptr;
  for (size_t k = where ? 1 : 0; k < in.size(); ++k) {
    if (in[k]->dtype != ir::DType::I64) return nullptr;
  }
  std::vector<int64_t> out_shape = in[0]->shape;
  for (size_t k = 1; k < in.size(); ++k) {
    std::vector<int64_t> next;
    if (!ir::BroadcastShapes(out_shape, in[k]->shape, &next)) return nullptr;
    out_shape = std::move(next);
  }
  const int64_t n = ir::ElementCount(out_shape);
  if (n < 0 || n > kMaxElements) return nullptr;
  ir::DimPool& dims = graph.dims;
  std::vector<int64_t> values(static_cast<size_t>(n));
  std::vector<uint8_t> flags(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) {
    if (where) {
      const int64_t at = BroadcastOffset(in[0]->shape, out_shape, k);  // one byte per bool
      values[k] = in[0]->bytes[static_cast<size_t>(at)] != 0
                      ? BroadcastAt(*in[1], out_shape, k)
                      : BroadcastAt(*in[2], out_shape, k);
    } else {
      bool equal = false;
      if (!DecideEqual(dims, BroadcastAt(*in[0], out_shape, k), BroadcastAt(*in[1], out_shape, k),
                       &equal)) {
        return nullptr;
      }
      flags[k] = equal ? 1 : 0;
    }
  }
  if (!where) return ir::MakeConstant(ir::DType::Bool, out_shape, flags);
  auto result = std::const_pointer_cast<ir::ConstantData>(ir::MakeI64Constant(out_shape, values));
  for (int64_t v : values) result->symbolic = result->symbolic || dims.Known(v);
  return result;
}

// ReduceMin/Max/Prod/Sum of a shape value over all its elements
// (torchvision's min(topk_candidates, scores.size(0)) is a ReduceMin of a
// Concat, a numel a ReduceProd of a Shape): the pool's arithmetic on the
// dims, keepdims giving [1, ...].
ir::ConstantPtr FoldSymbolicReduce(const ir::Graph& graph, const ir::Node& node,
                                   const std::vector<ir::ConstantPtr>& known) {
  if (node.inputs.empty() || node.inputs[0] == ir::kNoValue) return nullptr;
  const ir::ConstantData* x = KnownValue(graph, node.inputs[0], known);
  if (x == nullptr || x->dtype != ir::DType::I64) return nullptr;
  const int64_t n = x->element_count();
  const int64_t rank = static_cast<int64_t>(x->shape.size());
  if (n < 1 || n > kMaxElements) return nullptr;
  // Only a reduction over every axis (axes absent, or naming them all).
  std::vector<int64_t> axes = node.GetInts("kiln.axes", node.GetInts("axes", {}));
  if (node.inputs.size() > 1 && node.inputs[1] != ir::kNoValue && !node.HasAttr("kiln.axes")) {
    return nullptr;  // axes given as an input and not yet resolved
  }
  if (!axes.empty() && static_cast<int64_t>(axes.size()) != rank) {
    for (int64_t d = 0; d < rank; ++d) {
      if (x->shape[d] != 1 && std::find(axes.begin(), axes.end(), d) == axes.end() &&
          std::find(axes.begin(), axes.end(), d - rank) == axes.end()) {
        return nullptr;
      }
    }
  }
  ir::DimPool& dims = graph.dims;
  const std::string& op = node.op_type;
  int64_t r = x->data<int64_t>()[0];
  for (int64_t k = 1; k < n; ++k) {
    const int64_t v = x->data<int64_t>()[k];
    r = op == "ReduceMin"    ? dims.Min(r, v)
        : op == "ReduceMax"  ? dims.Max(r, v)
        : op == "ReduceProd" ? dims.Mul(r, v)
                             : dims.Add(r, v);
  }
  if (!dims.ok()) {
    dims.ClearError();
    return nullptr;
  }
  const std::vector<int64_t> shape =
      node.GetInt("keepdims", 1) != 0 ? std::vector<int64_t>(x->shape.size(), 1)
                                      : std::vector<int64_t>{};
  auto result = std::const_pointer_cast<ir::ConstantData>(ir::MakeI64Constant(shape, {r}));
  result->symbolic = dims.Known(r);
  return result;
}

}  // namespace

ir::ConstantPtr FoldSymbolicArithmetic(const ir::Graph& graph, const ir::Node& node,
                                       const std::vector<ir::ConstantPtr>& known) {
  if (!IsSymbolicArithmetic(node) || node.outputs.empty() || node.outputs[0] == ir::kNoValue) {
    return nullptr;
  }
  if (node.op_type == "Equal" || node.op_type == "Where") return FoldSymbolicSelect(graph, node, known);
  if (IsSymbolicReduce(node.op_type)) return FoldSymbolicReduce(graph, node, known);
  if (node.inputs.size() != 2) return nullptr;
  const ir::ConstantData* a = KnownValue(graph, node.inputs[0], known);
  const ir::ConstantData* b = KnownValue(graph, node.inputs[1], known);
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
    } else if (node.op_type == "Min") {
      values[k] = dims.Min(x, y);
    } else if (node.op_type == "Max") {
      values[k] = dims.Max(x, y);
    } else {
      // A divisor of the sizes that may be 0 (windows of floor(H / 7) for
      // H under 7) is refused by the run's IDIV then, as ONNX leaves a
      // division by zero undefined; never negative is what the floor needs.
      int64_t divisor_low = 0;
      const bool divisor_usable =
          dims.Known(y) ? dims.LowerBound(y, &divisor_low) && divisor_low >= 0 : y > 0;
      if (!divisor_usable) return nullptr;
      const bool floor_mod = node.op_type == "Mod" && node.GetInt("fmod", 0) == 0;
      // Truncation (Div, C's remainder) equals the floor only for a
      // non-negative dividend; Mod with the divisor's sign is the pool's for
      // any (a window's padding (7 - W % 7) % 7: Swin Transformer).
      if (!floor_mod && !dims.KnownNonNegative(x)) return nullptr;
      values[k] = node.op_type == "Mod" ? dims.Mod(x, y) : dims.FloorDiv(x, y);
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
