// The lowering helpers lower_ops.h declares that need more than a line:
// constants broadcast to float32, and the [outer, axis, inner] view of an axis.
#include <cstring>
#include <map>
#include <memory>
#include <set>

#include "absl/strings/str_cat.h"
#include "compiler/emit/lower_ops.h"
#include "compiler/passes/dispatch_formation.h"
#include "kiln/kernels.h"

namespace kiln::compiler::emit {
namespace {

using Shape = std::vector<int64_t>;

int64_t Product(const Shape& s, size_t begin, size_t end) {
  int64_t p = 1;
  for (size_t i = begin; i < end; ++i) p *= s[i];
  return p;
}

}  // namespace

// A float32 copy of constant `c` broadcast to `shape` (e.g. an int exponent
// of Pow, or a LayerNormalization scale stored with fewer dims).
ir::ConstantPtr BroadcastConstantF32(const ir::ConstantData& c, const std::vector<int64_t>& shape,
                                     ir::DimPool& dims) {
  Shape strides;
  if (!BroadcastStrides(c.shape, shape, dims, &strides)) return nullptr;
  auto out = std::make_shared<ir::ConstantData>();
  out->dtype = ir::DType::F32;
  out->shape = shape;
  const int64_t n = ir::ElementCount(shape);
  out->bytes.resize(static_cast<size_t>(n) * sizeof(float));
  Shape idx(shape.size(), 0);
  for (int64_t k = 0; k < n; ++k) {
    int64_t src = 0;
    for (size_t d = 0; d < shape.size(); ++d) src += idx[d] * strides[d];
    const float v = static_cast<float>(c.FloatAt(src));
    std::memcpy(out->bytes.data() + k * sizeof(float), &v, sizeof(float));
    for (size_t d = shape.size(); d-- > 0;) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

// [outer, axis, inner] for Softmax-style axis semantics (2-D coercion before
// opset 13).
absl::Status AxisView(LoweringContext& ctx, const ir::Node& node, int64_t default_axis,
                      bool coerce, int64_t v[3]) {
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  const int64_t rank = static_cast<int64_t>(x.size());
  int64_t axis = node.GetInt("axis", default_axis);
  if (axis < 0) axis += rank;
  if (rank == 0 || axis < 0 || axis >= rank) return ctx.Invalid(node, "axis out of range");
  v[0] = Product(x, 0, axis);
  v[1] = coerce ? Product(x, axis, x.size()) : x[axis];
  v[2] = coerce ? 1 : Product(x, axis + 1, x.size());
  return absl::OkStatus();
}


}  // namespace kiln::compiler::emit
