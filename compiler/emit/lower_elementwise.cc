// Standalone BatchNormalization (one folded into a convolution never gets here).
#include <cmath>
#include <memory>

#include "absl/strings/str_cat.h"
#include "compiler/emit/lower_ops.h"
#include "compiler/passes/dispatch_formation.h"
#include "kiln/kernels.h"

namespace kiln::compiler::emit {
namespace {

// Inference BatchNormalization as y = x * scale'[c] + shift'[c].
absl::Status LowerBatchNorm(LoweringContext& ctx, const ir::Node& node) {
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
  KILN_ASSIGN_OR_RETURN(Binding bx, ctx.Bind(node, node.inputs[0]));
  KILN_ASSIGN_OR_RETURN(Binding by, ctx.Bind(node, node.outputs[0]));
  const Binding bs = ctx.BindNewConstant(absl::StrCat(node.name, ".scale"), scale);
  const Binding bh = ctx.BindNewConstant(absl::StrCat(node.name, ".shift"), shift);
  const Epilogue act = EpilogueOf(node);
  kernel::ChannelAffineF32 affine;
  affine.N = x[0];
  affine.C = c;
  affine.spatial = spatial;
  affine.activation = act.kind;
  affine.act_alpha = act.alpha;
  affine.act_beta = act.beta;
  return ctx.Dispatch(node, affine, {bx, bs, bh, by});
}

}  // namespace

void RegisterElementwiseLowerings(LoweringTable& table) {
  table["BatchNormalization"] = LowerBatchNorm;
}

}  // namespace kiln::compiler::emit
