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

// A stack of rows times one constant matrix is one GEMM (packed weights, a
// fused bias): x[2,4,5] → MatMul(W[5,3]) → Add(bias[3]) → y[2,4,3].
TEST(DispatchFormation, StackedMatMulByConstantBecomesGemmWithBias) {
  GraphBuilder b;
  const ir::ValueId x = b.Input("x", {2, 4, 5});
  const ir::ValueId w = b.RandomConst("w", {5, 3}, -1, 1, 1);
  const ir::ValueId bias = b.RandomConst("bias", {3}, -1, 1, 2);
  const ir::ValueId mm = b.Tensor("mm", {2, 4, 3});
  const ir::ValueId y = b.Tensor("y", {2, 4, 3});
  b.Node("MatMul", "mm", {x, w}, {mm});
  b.Node("Add", "add", {mm, bias}, {y});
  b.Output(y);
  ASSERT_TRUE(FormDispatches(b.g).ok());
  ASSERT_EQ(b.g.nodes.size(), 1u);
  EXPECT_EQ(b.g.nodes[0].op_type, "Gemm");
  EXPECT_EQ(b.g.nodes[0].GetString("kiln.source_op", ""), "MatMul");
  EXPECT_EQ(b.g.nodes[0].inputs[2], bias);
}

TEST(DispatchFormation, BatchedMatMulOfTwoActivationsStaysMatMul) {
  GraphBuilder b;
  const ir::ValueId x = b.Input("x", {2, 4, 5});
  const ir::ValueId w = b.Input("w", {5, 3});
  const ir::ValueId y = b.Tensor("y", {2, 4, 3});
  b.Node("MatMul", "mm", {x, w}, {y});
  b.Output(y);
  ASSERT_TRUE(FormDispatches(b.g).ok());
  EXPECT_EQ(b.g.nodes[0].op_type, "MatMul");
}

// PyTorch's exported nn.GELU(): x → Div(sqrt 2) → Erf → Add(1) → Mul(x) →
// Mul(0.5), or with the halving first: Mul(x, 0.5) * (Erf(..) + 1).
struct GeluChain {
  GraphBuilder b;
  ir::ValueId x, y, e;
  GeluChain(bool half_first, bool scale_by_mul, float sqrt2 = 1.41421354f) {
    x = b.Input("x", {2, 6});
    const ir::ValueId t = b.Tensor("t", {2, 6}), a = b.Tensor("a", {2, 6});
    const ir::ValueId m = b.Tensor("m", {2, 6});
    e = b.Tensor("e", {2, 6});
    y = b.Tensor("y", {2, 6});
    if (scale_by_mul) {
      b.Node("Mul", "scale", {b.Const("r", {}, {1.0f / sqrt2}), x}, {t});
    } else {
      b.Node("Div", "scale", {x, b.Const("s", {}, {sqrt2})}, {t});
    }
    b.Node("Erf", "erf", {t}, {e});
    b.Node("Add", "add", {e, b.Const("one", {}, {1.0f})}, {a});
    if (half_first) {
      b.Node("Mul", "half", {x, b.Const("h", {}, {0.5f})}, {m});
      b.Node("Mul", "mul", {m, a}, {y});
    } else {
      b.Node("Mul", "mul", {x, a}, {m});
      b.Node("Mul", "half", {m, b.Const("h", {}, {0.5f})}, {y});
    }
    b.Output(y);
  }
};

TEST(DispatchFormation, GeluChainBecomesOneGelu) {
  for (bool half_first : {false, true}) {
    for (bool scale_by_mul : {false, true}) {
      GeluChain c(half_first, scale_by_mul);
      ASSERT_TRUE(FormDispatches(c.b.g).ok());
      ASSERT_EQ(c.b.g.nodes.size(), 1u) << half_first << scale_by_mul;
      const ir::Node& n = c.b.g.nodes[0];
      EXPECT_EQ(n.op_type, "Gelu");
      EXPECT_EQ(n.inputs, std::vector<ir::ValueId>{c.x});
      EXPECT_EQ(n.outputs[0], c.y);
      EXPECT_EQ(n.GetString("kiln.source_op", ""), scale_by_mul ? "Mul" : "Div");
      EXPECT_EQ(n.fused.size(), 4u);
      int64_t kind;
      float alpha, beta;
      ASSERT_TRUE(ActivationParams(c.b.g, n, &kind, &alpha, &beta));
      EXPECT_EQ(kind, KILN_ACT_GELU);
    }
  }
}

TEST(DispatchFormation, GeluChainNeedsItsConstantsAndPrivateIntermediates) {
  GeluChain wrong(false, false, 2.0f);  // x / 2 is not GELU's scaling
  ASSERT_TRUE(FormDispatches(wrong.b.g).ok());
  EXPECT_EQ(wrong.b.g.nodes.size(), 5u);
  GeluChain shared(false, false);  // erf(x / sqrt 2) is also a graph output
  shared.b.Output(shared.e);
  ASSERT_TRUE(FormDispatches(shared.b.g).ok());
  EXPECT_EQ(shared.b.g.nodes.size(), 5u);
}

