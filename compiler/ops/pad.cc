// Pad: constant, edge, reflect and wrap modes on any dtype, pads from an
// input (opset 11) or an attribute, optional axes (opset 18); negative pads
// crop. Lowered to the pad kernel, or with pads known only at run time to
// pad_rt.
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "compiler/ops/op_def.h"
#include "compiler/ops/runtime_rules.h"
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
    KILN_RETURN_IF_ERROR(c.KnownInts(1, "pads", &pads));
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

absl::Status LowerPadOp(emit::LoweringContext& ctx, const ir::Node& node) {
  if (HasRuntimeParams(ctx.graph(), node)) return emit::LowerPadRt(ctx, node);
  return LowerPad(ctx, node);
}

}  // namespace

void RegisterPadOps(std::vector<OpDef>& ops) {
  ops.push_back({"Pad", WithRuntimeParams<Pad>, /*symbolic=*/true, LowerPadOp});
}

}  // namespace kiln::compiler
