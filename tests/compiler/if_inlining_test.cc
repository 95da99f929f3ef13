// An If whose condition folds to a constant is replaced by its taken branch
// while constants fold (passes/if_inlining.h): the branch's nodes write the
// If's outputs, a branch output that is a captured value or a repeated one
// becomes an Identity, and the branch not taken leaves nothing behind.
#include "compiler/passes/if_inlining.h"

#include <memory>

#include "compiler/ir/graph_util.h"
#include "compiler/passes/constant_folding.h"
#include "gtest/gtest.h"

namespace kiln::compiler {
namespace {

ir::ConstantPtr Bool(bool v) { return ir::MakeConstant(ir::DType::Bool, {}, {uint8_t{v}}); }

// A branch capturing x: (op(x), x) when the capture is its second output,
// else (op(x), op(x)).
std::shared_ptr<ir::Graph> Branch(const char* op, bool capture_second) {
  auto b = std::make_shared<ir::Graph>();
  const ir::ValueId c = b->AddValue("x");
  const ir::ValueId r = b->AddValue(std::string(op) + "_out");
  ir::Node n;
  n.name = op;
  n.op_type = op;
  n.inputs = {c};
  n.outputs = {r};
  b->AddNode(n);
  b->inputs = {c};
  b->outputs = {r, capture_second ? c : r};
  return b;
}

// then: (Relu(x), x)   else: (Neg(x), Neg(x)), x captured.
ir::Graph IfOnConstant(bool cond) {
  std::shared_ptr<ir::Graph> then_branch = Branch("Relu", true);
  std::shared_ptr<ir::Graph> else_branch = Branch("Neg", false);
  ir::Graph g;
  g.opset = 17;
  const ir::ValueId x = g.AddValue("x");
  g.value(x).dtype = ir::DType::F32;
  g.value(x).shape = {2, 3};
  g.value(x).has_shape = true;
  g.inputs = {x};
  const ir::ValueId c = g.AddConstant("cond", Bool(cond));
  ir::Node node;
  node.name = "if";
  node.op_type = "If";
  node.inputs = {c, x};
  node.outputs = {g.AddValue("y0"), g.AddValue("y1")};
  for (auto [key, branch] : {std::pair<const char*, std::shared_ptr<ir::Graph>>{"then_branch", then_branch},
                             std::pair<const char*, std::shared_ptr<ir::Graph>>{"else_branch", else_branch}}) {
    ir::Attribute a;
    a.kind = ir::Attribute::Kind::kGraph;
    a.graph = branch;
    node.attributes[key] = a;
  }
  node.SetInt(ir::kCaptureCountAttr, 1);
  g.outputs = node.outputs;
  g.AddNode(node);
  return g;
}

TEST(IfInlining, TheTakenBranchWritesTheOutputs) {
  ir::Graph g = IfOnConstant(true);
  ASSERT_TRUE(FoldConstants(g).ok());
  ASSERT_EQ(g.nodes.size(), 2u);
  EXPECT_EQ(g.nodes[0].op_type, "Relu");
  EXPECT_EQ(g.nodes[0].name, "if/Relu");
  EXPECT_EQ(g.nodes[0].inputs, std::vector<ir::ValueId>{g.inputs[0]});
  EXPECT_EQ(g.nodes[0].outputs, std::vector<ir::ValueId>{g.outputs[0]});
  // The captured x as an output: an Identity.
  EXPECT_EQ(g.nodes[1].op_type, "Identity");
  EXPECT_EQ(g.nodes[1].inputs, std::vector<ir::ValueId>{g.inputs[0]});
  EXPECT_EQ(g.nodes[1].outputs, std::vector<ir::ValueId>{g.outputs[1]});
  for (ir::ValueId out : g.outputs) {
    EXPECT_EQ(g.value(out).shape, (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(g.value(g.nodes[0].outputs[0]).producer, 0);
  }
}

TEST(IfInlining, ARepeatedBranchOutputIsCopied) {
  ir::Graph g = IfOnConstant(false);
  ASSERT_TRUE(FoldConstants(g).ok());
  ASSERT_EQ(g.nodes.size(), 2u);
  EXPECT_EQ(g.nodes[0].op_type, "Neg");
  EXPECT_EQ(g.nodes[0].outputs, std::vector<ir::ValueId>{g.outputs[0]});
  EXPECT_EQ(g.nodes[1].op_type, "Identity");
  EXPECT_EQ(g.nodes[1].inputs, std::vector<ir::ValueId>{g.outputs[0]});
  EXPECT_EQ(g.nodes[1].outputs, std::vector<ir::ValueId>{g.outputs[1]});
}

TEST(IfInlining, AnUnknownConditionIsLeftAlone) {
  ir::Graph g = IfOnConstant(true);
  auto inlined = InlineKnownIf(g, 0, nullptr);
  ASSERT_TRUE(inlined.ok());
  EXPECT_FALSE(*inlined);
  EXPECT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(g.nodes[0].op_type, "If");
}

}  // namespace
}  // namespace kiln::compiler
