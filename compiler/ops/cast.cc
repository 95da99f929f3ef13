// Cast and CastLike (cast): any dtype to any other, the target from the `to`
// attribute or from the second input's dtype. Constant inputs fold
// (passes/fold_eval.cc); a cast of a symbolic size to int64 folds
// (passes/symbolic_support.cc). Dims may be symbolic.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/ir/graph_util.h"
#include "compiler/ops/op_def.h"

namespace kiln::compiler {
namespace {

using ir::DType;
using Shape = std::vector<int64_t>;

absl::Status CastShape(ShapeRuleContext& c) {
  KILN_RETURN_IF_ERROR(c.Need(1));
  const DType to = ir::DTypeFromOnnx(c.node().GetInt("to", 0));
  if (to == DType::Unknown) {
    return c.Err(absl::StrCat("unsupported target type ", c.node().GetInt("to", 0)));
  }
  return c.Set(0, to, c.S(0));
}

// The target dtype is input 1's; only its dtype is read.
absl::Status CastLikeShape(ShapeRuleContext& c) {
  if (c.node().inputs.size() < 2) {
    return c.Err("expects 2 inputs");
  }
  for (size_t k = 0; k < 2; ++k) {
    if (c.node().inputs[k] == ir::kNoValue) return c.Err(absl::StrCat("input ", k, " is required"));
    if (!c.In(k).has_shape) return c.Err(absl::StrCat("input '", c.In(k).name, "' has no shape"));
  }
  const DType to = c.T(1);
  if (to == DType::Unknown) return c.Err("target_type input has no known dtype");
  if (c.node().outputs.empty() || c.node().outputs[0] == ir::kNoValue) return absl::OkStatus();
  ir::Value& v = c.graph().value(c.node().outputs[0]);
  v.dtype = to;
  v.shape = c.S(0);
  v.has_shape = true;
  return absl::OkStatus();
}

}  // namespace

void RegisterCastOps(std::vector<OpDef>& ops) {
  OpDef cast{"Cast", CastShape, /*symbolic=*/true, emit::LowerCast};
  cast.symbolic_values = SymbolicValueAtFirst;  // folded when to int64 (symbolic_support.h)
  cast.fold = {FoldCast, FoldRule::Needs::kKnownInputs, 1};
  ops.push_back(cast);
  ops.push_back({"CastLike", CastLikeShape, /*symbolic=*/true, emit::LowerCast});
}

}  // namespace kiln::compiler
