// Compile-time evaluation of Size, EyeLike, Tile and Split (fold_eval.h):
// each checks what it needs itself, as the first two need shapes only.
#include <cstring>
#include <memory>
#include <string>

#include "compiler/ir/graph_util.h"
#include "compiler/passes/constant_folding.h"
#include "compiler/passes/fold_eval.h"

namespace kiln::compiler {
namespace {

using ir::ConstantData;
using ir::DType;
using Shape = std::vector<int64_t>;

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

// Input 0 and every output shaped, no output above 2^22 elements.
bool Shaped(const FoldContext& e) {
  const ir::Node& node = e.n;
  if (node.inputs.empty() || node.inputs[0] == ir::kNoValue) return false;
  if (!e.g.value(node.inputs[0]).has_shape) return false;
  for (ir::ValueId o : node.outputs) {
    if (o == ir::kNoValue || !e.g.value(o).has_shape) return false;
    if (ir::ElementCount(e.g.value(o).shape) > (int64_t{1} << 22)) return false;
  }
  return true;
}

// Shaped, and every present input known.
bool Known(const FoldContext& e) {
  if (!Shaped(e) || !e.In(0)) return false;
  for (size_t k = 1; k < e.n.inputs.size(); ++k) {
    if (e.n.inputs[k] != ir::kNoValue && !e.In(k)) return false;
  }
  return true;
}

}  // namespace

FoldResult FoldSize(const FoldContext& e) {
  if (!Shaped(e)) return std::vector<ir::ConstantPtr>{};
  // Of a symbolic shape: the product's encoding (a symbolic value).
  const Shape& x = e.g.value(e.n.inputs[0]).shape;
  return std::vector<ir::ConstantPtr>{ir::MakeI64Constant({}, {e.g.dims.Product(x)})};
}

FoldResult FoldEyeLike(const FoldContext& e) {
  if (!Shaped(e)) return std::vector<ir::ConstantPtr>{};
  const ir::Value& y = e.Out(0);
  auto c = NewFoldedConstant(y.dtype, y.shape);
  const int64_t k = e.n.GetInt("k", 0), es = static_cast<int64_t>(ir::DTypeSize(y.dtype));
  for (int64_t r = 0; r < y.shape[0]; ++r) {
    const int64_t col = r + k;
    if (col >= 0 && col < y.shape[1]) StoreOne(y.dtype, c->bytes.data() + (r * y.shape[1] + col) * es);
  }
  return std::vector<ir::ConstantPtr>{c};
}

FoldResult FoldTile(const FoldContext& e) {
  if (!Known(e)) return std::vector<ir::ConstantPtr>{};
  const ConstantData* xc = e.In(0);
  const ir::Value& y = e.Out(0);
  const int64_t es = static_cast<int64_t>(ir::DTypeSize(xc->dtype));
  const Shape& xs = xc->shape;
  const int64_t r = static_cast<int64_t>(xs.size());
  auto c = NewFoldedConstant(xc->dtype, y.shape);
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
  return std::vector<ir::ConstantPtr>{c};
}

FoldResult FoldSplit(const FoldContext& e) {
  if (!Known(e)) return std::vector<ir::ConstantPtr>{};
  const ConstantData* xc = e.In(0);
  const ir::Node& node = e.n;
  const int64_t es = static_cast<int64_t>(ir::DTypeSize(xc->dtype));
  const Shape& xs = xc->shape;
  const int64_t r = static_cast<int64_t>(xs.size());
  std::vector<ir::ConstantPtr> results;
  int64_t axis = node.GetInt("axis", 0);
  if (axis < 0) axis += r;
  const Shape split = node.GetInts("kiln.split", {});
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= xs[d];
  for (int64_t d = axis + 1; d < r; ++d) inner *= xs[d];
  int64_t at = 0;
  for (size_t k = 0; k < node.outputs.size() && k < split.size(); ++k) {
    auto c = NewFoldedConstant(xc->dtype, e.g.value(node.outputs[k]).shape);
    const int64_t chunk = split[k] * inner * es;
    for (int64_t o = 0; o < outer && chunk > 0; ++o) {
      std::memcpy(c->bytes.data() + o * chunk,
                  xc->bytes.data() + (o * xs[axis] + at) * inner * es, chunk);
    }
    at += split[k];
    results.push_back(c);
  }
  return results;
}

}  // namespace kiln::compiler
