// The normalizations over one axis or the channels: LpNormalization
// (lp_norm_f32), LayerNormalization (layer_norm_f32, also what
// passes/layer_norm_fusion.cc makes of its decomposed form; symbolic outer
// dims), InstanceNormalization (instance_norm_f32) and LRN (lrn_f32).
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/ir/graph_util.h"
#include "compiler/ops/op_def.h"

namespace kiln::compiler {
namespace {

using ir::DType;
using ir::ShapeStr;
using Shape = std::vector<int64_t>;
using emit::AxisView;
using emit::BroadcastConstantF32;
using emit::HasInput;

// The product of the dims after N and C (all static).
int64_t SpatialSize(const Shape& x) {
  int64_t p = 1;
  for (size_t i = 2; i < x.size(); ++i) p *= x[i];
  return p;
}

absl::Status LpNormShape(ShapeRuleContext& c) {
  KILN_RETURN_IF_ERROR(c.Need(1));
  int64_t axis = 0;
  KILN_RETURN_IF_ERROR(c.Axis(c.node().GetInt("axis", -1), std::max<int64_t>(c.Rank(0), 1), &axis));
  const int64_t p = c.node().GetInt("p", 2);
  if (p != 1 && p != 2) return c.Err(absl::StrCat("p must be 1 or 2, got ", p));
  return c.Set(0, c.T(0), c.S(0));
}

absl::Status LayerNormShape(ShapeRuleContext& c) {
  KILN_RETURN_IF_ERROR(c.Need(2));
  const Shape& x = c.S(0);
  const int64_t r = c.Rank(0);
  int64_t axis = 0;
  KILN_RETURN_IF_ERROR(c.Axis(c.node().GetInt("axis", -1), r, &axis));
  const Shape norm(x.begin() + axis, x.end());
  for (size_t k = 1; k < 3; ++k) {
    if (!c.Has(k)) continue;
    Shape out;
    if (!ir::BroadcastShapes(c.S(k), norm, &out) || out != norm) {
      return c.Err(absl::StrCat(k == 1 ? "Scale" : "B", " of shape ", ShapeStr(c.S(k)),
                                " does not broadcast to the normalised shape ", ShapeStr(norm)));
    }
  }
  Shape stats(x.begin(), x.begin() + axis);
  stats.resize(x.size(), 1);
  KILN_RETURN_IF_ERROR(c.Set(0, c.T(0), x));
  KILN_RETURN_IF_ERROR(c.Set(1, DType::F32, stats));
  return c.Set(2, DType::F32, stats);
}

absl::Status InstanceNormShape(ShapeRuleContext& c) {
  KILN_RETURN_IF_ERROR(c.Need(3));
  const Shape& x = c.S(0);
  if (x.size() < 2) return c.Err(absl::StrCat("input ", ShapeStr(x), " must have rank >= 2"));
  for (size_t k = 1; k < 3; ++k) {
    if (c.S(k) != Shape{x[1]}) {
      return c.Err(absl::StrCat("input '", c.In(k).name, "' has shape ", ShapeStr(c.S(k)),
                                ", expected [", x[1], "]"));
    }
  }
  return c.Set(0, c.T(0), x);
}

absl::Status LrnShape(ShapeRuleContext& c) {
  KILN_RETURN_IF_ERROR(c.Need(1));
  if (c.Rank(0) < 2) return c.Err(absl::StrCat("input ", ShapeStr(c.S(0)), " must have rank >= 2"));
  if (c.node().GetInt("size", 0) < 1) return c.Err("size must be a positive integer");
  return c.Set(0, c.T(0), c.S(0));
}


absl::Status LowerLpNorm(emit::LoweringContext& ctx, const ir::Node& node) {
  KILN_RETURN_IF_ERROR(ctx.RequireF32(node));
  int64_t v[3];
  KILN_RETURN_IF_ERROR(AxisView(ctx, node, -1, false, v));
  KILN_ASSIGN_OR_RETURN(emit::Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(emit::Binding by, ctx.Bind(node, node.outputs[0]));
  emit::kernel::LpNormF32 lp;
  lp.outer = v[0];
  lp.n = v[1];
  lp.inner = v[2];
  lp.p = node.GetInt("p", 2);
  return ctx.Dispatch(node, lp, {bx, by});
}

absl::Status LowerLrn(emit::LoweringContext& ctx, const ir::Node& node) {
  KILN_RETURN_IF_ERROR(ctx.RequireF32(node));
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(emit::Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(emit::Binding by, ctx.Bind(node, node.outputs[0]));
  emit::kernel::LrnF32 lrn;
  lrn.N = x[0];
  lrn.C = x[1];
  lrn.spatial = SpatialSize(x);
  lrn.size = node.GetInt("size", 1);
  lrn.alpha = node.GetFloat("alpha", 1e-4f);
  lrn.beta = node.GetFloat("beta", 0.75f);
  lrn.bias = node.GetFloat("bias", 1.0f);
  return ctx.Dispatch(node, lrn, {bx, by});
}

absl::Status LowerInstanceNorm(emit::LoweringContext& ctx, const ir::Node& node) {
  KILN_RETURN_IF_ERROR(ctx.RequireF32(node));
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  KILN_ASSIGN_OR_RETURN(emit::Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(emit::Binding bs, ctx.Bind(node, node.inputs[1]));
  KILN_ASSIGN_OR_RETURN(emit::Binding bb, ctx.Bind(node, node.inputs[2]));
  KILN_ASSIGN_OR_RETURN(emit::Binding by, ctx.Bind(node, node.outputs[0]));
  emit::kernel::InstanceNormF32 norm;
  norm.N = x[0];
  norm.C = x[1];
  norm.spatial = SpatialSize(x);
  norm.epsilon = node.GetFloat("epsilon", 1e-5f);
  return ctx.Dispatch(node, norm, {bx, bs, bb, by});
}

absl::Status LowerLayerNorm(emit::LoweringContext& ctx, const ir::Node& node) {
  KILN_RETURN_IF_ERROR(ctx.RequireF32(node));
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  const int64_t rank = static_cast<int64_t>(x.size());
  int64_t axis = node.GetInt("axis", -1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return ctx.Invalid(node, "axis out of range");
  const Shape norm(x.begin() + axis, x.end());
  KILN_RETURN_IF_ERROR(ctx.RequireStatic(node, norm, "the normalised dims"));
  const int64_t outer = ctx.dims().Product(Shape(x.begin(), x.begin() + axis));
  const int64_t n = ir::ElementCount(norm);
  auto has_out = [&](size_t k) {
    return k < node.outputs.size() && node.outputs[k] != ir::kNoValue;
  };
  if (has_out(1) != has_out(2)) {
    return ctx.Unimplemented(node, "Mean and InvStdDev outputs must be requested together");
  }
  const bool stats = has_out(1);
  const bool has_bias = HasInput(node, 2);
  // Scale and B are read as [n]; a broadcast constant is expanded here.
  auto bind_param = [&](size_t k) -> absl::StatusOr<emit::Binding> {
    const ir::Value& v = ctx.value(node.inputs[k]);
    if (ir::ElementCount(v.shape) == n) return ctx.Bind(node, node.inputs[k]);
    if (!v.constant) {
      return ctx.Unimplemented(node, absl::StrCat("input '", v.name,
                                                  "' must have the normalised shape or be a constant"));
    }
    return ctx.BindNewConstant(absl::StrCat(node.name, ".param", k),
                               BroadcastConstantF32(*v.constant, norm, ctx.dims()));
  };
  KILN_ASSIGN_OR_RETURN(emit::Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(emit::Binding bs, bind_param(1));
  emit::Binding bb = bs;  // unread without a bias
  if (has_bias) {
    KILN_ASSIGN_OR_RETURN(bb, bind_param(2));
  }
  KILN_ASSIGN_OR_RETURN(emit::Binding by, ctx.Bind(node, node.outputs[0]));
  // Untouched without stats; not aliased to Y, or debug info would find
  // Y's value in a zero-byte binding.
  emit::Binding bm = bx, bi = bx;
  if (stats) {
    KILN_ASSIGN_OR_RETURN(bm, ctx.Bind(node, node.outputs[1]));
    KILN_ASSIGN_OR_RETURN(bi, ctx.Bind(node, node.outputs[2]));
  }
  emit::kernel::LayerNormF32 layer_norm;
  layer_norm.outer = outer;
  layer_norm.n = n;
  layer_norm.has_bias = has_bias ? 1 : 0;
  layer_norm.has_stats = stats ? 1 : 0;
  layer_norm.epsilon = node.GetFloat("epsilon", 1e-5f);
  return ctx.Dispatch(node, layer_norm, {bx, bs, bb, by, bm, bi},
                      {-1, -1, has_bias ? -1 : 0, -1, stats ? -1 : 0, stats ? -1 : 0});
}

// Expanded before lowering (float32) or refused there.
absl::Status MeanVarianceNormalization(ShapeRuleContext& c) {
  ir::Graph& g = c.graph();
  ir::Node& n = c.node();
  if (n.inputs.empty() || n.inputs[0] == ir::kNoValue || !g.value(n.inputs[0]).has_shape) {
    return c.Err("expects a shaped input");
  }
  const ir::Value& x = g.value(n.inputs[0]);
  return c.Set(0, x.dtype, x.shape);
}

}  // namespace

void RegisterNormalizationOps(std::vector<OpDef>& ops) {
  ops.push_back({"LpNormalization", LpNormShape, /*symbolic=*/false, LowerLpNorm});
  ops.push_back({"LayerNormalization", LayerNormShape, /*symbolic=*/true, LowerLayerNorm});
  ops.push_back({"InstanceNormalization", InstanceNormShape, /*symbolic=*/false,
                 LowerInstanceNorm});
  ops.push_back({"LRN", LrnShape, /*symbolic=*/false, LowerLrn});
  OpDef mvn{"MeanVarianceNormalization", MeanVarianceNormalization, /*symbolic=*/false, nullptr};
  mvn.no_kernel = "expanded into float32 elementwise ops (passes/norm_expand.cc)";
  ops.push_back(mvn);
}

}  // namespace kiln::compiler
