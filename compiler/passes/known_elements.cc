#include "compiler/passes/known_elements.h"

#include <string>

#include "compiler/ir/graph_util.h"
#include "compiler/passes/constant_folding.h"
#include "compiler/ops/slice.h"
#include "compiler/passes/shape_inference.h"

namespace kiln::compiler {
namespace {

using Known = std::vector<std::optional<int64_t>>;
using Shape = std::vector<int64_t>;

constexpr int64_t kMaxElements = 64;  // shape-like vectors and their reshapes
constexpr int kMaxDepth = 48;

bool IsInt(ir::DType t) {
  return t == ir::DType::I64 || t == ir::DType::I32 || t == ir::DType::I16 || t == ir::DType::I8;
}

class Tracer {
 public:
  Tracer(const ir::Graph& graph, const std::vector<ir::ConstantPtr>& known)
      : g_(graph), known_(known) {}

  Known Of(ir::ValueId v, int depth) {
    if (v == ir::kNoValue) return {};
    const ir::Value& val = g_.value(v);
    if (!val.has_shape || HasSymbolic(val.shape)) return {};
    const int64_t n = ir::ElementCount(val.shape);
    if (n > kMaxElements) return {};
    if (const ir::ConstantData* c = Constant(v)) return FromConstant(*c);
    const Known none(static_cast<size_t>(n));
    if (depth > kMaxDepth || val.producer < 0) return none;
    const ir::Node& node = g_.nodes[static_cast<size_t>(val.producer)];
    if (!node.domain.empty() && node.domain != "ai.onnx") return none;
    if (node.outputs.empty() || node.outputs[0] != v) return none;
    Known out = Produce(node, depth + 1);
    if (static_cast<int64_t>(out.size()) != n) return none;
    return out;
  }

 private:
  static bool HasSymbolic(const Shape& s) {
    for (int64_t d : s) {
      if (ir::IsSymbolic(d) || d < 0) return true;
    }
    return false;
  }

  const ir::ConstantData* Constant(ir::ValueId v) const { return KnownValue(g_, v, known_); }

  Known FromConstant(const ir::ConstantData& c) const {
    Known out(static_cast<size_t>(c.element_count()));
    for (int64_t k = 0; k < c.element_count(); ++k) {
      if (IsInt(c.dtype)) {
        const int64_t x = c.IntAt(k);
        if (!(c.symbolic && g_.dims.Known(x))) out[k] = x;
      } else if (ir::IsFloat(c.dtype)) {
        const double x = c.FloatAt(k);
        // Integers a float holds exactly (a size cast to float and back).
        if (x == static_cast<double>(static_cast<int64_t>(x)) && x > -9e15 && x < 9e15) {
          out[k] = static_cast<int64_t>(x);
        }
      }
    }
    return out;
  }

  const Shape* ShapeOf(const ir::Node& node, size_t k) const {
    if (k >= node.inputs.size() || node.inputs[k] == ir::kNoValue) return nullptr;
    const ir::Value& v = g_.value(node.inputs[k]);
    if (!v.has_shape || HasSymbolic(v.shape)) return nullptr;
    return &v.shape;
  }

  Known Input(const ir::Node& node, size_t k, int depth) {
    if (k >= node.inputs.size()) return {};
    return Of(node.inputs[k], depth);
  }

  Known Produce(const ir::Node& node, int depth) {
    const std::string& op = node.op_type;
    if (op == "Identity" || op == "Reshape" || op == "Flatten" || op == "Squeeze" ||
        op == "Unsqueeze") {
      return Input(node, 0, depth);  // row-major order is kept
    }
    if (op == "Cast") return CastOp(node, depth);
    if (op == "Concat") return ConcatOp(node, depth);
    if (op == "Transpose") return TransposeOp(node, depth);
    if (op == "Slice") return SliceOp(node, depth);
    if (op == "Gather") return GatherOp(node, depth);
    if (op == "Add" || op == "Sub" || op == "Mul") return Arithmetic(node, depth);
    if (op == "ConstantOfShape") return FilledOp(node);
    return {};
  }

