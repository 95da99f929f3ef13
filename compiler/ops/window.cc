#include "compiler/ops/window.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "compiler/ir/graph_util.h"

namespace kiln::compiler {
namespace {

using ir::ShapeStr;
using Shape = std::vector<int64_t>;
using Ctx = ShapeRuleContext;

// Requires in >= need at run time (a window no larger than its padded
// input) unless the pool can tell: the run fails with "in == max(in, need)".
void RequireAtLeast(Ctx& c, int64_t in, int64_t need) {
  ir::DimPool& dims = c.dims();
  if (need <= 0 || (need == 1 && ir::IsSymbolic(in)) || dims.KnownNonNegative(dims.Sub(in, need))) {
    return;
  }
  dims.AssumeEqual(in, dims.Max(in, need));
}

// floor(span / s) + 1 windows, written floor((span + s) / s): one atom
// whose operand the run keeps >= 0 (RequireAtLeast) and whose lower bound
// the pool sees as >= 0 for a padded length >= 0, so products of such dims
// (an anchor count h * w * 15) are known non-negative.
int64_t WindowCount(ir::DimPool& dims, int64_t span, int64_t s) {
  return dims.FloorDiv(dims.Add(span, s), s);
}

// One output dim of a window over a symbolic input dim `in` (kernel extent
// dk, stride s): the same formulas as the static case, as expressions; pads
// of SAME auto_pad become expressions too (patched kernel parameters).
absl::Status SymbolicWindowDim(Ctx& c, const std::string& auto_pad, int64_t in, int64_t dk,
                               int64_t s, bool ceil_mode, int64_t* pad_begin, int64_t* pad_end,
                               int64_t* out) {
  ir::DimPool& dims = c.dims();
  if (auto_pad == "NOTSET" || auto_pad.empty()) {
    const int64_t padded = dims.Add(in, *pad_begin + *pad_end);
    // ceil_mode keeps a partial window as long as one starts in the input.
    RequireAtLeast(c, padded, ceil_mode ? dk - (s - 1) : dk);
    const int64_t span = dims.Sub(padded, dk);
    if (!ceil_mode) {
      *out = WindowCount(dims, span, s);
    } else {
      // The last window must start inside the input or its leading pad.
      *out = dims.Min(dims.Add(dims.CeilDiv(span, s), 1),
                      dims.Add(dims.FloorDiv(dims.Add(in, *pad_begin - 1), s), 1));
    }
  } else if (auto_pad == "VALID") {
    *pad_begin = *pad_end = 0;
    RequireAtLeast(c, in, dk);
    *out = WindowCount(dims, dims.Sub(in, dk), s);
  } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    *out = dims.CeilDiv(in, s);
    const int64_t total =
        dims.Max(0, dims.Sub(dims.Add(dims.Mul(dims.Sub(*out, 1), s), dk), in));
    const int64_t small = dims.FloorDiv(total, 2), big = dims.Sub(total, small);
    *pad_begin = auto_pad == "SAME_UPPER" ? small : big;
    *pad_end = auto_pad == "SAME_UPPER" ? big : small;
  } else {
    return c.Err(absl::StrCat("unknown auto_pad '", auto_pad, "'"));
  }
  if (!dims.ok()) return c.Err("the window's output size overflows");
  return absl::OkStatus();
}

}  // namespace

