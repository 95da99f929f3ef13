// Resize over symbolic dims (a dynamic batch, H and W scaled by constant
// scales, or resized to sizes that are symbolic or meet a symbolic input)
// → resize_rt_f32, whose taps are computed per output coordinate at run
// time: resize_f32's tap tables need every extent at compile time. The
// in/out dims are patched parameters; with scales the kernel verifies
// floor(in * scale) == out on every axis at run time, with sizes it
// derives each scale as out / in. Wraps the
// Resize lowering; static Resizes go on to it unchanged.
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "compiler/emit/lower_ops.h"
#include "compiler/emit/resize_method.h"
#include "compiler/ir/graph.h"
#include "compiler/passes/shape_rules_resize_rt.h"
#include "compiler/passes/symbolic_support.h"
#include "kiln/kernels.h"

namespace kiln::compiler::emit {
using Shape = std::vector<int64_t>;

absl::Status LowerResizeSymbolic(LoweringContext& ctx, const ir::Node& node) {
  KILN_ASSIGN_OR_RETURN(Shape x, ctx.InputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(Shape y, ctx.OutputShape(node, 0));
  const size_t r = x.size();
  if (r > KILN_MAX_RANK || y.size() != r) return ctx.Unimplemented(node, "rank is too high");
  if (ctx.value(node.inputs[0]).dtype != ir::DType::F32) {
    return ctx.Unimplemented(node, "Resize supports float32 data only");
  }
  kiln_resize_method m;
  KILN_RETURN_IF_ERROR(ResizeMethodOf(ctx, node, &m));
  if (m.ctm == KILN_RESIZE_TF_CROP_AND_RESIZE) {
    return ctx.Unimplemented(node, "tf_crop_and_resize over symbolic dimensions");
  }
  // The rule's scales (constant scales, or out / in of static axes).
  auto it = node.attributes.find("kiln.scales");
  if (it == node.attributes.end() || it->second.floats.size() != r) {
    return ctx.Invalid(node, "scales are missing");
  }
  std::vector<float> roi(2 * r, 0.0f);
  for (size_t d = 0; d < r; ++d) roi[r + d] = 1.0f;
  std::vector<Binding> b(4);
  KILN_ASSIGN_OR_RETURN(b[0], ctx.Bind(node, node.inputs[0]));
  b[1] = BindFloats(ctx, node, "roi", roi);
  b[2] = BindFloats(ctx, node, "scales", it->second.floats);
  KILN_ASSIGN_OR_RETURN(b[3], ctx.Bind(node, node.outputs[0]));
  const int64_t mode = node.GetInt("kiln.scales_from_sizes", 0) != 0 ? KILN_RESIZE_SCALES_FROM_SIZES
                                                                     : KILN_RESIZE_SCALES_CHECKED;
  return DispatchResizeRt(ctx, node, m, x, y, mode, KILN_DTYPE_F32, b);
}

}  // namespace kiln::compiler::emit
