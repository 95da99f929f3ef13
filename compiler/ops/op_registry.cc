#include "compiler/ops/op_registry.h"

#include <map>

namespace kiln::compiler {

const std::vector<OpDef>& AllOpDefs() {
  static const std::vector<OpDef>* ops = [] {
    auto* v = new std::vector<OpDef>;
    RegisterBitwiseOps(*v);
    RegisterGridSampleOps(*v);
    RegisterTopKOps(*v);
    RegisterLossOps(*v);
    RegisterTfIdfOps(*v);
    RegisterUnpoolRoiOps(*v);
    RegisterQuantizedOps(*v);
    RegisterSpectralOps(*v);
    RegisterNormalizationOps(*v);
    RegisterIndexingOps(*v);
    RegisterLinearOps(*v);
    RegisterRecurrentOps(*v);
    RegisterSoftmaxOps(*v);
    RegisterConvOps(*v);
    RegisterPoolOps(*v);
    RegisterReduceOps(*v);
    RegisterElementwiseOps(*v);
    RegisterBatchNormOps(*v);
    RegisterLogicOps(*v);
    RegisterCastOps(*v);
    RegisterMovementOps(*v);
    RegisterReshapeOps(*v);
    RegisterSliceOps(*v);
    RegisterPadOps(*v);
    RegisterReplicateOps(*v);
    RegisterSplitOps(*v);
    RegisterShapeValueOps(*v);
    RegisterDataDependentOps(*v);
    RegisterDropoutOps(*v);
    RegisterControlFlowOps(*v);
    RegisterResizeOps(*v);
    return v;
  }();
  return *ops;
}

const OpDef* FindOpDef(const std::string& op_type) {
  static const std::map<std::string, const OpDef*>* index = [] {
    auto* m = new std::map<std::string, const OpDef*>;
    // The first declaration wins; tests/compiler/op_registry_test.cc checks
    // that there is only one per op.
    for (const OpDef& d : AllOpDefs()) m->emplace(d.op_type, &d);
    return m;
  }();
  const auto it = index->find(op_type);
  return it == index->end() ? nullptr : it->second;
}

const OpDef* FindOpDef(const ir::Node& node) {
  const bool default_domain = node.domain.empty() || node.domain == "ai.onnx";
  return default_domain ? FindOpDef(node.op_type) : nullptr;
}

}  // namespace kiln::compiler
