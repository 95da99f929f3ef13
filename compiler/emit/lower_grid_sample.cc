// GridSample → grid_sample_f32 (runtime/kernels/grid_sample.c). Shape
// inference (passes/shape_rules_grid_sample.cc) checked the shapes and the
// attributes; here only float32 X and grid are accepted.
#include "compiler/emit/lower_ops.h"
#include "compiler/passes/shape_rules_grid_sample.h"

namespace kiln::compiler::emit {
namespace {

absl::Status LowerGridSample(LoweringContext& ctx, const ir::Node& node) {
  KILN_RETURN_IF_ERROR(ctx.RequireF32(node));
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(auto g, ctx.InputShape(node, 1));
  if (x.size() != 4 || g.size() != 4) return ctx.Invalid(node, "X and grid must be 4-D");
  int64_t mode = 0, padding = 0;
  if (!compiler::GridSampleModes(node, &mode, &padding)) {
    return ctx.Invalid(node, "unknown mode or padding_mode");
  }
  const int64_t align = node.GetInt("align_corners", 0) != 0 ? 1 : 0;
  KILN_ASSIGN_OR_RETURN(Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding bg, ctx.Bind(node, node.inputs[1]));
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  return ctx.Dispatch(node, "grid_sample_f32",
                      {x[0], x[1], x[2], x[3], g[1], g[2], mode, padding, align}, {},
                      {bx, bg, by});
}

}  // namespace

void RegisterGridSampleLowerings(LoweringTable& table) { table["GridSample"] = LowerGridSample; }

}  // namespace kiln::compiler::emit
