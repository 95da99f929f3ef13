// BatchNormalization. Inference mode lowers to channel_affine_f32 with the
// scale and shift folded here (passes/batchnorm_fold.cc folds one after a
// convolution into its weights, so it never gets here); training mode is
// expanded into elementwise ops before lowering (passes/norm_expand.cc).
// Dims may be symbolic.
#include <cmath>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/ir/graph_util.h"
#include "compiler/ops/op_def.h"
#include "compiler/passes/norm_expand.h"
#include "compiler/passes/symbolic_support.h"

namespace kiln::compiler {
namespace {

using ir::ShapeStr;
using Shape = std::vector<int64_t>;
using emit::Epilogue;
using emit::EpilogueOf;

absl::Status BatchNormShape(ShapeRuleContext& c) {
  KILN_RETURN_IF_ERROR(c.Need(5));
  // Training mode (norm_expand.cc) gives the running mean and variance as
  // outputs 1 and 2; opsets before 14 also name the batch's own statistics.
  for (size_t k = 3; k < c.node().outputs.size(); ++k) {
    if (c.HasOut(k)) return c.Err("the saved mean/variance outputs (opset < 14) are not supported");
  }
  const Shape& x = c.S(0);
  if (x.size() < 2) return c.Err(absl::StrCat("input ", ShapeStr(x), " must have rank >= 2"));
  for (size_t k = 1; k < 5; ++k) {
    if (c.S(k) != Shape{x[1]}) {
      return c.Err(absl::StrCat("parameter '", c.In(k).name, "' has shape ", ShapeStr(c.S(k)),
                                ", expected [", c.dims().ToString(x[1]), "] for input ",
                                SymbolicShapeStr(c.graph(), x)));
    }
  }
  if (BatchNormTrains(c.node()) && c.T(0) != ir::DType::F32) {
    return c.Err(absl::StrCat("training mode takes float32 only, not ", ir::DTypeName(c.T(0))));
  }
  KILN_RETURN_IF_ERROR(c.Set(1, c.T(0), {x[1]}));
  KILN_RETURN_IF_ERROR(c.Set(2, c.T(0), {x[1]}));
  return c.Set(0, c.T(0), x);
}

// Inference BatchNormalization as y = x * scale'[c] + shift'[c].
absl::Status LowerBatchNorm(emit::LoweringContext& ctx, const ir::Node& node) {
  KILN_RETURN_IF_ERROR(ctx.RequireF32(node));
  for (size_t k = 1; k < node.outputs.size(); ++k) {
    if (node.outputs[k] != ir::kNoValue) return ctx.Unimplemented(node, "training mode outputs");
  }
  if (node.inputs.size() < 5) return ctx.Invalid(node, "expects 5 inputs");
  KILN_ASSIGN_OR_RETURN(auto x, ctx.InputShape(node, 0));
  if (x.size() < 2) return ctx.Invalid(node, "input rank must be at least 2");
  const int64_t c = x[1];
  const ir::ConstantData* p[4];
  for (int k = 0; k < 4; ++k) {
    const ir::Value& v = ctx.value(node.inputs[1 + k]);
    if (!v.constant || v.constant->element_count() != c) {
      return ctx.Unimplemented(node, absl::StrCat("input '", v.name, "' must be a constant of ", c,
                                                  " elements"));
    }
    p[k] = v.constant.get();
  }
  const double eps = node.GetFloat("epsilon", 1e-5f);
  auto scale = std::make_shared<ir::ConstantData>();
  auto shift = std::make_shared<ir::ConstantData>();
  for (auto* t : {scale.get(), shift.get()}) {
    t->dtype = ir::DType::F32;
    t->shape = {c};
    t->bytes.resize(static_cast<size_t>(c) * sizeof(float));
  }
  float* sd = reinterpret_cast<float*>(scale->bytes.data());
  float* hd = reinterpret_cast<float*>(shift->bytes.data());
  for (int64_t ch = 0; ch < c; ++ch) {
    const double s = p[0]->FloatAt(ch) / std::sqrt(p[3]->FloatAt(ch) + eps);
    sd[ch] = static_cast<float>(s);
    hd[ch] = static_cast<float>(p[1]->FloatAt(ch) - p[2]->FloatAt(ch) * s);
  }
  const int64_t spatial = ctx.dims().Product(std::vector<int64_t>(x.begin() + 2, x.end()));
  KILN_ASSIGN_OR_RETURN(emit::Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(emit::Binding by, ctx.Bind(node, node.outputs[0]));
  const emit::Binding bs = ctx.BindNewConstant(absl::StrCat(node.name, ".scale"), scale);
  const emit::Binding bh = ctx.BindNewConstant(absl::StrCat(node.name, ".shift"), shift);
  const Epilogue act = EpilogueOf(node);
  emit::kernel::ChannelAffineF32 affine;
  affine.N = x[0];
  affine.C = c;
  affine.spatial = spatial;
  affine.activation = act.kind;
  affine.act_alpha = act.alpha;
  affine.act_beta = act.beta;
  return ctx.Dispatch(node, affine, {bx, bs, bh, by});
}

}  // namespace

void RegisterBatchNormOps(std::vector<OpDef>& ops) {
  ops.push_back({"BatchNormalization", BatchNormShape, /*symbolic=*/true, LowerBatchNorm});
}

}  // namespace kiln::compiler
