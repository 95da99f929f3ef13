// Pad: constant, edge, reflect and wrap modes on any dtype, pads from an
// input (opset 11) or an attribute, optional axes (opset 18); negative pads
// crop. Lowered to the pad kernel, or with pads known only at run time to
// pad_rt.
#include <cstring>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "compiler/ops/op_def.h"
#include "compiler/passes/known_elements.h"
#include "compiler/passes/shape_rules_runtime_params.h"
#include "kiln/kernel_abi.h"

namespace kiln::compiler {
namespace {

using Shape = std::vector<int64_t>;

using ir::ShapeStr;

absl::Status Pad(ShapeRuleContext& c) {
  KILN_RETURN_IF_ERROR(c.Need(1));
  const Shape& x = c.S(0);
  const int64_t r = c.Rank(0);
  Shape pads;
  if (c.opset() >= 11) {
    if (!c.Has(1)) return c.Err("pads input is required");
    KILN_RETURN_IF_ERROR(c.KnownInts(1, "pads", &pads, /*allow_symbolic=*/true));
  } else {
    pads = c.node().GetInts("pads", {});
  }
  Shape axes;
  if (c.Has(3)) {
    KILN_RETURN_IF_ERROR(c.KnownInts(3, "axes", &axes));
    for (int64_t& a : axes) KILN_RETURN_IF_ERROR(c.Axis(a, r, &a));
  } else {
    for (int64_t d = 0; d < r; ++d) axes.push_back(d);
  }
  const int64_t na = static_cast<int64_t>(axes.size());
  if (static_cast<int64_t>(pads.size()) != 2 * na) {
    return c.Err(absl::StrCat("pads ", ShapeStr(pads), " should have ", 2 * na, " entries"));
  }
  if (c.Has(2) && !c.C(2)) {
    return c.Err("constant_value depends on run-time data (only compile-time values are supported)");
  }
  const std::string mode = c.node().GetString("mode", "constant");
  if (mode != "constant" && mode != "edge" && mode != "reflect" && mode != "wrap") {
    return c.Err(absl::StrCat("unknown mode '", mode, "'"));
  }
  Shape full(2 * r, 0);
  for (int64_t i = 0; i < na; ++i) {
    full[axes[i]] = pads[i];
    full[r + axes[i]] = pads[na + i];
  }
  Shape out;
  for (int64_t d = 0; d < r; ++d) {
    // Pads computed from the sizes (Swin Transformer pads each side up to a
    // multiple of its window: (7 - W % 7) % 7) add through the pool and are
    // patched into the kernel's parameters at run time. Only pads that are
    // never negative: a crop by a symbolic amount could leave a negative
    // length.
    if (c.dims().Known(full[d]) || c.dims().Known(full[r + d])) {
      for (const int64_t p : {full[d], full[r + d]}) {
        int64_t lo = 0;
        if (c.dims().Known(p) ? !c.dims().LowerBound(p, &lo) || lo < 0 : p < 0) {
          return c.Err(absl::StrCat("pad ", c.dims().ToString(p), " of axis ", d,
                                    " may be negative (a crop by an amount computed from "
                                    "symbolic dimensions is not supported)"));
        }
        if (!c.dims().Known(p) && !c.Within(p)) return c.Err("pads are out of range");
      }
      if (mode != "constant" && x[d] == 0) return c.Err("cannot edge/reflect pad an empty axis");
      out.push_back(c.dims().Add(c.dims().Add(x[d], full[d]), full[r + d]));
      continue;
    }
    if (ir::IsSymbolic(x[d])) {
      // Pads add to a symbolic axis through the pool; cropping one could
      // leave a negative length at run time, so it is refused.
      if (full[d] < 0 || full[r + d] < 0) {
        return c.RequireStatic(x[d], "an axis cropped by negative pads");
      }
      if (!c.Within(full[d]) || !c.Within(full[r + d])) return c.Err("pads are out of range");
      out.push_back(c.dims().Add(c.dims().Add(x[d], full[d]), full[r + d]));
      continue;
    }
    const __int128 wide = static_cast<__int128>(x[d]) + full[d] + full[r + d];
    if (wide < 0) return c.Err("pads crop more than the input holds");
    int64_t o;
    KILN_RETURN_IF_ERROR(c.Narrow(wide, "the padded size", &o));
    if (mode != "constant" && x[d] == 0 && o > 0) return c.Err("cannot edge/reflect pad an empty axis");
    out.push_back(o);
  }
  c.node().SetInts("kiln.pads", full);
  return c.Set(0, c.T(0), std::move(out));
}

absl::Status LowerPad(emit::LoweringContext& ctx, const ir::Node& node) {
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(auto y, ctx.OutputShape(node, 0));
  const int64_t r = static_cast<int64_t>(x.size());
  if (r > KILN_MAX_RANK) return ctx.Unimplemented(node, "rank is too high");
  const Shape pads = node.GetInts("kiln.pads", {});
  if (static_cast<int64_t>(pads.size()) != 2 * r) return ctx.Invalid(node, "pads are missing");
  const std::string mode = node.GetString("mode", "constant");
  const int64_t m = mode == "edge" ? 1 : mode == "reflect" ? 2 : mode == "wrap" ? 3 : 0;
  const int64_t eb = emit::ElemBytes(ctx, node.inputs[0]);
  if (eb < 1 || eb > 8) return ctx.Unimplemented(node, "element type is too wide");
  int64_t fill = 0;
  if (emit::HasInput(node, 2)) {
    const ir::ConstantPtr& c = ctx.value(node.inputs[2]).constant;
    if (!c || c->bytes.size() != static_cast<size_t>(eb)) {
      return ctx.Invalid(node, "constant_value must be a compile-time scalar of the data type");
    }
    std::memcpy(&fill, c->bytes.data(), c->bytes.size());
  } else if (node.HasAttr("value")) {  // opset < 11
    const float v = node.GetFloat("value", 0.0f);
    std::memcpy(&fill, &v, 4);
  }
  // Dispatch would read a fill whose bits fall on an encoded dim (a float64
  // -2.0 is kSymbolicBase) as that dim.
  if (ctx.dims().Known(fill)) {
    return ctx.Unimplemented(node, "this constant_value beside symbolic dimensions");
  }
  emit::kernel::Pad pad;
  pad.elem_bytes = eb;
  pad.mode = m;
  pad.R = r;
  pad.fill_bits = fill;
  pad.in_dims = x;
  pad.begin = std::vector<int64_t>(pads.begin(), pads.begin() + r);
  pad.out_dims = y;
  KILN_ASSIGN_OR_RETURN(emit::Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(emit::Binding by, ctx.Bind(node, node.outputs[0]));
  return ctx.Dispatch(node, pad, {bx, by});
}

// ---- parameter values known only at run time (shape_rules_runtime_params.h)

absl::Status PadByValue(ShapeRuleContext& c, const Shape& y) {
  KILN_RETURN_IF_ERROR(c.Need(2));
  const Shape& x = c.S(0);
  int64_t n = c.Has(3) ? -1 : c.Rank(0), pads = -1;
  if (c.Has(3)) KILN_RETURN_IF_ERROR(c.IndexVector(3, "axes", &n));
  KILN_RETURN_IF_ERROR(c.IndexVector(1, "pads", &pads));
  if (pads != 2 * n) return c.Err(absl::StrCat("pads has ", pads, " entries for ", n, " axes"));
  if (n > c.Rank(0)) return c.Err(absl::StrCat("axes has ", n, " entries for rank ", c.Rank(0)));
  if (c.Has(2) && (c.T(2) != c.T(0) || ir::ElementCount(c.S(2)) != 1)) {
    return c.Err("constant_value must be one element of the data type");
  }
  const size_t eb = ir::DTypeSize(c.T(0));
  if (eb < 1 || eb > 8) return c.Err("unsupported data type");
  const std::string mode = c.node().GetString("mode", "constant");
  if (mode != "constant" && mode != "edge" && mode != "reflect" && mode != "wrap") {
    return c.Err(absl::StrCat("unsupported mode '", mode, "'"));
  }
  if (y.size() != x.size()) return c.DeclaredMismatch(y, absl::StrCat("has not the rank of ", ir::ShapeStr(x)));
  if (mode != "constant" && ir::ElementCount(y) > 0) {
    for (int64_t d : x) {
      if (d == 0) return c.Err(absl::StrCat(mode, " padding of an empty input"));
    }
  }
  return c.Set(0, c.T(0), y);
}

// Pad without a declared output shape: each dim a data symbol pad_rt_dims
// reports (in + begin + end, or in), without a bound.
// An axis whose two pads are known at compile time (zeros beside computed
// pads, as torchvision pads an image to a multiple of 32) keeps its dim.
absl::Status PadAfterRun(ShapeRuleContext& c) {
  KILN_RETURN_IF_ERROR(PadByValue(c, c.S(0)));  // checks the inputs
  const Shape x = c.S(0);  // a copy: appending the dims output may move it
  const int64_t r = static_cast<int64_t>(x.size());
  std::vector<int64_t> axes;
  if (!c.Has(3)) {
    for (int64_t d = 0; d < r; ++d) axes.push_back(d);
  } else if (const ir::ConstantData* a = c.C(3)) {
    for (int64_t k = 0; k < a->element_count(); ++k) axes.push_back(a->IntAt(k) < 0 ? a->IntAt(k) + r : a->IntAt(k));
  }
  const std::vector<std::optional<int64_t>> pads = KnownElements(c.graph(), c.node().inputs[1], c.known());
  std::vector<std::optional<int64_t>> fixed(x.size());
  const size_t n = axes.size();
  if (pads.size() == 2 * n) {
    for (size_t i = 0; i < n; ++i) {
      const int64_t d = axes[i];
      if (d < 0 || d >= r || !pads[i] || !pads[i + n]) continue;
      const int64_t grow = *pads[i] + *pads[i + n];
      if (!ir::IsSymbolic(x[d]) && x[d] + grow < 0) {
        return c.Err(absl::StrCat("pads remove ", -grow, " entries from axis ", d, " of ",
                                  ir::ShapeStr(x)));
      }
      fixed[d] = grow == 0 ? x[d] : c.dims().Add(x[d], grow);
    }
  }
  KILN_ASSIGN_OR_RETURN(const ir::ValueId dims, c.ReportedDimsOutput(1, r));
  Shape y(x.size());
  for (int64_t d = 0; d < r; ++d) {
    y[d] = fixed[d] ? *fixed[d] : c.ReportedDim(dims, d, ir::kNoBound, 0, absl::StrCat(".dim", d));
  }
  return c.Set(0, c.T(0), std::move(y));
}

absl::Status LowerPadOp(emit::LoweringContext& ctx, const ir::Node& node) {
  if (HasRuntimeParams(ctx.graph(), node)) return emit::LowerPadRt(ctx, node);
  return LowerPad(ctx, node);
}

}  // namespace

void RegisterPadOps(std::vector<OpDef>& ops) {
  OpDef pad{"Pad", Pad, /*symbolic=*/true, LowerPadOp};
  pad.symbolic_values = [](size_t input) { return input == 1; };  // pads of the sizes
  // pads, constant_value, axes: inputs from opset 11.
  pad.runtime_params = {1, 3, 11, PadByValue, PadAfterRun, false, /*symbolic_data_after_run=*/true,
                        false};
  ops.push_back(pad);
}

}  // namespace kiln::compiler
