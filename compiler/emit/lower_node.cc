// Routes each node to its op's lowering.
#include "absl/strings/str_cat.h"
#include "compiler/emit/lower_ops.h"
#include "compiler/ops/op_registry.h"
#include "compiler/passes/dispatch_formation.h"
#include "compiler/passes/symbolic_support.h"

namespace kiln::compiler::emit {
namespace {

const LoweringTable& Table() {
  static const LoweringTable* table = [] {
    auto* t = new LoweringTable;
    RegisterShapeCheckLowerings(*t);
    RegisterTrainingLowerings(*t);   // "ai.onnx.preview.training:Adam", ...
    for (const OpDef& def : AllOpDefs()) {  // compiler/ops/
      if (def.lower) (*t)[def.op_type] = def.lower;
    }
    return t;
  }();
  return *table;
}

}  // namespace

Epilogue EpilogueOf(const ir::Node& node) {
  Epilogue e;
  e.kind = node.GetInt("kiln.activation", 0);
  e.alpha = node.GetFloat("kiln.act_alpha", 0.0f);
  e.beta = node.GetFloat("kiln.act_beta", 0.0f);
  return e;
}

absl::StatusOr<std::vector<Binding>> BindAll(LoweringContext& ctx, const ir::Node& node,
                                             const std::vector<size_t>& inputs) {
  std::vector<Binding> b;
  for (size_t k : inputs) {
    KILN_ASSIGN_OR_RETURN(Binding x, ctx.Bind(node, node.inputs[k]));
    b.push_back(x);
  }
  KILN_ASSIGN_OR_RETURN(Binding y, ctx.Bind(node, node.outputs[0]));
  b.push_back(y);
  return b;
}

namespace {

// True when the node writes nothing: every output is absent or has no
// elements. Such a node needs no dispatch (and no tables sized by its
// non-empty dims, which a crafted model can make huge).
bool WritesNothing(const LoweringContext& ctx, const ir::Node& node) {
  for (ir::ValueId v : node.outputs) {
    if (v != ir::kNoValue && ir::ElementCount(ctx.value(v).shape) != 0) return false;
  }
  return true;
}

}  // namespace

absl::Status LowerNode(LoweringContext& ctx, const ir::Node& node) {
  KILN_RETURN_IF_ERROR(compiler::CheckSymbolicSupport(ctx.graph(), node));
  // Before the op (even an alias or an empty one): a run-time shape input.
  KILN_RETURN_IF_ERROR(LowerShapeInputCheck(ctx, node));
  if (compiler::IsAliasNode(node)) return absl::OkStatus();  // shares its input's bytes
  if (WritesNothing(ctx, node)) return absl::OkStatus();
  const auto it = Table().find(node.domain.empty() ? node.op_type
                                                 : absl::StrCat(node.domain, ":", node.op_type));
  if (it == Table().end()) {
    return ctx.Unimplemented(node, "no kernel lowers this op");
  }
  return it->second(ctx, node);
}

}  // namespace kiln::compiler::emit
