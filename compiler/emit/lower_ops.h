// Internal to compiler/emit: the per-op lowering registry and small helpers.
#ifndef KILN_COMPILER_EMIT_LOWER_OPS_H_
#define KILN_COMPILER_EMIT_LOWER_OPS_H_

#include <algorithm>
#include <functional>
#include <map>
#include <string>

#include "compiler/emit/lowering_context.h"
#include "compiler/status_macros.h"

namespace kiln::compiler::emit {

using LowerFn = std::function<absl::Status(LoweringContext&, const ir::Node&)>;
using LoweringTable = std::map<std::string, LowerFn>;

// The fused activation dispatch formation put on a node (none if absent).
struct Epilogue {
  int64_t kind = 0;
  float alpha = 0.0f;
  float beta = 0.0f;
};
Epilogue EpilogueOf(const ir::Node& node);

// Bindings of the node's inputs `inputs` (in that order), then of output 0:
// the binding list of a kernel that reads those inputs and writes one output.
absl::StatusOr<std::vector<Binding>> BindAll(LoweringContext& ctx, const ir::Node& node,
                                             const std::vector<size_t>& inputs);

void RegisterSpatialLowerings(LoweringTable& table);     // lower_spatial.cc
void RegisterLinearLowerings(LoweringTable& table);      // lower_linear.cc
void RegisterElementwiseLowerings(LoweringTable& table); // lower_elementwise.cc
void RegisterMovementLowerings(LoweringTable& table);    // lower_movement.cc
void RegisterIndexingLowerings(LoweringTable& table);    // lower_indexing.cc
void RegisterCopyLowerings(LoweringTable& table);        // lower_copy_ops.cc
void RegisterResizeLowerings(LoweringTable& table);      // lower_resize.cc
void RegisterNNExtraLowerings(LoweringTable& table);     // lower_nn_extra.cc
void RegisterRecurrentLowerings(LoweringTable& table);   // lower_rnn.cc
void RegisterMathLowerings(LoweringTable& table);        // lower_math.cc
void RegisterExtraLowerings(LoweringTable& table);        // lower_extra.cc
void RegisterTypedLowerings(LoweringTable& table);       // lower_typed.cc (after the others)
void RegisterConv3dLowerings(LoweringTable& table);      // lower_conv3d.cc (wraps Conv, ConvTranspose)
void RegisterMoreLowerings(LoweringTable& table);        // lower_more.cc (wraps MaxPool)
void RegisterShapeCheckLowerings(LoweringTable& table);  // lower_shape_check.cc (ConstantOfShape)
// lower_runtime_params.cc: Slice/Pad/Reduce*/Range with run-time parameter values.
void RegisterRuntimeParamLowerings(LoweringTable& table);
// lower_data_dependent.cc: NonZero/Compress/Unique/NonMaxSuppression for a declared
// output shape; Dropout with a run-time training_mode.
void RegisterDataDependentLowerings(LoweringTable& table);
// lower_resize_rt.cc: Resize with run-time scales or roi (wraps Resize).
void RegisterResizeRtLowerings(LoweringTable& table);
// A new float32 constant [values] bound as a kernel input (lower_resize_rt.cc).
Binding BindFloats(LoweringContext& ctx, const ir::Node& node, const char* what,
                   const std::vector<float>& values);
// lower_resize_sym.cc: Resize over symbolic dims (wraps Resize, after the above).
void RegisterResizeSymbolicLowerings(LoweringTable& table);
void RegisterGridSampleLowerings(LoweringTable& table);  // lower_grid_sample.cc
// lower_training.cc: ai.onnx.preview.training Adagrad/Adam/Momentum, registered
// as "ai.onnx.preview.training:<Op>" (lower_node.cc looks non-default domains up so).
void RegisterTrainingLowerings(LoweringTable& table);
void RegisterUnpoolRoiLowerings(LoweringTable& table);  // lower_unpool_roi.cc
void RegisterControlFlowLowerings(LoweringTable& table);  // lower_control_flow.cc (If, Loop, Scan)
void RegisterTfIdfLowerings(LoweringTable& table);  // lower_tfidf.cc (TfIdfVectorizer)
void RegisterSpectralLowerings(LoweringTable& table);  // lower_spectral.cc (DFT, STFT)
// The kiln_reduce_kind of a Reduce* op type (KILN_REDUCE_SUM, ...); -1 for
// any other op. lower_math.cc
int64_t ReduceKind(const std::string& op);
// A shape_check dispatch when `node`'s shape-like input is a run-time value
// (passes/shape_rules_runtime.h); nothing otherwise. lower_shape_check.cc
absl::Status LowerShapeInputCheck(LoweringContext& ctx, const ir::Node& node);

}  // namespace kiln::compiler::emit

#endif  // KILN_COMPILER_EMIT_LOWER_OPS_H_