absl::Status WindowShape(ShapeRuleContext& c, const Shape& x, const Shape& kernel, bool allow_ceil,
                         Shape* spatial_out) {
  ir::Node& n = c.node();
  const size_t nd = kernel.size();
  const Shape strides = n.GetInts("strides", Shape(nd, 1));
  const Shape dilations = n.GetInts("dilations", Shape(nd, 1));
  Shape pads = n.GetInts("pads", Shape(2 * nd, 0));
  const std::string auto_pad = n.GetString("auto_pad", "NOTSET");
  const bool ceil_mode = allow_ceil && n.GetInt("ceil_mode", 0) != 0;
  if (strides.size() != nd || dilations.size() != nd || pads.size() != 2 * nd) {
    return c.Err(absl::StrCat("strides/dilations/pads lengths do not match ", nd,
                              " spatial dimensions"));
  }
  for (size_t i = 0; i < nd; ++i) {
    if (kernel[i] <= 0) return c.Err("kernel, strides and dilations must be positive");
    KILN_RETURN_IF_ERROR(c.Scale(strides[i], "strides"));
    KILN_RETURN_IF_ERROR(c.Scale(dilations[i], "dilations"));
    if (pads[i] < 0 || pads[i + nd] < 0) return c.Err("negative pads are not supported");
    if (kernel[i] > c.kMaxDim || pads[i] > c.kMaxDim || pads[i + nd] > c.kMaxDim) {
      return c.Err("kernel and pads must be within 2^40");
    }
  }
  spatial_out->clear();
  for (size_t i = 0; i < nd; ++i) {
    const int64_t in = x[2 + i], s = strides[i];
    const int64_t dk = (kernel[i] - 1) * dilations[i] + 1;
    if (ir::IsSymbolic(in)) {
      int64_t out = 0;
      KILN_RETURN_IF_ERROR(SymbolicWindowDim(c, auto_pad, in, dk, s, ceil_mode, &pads[i],
                                             &pads[i + nd], &out));
      spatial_out->push_back(out);
      continue;
    }
    int64_t out;
    if (auto_pad == "NOTSET" || auto_pad.empty()) {
      const int64_t span = in + pads[i] + pads[i + nd] - dk;
      if (span < (ceil_mode ? 1 - s : 0)) {
        return c.Err(absl::StrCat("kernel ", ShapeStr(kernel), " (dilated) is larger than the padded input ",
                                  ShapeStr(x)));
      }
      out = (ceil_mode ? CeilDiv(span, s) : FloorDiv(span, s)) + 1;
      if (ceil_mode && (out - 1) * s >= in + pads[i]) --out;
    } else if (auto_pad == "VALID") {
      pads[i] = pads[i + nd] = 0;
      if (in < dk) {
        return c.Err(absl::StrCat("kernel ", ShapeStr(kernel), " is larger than the input ",
                                  ShapeStr(x)));
      }
      out = (in - dk) / s + 1;
    } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      out = CeilDiv(in, s);
      const int64_t total = std::max<int64_t>(0, (out - 1) * s + dk - in);
      const int64_t small = total / 2, big = total - small;
      pads[i] = auto_pad == "SAME_UPPER" ? small : big;
      pads[i + nd] = auto_pad == "SAME_UPPER" ? big : small;
    } else {
      return c.Err(absl::StrCat("unknown auto_pad '", auto_pad, "'"));
    }
    spatial_out->push_back(out);
  }
  n.SetInts("kiln.kernel_shape", kernel);
  n.SetInts("kiln.strides", strides);
  n.SetInts("kiln.dilations", dilations);
  n.SetInts("kiln.pads", pads);
  return absl::OkStatus();
}


absl::Status ResolveWindow(const emit::LoweringContext& ctx, const ir::Node& node,
                           const std::vector<int64_t>& x, const std::vector<int64_t>& y,
                           const std::vector<int64_t>& kernel, WindowGeometry* win) {
  const size_t rank = x.size();
  if ((rank != 3 && rank != 4) || y.size() != rank || kernel.size() != rank - 2) {
    return ctx.Unimplemented(node, absl::StrCat("only 1-D to 3-D windows are supported (input rank ",
                                                rank, ")"));
  }
  const size_t sp = rank - 2;
  // Shape inference records the resolved geometry as kiln.* attributes;
  // graphs built without it fall back to the ONNX attributes.
  const bool resolved = node.HasAttr("kiln.pads");
  const std::vector<int64_t> strides =
      node.GetInts("kiln.strides", node.GetInts("strides", std::vector<int64_t>(sp, 1)));
  const std::vector<int64_t> dil =
      node.GetInts("kiln.dilations", node.GetInts("dilations", std::vector<int64_t>(sp, 1)));
  std::vector<int64_t> pads =
      node.GetInts("kiln.pads", node.GetInts("pads", std::vector<int64_t>(2 * sp, 0)));
  if (strides.size() != sp || dil.size() != sp || pads.size() != 2 * sp) {
    return ctx.Invalid(node, "strides/dilations/pads do not match the spatial rank");
  }
  const std::string auto_pad = resolved ? "NOTSET" : node.GetString("auto_pad", "NOTSET");
  for (size_t d = 0; d < sp; ++d) {
    const int64_t in = x[2 + d], out = y[2 + d];
    if (auto_pad == "VALID") {
      pads[d] = 0;
      pads[sp + d] = 0;
    } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      const int64_t extent = (kernel[d] - 1) * dil[d] + 1;
      const int64_t total = std::max<int64_t>(0, (out - 1) * strides[d] + extent - in);
      const int64_t small = total / 2;
      pads[d] = auto_pad == "SAME_UPPER" ? small : total - small;
      pads[sp + d] = total - pads[d];
    } else if (auto_pad != "NOTSET") {
      return ctx.Invalid(node, absl::StrCat("unknown auto_pad '", auto_pad, "'"));
    }
  }
  win->n = x[0];
  win->c = x[1];
  win->w = x[rank - 1];
  win->ow = y[rank - 1];
  win->kw = kernel[sp - 1];
  win->stride_w = strides[sp - 1];
  win->dil_w = dil[sp - 1];
  win->pad_left = pads[sp - 1];
  win->pad_right = pads[2 * sp - 1];
  if (sp == 2) {
    win->h = x[2];
    win->oh = y[2];
    win->kh = kernel[0];
    win->stride_h = strides[0];
    win->dil_h = dil[0];
    win->pad_top = pads[0];
    win->pad_bottom = pads[2];
  }
  return absl::OkStatus();
}


}  // namespace kiln::compiler
