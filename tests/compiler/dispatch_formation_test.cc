#include "compiler/passes/dispatch_formation.h"

#include <limits>

#include "gtest/gtest.h"
#include "kiln/kernels.h"
#include "tests/compiler/backend_graph_builder.h"

namespace kiln::compiler {
namespace {

using testing::GraphBuilder;

// x → Conv → t → <act> → y
struct ConvAct {
  GraphBuilder b;
  ir::ValueId x, t, y;
  ir::NodeId conv, act;
  ConvAct(const std::string& act_op, std::vector<ir::ValueId> extra = {}) {
    x = b.Input("x", {1, 2, 4, 4});
    const ir::ValueId w = b.RandomConst("w", {3, 2, 1, 1}, -1, 1, 1);
    t = b.Tensor("t", {1, 3, 4, 4});
    y = b.Tensor("y", {1, 3, 4, 4});
    conv = b.Node("Conv", "conv", {x, w}, {t});
    std::vector<ir::ValueId> in = {t};
    in.insert(in.end(), extra.begin(), extra.end());
    act = b.Node(act_op, "act", in, {y});
    b.Output(y);
  }
};

TEST(DispatchFormation, FusesReluIntoConv) {
  ConvAct m("Relu");
  ASSERT_TRUE(FormDispatches(m.b.g).ok());
  const ir::Graph& g = m.b.g;
  ASSERT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(g.nodes[0].GetInt("kiln.activation", -1), KILN_ACT_RELU);
  EXPECT_EQ(g.nodes[0].outputs[0], m.y);
  EXPECT_EQ(g.value(m.y).producer, 0);
  ASSERT_EQ(g.nodes[0].fused.size(), 1u);
  EXPECT_EQ(g.nodes[0].fused[0].name, "act");
  EXPECT_EQ(g.nodes[0].fused[0].op_type, "Relu");
}

TEST(DispatchFormation, FusesClipWithConstantBounds) {
  ConvAct m("Clip");
  const ir::ValueId lo = m.b.Const("lo", {}, {0.0f});
  const ir::ValueId hi = m.b.Const("hi", {}, {6.0f});
  m.b.g.nodes[m.act].inputs = {m.t, lo, hi};
  ASSERT_TRUE(FormDispatches(m.b.g).ok());
  ASSERT_EQ(m.b.g.nodes.size(), 1u);
  const ir::Node& n = m.b.g.nodes[0];
  EXPECT_EQ(n.GetInt("kiln.activation", -1), KILN_ACT_CLIP);
  EXPECT_EQ(n.GetFloat("kiln.act_alpha", -1), 0.0f);
  EXPECT_EQ(n.GetFloat("kiln.act_beta", -1), 6.0f);
}

TEST(DispatchFormation, ClipWithMissingMaxIsUnbounded) {
  ConvAct m("Clip");
  const ir::ValueId lo = m.b.Const("lo", {}, {-1.0f});
  m.b.g.nodes[m.act].inputs = {m.t, lo};
  ASSERT_TRUE(FormDispatches(m.b.g).ok());
  const ir::Node& n = m.b.g.nodes[0];
  EXPECT_EQ(n.GetFloat("kiln.act_alpha", 0), -1.0f);
  EXPECT_EQ(n.GetFloat("kiln.act_beta", 0), std::numeric_limits<float>::infinity());
}

TEST(DispatchFormation, DoesNotFuseClipWithRuntimeBounds) {
  ConvAct m("Clip");
  const ir::ValueId lo = m.b.Input("lo", {});
  m.b.g.nodes[m.act].inputs = {m.t, lo};
  ASSERT_TRUE(FormDispatches(m.b.g).ok());
  EXPECT_EQ(m.b.g.nodes.size(), 2u);
}

TEST(DispatchFormation, DoesNotFuseWhenProducerHasTwoUsers) {
  ConvAct m("Sigmoid");
  const ir::ValueId z = m.b.Tensor("z", {1, 3, 4, 4});
  m.b.Node("Tanh", "other", {m.t}, {z});
  m.b.Output(z);
  ASSERT_TRUE(FormDispatches(m.b.g).ok());
  const ir::Graph& g = m.b.g;
  ASSERT_EQ(g.nodes.size(), 3u);
  EXPECT_FALSE(g.nodes[0].HasAttr("kiln.activation"));
  EXPECT_TRUE(g.nodes[0].fused.empty());
}

TEST(DispatchFormation, DoesNotFuseWhenProducerOutputIsGraphOutput) {
  ConvAct m("Tanh");
  m.b.Output(m.t);
  ASSERT_TRUE(FormDispatches(m.b.g).ok());
  EXPECT_EQ(m.b.g.nodes.size(), 2u);
}

TEST(DispatchFormation, DoesNotFuseIntoUnsupportedProducer) {
  GraphBuilder b;
  const ir::ValueId x = b.Input("x", {4});
  const ir::ValueId t = b.Tensor("t", {4});
  const ir::ValueId y = b.Tensor("y", {4});
  b.Node("Sigmoid", "s", {x}, {t});
  b.Node("Relu", "r", {t}, {y});
  b.Output(y);
  ASSERT_TRUE(FormDispatches(b.g).ok());
  EXPECT_EQ(b.g.nodes.size(), 2u);
}

// x[2,5] → MatMul(W[5,3] const) → Add(bias[3]) → Relu → y
TEST(DispatchFormation, MatMulAddReluBecomesOneGemm) {
  GraphBuilder b;
  const ir::ValueId x = b.Input("x", {2, 5});
  const ir::ValueId w = b.RandomConst("w", {5, 3}, -1, 1, 1);
  const ir::ValueId bias = b.RandomConst("bias", {3}, -1, 1, 2);
  const ir::ValueId mm = b.Tensor("mm", {2, 3});
  const ir::ValueId sum = b.Tensor("sum", {2, 3});
  const ir::ValueId y = b.Tensor("y", {2, 3});
  b.Node("MatMul", "mm", {x, w}, {mm});
  b.Node("Add", "add", {bias, mm}, {sum});  // bias first: order must not matter
  b.Node("Relu", "relu", {sum}, {y});
  b.Output(y);
  ASSERT_TRUE(FormDispatches(b.g).ok());
  ASSERT_EQ(b.g.nodes.size(), 1u);
  const ir::Node& n = b.g.nodes[0];
  EXPECT_EQ(n.op_type, "Gemm");
  EXPECT_EQ(n.GetString("kiln.source_op", ""), "MatMul");
  ASSERT_EQ(n.inputs.size(), 3u);
  EXPECT_EQ(n.inputs[2], bias);
  EXPECT_EQ(n.GetInt("kiln.activation", -1), KILN_ACT_RELU);
  ASSERT_EQ(n.fused.size(), 2u);
  EXPECT_EQ(n.fused[0].name, "add");
  EXPECT_EQ(n.fused[1].name, "relu");
  EXPECT_EQ(n.outputs[0], y);
}

TEST(DispatchFormation, AddOfFullMatrixIsNotABias) {
  GraphBuilder b;
  const ir::ValueId x = b.Input("x", {2, 5});
  const ir::ValueId w = b.RandomConst("w", {5, 3}, -1, 1, 1);
  const ir::ValueId c = b.RandomConst("c", {2, 3}, -1, 1, 2);
  const ir::ValueId mm = b.Tensor("mm", {2, 3});
  const ir::ValueId y = b.Tensor("y", {2, 3});
  b.Node("MatMul", "mm", {x, w}, {mm});
  b.Node("Add", "add", {mm, c}, {y});
  b.Output(y);
  ASSERT_TRUE(FormDispatches(b.g).ok());
  ASSERT_EQ(b.g.nodes.size(), 2u);
  EXPECT_EQ(b.g.nodes[0].op_type, "Gemm");
  EXPECT_EQ(b.g.nodes[1].op_type, "Add");
}

TEST(DispatchFormation, BatchedMatMulStaysMatMul) {
  GraphBuilder b;
  const ir::ValueId x = b.Input("x", {2, 4, 5});
  const ir::ValueId w = b.RandomConst("w", {5, 3}, -1, 1, 1);
  const ir::ValueId y = b.Tensor("y", {2, 4, 3});
  b.Node("MatMul", "mm", {x, w}, {y});
  b.Output(y);
  ASSERT_TRUE(FormDispatches(b.g).ok());
  EXPECT_EQ(b.g.nodes[0].op_type, "MatMul");
}

TEST(DispatchFormation, GemmWithCKeepsAdd) {
  GraphBuilder b;
  const ir::ValueId x = b.Input("x", {2, 5});
  const ir::ValueId w = b.RandomConst("w", {5, 3}, -1, 1, 1);
  const ir::ValueId c = b.RandomConst("c", {3}, -1, 1, 2);
  const ir::ValueId d = b.RandomConst("d", {3}, -1, 1, 3);
  const ir::ValueId t = b.Tensor("t", {2, 3});
  const ir::ValueId y = b.Tensor("y", {2, 3});
  b.Node("Gemm", "gemm", {x, w, c}, {t});
  b.Node("Add", "add", {t, d}, {y});
  b.Output(y);
  ASSERT_TRUE(FormDispatches(b.g).ok());
  EXPECT_EQ(b.g.nodes.size(), 2u);
}

TEST(DispatchFormation, AliasOps) {
  ir::Node n;
  for (const char* op : {"Identity", "Dropout", "Flatten", "Reshape", "Squeeze", "Unsqueeze"}) {
    n.op_type = op;
    EXPECT_TRUE(IsAliasNode(n)) << op;
  }
  for (const char* op : {"Transpose", "Concat", "Relu"}) {
    n.op_type = op;
    EXPECT_FALSE(IsAliasNode(n)) << op;
  }
}

}  // namespace
}  // namespace kiln::compiler
