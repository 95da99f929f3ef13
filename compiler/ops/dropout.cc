// Dropout: in inference an alias of its input; a node that may train (or
// whose mask is wanted) runs the dropout kernel (dropout.h says when).
#include "compiler/ops/dropout.h"

#include "absl/strings/str_cat.h"
#include "compiler/ir/graph_util.h"
#include "compiler/ops/op_def.h"

namespace kiln::compiler {
namespace {

// The float types the dropout kernel takes (not bfloat16).
bool IsDropoutFloat(ir::DType t) {
  return t == ir::DType::F32 || t == ir::DType::F64 || t == ir::DType::F16;
}

// True when the known constant `d` is a single false.
bool KnownFalse(const ir::ConstantData* d) {
  return d != nullptr && !d->symbolic && d->element_count() == 1 && d->IntAt(0) == 0;
}

}  // namespace

bool DropoutMayTrain(const ir::Graph& graph, const ir::Node& node) {
  if (node.inputs.size() < 3 || node.inputs[2] == ir::kNoValue) return false;
  return !KnownFalse(graph.value(node.inputs[2]).constant.get());
}

namespace {

absl::Status DropoutShape(ShapeRuleContext& c) {
  if (absl::Status s = c.Need(1); !s.ok()) return s;
  const bool mask = c.HasOut(1);
  const bool kernel = c.Has(2) && (mask || !KnownFalse(c.C(2)));
  c.node().SetInt("kiln.dropout_kernel", kernel ? 1 : 0);
  if (kernel) {
    if (!IsDropoutFloat(c.T(0))) {
      return c.Err(absl::StrCat("data must be a float tensor, got ", ir::DTypeName(c.T(0))));
    }
    if (c.Has(1) && (!IsDropoutFloat(c.T(1)) || ir::ElementCount(c.S(1)) != 1)) {
      return c.Err(absl::StrCat("ratio must be one float value, got ", ir::DTypeName(c.T(1)), " ",
                                ir::ShapeStr(c.S(1))));
    }
    if (const ir::ConstantData* r = c.C(1); r && !r->symbolic && r->element_count() == 1 &&
                                            !(r->FloatAt(0) >= 0.0 && r->FloatAt(0) < 1.0)) {
      return c.Err(absl::StrCat("ratio ", r->FloatAt(0), " is outside [0, 1)"));
    }
    if (c.T(2) != ir::DType::Bool || ir::ElementCount(c.S(2)) != 1) {
      return c.Err(absl::StrCat("training_mode must be one bool value, got ",
                                ir::DTypeName(c.T(2)), " ", ir::ShapeStr(c.S(2))));
    }
  }
  if (absl::Status s = c.Set(0, c.T(0), c.S(0)); !s.ok()) return s;
  return c.Set(1, ir::DType::Bool, c.S(0));
}

bool DropoutIsAlias(const ir::Node& node) { return node.GetInt("kiln.dropout_kernel", 0) == 0; }

}  // namespace

void RegisterDropoutOps(std::vector<OpDef>& ops) {
  OpDef dropout{"Dropout", DropoutShape, /*symbolic=*/true, emit::LowerDropout};
  dropout.alias = DropoutIsAlias;
  dropout.fold = {FoldDropout, FoldRule::Needs::kKnownInputs, 1};
  ops.push_back(dropout);
}

}  // namespace kiln::compiler
