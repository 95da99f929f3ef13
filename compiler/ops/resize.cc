// Resize (opsets 10 to 19; float32 data): nearest, linear and cubic modes,
// every coordinate transformation, scales or sizes (constant, a subset of
// axes with opset 18, or known only at run time), symbolic dims. The rule
// resolves constant scales into "kiln.scales"; the lowering chooses among
// the resize kernels (emit/lower_resize*.cc).
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/ops/op_def.h"
#include "compiler/passes/shape_rules_resize_rt.h"
#include "compiler/passes/symbolic_support.h"

namespace kiln::compiler {
namespace {

using ir::ConstantData;
using ir::DType;
using ir::ShapeStr;
using Shape = std::vector<int64_t>;

void SetFloats(ir::Node& n, const std::string& key, std::vector<float> v) {
  ir::Attribute a;
  a.kind = ir::Attribute::Kind::kFloats;
  a.floats = std::move(v);
  n.attributes[key] = std::move(a);
}

// floor(x * s) for a symbolic x: a float is exactly m / 2^k, so the length
// is floor(x * m / 2^k) in the pool (the kernel checks it against the
// double product at run time).
absl::Status SymbolicScaled(ShapeRuleContext& c, int64_t x, float s, int64_t* out) {
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

// With every scales or sizes input known: the output shape, and the scales
// per axis in "kiln.scales".
absl::Status ResizeShape(ShapeRuleContext& c) {
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

// Resize by run-time sizes: the declared output, the same rank as X; the
// op's own rule then runs on those sizes (its attribute checks included).
absl::Status ResizeBySizes(ShapeRuleContext& c, int64_t count,
                           const RuntimeShapeRule::Shapes& ys) {
  const Shape& y = ys[0];
  if (count != c.Rank(0) || static_cast<int64_t>(y.size()) != c.Rank(0)) {
    return c.DeclaredMismatch(y, absl::StrCat("has not the ", c.Rank(0), " dims of the input"));
  }
  for (size_t k = 1; k < 3; ++k) {
    if (c.Has(k) && (c.C(k) == nullptr || c.C(k)->element_count() != 0)) {
      return c.Err("run-time sizes need empty or absent roi and scales inputs");
    }
  }
  std::vector<ir::ConstantPtr> with_sizes = c.known();
  const ir::ValueId sizes = c.node().inputs[3];
  if (with_sizes.size() <= static_cast<size_t>(sizes)) with_sizes.resize(sizes + 1);
  with_sizes[sizes] = ir::MakeI64Constant({static_cast<int64_t>(y.size())}, y);
  ShapeRuleContext with(c.graph(), c.node(), with_sizes);
  return ResizeShape(with);
}

absl::Status LowerResizeOp(emit::LoweringContext& ctx, const ir::Node& node) {
  const bool runtime = HasRuntimeResizeParams(ctx.graph(), node) ||
                       node.GetInt("kiln.result_dims", 0) != 0;
  // Run-time scales or roi stay with resize_rt's lowering, which refuses symbolic dims.
  const bool symbolic = !ctx.dims().empty() && !runtime &&
                        (HasSymbolicDims(ctx.value(node.inputs[0]).shape) ||
                         HasSymbolicDims(ctx.value(node.outputs[0]).shape));
  if (symbolic) return emit::LowerResizeSymbolic(ctx, node);
  if (runtime) return emit::LowerResizeRt(ctx, node);
  return emit::LowerResize(ctx, node);
}

// Its sizes are read as dims.
bool SizesSymbolicValues(size_t input) { return input == 3; }

}  // namespace

void RegisterResizeOps(std::vector<OpDef>& ops) {
  OpDef resize{"Resize", ResizeShape, /*symbolic=*/true,
               LowerResizeOp};
  resize.symbolic_values = SizesSymbolicValues;
  // Sizes (an input from opset 11) with a declared output; without one,
  // shape_rules_resize_rt.cc reports the dims.
  resize.runtime_first = InferRuntimeResize;  // run-time scales or roi
  resize.runtime_shape = {3, 11, RuntimeShapeRule::Value::kInt64Vector, ResizeBySizes, nullptr,
                          false};
  ops.push_back(resize);
}

}  // namespace kiln::compiler
