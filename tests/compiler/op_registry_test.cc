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
