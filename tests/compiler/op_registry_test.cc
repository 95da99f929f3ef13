// The op declarations of compiler/ops/ (op_def.h): each is complete and
// declared once, and the passes see them (supported, symbolic).
#include <set>
#include <string>

#include "compiler/ops/op_registry.h"
#include "compiler/passes/op_support.h"
#include "gtest/gtest.h"

namespace kiln::compiler {
namespace {

TEST(OpRegistry, EveryDeclarationIsCompleteAndUnique) {
  ASSERT_FALSE(AllOpDefs().empty());
  std::set<std::string> seen;
  for (const OpDef& def : AllOpDefs()) {
    EXPECT_TRUE(seen.insert(def.op_type).second) << def.op_type << " is declared twice";
    // No lowering only with the reason none is needed, and never both.
    EXPECT_NE(static_cast<bool>(def.lower), def.no_kernel != nullptr) << def.op_type;
    EXPECT_EQ(FindOpDef(def.op_type), &def);
    if (def.internal) continue;  // made by a pass after shape inference
    // Without a rule only an op that never reaches shape inference (Constant).
    EXPECT_TRUE(def.shape != nullptr || def.no_kernel != nullptr) << def.op_type;
    EXPECT_NE(IsKernelOp(def.op_type), def.fold_only) << def.op_type;
  }
}

// A declared run-time input comes with the rules that apply to it, and a
// parameter range is a range; a fold rule has its evaluator.
TEST(OpRegistry, RunTimeInputAndFoldDeclarationsAreComplete) {
  int shape_inputs = 0, param_ops = 0;
  for (const OpDef& def : AllOpDefs()) {
    if (def.runtime_shape.input >= 0) {
      ++shape_inputs;
      EXPECT_NE(def.runtime_shape.declared, nullptr) << def.op_type;
    } else {
      EXPECT_EQ(def.runtime_shape.declared, nullptr) << def.op_type;
      EXPECT_EQ(def.runtime_shape.after_run, nullptr) << def.op_type;
    }
    if (def.runtime_params.first >= 0) {
      ++param_ops;
      EXPECT_LE(def.runtime_params.first, def.runtime_params.last) << def.op_type;
      EXPECT_NE(def.runtime_params.declared, nullptr) << def.op_type;
      EXPECT_NE(def.runtime_params.after_run, nullptr) << def.op_type;
    }
    if (def.fold.needs != FoldRule::Needs::kKnownInputs || def.fold.required_inputs != 0) {
      EXPECT_NE(def.fold.fn, nullptr) << def.op_type;
    }
  }
  // Reshape, Squeeze, Unsqueeze, Expand, Tile, Split, ConstantOfShape,
  // OneHot, Resize; Slice, Pad, Range and the ten Reduce*.
  EXPECT_EQ(shape_inputs, 9);
  EXPECT_EQ(param_ops, 13);
  EXPECT_EQ(FindOpDef("Squeeze")->runtime_shape.since_opset, 13);
  EXPECT_EQ(FindOpDef("Slice")->runtime_params.since_opset, 10);
}

TEST(OpRegistry, AnOpOnlyAPassMakesIsNotAnOnnxOp) {
  const OpDef* silu = FindOpDef("Silu");  // dispatch formation's Sigmoid * x
  ASSERT_NE(silu, nullptr);
  EXPECT_TRUE(silu->internal);
  EXPECT_FALSE(IsKernelOp("Silu"));
  EXPECT_TRUE(IsKernelOp("Sigmoid"));
}

TEST(OpRegistry, LooksUpTheDefaultDomainOnly) {
  ir::Node node;
  node.op_type = "BitwiseAnd";
  ASSERT_NE(FindOpDef(node), nullptr);
  node.domain = "ai.onnx";
  EXPECT_NE(FindOpDef(node), nullptr);
  node.domain = "com.example";
  EXPECT_EQ(FindOpDef(node), nullptr);
  EXPECT_EQ(FindOpDef("NoSuchOp"), nullptr);
}

}  // namespace
}  // namespace kiln::compiler
