#include "compiler/passes/shape_rules_grid_sample.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/ir/graph_util.h"
#include "compiler/passes/shape_rule_context.h"
#include "kiln/kernels.h"

namespace kiln::compiler {

bool GridSampleModes(const ir::Node& node, int64_t* mode, int64_t* padding, std::string* bad) {
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

namespace {

absl::Status GridSample(ShapeRuleContext& c) {
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

}  // namespace

bool InferGridSampleShapes(ir::Graph& graph, ir::Node& node, absl::Status* status) {
  if (node.op_type != "GridSample") return false;
  static const std::vector<ir::ConstantPtr> kNoKnown;  // the rule reads no values
  ShapeRuleContext c(graph, node, kNoKnown);
  *status = GridSample(c);
  return true;
}

}  // namespace kiln::compiler
