// MaxUnpool → max_unpool and RoiAlign → roi_align_f32.
//
// MaxUnpool's output is the shape its kernel, strides and pads infer from X,
// or the output_shape input: its compile-time value, or, when it arrives at
// run time, the model's declared static output shape (lowering then checks
// the run-time value against it, as shape_rules_runtime.h does). The
// inferred shape, which the indices address, is recorded as the attribute
// kiln.unpool_inferred.
//
// RoiAlign's output is [num_rois, C, output_height, output_width]; its
// regions and batch indices are run-time data, checked by the kernel.
//
// A run-time output_shape of MaxUnpool is first checked against the declared
// output shape (shape_check EXACT), or without one reported (shape_resolve).
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/ir/graph_util.h"
#include "compiler/ops/op_def.h"
#include "kiln/kernel_abi.h"
#include "kiln/kernels.h"

namespace kiln::compiler {
namespace {

using emit::BindAll;
using emit::Binding;
using emit::LoweringContext;
using ir::DType;
using ir::ShapeStr;
using Shape = std::vector<int64_t>;
using Ctx = ShapeRuleContext;

absl::Status RequireStaticInputs(Ctx& c) {
  if (c.StaticInputs()) return absl::OkStatus();
  return absl::UnimplementedError(absl::StrCat(c.graph().source, ": node ", c.node().Describe(),
                                               ": every input must have a static shape"));
}

// (X - 1) * stride + kernel - pad_begin - pad_end per spatial dim.
absl::Status InferredShape(Ctx& c, Shape* out) {
  const Shape& x = c.S(0);
  const size_t s = x.size() - 2;
  const ir::Node& n = c.node();
  if (!n.HasAttr("kernel_shape")) return c.Err("attribute 'kernel_shape' is required");
  const Shape kernel = n.GetInts("kernel_shape", {});
  const Shape strides = n.GetInts("strides", Shape(s, 1));
  const Shape pads = n.GetInts("pads", Shape(2 * s, 0));
  if (kernel.size() != s || strides.size() != s || pads.size() != 2 * s) {
    return c.Err(absl::StrCat("kernel_shape, strides and pads must have ", s, ", ", s, " and ",
                              2 * s, " entries for input ", ShapeStr(x)));
  }
  *out = {x[0], x[1]};
  for (size_t d = 0; d < s; ++d) {
    KILN_RETURN_IF_ERROR(c.Scale(kernel[d], "kernel_shape"));
    KILN_RETURN_IF_ERROR(c.Scale(strides[d], "strides"));
    if (!Ctx::Within(pads[d]) || !Ctx::Within(pads[s + d]) || pads[d] < 0 || pads[s + d] < 0) {
      return c.Err("pads must be non-negative and at most 2^40");
    }
    const __int128 v = (static_cast<__int128>(x[2 + d]) - 1) * strides[d] + kernel[d] - pads[d] -
                       pads[s + d];
    int64_t dim = 0;
    KILN_RETURN_IF_ERROR(c.Narrow(v, "the unpooled size", &dim));
    out->push_back(dim);
  }
  return absl::OkStatus();
}

absl::Status MaxUnpoolShape(Ctx& c) {
  KILN_RETURN_IF_ERROR(c.Need(2));
  KILN_RETURN_IF_ERROR(RequireStaticInputs(c));
  const Shape& x = c.S(0);
  const DType t = c.T(0);
  if (t != DType::F32 && t != DType::F64 && t != DType::F16) {
    return c.Err(absl::StrCat("X must be float16, float32 or float64, got ", ir::DTypeName(t)));
  }
  if (x.size() < 3 || x.size() > KILN_MAX_RANK) {
    return c.Err(absl::StrCat("X must have rank 3 to ", KILN_MAX_RANK, ", got ", ShapeStr(x)));
  }
  if (c.T(1) != DType::I64 || c.S(1) != x) {
    return c.Err(absl::StrCat("I must be int64 of X's shape ", ShapeStr(x), ", got ",
                              ir::DTypeName(c.T(1)), " ", ShapeStr(c.S(1))));
  }
  Shape inferred;
  KILN_RETURN_IF_ERROR(InferredShape(c, &inferred));
  Shape y = inferred;
  if (c.Has(2)) {
    if (c.T(2) != DType::I64 || c.Rank(2) != 1 || c.S(2)[0] != c.Rank(0)) {
      return c.Err(absl::StrCat("output_shape must be a 1-D int64 tensor of ", x.size(),
                                " entries, got ", ir::DTypeName(c.T(2)), " ", ShapeStr(c.S(2))));
    }
    if (c.C(2) != nullptr) {
      KILN_RETURN_IF_ERROR(c.KnownInts(2, "output_shape", &y));
    } else if (c.node().GetInt("kiln.result_dims", 0) != 0 ||
               (!c.DeclaredStatic(0, &y) && c.graph().scope.empty())) {
      // Without a declaration: the spatial dims are reported during the run
      // (shape_resolve EXACT), without a bound; max_unpool's checker holds
      // each to at least the unpooled one.
      const Shape x0 = x;  // appending the dims output may move the graph's values
      KILN_ASSIGN_OR_RETURN(const ir::ValueId dims,
                            c.ReportedDimsOutput(1, static_cast<int64_t>(x0.size())));
      y = {x0[0], x0[1]};
      for (size_t d = 2; d < x0.size(); ++d) {
        y.push_back(c.ReportedDim(dims, static_cast<int64_t>(d), ir::kNoBound, 0,
                                  absl::StrCat(".dim", d)));
      }
      c.node().SetInts("kiln.unpool_inferred", inferred);
      return c.Set(0, t, std::move(y));
    } else if (!c.DeclaredStatic(0, &y)) {
      return c.Err("output_shape is a run-time input inside a control-flow body; Kiln needs "
                   "the model to declare a fully static output shape");
    }
    bool ok = y.size() == x.size() && y[0] == x[0] && y[1] == x[1];
    for (size_t d = 2; ok && d < y.size(); ++d) ok = y[d] >= inferred[d] && Ctx::Within(y[d]);
    if (!ok) {
      return c.Err(absl::StrCat("output shape ", ShapeStr(y), " does not hold the unpooled shape ",
                                ShapeStr(inferred)));
    }
  }
  ir::Attribute a;
  a.kind = ir::Attribute::Kind::kInts;
  a.ints = inferred;
  c.node().attributes["kiln.unpool_inferred"] = std::move(a);
  return c.Set(0, t, y);
}

// Symbolic dims (a feature map of symbolic H and W, regions counted during
// the run by a detector's proposal stage) pass to the kernel as patched
// parameters; it checks them per run.
absl::Status RoiAlignShape(Ctx& c) {
  KILN_RETURN_IF_ERROR(c.Need(3));
  const Shape& x = c.S(0);
  if (c.T(0) != DType::F32 || x.size() != 4) {
    return c.Err(absl::StrCat("X must be a float32 [N, C, H, W] tensor, got ",
                              ir::DTypeName(c.T(0)), " ", ShapeStr(x)));
  }
  if (ir::IsSymbolic(x[1])) return c.Err("X's channel count must be static");
  if ((!ir::IsSymbolic(x[0]) && x[0] < 1) || (!ir::IsSymbolic(x[2]) && x[2] < 1) ||
      (!ir::IsSymbolic(x[3]) && x[3] < 1)) {
    return c.Err(absl::StrCat("X ", ShapeStr(x), " must have N, H and W of at least 1"));
  }
  const Shape& rois = c.S(1);
  if (c.T(1) != DType::F32 || rois.size() != 2 || rois[1] != 4 || c.Rank(2) != 1) {
    return c.Err(absl::StrCat("rois must be a float32 [num_rois, 4] tensor, got ",
                              ir::DTypeName(c.T(1)), " ", ShapeStr(rois)));
  }
  if (c.T(2) != DType::I64 || !c.graph().dims.SameDim(c.S(2)[0], rois[0])) {
    return c.Err(absl::StrCat("batch_indices must be an int64 [", rois[0], "] tensor, got ",
                              ir::DTypeName(c.T(2)), " ", ShapeStr(c.S(2))));
  }
  const ir::Node& n = c.node();
  const int64_t oh = n.GetInt("output_height", 1), ow = n.GetInt("output_width", 1);
  KILN_RETURN_IF_ERROR(c.Scale(oh, "output_height"));
  KILN_RETURN_IF_ERROR(c.Scale(ow, "output_width"));
  const int64_t sampling = n.GetInt("sampling_ratio", 0);
  if (sampling < 0 || sampling > Ctx::kMaxScale) {
    return c.Err(absl::StrCat("sampling_ratio must be in 0..2^20, got ", sampling));
  }
  const std::string mode = n.GetString("mode", "avg");
  if (mode != "avg" && mode != "max") return c.Err(absl::StrCat("unknown mode '", mode, "'"));
  // Opset 16 added the attribute with default half_pixel; before, regions
  // were read as output_half_pixel.
  const std::string ctm =
      n.GetString("coordinate_transformation_mode", c.opset() >= 16 ? "half_pixel"
                                                                     : "output_half_pixel");
  if (ctm != "half_pixel" && ctm != "output_half_pixel") {
    return c.Err(absl::StrCat("unknown coordinate_transformation_mode '", ctm, "'"));
  }
  return c.Set(0, DType::F32, {rois[0], x[1], oh, ow});
}


// Without a declared output shape, the value's dims are reported instead
// (shape_resolve; N and C capped at X's, the spatial dims without a cap).
absl::Status CheckRuntimeOutputShape(LoweringContext& ctx, const ir::Node& node,
                                     const Shape& x, const Shape& y) {
  if (node.inputs.size() < 3 || node.inputs[2] == ir::kNoValue) return absl::OkStatus();
  const ir::Value& v = ctx.value(node.inputs[2]);
  if (v.constant) return absl::OkStatus();  // shape inference read its value
  const bool reports = node.GetInt("kiln.result_dims", 0) != 0;
  emit::kernel::ShapeCheck check;
  check.mode = KILN_SHAPE_CHECK_EXACT;
  check.dtype = emit::KernelDTypeCode(v.dtype);
  check.count = static_cast<int64_t>(y.size());
  check.flag = 0;
  check.IR = 0;
  check.OR = static_cast<int64_t>(y.size());
  for (size_t d = 0; d < y.size(); ++d) check.out_dims.push_back(!reports ? y[d] : d < 2 ? x[d] : -1);
  KILN_ASSIGN_OR_RETURN(Binding b, ctx.Bind(node, node.inputs[2]));
  if (reports) {
    KILN_ASSIGN_OR_RETURN(Binding dims, ctx.Bind(node, node.outputs.back()));
    return ctx.Dispatch(node, emit::kernel::ShapeResolve(check), {b, dims});
  }
  return ctx.Dispatch(node, check, {b});
}

absl::Status LowerMaxUnpool(LoweringContext& ctx, const ir::Node& node) {
  KILN_ASSIGN_OR_RETURN(Shape x, ctx.InputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(Shape y, ctx.OutputShape(node, 0));
  KILN_RETURN_IF_ERROR(ctx.RequireStatic(node, x, "the input shape"));
  if (node.GetInt("kiln.result_dims", 0) == 0) {  // else reported dims, patched
    KILN_RETURN_IF_ERROR(ctx.RequireStatic(node, y, "the output shape"));
  }
  const Shape inferred = node.GetInts("kiln.unpool_inferred", {});
  if (inferred.size() != y.size() || y.size() > KILN_MAX_RANK) {
    return ctx.Invalid(node, "the unpooled shape is missing");
  }
  KILN_RETURN_IF_ERROR(CheckRuntimeOutputShape(ctx, node, x, y));
  emit::kernel::MaxUnpool unpool;
  unpool.elem_bytes = emit::ElemBytes(ctx, node.inputs[0]);
  unpool.n = ir::ElementCount(x);
  unpool.R = static_cast<int64_t>(y.size());
  unpool.inferred_dims = inferred;
  unpool.out_dims = y;
  KILN_ASSIGN_OR_RETURN(Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding bi, ctx.Bind(node, node.inputs[1]));
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  return ctx.Dispatch(node, unpool, {bx, bi, by});
}

absl::Status LowerRoiAlign(LoweringContext& ctx, const ir::Node& node) {
  KILN_ASSIGN_OR_RETURN(Shape x, ctx.InputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(Shape y, ctx.OutputShape(node, 0));
  if (x.size() != 4 || y.size() != 4) return ctx.Invalid(node, "X and Y must be 4-D");
  // Defaults as RoiAlignShape read them.
  const std::string ctm = node.GetString(
      "coordinate_transformation_mode",
      ctx.graph().opset >= 16 ? "half_pixel" : "output_half_pixel");
  emit::kernel::RoiAlignF32 roi;
  roi.N = x[0];
  roi.C = x[1];
  roi.H = x[2];
  roi.W = x[3];
  roi.num_rois = y[0];
  roi.OH = y[2];
  roi.OW = y[3];
  roi.sampling_ratio = node.GetInt("sampling_ratio", 0);
  roi.mode = node.GetString("mode", "avg") == "max" ? 1 : 0;
  roi.half_pixel = ctm == "half_pixel" ? 1 : 0;
  roi.spatial_scale = node.GetFloat("spatial_scale", 1.0f);
  KILN_ASSIGN_OR_RETURN(std::vector<Binding> b, BindAll(ctx, node, {0, 1, 2}));
  return ctx.Dispatch(node, roi, b);
}

}  // namespace

void RegisterUnpoolRoiOps(std::vector<OpDef>& ops) {
  // Symbolic: the output dims a run-time output_shape gives without a declaration.
  ops.push_back({"MaxUnpool", MaxUnpoolShape, /*symbolic=*/true, LowerMaxUnpool});
  ops.push_back({"RoiAlign", RoiAlignShape, /*symbolic=*/true, LowerRoiAlign});
}

}  // namespace kiln::compiler
