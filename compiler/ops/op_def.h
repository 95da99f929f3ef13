// One ONNX op as the compiler knows it, declared in one place: its op-family
// file under compiler/ops/ says that the op is supported, how its outputs'
// dtypes and shapes follow from its inputs, whether that rule and the
// lowering handle symbolic dims, and how it lowers to kernel dispatches.
// The passes (op support, shape inference, symbolic support) and the
// lowering read these declarations through op_registry.h.
//
// Every default-domain op Kiln accepts is declared here; nothing else lists
// ops for support, shape rules (run-time inputs included), symbolic dims,
// folding or lowering (docs/adding-an-op.md). Optimization passes still match
// the op types they rewrite.
#ifndef KILN_COMPILER_OPS_OP_DEF_H_
#define KILN_COMPILER_OPS_OP_DEF_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "compiler/emit/lower_ops.h"
#include "compiler/passes/fold_eval.h"
#include "compiler/passes/shape_rules_runtime.h"
#include "compiler/passes/shape_rules_runtime_params.h"
#include "compiler/passes/shape_rule_context.h"

namespace kiln::compiler {

using ShapeRule = absl::Status (*)(ShapeRuleContext&);
// Whether input `input` may hold a value computed from symbolic dims (a
// shape value such as Shape(x)) that the op reads as dims or moves as data.
using SymbolicValueInputs = bool (*)(size_t input);
// Whether the node shares its first input's bytes instead of running a kernel.
using AliasTest = bool (*)(const ir::Node& node);
// A rule that claims some nodes of the op (true, its result in *status) and
// leaves the others to the next rules.
using ClaimingRule = bool (*)(ShapeRuleContext& c, absl::Status* status);

struct OpDef {
  std::string op_type;  // in the default ONNX domain
  ShapeRule shape = nullptr;
  // The shape rule and the lowering do their dim arithmetic through the
  // graph's DimPool, so the op compiles when its inputs have symbolic dims.
  bool symbolic = false;
  emit::LowerFn lower;
  // Without a lowering: why the op never reaches one (folded, expanded by a
  // pass, an alias); a node that does anyway is refused.
  const char* no_kernel = nullptr;
  SymbolicValueInputs symbolic_values = nullptr;
  AliasTest alias = nullptr;
  // How constant folding evaluates it (passes/fold_eval.h); none: a node on
  // constants runs as a dispatch.
  FoldRule fold = {};
  // A shape-like input that may be known only at run time (Reshape's shape):
  // checked against the declared output, or dims reported after the run.
  RuntimeShapeRule runtime_shape = {};
  // Parameter inputs that may be known only at run time (Slice's starts):
  // kernels read them, checked against the declared output or reporting it.
  RuntimeParamsRule runtime_params = {};
  // The op's own rule for inputs known only at run time, tried before the
  // two above (Resize's scales and roi: passes/shape_rules_resize_rt.h).
  ClaimingRule runtime_first = nullptr;
  // Evaluated at compile time only (constant folding), except where its
  // rule and lowering say otherwise (a run-time shape, symbolic sizes).
  bool fold_only = false;
  // Made by a pass (dispatch formation's Silu), not an ONNX op: a model that
  // names it is refused like any unknown op.
  bool internal = false;
};

// The common SymbolicValueInputs: the first input (data an op moves, or
// reads only the shape of), the first two (binary arithmetic on shape
// values, folded by passes/symbolic_fold.cc), any input.
inline bool SymbolicValueAtFirst(size_t input) { return input == 0; }
inline bool SymbolicValueAtFirstTwo(size_t input) { return input <= 1; }
inline bool SymbolicValueAnywhere(size_t) { return true; }

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
void RegisterReshapeOps(std::vector<OpDef>& ops);      // reshape.cc
void RegisterSliceOps(std::vector<OpDef>& ops);        // slice.cc
void RegisterPadOps(std::vector<OpDef>& ops);          // pad.cc
void RegisterReplicateOps(std::vector<OpDef>& ops);    // replicate.cc
void RegisterSplitOps(std::vector<OpDef>& ops);        // split.cc
void RegisterShapeValueOps(std::vector<OpDef>& ops);   // shape_values.cc
void RegisterDataDependentOps(std::vector<OpDef>& ops);  // data_dependent.cc
void RegisterDropoutOps(std::vector<OpDef>& ops);      // dropout.cc
void RegisterResizeOps(std::vector<OpDef>& ops);       // resize.cc
void RegisterControlFlowOps(std::vector<OpDef>& ops);  // if_loop_scan.cc

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_OPS_OP_DEF_H_
