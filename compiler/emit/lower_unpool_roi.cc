// MaxUnpool and RoiAlign (passes/shape_rules_unpool_roi.h), lowered to the
// max_unpool and roi_align_f32 kernels. A run-time output_shape of MaxUnpool
// is first checked against the declared output shape (shape_check EXACT).
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/emit/lower_ops.h"
#include "compiler/ir/graph.h"
#include "kiln/kernels.h"

namespace kiln::compiler::emit {
namespace {

using Shape = std::vector<int64_t>;

absl::Status CheckRuntimeOutputShape(LoweringContext& ctx, const ir::Node& node,
                                     const Shape& y) {
  if (node.inputs.size() < 3 || node.inputs[2] == ir::kNoValue) return absl::OkStatus();
  const ir::Value& v = ctx.value(node.inputs[2]);
  if (v.constant) return absl::OkStatus();  // shape inference read its value
  std::vector<int64_t> ip = {KILN_SHAPE_CHECK_EXACT, static_cast<int64_t>(v.dtype),
                             static_cast<int64_t>(y.size()), 0, 0,
                             static_cast<int64_t>(y.size())};
  ip.insert(ip.end(), y.begin(), y.end());
  KILN_ASSIGN_OR_RETURN(Binding b, ctx.Bind(node, node.inputs[2]));
  return ctx.Dispatch(node, "shape_check", std::move(ip), {}, {b});
}

absl::Status LowerMaxUnpool(LoweringContext& ctx, const ir::Node& node) {
  KILN_ASSIGN_OR_RETURN(Shape x, ctx.InputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(Shape y, ctx.OutputShape(node, 0));
  KILN_RETURN_IF_ERROR(ctx.RequireStatic(node, x, "the input shape"));
  KILN_RETURN_IF_ERROR(ctx.RequireStatic(node, y, "the output shape"));
  const Shape inferred = node.GetInts("kiln.unpool_inferred", {});
  if (inferred.size() != y.size() || y.size() > KILN_MAX_RANK) {
    return ctx.Invalid(node, "the unpooled shape is missing");
  }
  KILN_RETURN_IF_ERROR(CheckRuntimeOutputShape(ctx, node, y));
  std::vector<int64_t> ip = {static_cast<int64_t>(ir::DTypeSize(ctx.value(node.inputs[0]).dtype)),
                             ir::ElementCount(x), static_cast<int64_t>(y.size())};
  ip.insert(ip.end(), inferred.begin(), inferred.end());
  ip.insert(ip.end(), y.begin(), y.end());
  KILN_ASSIGN_OR_RETURN(Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding bi, ctx.Bind(node, node.inputs[1]));
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  return ctx.Dispatch(node, "max_unpool", std::move(ip), {}, {bx, bi, by});
}

absl::Status LowerRoiAlign(LoweringContext& ctx, const ir::Node& node) {
  KILN_ASSIGN_OR_RETURN(Shape x, ctx.InputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(Shape y, ctx.OutputShape(node, 0));
  KILN_RETURN_IF_ERROR(ctx.RequireStatic(node, x, "the input shape"));
  KILN_RETURN_IF_ERROR(ctx.RequireStatic(node, y, "the output shape"));
  if (x.size() != 4 || y.size() != 4) return ctx.Invalid(node, "X and Y must be 4-D");
  // Defaults as shape inference read them (shape_rules_unpool_roi.cc).
  const std::string ctm = node.GetString(
      "coordinate_transformation_mode",
      ctx.graph().opset >= 16 ? "half_pixel" : "output_half_pixel");
  std::vector<int64_t> ip = {x[0], x[1], x[2], x[3], y[0], y[2], y[3],
                             node.GetInt("sampling_ratio", 0),
                             node.GetString("mode", "avg") == "max" ? 1 : 0,
                             ctm == "half_pixel" ? 1 : 0};
  std::vector<float> fp = {node.GetFloat("spatial_scale", 1.0f)};
  KILN_ASSIGN_OR_RETURN(std::vector<Binding> b, BindAll(ctx, node, {0, 1, 2}));
  return ctx.Dispatch(node, "roi_align_f32", std::move(ip), std::move(fp), b);
}

}  // namespace

void RegisterUnpoolRoiLowerings(LoweringTable& table) {
  table["MaxUnpool"] = LowerMaxUnpool;
  table["RoiAlign"] = LowerRoiAlign;
}

}  // namespace kiln::compiler::emit
