// Resize with run-time scales or roi (passes/shape_rules_resize_rt.h) →
// resize_rt_f32, which reads them, checks the scales against the compiled
// (declared) output shape and resamples with resize_core.h's math. Wraps the
// compile-time lowering (lower_resize.cc), which still takes every Resize
// whose scales and roi are constants. Without a declared output shape the
// dims are reported during the run (shape_resolve: RESIZE_SCALES here, the
// sizes by lower_shape_check.cc) and patched in; with sizes the kernel
// takes scales = out / in itself.
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "compiler/emit/lower_ops.h"
#include "compiler/emit/resize_method.h"
#include "compiler/ir/graph.h"
#include "compiler/passes/shape_rules_resize_rt.h"
#include "kiln/kernels.h"

namespace kiln::compiler::emit {
namespace {

using Shape = std::vector<int64_t>;

bool Given(const LoweringContext& ctx, const ir::Node& node, size_t k) {
  return k < node.inputs.size() && node.inputs[k] != ir::kNoValue &&
         ir::ElementCount(ctx.value(node.inputs[k]).shape) > 0;
}

}  // namespace

// A new float32 constant [values] bound in place of an absent input.
Binding BindFloats(LoweringContext& ctx, const ir::Node& node, const char* what,
                   const std::vector<float>& values) {
  auto data = std::make_shared<ir::ConstantData>();
  data->dtype = ir::DType::F32;
  data->shape = {static_cast<int64_t>(values.size())};
  const auto* bytes = reinterpret_cast<const uint8_t*>(values.data());
  data->bytes.assign(bytes, bytes + values.size() * sizeof(float));
  return ctx.BindNewConstant(absl::StrCat(node.name, ".", what), data);
}

absl::Status DispatchResizeRt(LoweringContext& ctx, const ir::Node& node,
                              const kiln_resize_method& m, const std::vector<int64_t>& x,
                              const std::vector<int64_t>& y, int64_t scales_mode, int64_t roi_dtype,
                              const std::vector<Binding>& bindings) {
  kernel::ResizeRtF32 resize;
  resize.R = static_cast<int64_t>(x.size());
  resize.mode = m.mode;
  resize.nearest_mode = m.nearest;
  resize.coordinate_transformation_mode = m.ctm;
  resize.exclude_outside = m.exclude_outside;
  resize.check_scales = scales_mode;
  resize.roi_dtype = roi_dtype;
  resize.in_dims = x;
  resize.out_dims = y;
  resize.cubic_coeff_a = static_cast<float>(m.cubic_a);
  resize.extrapolation_value = node.GetFloat("extrapolation_value", 0.0f);
  return ctx.Dispatch(node, resize, bindings);
}

absl::Status LowerResizeRt(LoweringContext& ctx, const ir::Node& node) {
  KILN_ASSIGN_OR_RETURN(Shape x, ctx.InputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(Shape y, ctx.OutputShape(node, 0));
  // Without a declaration the output dims are lengths shape_resolve reports
  // and the input's may be symbolic (both patched into the kernels'
  // parameters).
  const bool reports = node.GetInt("kiln.result_dims", 0) != 0;
  if (!reports) {
    KILN_RETURN_IF_ERROR(ctx.RequireStatic(node, x, "the input shape"));
    KILN_RETURN_IF_ERROR(ctx.RequireStatic(node, y, "the output shape"));
  }
  const size_t r = x.size();
  if (r > KILN_MAX_RANK || y.size() != r) return ctx.Unimplemented(node, "rank is too high");
  if (ctx.value(node.inputs[0]).dtype != ir::DType::F32) {
    return ctx.Unimplemented(node, "Resize supports float32 data only");
  }
  kiln_resize_method m;
  KILN_RETURN_IF_ERROR(ResizeMethodOf(ctx, node, &m));
  std::vector<Binding> b(4);
  KILN_ASSIGN_OR_RETURN(b[0], ctx.Bind(node, node.inputs[0]));
  // roi: only tf_crop_and_resize reads it; [0.., 1..] (the whole input) otherwise.
  int64_t roi_dtype = KILN_DTYPE_F32;
  if (m.ctm == KILN_RESIZE_TF_CROP_AND_RESIZE && Given(ctx, node, 1)) {
    roi_dtype = DTypeCode(ctx, node.inputs[1]);
    KILN_ASSIGN_OR_RETURN(b[1], ctx.Bind(node, node.inputs[1]));
  } else {
    std::vector<float> roi(2 * r, 0.0f);
    for (size_t d = 0; d < r; ++d) roi[r + d] = 1.0f;
    b[1] = BindFloats(ctx, node, "roi", roi);
  }
  // scales: the input, checked by the kernel; with sizes (checked by
  // shape_check) out / in, as the compile-time rule derives them.
  const bool check_scales = Given(ctx, node, 2);
  int64_t scales_mode = check_scales ? KILN_RESIZE_SCALES_CHECKED : KILN_RESIZE_SCALES_GIVEN;
  if (check_scales) {
    KILN_ASSIGN_OR_RETURN(b[2], ctx.Bind(node, node.inputs[2]));
    if (reports) {  // the lengths floor(in * scale), reported (run-time sizes: lower_shape_check.cc)
      KILN_ASSIGN_OR_RETURN(Binding dims, ctx.Bind(node, node.outputs.back()));
      const int64_t rank = static_cast<int64_t>(r);
      kernel::ShapeResolve resolve;
      resolve.mode = KILN_SHAPE_CHECK_RESIZE_SCALES;
      resolve.dtype = KILN_DTYPE_F32;
      resolve.count = rank;
      resolve.flag = 0;
      resolve.IR = rank;
      resolve.OR = rank;
      resolve.in_dims = x;
      resolve.out_dims = std::vector<int64_t>(r, -1);  // no caps
      KILN_RETURN_IF_ERROR(ctx.Dispatch(node, resolve, {b[2], dims}));
    }
  } else if (reports) {
    scales_mode = KILN_RESIZE_SCALES_FROM_SIZES;  // binding 2 is not read
    b[2] = BindFloats(ctx, node, "scales", std::vector<float>(r, 1.0f));
  } else {
    std::vector<float> scales(r, 1.0f);
    for (size_t d = 0; d < r; ++d) {
      if (x[d] != 0) scales[d] = static_cast<float>(y[d]) / static_cast<float>(x[d]);
    }
    b[2] = BindFloats(ctx, node, "scales", scales);
  }
  KILN_ASSIGN_OR_RETURN(b[3], ctx.Bind(node, node.outputs[0]));
  return DispatchResizeRt(ctx, node, m, x, y, scales_mode, roi_dtype, b);
}

}  // namespace kiln::compiler::emit