  // Integer entries survive a cast to int32/int64, and to float32/float64
  // where the float holds them exactly.
  Known CastOp(const ir::Node& node, int depth) {
    const ir::DType to = g_.value(node.outputs[0]).dtype;
    Known x = Input(node, 0, depth);
    for (auto& e : x) {
      if (!e) continue;
      // The largest magnitude up to which the target holds every integer.
      const int64_t exact = to == ir::DType::I64   ? INT64_MAX
                            : to == ir::DType::I32 ? INT32_MAX
                            : to == ir::DType::F64 ? (int64_t{1} << 53)
                            : to == ir::DType::F32 ? (int64_t{1} << 24)
                                                   : 0;  // narrower types: not followed
      if (*e > exact || *e < -exact) e.reset();
    }
    return x;
  }

  Known ConcatOp(const ir::Node& node, int depth) {
    const Shape& y = g_.value(node.outputs[0]).shape;
    const int64_t r = static_cast<int64_t>(y.size());
    int64_t axis = node.GetInt("axis", 0);
    if (axis < 0) axis += r;
    if (axis < 0 || axis >= r) return {};
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= y[d];
    for (int64_t d = axis + 1; d < r; ++d) inner *= y[d];
    std::vector<Known> parts;
    std::vector<int64_t> widths;
    for (size_t k = 0; k < node.inputs.size(); ++k) {
      const Shape* s = ShapeOf(node, k);
      if (s == nullptr || static_cast<int64_t>(s->size()) != r) return {};
      const int64_t w = (*s)[axis] * inner;
      Known part = ir::ElementCount(*s) == 0 ? Known{} : Input(node, k, depth);
      if (static_cast<int64_t>(part.size()) != outer * w) part.assign(outer * w, std::nullopt);
      parts.push_back(std::move(part));
      widths.push_back(w);
    }
    Known out;
    for (int64_t o = 0; o < outer; ++o) {
      for (size_t k = 0; k < parts.size(); ++k) {
        for (int64_t i = 0; i < widths[k]; ++i) out.push_back(parts[k][o * widths[k] + i]);
      }
    }
    return out;
  }

  // The row-major index of each output element in the input, by strides.
  static Shape Strides(const Shape& s) {
    Shape st(s.size(), 1);
    for (size_t d = s.size(); d-- > 1;) st[d - 1] = st[d] * s[d];
    return st;
  }

  Known TransposeOp(const ir::Node& node, int depth) {
    const Shape* xs = ShapeOf(node, 0);
    if (xs == nullptr) return {};
    const int64_t r = static_cast<int64_t>(xs->size());
    Shape perm = node.GetInts("perm", {});
    if (perm.empty()) {
      for (int64_t d = r - 1; d >= 0; --d) perm.push_back(d);
    }
    if (static_cast<int64_t>(perm.size()) != r) return {};
    Known x = Input(node, 0, depth);
    if (x.empty()) return {};
    const Shape st = Strides(*xs);
    Shape y(static_cast<size_t>(r));
    for (int64_t d = 0; d < r; ++d) {
      if (perm[d] < 0 || perm[d] >= r) return {};
      y[d] = (*xs)[perm[d]];
    }
    return Gathered(y, [&](const Shape& idx) {
      int64_t at = 0;
      for (int64_t d = 0; d < r; ++d) at += idx[d] * st[perm[d]];
      return x[at];
    });
  }

  Known SliceOp(const ir::Node& node, int depth) {
    const Shape* xs = ShapeOf(node, 0);
    if (xs == nullptr) return {};
    Shape starts, steps, y;
    if (!SliceParams(g_, node, known_, *xs, &starts, &steps, &y).ok() || HasSymbolic(y)) {
      return {};
    }
    Known x = Input(node, 0, depth);
    if (x.empty()) return {};
    const Shape st = Strides(*xs);
    return Gathered(y, [&](const Shape& idx) {
      int64_t at = 0;
      for (size_t d = 0; d < idx.size(); ++d) at += (starts[d] + idx[d] * steps[d]) * st[d];
      return x[at];
    });
  }

