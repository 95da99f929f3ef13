// GridSample (opsets 16+, 4-D only) → grid_sample_f32
// (runtime/kernels/grid_sample.c): X [N, C, H, W] sampled at grid
// [N, H_out, W_out, 2] gives Y [N, C, H_out, W_out]. The shape rule refuses
// unknown mode / padding_mode / align_corners values, so the lowering only
// maps names to kernel codes.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/ir/graph_util.h"
#include "compiler/ops/op_def.h"
#include "kiln/kernels.h"

namespace kiln::compiler {
namespace {

// The grid_sample_f32 codes (KILN_GRID_SAMPLE_*) of the node's mode and
// padding_mode attributes; false for a name the op does not define, with
// what is wrong in *bad (when given).
bool GridSampleModes(const ir::Node& node, int64_t* mode, int64_t* padding,
                     std::string* bad = nullptr) {
  // Opset 20 renamed bilinear/bicubic to linear/cubic; the 2-D math is the same.
  const std::string m = node.GetString("mode", "bilinear");
  const std::string p = node.GetString("padding_mode", "zeros");
  if (m == "bilinear" || m == "linear") *mode = KILN_GRID_SAMPLE_BILINEAR;
  else if (m == "nearest") *mode = KILN_GRID_SAMPLE_NEAREST;
  else if (m == "bicubic" || m == "cubic") *mode = KILN_GRID_SAMPLE_BICUBIC;
  else {
    if (bad) *bad = absl::StrCat("unknown mode '", m, "' (bilinear, nearest or bicubic)");
    return false;
  }
  if (p == "zeros") *padding = KILN_GRID_SAMPLE_ZEROS;
  else if (p == "border") *padding = KILN_GRID_SAMPLE_BORDER;
  else if (p == "reflection") *padding = KILN_GRID_SAMPLE_REFLECTION;
  else {
    if (bad) *bad = absl::StrCat("unknown padding_mode '", p, "' (zeros, border or reflection)");
    return false;
  }
  return true;
}

absl::Status GridSampleShape(ShapeRuleContext& c) {
  if (!c.Has(0) || !c.Has(1)) return c.Err("expects inputs X and grid");
  if (absl::Status s = c.Need(2); !s.ok()) return s;
  const std::vector<int64_t>& x = c.S(0);
  const std::vector<int64_t>& g = c.S(1);
  if (x.size() != 4) {
    return absl::UnimplementedError(
        absl::StrCat(c.graph().source, ": node ", c.node().Describe(), ": input X is ",
                     ir::ShapeStr(x), "; only 4-D (N, C, H, W) input is supported"));
  }
  if (g.size() != 4 || g[0] != x[0] || g[3] != 2) {
    return c.Err(absl::StrCat("grid ", ir::ShapeStr(g), " should be [", x[0],
                              ", H_out, W_out, 2] for X ", ir::ShapeStr(x)));
  }
  const ir::DType gt = c.T(1);
  if (gt != ir::DType::F32 && gt != ir::DType::F16 && gt != ir::DType::F64) {
    return c.Err(absl::StrCat("grid must be a float tensor, got ", ir::DTypeName(c.T(1))));
  }
  int64_t mode = 0, padding = 0;
  if (std::string bad; !GridSampleModes(c.node(), &mode, &padding, &bad)) return c.Err(bad);
  const int64_t align = c.node().GetInt("align_corners", 0);
  if (align != 0 && align != 1) {
    return c.Err(absl::StrCat("align_corners must be 0 or 1, got ", align));
  }
  return c.Set(0, c.T(0), {x[0], x[1], g[1], g[2]});
}

// Only float32 X and grid are accepted.
absl::Status LowerGridSample(emit::LoweringContext& ctx, const ir::Node& node) {
  KILN_RETURN_IF_ERROR(ctx.RequireF32(node));
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(auto g, ctx.InputShape(node, 1));
  if (x.size() != 4 || g.size() != 4) return ctx.Invalid(node, "X and grid must be 4-D");
  int64_t mode = 0, padding = 0;
  if (!GridSampleModes(node, &mode, &padding)) {
    return ctx.Invalid(node, "unknown mode or padding_mode");
  }
  const int64_t align = node.GetInt("align_corners", 0) != 0 ? 1 : 0;
  KILN_ASSIGN_OR_RETURN(emit::Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(emit::Binding bg, ctx.Bind(node, node.inputs[1]));
  KILN_ASSIGN_OR_RETURN(emit::Binding by, ctx.Bind(node, node.outputs[0]));
  emit::kernel::GridSampleF32 sample;
  sample.N = x[0];
  sample.C = x[1];
  sample.H = x[2];
  sample.W = x[3];
  sample.OH = g[1];
  sample.OW = g[2];
  sample.mode = mode;
  sample.padding = padding;
  sample.align_corners = align;
  return ctx.Dispatch(node, sample, {bx, bg, by});
}

}  // namespace

void RegisterGridSampleOps(std::vector<OpDef>& ops) {
  ops.push_back({"GridSample", GridSampleShape, /*symbolic=*/false, LowerGridSample});
}

}  // namespace kiln::compiler
