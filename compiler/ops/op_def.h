// One ONNX op as the compiler knows it, declared in one place: its op-family
// file under compiler/ops/ says that the op is supported, how its outputs'
// dtypes and shapes follow from its inputs, whether that rule and the
// lowering handle symbolic dims, and how it lowers to kernel dispatches.
// The passes (op support, shape inference, symbolic support) and the
// lowering read these declarations through op_registry.h.
//
// Ops not yet moved here are still listed in compiler/passes/op_support.cc,
// the shape_rules_*.cc files, symbolic_support.cc and compiler/emit/lower_*.cc
// (docs/adding-an-op.md).
#ifndef KILN_COMPILER_OPS_OP_DEF_H_
#define KILN_COMPILER_OPS_OP_DEF_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "compiler/emit/lower_ops.h"
#include "compiler/passes/shape_rule_context.h"

namespace kiln::compiler {

using ShapeRule = absl::Status (*)(ShapeRuleContext&);

struct OpDef {
  std::string op_type;  // in the default ONNX domain
  ShapeRule shape = nullptr;
  // The shape rule and the lowering do their dim arithmetic through the
  // graph's DimPool, so the op compiles when its inputs have symbolic dims.
  bool symbolic = false;
  emit::LowerFn lower;
  // Made by a pass (dispatch formation's Silu), not an ONNX op: a model that
  // names it is refused like any unknown op.
  bool internal = false;
};

// Each op-family file defines one of these; op_registry.cc calls them all.
void RegisterBitwiseOps(std::vector<OpDef>& ops);      // bitwise.cc
void RegisterGridSampleOps(std::vector<OpDef>& ops);   // grid_sample.cc
void RegisterTopKOps(std::vector<OpDef>& ops);         // topk.cc
void RegisterLossOps(std::vector<OpDef>& ops);         // loss.cc
void RegisterTfIdfOps(std::vector<OpDef>& ops);        // tfidf.cc
void RegisterUnpoolRoiOps(std::vector<OpDef>& ops);    // unpool_roi.cc
void RegisterQuantizedOps(std::vector<OpDef>& ops);    // quantized.cc
void RegisterSpectralOps(std::vector<OpDef>& ops);     // spectral.cc
void RegisterNormalizationOps(std::vector<OpDef>& ops);  // normalization.cc
void RegisterIndexingOps(std::vector<OpDef>& ops);     // indexing.cc
void RegisterLinearOps(std::vector<OpDef>& ops);       // linear.cc
void RegisterRecurrentOps(std::vector<OpDef>& ops);    // recurrent.cc
void RegisterSoftmaxOps(std::vector<OpDef>& ops);      // softmax.cc
void RegisterConvOps(std::vector<OpDef>& ops);         // conv.cc
void RegisterPoolOps(std::vector<OpDef>& ops);         // pool.cc
void RegisterReduceOps(std::vector<OpDef>& ops);       // reduce.cc
void RegisterElementwiseOps(std::vector<OpDef>& ops);  // elementwise.cc
void RegisterBatchNormOps(std::vector<OpDef>& ops);    // batch_norm.cc
void RegisterLogicOps(std::vector<OpDef>& ops);        // logic.cc
void RegisterCastOps(std::vector<OpDef>& ops);         // cast.cc
void RegisterMovementOps(std::vector<OpDef>& ops);     // movement.cc

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_OPS_OP_DEF_H_
