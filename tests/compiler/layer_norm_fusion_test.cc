#include "compiler/passes/layer_norm_fusion.h"

#include "gtest/gtest.h"
#include "tests/compiler/backend_graph_builder.h"

namespace kiln::compiler {
namespace {

using testing::GraphBuilder;

struct Options {
  bool affine = true;
  float exponent = 2.0f;
  int64_t axis = -1;        // of both ReduceMeans
  bool expose_diff = false;  // x - mean also a graph output
};

struct Chain {
  GraphBuilder b;
  ir::ValueId x, scale, bias, y;
};

// x[2,3,8] -> torch.onnx's decomposed LayerNorm over the last axis -> y.
void Build(Chain& c, const Options& o) {
  GraphBuilder& b = c.b;
  const std::vector<int64_t> s = {2, 3, 8}, r = {2, 3, 1};
  c.x = b.Input("x", s);
  const ir::ValueId mean = b.Tensor("mean", r), d = b.Tensor("d", s), p = b.Tensor("p", s);
  const ir::ValueId var = b.Tensor("var", r), ve = b.Tensor("ve", r), sd = b.Tensor("sd", r);
  const ir::ValueId n = b.Tensor("n", s);
  b.Ints(b.Node("ReduceMean", "m1", {c.x}, {mean}), "axes", {o.axis});
  b.Node("Sub", "sub", {c.x, mean}, {d});
  b.Node("Pow", "pow", {d, b.Const("two", {}, {o.exponent})}, {p});
  b.Ints(b.Node("ReduceMean", "m2", {p}, {var}), "axes", {o.axis});
  b.Node("Add", "eps", {var, b.Const("eps", {}, {1e-5f})}, {ve});
  b.Node("Sqrt", "sqrt", {ve}, {sd});
  b.Node("Div", "div", {d, sd}, {n});
  c.y = n;
  if (o.affine) {
    c.scale = b.RandomConst("scale", {8}, 0.5f, 1.5f, 1);
    c.bias = b.RandomConst("bias", {8}, -1, 1, 2);
    const ir::ValueId t = b.Tensor("t", s);
    c.y = b.Tensor("y", s);
    b.Node("Mul", "mul", {n, c.scale}, {t});
    b.Node("Add", "add", {c.bias, t}, {c.y});  // operands in either order
  }
  b.Output(c.y);
  if (o.expose_diff) b.Output(d);
}

TEST(LayerNormFusion, DecomposedChainBecomesOneNode) {
  Chain c;
  Build(c, Options{});
  ASSERT_TRUE(FuseLayerNorm(c.b.g).ok());
  const ir::Graph& g = c.b.g;
  ASSERT_EQ(g.nodes.size(), 1u);
  const ir::Node& ln = g.nodes[0];
  EXPECT_EQ(ln.op_type, "LayerNormalization");
  EXPECT_EQ(ln.GetInt("axis", 0), -1);
  EXPECT_FLOAT_EQ(ln.GetFloat("epsilon", 0), 1e-5f);
  ASSERT_EQ(ln.inputs.size(), 3u);
  EXPECT_EQ(ln.inputs[0], c.x);
  EXPECT_EQ(ln.inputs[1], c.scale);
  EXPECT_EQ(ln.inputs[2], c.bias);
  ASSERT_EQ(ln.outputs.size(), 1u);
  EXPECT_EQ(ln.outputs[0], c.y);
  EXPECT_EQ(g.value(c.y).producer, 0);
  EXPECT_EQ(ln.fused.size(), 8u);  // Sub, Pow, ReduceMean, Add, Sqrt, Div, Mul, Add
}

TEST(LayerNormFusion, WithoutAffineGetsUnitScale) {
  Chain c;
  Options o;
  o.affine = false;
  o.axis = 2;  // the last axis, spelled positively
  Build(c, o);
  ASSERT_TRUE(FuseLayerNorm(c.b.g).ok());
  const ir::Graph& g = c.b.g;
  ASSERT_EQ(g.nodes.size(), 1u);
  const ir::Node& ln = g.nodes[0];
  EXPECT_EQ(ln.op_type, "LayerNormalization");
  ASSERT_EQ(ln.inputs.size(), 2u);
  const ir::Value& scale = g.value(ln.inputs[1]);
  ASSERT_TRUE(scale.constant);
  ASSERT_EQ(scale.constant->element_count(), 8);
  for (int k = 0; k < 8; ++k) EXPECT_EQ(scale.constant->FloatAt(k), 1.0);
  EXPECT_EQ(ln.outputs[0], c.y);
}

void ExpectUntouched(const Options& o) {
  Chain c;
  Build(c, o);
  const size_t before = c.b.g.nodes.size();
  ASSERT_TRUE(FuseLayerNorm(c.b.g).ok());
  EXPECT_EQ(c.b.g.nodes.size(), before);
  for (const ir::Node& n : c.b.g.nodes) EXPECT_NE(n.op_type, "LayerNormalization");
}

TEST(LayerNormFusion, LeavesOtherChainsAlone) {
  Options cube;
  cube.exponent = 3.0f;
  ExpectUntouched(cube);
  Options middle_axis;
  middle_axis.axis = 1;
  ExpectUntouched(middle_axis);
  Options shared;
  shared.expose_diff = true;  // an intermediate someone else reads
  ExpectUntouched(shared);
}

}  // namespace
}  // namespace kiln::compiler
