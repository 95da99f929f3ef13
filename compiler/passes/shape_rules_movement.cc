#include "compiler/passes/constant_folding.h"
#include "compiler/passes/shape_rules_movement.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "compiler/ir/graph_util.h"
#include "compiler/passes/shape_rule_context.h"
#include "kiln/kernels.h"

namespace kiln::compiler {
namespace {

using ir::ConstantData;
using ir::DType;
using ir::ShapeStr;
using Shape = std::vector<int64_t>;

// Per-node view: inputs, compile-time values and output setters.
using Ctx = ShapeRuleContext;

void SetFloats(ir::Node& n, const std::string& key, std::vector<float> v) {
  ir::Attribute a;
  a.kind = ir::Attribute::Kind::kFloats;
  a.floats = std::move(v);
  n.attributes[key] = std::move(a);
}

// ---- data movement ---------------------------------------------------------

// floor(x * s) for a symbolic x: a float is exactly m / 2^k, so the length
// is floor(x * m / 2^k) in the pool (the kernel checks it against the
// double product at run time).
absl::Status SymbolicScaled(Ctx& c, int64_t x, float s, int64_t* out) {
  if (!std::isfinite(s)) return c.Err("scales must be finite");
  int e = 0;
  const double f = std::frexp(static_cast<double>(s), &e);  // s = f * 2^e, f in [0.5, 1)
  int64_t m = static_cast<int64_t>(std::ldexp(f, 24));     // exact: 24 significant bits
  int64_t k = 24 - e;
  while (k > 0 && m % 2 == 0) m /= 2, --k;
  if (k < -20 || k > 40) return c.Err(absl::StrCat("scale ", s, " is out of range for a symbolic axis"));
  if (k <= 0) {
    *out = c.dims().Mul(x, m << -k);
  } else {
    *out = c.dims().FloorDiv(c.dims().Mul(x, m), int64_t{1} << k);
  }
  return absl::OkStatus();
}

absl::Status Resize(Ctx& c) {
  KILN_RETURN_IF_ERROR(c.Need(1));
  const Shape& x = c.S(0);
  const int64_t r = c.Rank(0);
  // opset 10 has (X, scales); 11+ has (X, roi, scales, sizes).
  const size_t scales_at = c.opset() >= 11 ? 2 : 1;
  const size_t sizes_at = 3;
  for (size_t k = 1; k < c.node().inputs.size(); ++k) {
    if (c.Has(k) && !c.C(k)) {
      return c.Err(absl::StrCat("input '", c.In(k).name,
                                "' depends on run-time data (only compile-time values are supported)"));
    }
  }
  // Opset 18: scales/sizes may name a subset of the axes (the others keep
  // their size), and sizes may be fitted keeping the aspect ratio.
  std::vector<int64_t> axes;
  if (c.node().HasAttr("axes")) {
    std::set<int64_t> seen;
    for (int64_t a : c.node().GetInts("axes", {})) {
      int64_t ax = 0;
      KILN_RETURN_IF_ERROR(c.Axis(a, r, &ax));
      if (!seen.insert(ax).second) return c.Err(absl::StrCat("axis ", a, " is listed twice in axes"));
      axes.push_back(ax);
    }
  } else {
    for (int64_t d = 0; d < r; ++d) axes.push_back(d);
  }
  const int64_t n = static_cast<int64_t>(axes.size());
  const std::string policy = c.node().GetString("keep_aspect_ratio_policy", "stretch");
  if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller") {
    return c.Err(absl::StrCat("unknown keep_aspect_ratio_policy '", policy, "'"));
  }
  std::vector<float> scales(r, 1.0f);
  Shape out = x;
  const ConstantData* sz = c.opset() >= 11 ? c.C(sizes_at) : nullptr;
  const ConstantData* sc = c.C(scales_at);
  if (sz && sz->element_count() > 0) {
    if (sz->element_count() != n) return c.Err("sizes must have one entry per resized axis");
    if (policy == "stretch") {
      for (int64_t i = 0; i < n; ++i) {
        const int64_t d = axes[i];
        out[d] = sz->IntAt(i);
        if (ir::IsSymbolic(x[d]) || ir::IsSymbolic(out[d])) {
          // out / in is known when the run's dims are: the kernel derives it
          // (lower_resize_sym.cc).
          if (ir::IsSymbolic(out[d]) ? !c.dims().Known(out[d]) : out[d] < 0) {
            return c.Err(absl::StrCat("sizes[", i, "] = ", out[d], " is not a size"));
          }
          c.node().SetInt("kiln.scales_from_sizes", 1);
          continue;
        }
        scales[d] = x[d] == 0 ? 1.0f : static_cast<float>(out[d]) / static_cast<float>(x[d]);
      }
    } else {
      for (int64_t d : axes) {
        KILN_RETURN_IF_ERROR(c.RequireStatic(x[d], "an axis resized to keep its aspect ratio"));
      }
      // One scale for every listed axis: the largest that fits inside the
      // sizes (not_larger) or the smallest that covers them (not_smaller);
      // each size is then that scale times the input's, rounded.
      double fit = policy == "not_larger" ? HUGE_VAL : 0.0;
      for (int64_t i = 0; i < n; ++i) {
        const int64_t d = axes[i];
        if (x[d] == 0) return c.Err("keep_aspect_ratio_policy needs non-empty resized axes");
        const double ratio = static_cast<double>(sz->IntAt(i)) / static_cast<double>(x[d]);
        fit = policy == "not_larger" ? std::min(fit, ratio) : std::max(fit, ratio);
      }
      if (!(fit > 0) || fit > 1e6) return c.Err("sizes give a scale out of range");
      for (int64_t d : axes) {
        out[d] = static_cast<int64_t>(std::round(fit * static_cast<double>(x[d])));
        scales[d] = static_cast<float>(fit);
      }
    }
  } else if (sc && sc->element_count() > 0) {
    if (sc->element_count() != n) return c.Err("scales must have one entry per resized axis");
    for (int64_t i = 0; i < n; ++i) {
      const int64_t d = axes[i];
      const float s = static_cast<float>(sc->FloatAt(i));
      if (!(s > 0)) return c.Err("scales must be positive");
      scales[d] = s;
      if (ir::IsSymbolic(x[d])) {
        int64_t dim = 0;
        KILN_RETURN_IF_ERROR(SymbolicScaled(c, x[d], s, &dim));
        out[d] = dim;
        continue;
      }
      const double dim = std::floor(static_cast<double>(x[d]) * s);
      // Beyond 2^53 a dim is no longer an exact integer; the element-count
      // limits downstream refuse far smaller tensors anyway.
      if (!(dim <= 9007199254740992.0)) {
        return c.Err(absl::StrCat("scales[", i, "] = ", s, " makes axis ", d, " too large"));
      }
      out[d] = static_cast<int64_t>(dim);
    }
  } else {
    return c.Err("needs scales or sizes");
  }
  SetFloats(c.node(), "kiln.scales", scales);
  return c.Set(0, c.T(0), std::move(out));
}

// ---- NN ------------------------------------------------------------------------

using Rule = std::function<absl::Status(Ctx&)>;

const std::map<std::string, Rule>& Rules() {
  static const auto* rules = new std::map<std::string, Rule>{
      {"Resize", Resize},

  };
  return *rules;
}

// ---- folding -----------------------------------------------------------------

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

bool InferMovementShapes(ir::Graph& graph, ir::Node& node,
                         const std::vector<ir::ConstantPtr>& known, absl::Status* status) {
  auto it = Rules().find(node.op_type);
  if (it == Rules().end()) return false;
  Ctx c(graph, node, known);
  *status = it->second(c);
  return true;
}

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
