// Compile-time evaluators of single ops (fold_eval.cc, fold_movement.cc).
// Each op's declaration names its evaluator (compiler/ops/, OpDef::fold);
// EvaluateNode (constant_folding.h) runs it when the inputs it needs are
// known.
#ifndef KILN_COMPILER_PASSES_FOLD_EVAL_H_
#define KILN_COMPILER_PASSES_FOLD_EVAL_H_

#include <cstddef>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "compiler/ir/graph.h"

namespace kiln::compiler {

// One node under evaluation and the compile-time values known so far.
struct FoldContext {
  const ir::Graph& g;
  const ir::Node& n;
  const std::vector<ir::ConstantPtr>& known;

  // Input k's value, or null when absent or unknown.
  const ir::ConstantData* In(size_t k) const;
  const ir::Value& Out(size_t k) const { return g.value(n.outputs[k]); }
};

// The node's output values, or an empty vector when it does not fold.
using FoldResult = absl::StatusOr<std::vector<ir::ConstantPtr>>;
using FoldFn = FoldResult (*)(const FoldContext&);

struct FoldRule {
  FoldFn fn = nullptr;  // null: the op runs as a dispatch even on constants
  enum class Needs {
    kKnownInputs,  // output 0 shaped and small, every present input known
    kShapes,       // output 0 shaped and small; reads only input shapes
    kOwnChecks,    // the evaluator checks what it needs itself
  };
  Needs needs = Needs::kKnownInputs;
  // Inputs the evaluator reads unconditionally: a node without them is
  // refused (InvalidArgument) rather than read.
  size_t required_inputs = 0;
};

// A zero-filled tensor of `dtype` and `shape` for an evaluator to fill.
std::shared_ptr<ir::ConstantData> NewFoldedConstant(ir::DType dtype,
                                                    const std::vector<int64_t>& shape);

// fold_eval.cc
FoldResult FoldRelabel(const FoldContext& e);  // same bytes, output 0's shape
FoldResult FoldDropout(const FoldContext& e);  // inference: input and an all-true mask
FoldResult FoldShape(const FoldContext& e);
FoldResult FoldCast(const FoldContext& e);
FoldResult FoldGather(const FoldContext& e);
FoldResult FoldConcat(const FoldContext& e);
FoldResult FoldSlice(const FoldContext& e);
FoldResult FoldTranspose(const FoldContext& e);
FoldResult FoldExpand(const FoldContext& e);
FoldResult FoldWhere(const FoldContext& e);
// Add, Sub, Mul, Div, Pow, Min, Max and the comparisons.
FoldResult FoldBinary(const FoldContext& e);
// Min and Max of exactly two inputs (passes/expand_variadic.cc splits longer lists).
FoldResult FoldMinMax(const FoldContext& e);
// Floor, Ceil, Round, Abs, Neg, Sqrt, Reciprocal, Not.
FoldResult FoldUnary(const FoldContext& e);
FoldResult FoldConstantOfShape(const FoldContext& e);
FoldResult FoldRange(const FoldContext& e);
// ReduceSum, ReduceMean, ReduceProd, ReduceMax, ReduceMin.
FoldResult FoldReduce(const FoldContext& e);
// fold_movement.cc (own checks): Size of any shape (of symbolic dims: a
// symbolic value), EyeLike from its input's shape, Tile and Split of a
// known input.
FoldResult FoldSize(const FoldContext& e);
FoldResult FoldEyeLike(const FoldContext& e);
FoldResult FoldTile(const FoldContext& e);
FoldResult FoldSplit(const FoldContext& e);

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_PASSES_FOLD_EVAL_H_