  Known GatherOp(const ir::Node& node, int depth) {
    const Shape* xs = ShapeOf(node, 0);
    const ir::ConstantData* ind = node.inputs.size() > 1 ? Constant(node.inputs[1]) : nullptr;
    if (xs == nullptr || ind == nullptr || !IsInt(ind->dtype) || ind->symbolic) return {};
    const int64_t r = static_cast<int64_t>(xs->size());
    int64_t axis = node.GetInt("axis", 0);
    if (axis < 0) axis += r;
    if (axis < 0 || axis >= r) return {};
    Known x = Input(node, 0, depth);
    if (x.empty()) return {};
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= (*xs)[d];
    for (int64_t d = axis + 1; d < r; ++d) inner *= (*xs)[d];
    const int64_t len = (*xs)[axis];
    Known out;
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t k = 0; k < ind->element_count(); ++k) {
        int64_t i = ind->IntAt(k);
        if (i < 0) i += len;
        if (i < 0 || i >= len) return {};
        for (int64_t j = 0; j < inner; ++j) out.push_back(x[(o * len + i) * inner + j]);
      }
    }
    return out;
  }

  // Same-shape operands, or one of a single element; both entries known.
  Known Arithmetic(const ir::Node& node, int depth) {
    if (!IsInt(g_.value(node.outputs[0]).dtype)) return {};
    Known a = Input(node, 0, depth), b = Input(node, 1, depth);
    if (a.empty() || b.empty()) return {};
    const size_t n = std::max(a.size(), b.size());
    if ((a.size() != n && a.size() != 1) || (b.size() != n && b.size() != 1)) return {};
    const Shape* as = ShapeOf(node, 0);
    const Shape* bs = ShapeOf(node, 1);
    if (as == nullptr || bs == nullptr) return {};
    if (a.size() == n && b.size() == n && *as != *bs) return {};
    Known out(n);
    const std::string& op = node.op_type;
    for (size_t k = 0; k < n; ++k) {
      const auto& x = a[a.size() == 1 ? 0 : k];
      const auto& y = b[b.size() == 1 ? 0 : k];
      if (!x || !y) continue;
      int64_t z = 0;
      const bool overflow = op == "Add"   ? __builtin_add_overflow(*x, *y, &z)
                            : op == "Sub" ? __builtin_sub_overflow(*x, *y, &z)
                                          : __builtin_mul_overflow(*x, *y, &z);
      if (!overflow) out[k] = z;
    }
    return out;
  }

  Known FilledOp(const ir::Node& node) {
    const ir::Value& y = g_.value(node.outputs[0]);
    if (!IsInt(y.dtype)) return {};
    int64_t value = 0;
    auto it = node.attributes.find("value");
    if (it != node.attributes.end() && it->second.tensor) {
      if (it->second.tensor->element_count() != 1) return {};
      value = it->second.tensor->IntAt(0);
    }
    return Known(static_cast<size_t>(ir::ElementCount(y.shape)), value);
  }

  // The output of shape `y` whose element at each index `pick` gives.
  template <typename Pick>
  static Known Gathered(const Shape& y, Pick pick) {
    Known out;
    const int64_t n = ir::ElementCount(y);
    Shape idx(y.size(), 0);
    for (int64_t k = 0; k < n; ++k) {
      out.push_back(pick(idx));
      for (size_t d = y.size(); d-- > 0;) {
        if (++idx[d] < y[d]) break;
        idx[d] = 0;
      }
    }
    return out;
  }

  const ir::Graph& g_;
  const std::vector<ir::ConstantPtr>& known_;
};

}  // namespace

std::vector<std::optional<int64_t>> KnownElements(const ir::Graph& graph, ir::ValueId v,
                                                  const std::vector<ir::ConstantPtr>& known) {
  return Tracer(graph, known).Of(v, 0);
}

}  // namespace kiln::compiler
