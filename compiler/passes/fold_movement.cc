#include "compiler/passes/fold_movement.h"

#include <cstring>
#include <memory>
#include <string>

#include "compiler/ir/graph_util.h"
#include "compiler/passes/constant_folding.h"

namespace kiln::compiler {
namespace {

using ir::ConstantData;
using ir::DType;
using Shape = std::vector<int64_t>;

std::shared_ptr<ConstantData> NewConstant(DType t, const Shape& shape) {
  auto c = std::make_shared<ConstantData>();
  c->dtype = t;
  c->shape = shape;
  c->bytes.assign(static_cast<size_t>(ir::ElementCount(shape)) * ir::DTypeSize(t), 0);
  return c;
}

const ConstantData* KnownInput(const ir::Graph& g, const ir::Node& n,
                               const std::vector<ir::ConstantPtr>& known, size_t k) {
  return k < n.inputs.size() ? KnownValue(g, n.inputs[k], known) : nullptr;
}

// Writes 1 (in the output dtype) at element k.
void StoreOne(DType t, uint8_t* p) {
  switch (t) {
    case DType::F32: { const float v = 1.0f; std::memcpy(p, &v, 4); return; }
    case DType::F64: { const double v = 1.0; std::memcpy(p, &v, 8); return; }
    case DType::F16: { const uint16_t v = 0x3c00; std::memcpy(p, &v, 2); return; }
    case DType::BF16: { const uint16_t v = 0x3f80; std::memcpy(p, &v, 2); return; }
    default: p[0] = 1; return;  // integers and bool, little-endian
  }
}

}  // namespace


bool EvaluateMovementNode(const ir::Graph& graph, const ir::Node& node,
                          const std::vector<ir::ConstantPtr>& known,
                          absl::StatusOr<std::vector<ir::ConstantPtr>>* out) {
  const std::string& op = node.op_type;
  if (op != "Size" && op != "EyeLike" && op != "Tile" && op != "Split") return false;
  *out = std::vector<ir::ConstantPtr>{};
  if (node.inputs.empty() || node.inputs[0] == ir::kNoValue) return true;
  const ir::Value& x = graph.value(node.inputs[0]);
  if (!x.has_shape) return true;
  for (ir::ValueId o : node.outputs) {
    if (o == ir::kNoValue || !graph.value(o).has_shape) return true;
    if (ir::ElementCount(graph.value(o).shape) > (int64_t{1} << 22)) return true;
  }
  const ir::Value& y = graph.value(node.outputs[0]);
  if (op == "Size") {  // of a symbolic shape: the product's encoding (a symbolic value)
    *out = std::vector<ir::ConstantPtr>{ir::MakeI64Constant({}, {graph.dims.Product(x.shape)})};
    return true;
  }
  if (op == "EyeLike") {
    auto c = NewConstant(y.dtype, y.shape);
    const int64_t k = node.GetInt("k", 0), es = static_cast<int64_t>(ir::DTypeSize(y.dtype));
    for (int64_t r = 0; r < y.shape[0]; ++r) {
      const int64_t col = r + k;
      if (col >= 0 && col < y.shape[1]) StoreOne(y.dtype, c->bytes.data() + (r * y.shape[1] + col) * es);
    }
    *out = std::vector<ir::ConstantPtr>{c};
    return true;
  }
  const ConstantData* xc = KnownInput(graph, node, known, 0);
  if (!xc) return true;
  for (size_t k = 1; k < node.inputs.size(); ++k) {
    if (node.inputs[k] != ir::kNoValue && !KnownInput(graph, node, known, k)) return true;
  }
  const int64_t es = static_cast<int64_t>(ir::DTypeSize(xc->dtype));
  const Shape& xs = xc->shape;
  const int64_t r = static_cast<int64_t>(xs.size());
  std::vector<ir::ConstantPtr> results;
  if (op == "Tile") {
    auto c = NewConstant(xc->dtype, y.shape);
    const int64_t n = ir::ElementCount(y.shape);
    Shape pos(r, 0);
    for (int64_t k = 0; k < n; ++k) {
      int64_t src = 0;
      for (int64_t d = 0; d < r; ++d) src = src * xs[d] + pos[d] % xs[d];
      std::memcpy(c->bytes.data() + k * es, xc->bytes.data() + src * es, es);
      for (int64_t d = r - 1; d >= 0; --d) {
        if (++pos[d] < y.shape[d]) break;
        pos[d] = 0;
      }
    }
    results.push_back(c);
  } else {  // Split
    int64_t axis = node.GetInt("axis", 0);
    if (axis < 0) axis += r;
    const Shape split = node.GetInts("kiln.split", {});
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= xs[d];
    for (int64_t d = axis + 1; d < r; ++d) inner *= xs[d];
    int64_t at = 0;
    for (size_t k = 0; k < node.outputs.size() && k < split.size(); ++k) {
      auto c = NewConstant(xc->dtype, graph.value(node.outputs[k]).shape);
      const int64_t chunk = split[k] * inner * es;
      for (int64_t o = 0; o < outer && chunk > 0; ++o) {
        std::memcpy(c->bytes.data() + o * chunk,
                    xc->bytes.data() + (o * xs[axis] + at) * inner * es, chunk);
      }
      at += split[k];
      results.push_back(c);
    }
  }
  *out = std::move(results);
  return true;
}

}  // namespace kiln::compiler