// x[1,4,5] → MatMul(W) → Add(bias) → GELU chain → y: one Gemm, GELU epilogue.
TEST(DispatchFormation, LinearThenGeluIsOneGemm) {
  GraphBuilder b;
  const ir::ValueId in = b.Input("in", {1, 4, 5});
  const ir::ValueId w = b.RandomConst("w", {5, 3}, -1, 1, 1);
  const ir::ValueId bias = b.RandomConst("bias", {3}, -1, 1, 2);
  const ir::ValueId mm = b.Tensor("mm", {1, 4, 3}), x = b.Tensor("x", {1, 4, 3});
  b.Node("MatMul", "mm", {in, w}, {mm});
  b.Node("Add", "bias_add", {mm, bias}, {x});
  std::vector<ir::ValueId> v;
  for (const char* name : {"t", "e", "a", "m", "y"}) v.push_back(b.Tensor(name, {1, 4, 3}));
  b.Node("Div", "scale", {x, b.Const("s", {}, {1.41421354f})}, {v[0]});
  b.Node("Erf", "erf", {v[0]}, {v[1]});
  b.Node("Add", "add", {v[1], b.Const("one", {}, {1.0f})}, {v[2]});
  b.Node("Mul", "mul", {x, v[2]}, {v[3]});
  b.Node("Mul", "half", {v[3], b.Const("h", {}, {0.5f})}, {v[4]});
  b.Output(v[4]);
  ASSERT_TRUE(FormDispatches(b.g).ok());
  ASSERT_EQ(b.g.nodes.size(), 1u);
  EXPECT_EQ(b.g.nodes[0].op_type, "Gemm");
  EXPECT_EQ(b.g.nodes[0].GetInt("kiln.activation", -1), KILN_ACT_GELU);
  EXPECT_EQ(b.g.nodes[0].outputs[0], v[4]);
}

// x → Conv → t → Sigmoid → s, Mul(t, s) or Mul(s, t) → y: PyTorch's nn.SiLU.
struct ConvSilu {
  GraphBuilder b;
  ir::ValueId t, s, y;
  explicit ConvSilu(bool sigmoid_first) {
    const ir::ValueId x = b.Input("x", {1, 2, 4, 4});
    const ir::ValueId w = b.RandomConst("w", {3, 2, 1, 1}, -1, 1, 1);
    t = b.Tensor("t", {1, 3, 4, 4});
    s = b.Tensor("s", {1, 3, 4, 4});
    y = b.Tensor("y", {1, 3, 4, 4});
    b.Node("Conv", "conv", {x, w}, {t});
    b.Node("Sigmoid", "sigmoid", {t}, {s});
    b.Node("Mul", "mul", sigmoid_first ? std::vector<ir::ValueId>{s, t}
                                       : std::vector<ir::ValueId>{t, s}, {y});
    b.Output(y);
  }
};

TEST(DispatchFormation, SigmoidTimesItsInputIsSiluFusedIntoConv) {
  for (bool sigmoid_first : {false, true}) {
    ConvSilu m(sigmoid_first);
    ASSERT_TRUE(FormDispatches(m.b.g).ok());
    const ir::Graph& g = m.b.g;
    ASSERT_EQ(g.nodes.size(), 1u) << sigmoid_first;
    EXPECT_EQ(g.nodes[0].op_type, "Conv");
    EXPECT_EQ(g.nodes[0].GetInt("kiln.activation", -1), KILN_ACT_SILU);
    EXPECT_EQ(g.nodes[0].outputs[0], m.y);
    ASSERT_EQ(g.nodes[0].fused.size(), 2u);
    EXPECT_EQ(g.nodes[0].fused[0].name, "sigmoid");  // the debug info keeps both ONNX nodes
    EXPECT_EQ(g.nodes[0].fused[0].op_type, "Silu");
    EXPECT_EQ(g.nodes[0].fused[1].name, "mul");
  }
}

TEST(DispatchFormation, SiluNeedsAPrivateSigmoidOfTheSameOperand) {
  ConvSilu shared(false);  // the sigmoid is also a graph output
  shared.b.Output(shared.s);
  ASSERT_TRUE(FormDispatches(shared.b.g).ok());
  EXPECT_EQ(shared.b.g.nodes.size(), 3u);  // nor Sigmoid into Conv: t has two users
  // Sigmoid of one value times another (a squeeze-excitation gate) is no SiLU.
  GraphBuilder b;
  const ir::ValueId x = b.Input("x", {1, 3, 4, 4}), g = b.Input("g", {1, 3, 4, 4});
  const ir::ValueId s = b.Tensor("s", {1, 3, 4, 4}), y = b.Tensor("y", {1, 3, 4, 4});
  b.Node("Sigmoid", "sigmoid", {g}, {s});
  b.Node("Mul", "mul", {x, s}, {y});
  b.Output(y);
  ASSERT_TRUE(FormDispatches(b.g).ok());
  ASSERT_EQ(b.g.nodes.size(), 2u);
  EXPECT_EQ(b.g.nodes[0].op_type, "Sigmoid");
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
