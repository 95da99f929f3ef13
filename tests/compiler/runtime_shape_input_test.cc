// Shape-like inputs known only at run time (passes/shape_rules_runtime.h):
// the output shapes come from the model's static declaration when it fits
// the data input; without one, the dims are reported after the run (bounded
// for Reshape/Squeeze/Unsqueeze, without a bound for Expand, Tile,
// ConstantOfShape and an empty input's Reshape); and a
// declaration that does not fit is refused naming the node.
#include <string>

#include "compiler/passes/shape_inference.h"
#include "compiler/passes/shape_rules_runtime.h"
#include "gtest/gtest.h"
#include "tests/compiler/backend_graph_builder.h"

namespace kiln::compiler {
namespace {

using Dims = std::vector<int64_t>;

// x [2,3,4] float and a run-time int64 input of `len` values feeding `op`,
// whose outputs declare `declared`.
struct Model {
  testing::GraphBuilder b;
  ir::NodeId node = 0;
  std::vector<ir::ValueId> outs;

  Model(const std::string& op, int64_t len, const std::vector<Dims>& declared, Dims x = {2, 3, 4}) {
    const ir::ValueId xv = b.Input("x", x);
    const ir::ValueId s = b.Input("s", {len}, ir::DType::I64);
    for (size_t k = 0; k < declared.size(); ++k) {
      const ir::ValueId y = b.g.AddValue("y" + std::to_string(k));
      if (declared[k] != Dims{-1}) {  // {-1}: the model declares no static shape
        b.g.value(y).declared_shape = declared[k];
        b.g.value(y).has_declared_shape = true;
      }
      outs.push_back(y);
      b.Output(y);
    }
    node = op == "ConstantOfShape" ? b.Node(op, "n_" + op, {s}, outs)
                                   : b.Node(op, "n_" + op, {xv, s}, outs);
  }
  const ir::Value& Out(size_t k) { return b.g.value(outs[k]); }
};

TEST(RuntimeShapeInput, ReshapeTakesTheDeclaredShape) {
  Model m("Reshape", 3, {{4, 3, 2}});
  ASSERT_TRUE(InferShapes(m.b.g).ok()) << InferShapes(m.b.g);
  EXPECT_TRUE(m.Out(0).has_shape);
  EXPECT_EQ(m.Out(0).shape, (Dims{4, 3, 2}));
  EXPECT_EQ(RuntimeShapeInput(m.b.g, m.b.g.nodes[m.node]), 1);
}

// Without a declaration, Expand, Tile and ConstantOfShape report their dims
// after the run without a bound (ir::kNoBound), except the dims the input
// fixes: Expand keeps x's non-1 dims, Tile keeps an empty dim 0; Tile's
// repeats are the reported dims over x's.
TEST(RuntimeShapeInput, WithoutADeclarationExpandTileConstantOfShapeReportUnboundedDims) {
  struct Case {
    std::string op;
    int64_t len;
    Dims x;
    Dims fixed;  // -1: a reported length without a bound
  };
  for (const Case& c : std::vector<Case>{{"Expand", 4, {3, 1}, {-1, -1, 3, -1}},
                                         {"Tile", 3, {2, 0, 4}, {-1, 0, -1}},
                                         {"ConstantOfShape", 2, {2, 3, 4}, {-1, -1}}}) {
    Model m(c.op, c.len, {{-1}}, c.x);
    const absl::Status s = InferShapes(m.b.g);
    ASSERT_TRUE(s.ok()) << c.op << ": " << s;
    ASSERT_EQ(m.b.g.nodes[m.node].outputs.size(), 2u) << c.op;
    ASSERT_EQ(m.Out(0).shape.size(), c.fixed.size()) << c.op;
    for (size_t d = 0; d < c.fixed.size(); ++d) {
      if (c.fixed[d] >= 0) {
        EXPECT_EQ(m.Out(0).shape[d], c.fixed[d]) << c.op << " dim " << d;
        continue;
      }
      const int32_t k = m.b.g.dims.BareData(m.Out(0).shape[d]);
      ASSERT_GE(k, 0) << c.op << " dim " << d;
      EXPECT_EQ(m.b.g.dims.data_symbols()[static_cast<size_t>(k)].bound, ir::kNoBound) << c.op;
      EXPECT_TRUE(m.b.g.dims.HasUnbounded(m.Out(0).shape[d]));
    }
  }
}

// Without a declaration, Reshape/Squeeze/Unsqueeze dims are data symbols
// shape_resolve reports: bounded by the element count (Reshape) or the
// largest input dim, the output planned at the input's bytes.
TEST(RuntimeShapeInput, WithoutADeclarationReshapeSqueezeUnsqueezeReportTheirDims) {
  struct Case {
    std::string op;
    int64_t len;
    Dims x, bounds;
  };
  for (const Case& c : std::vector<Case>{{"Reshape", 4, {2, 3, 4}, {24, 24, 24, 24}},
                                         {"Squeeze", 2, {1, 3, 1, 5}, {5, 5}},
                                         {"Unsqueeze", 2, {3, 4, 5}, {5, 5, 5, 5, 5}}}) {
    Model m(c.op, c.len, {{-1}}, c.x);
    const absl::Status s = InferShapes(m.b.g);
    ASSERT_TRUE(s.ok()) << c.op << ": " << s;
    const ir::Node& n = m.b.g.nodes[m.node];
    ASSERT_EQ(n.outputs.size(), 2u) << c.op;
    EXPECT_EQ(m.Out(0).capacity_bytes, ir::ElementCount(c.x) * 4) << c.op;
    ASSERT_EQ(m.Out(0).shape.size(), c.bounds.size()) << c.op;
    for (size_t d = 0; d < c.bounds.size(); ++d) {
      const int32_t k = m.b.g.dims.BareData(m.Out(0).shape[d]);
      ASSERT_GE(k, 0) << c.op;
      EXPECT_EQ(m.b.g.dims.data_symbols()[static_cast<size_t>(k)].bound, c.bounds[d]) << c.op;
    }
  }
  // An empty input: Reshape with allowzero could give any dims, none bounded.
  Model empty("Reshape", 2, {{-1}}, {0, 3});
  ASSERT_TRUE(InferShapes(empty.b.g).ok()) << InferShapes(empty.b.g);
  ASSERT_EQ(empty.Out(0).shape.size(), 2u);
  EXPECT_TRUE(empty.b.g.dims.HasUnbounded(empty.Out(0).shape[0]));
  EXPECT_TRUE(empty.b.g.dims.HasUnbounded(empty.Out(0).shape[1]));
}

TEST(RuntimeShapeInput, DeclarationsThatDoNotFitAreRefusedNamingTheNode) {
  struct Case {
    std::string op;
    int64_t len;
    std::vector<Dims> declared;
  };
  const std::vector<Case> cases = {
      {"Reshape", 3, {{4, 3, 3}}},     // 36 elements, not 24
      {"Reshape", 2, {{4, 3, 2}}},     // rank 3 from a shape of 2 values
      {"Squeeze", 1, {{3, 4}}},        // drops a dim of size 2
      {"Unsqueeze", 2, {{2, 1, 3, 4}}},  // one axis added, two given
      {"Expand", 3, {{2, 5, 4}}},      // 3 does not broadcast to 5
      {"Tile", 3, {{4, 7, 4}}},        // 7 is no multiple of 3
      {"Split", 2, {{2, 3, 1}, {2, 3, 3}}},  // axis 0 by default: axis 2 must stay 4
      {"ConstantOfShape", 2, {{3, 4, 5}}},   // rank 3 from 2 dims
  };
  for (const Case& c : cases) {
    Model m(c.op, c.len, c.declared);
    const absl::Status s = InferShapes(m.b.g);
    EXPECT_FALSE(s.ok()) << c.op;
    EXPECT_NE(s.message().find("n_" + c.op), std::string::npos) << s;
  }
}

TEST(RuntimeShapeInput, SplitSizesComeFromTheDeclaredOutputs) {
  Model m("Split", 2, {{2, 3, 1}, {2, 3, 3}});
  m.b.g.nodes[m.node].SetInt("axis", -1);
  ASSERT_TRUE(InferShapes(m.b.g).ok()) << InferShapes(m.b.g);
  EXPECT_EQ(m.b.g.nodes[m.node].GetInts("kiln.split", {}), (Dims{1, 3}));
  EXPECT_EQ(m.Out(1).shape, (Dims{2, 3, 3}));
}

TEST(RuntimeShapeInput, SqueezeUnsqueezeExpandTileConstantOfShape) {
  {
    Model m("Squeeze", 1, {{3, 4}}, {1, 3, 4});
    ASSERT_TRUE(InferShapes(m.b.g).ok()) << InferShapes(m.b.g);
    EXPECT_EQ(m.Out(0).shape, (Dims{3, 4}));
  }
  {
    Model m("Unsqueeze", 2, {{2, 1, 3, 4, 1}});
    ASSERT_TRUE(InferShapes(m.b.g).ok()) << InferShapes(m.b.g);
  }
  {
    Model m("Expand", 4, {{5, 2, 3, 4}});
    ASSERT_TRUE(InferShapes(m.b.g).ok()) << InferShapes(m.b.g);
  }
  {
    Model m("Tile", 3, {{2, 6, 0}});  // repeats 1, 2, 0
    ASSERT_TRUE(InferShapes(m.b.g).ok()) << InferShapes(m.b.g);
  }
  {
    Model m("ConstantOfShape", 2, {{3, 5}});
    ASSERT_TRUE(InferShapes(m.b.g).ok()) << InferShapes(m.b.g);
    EXPECT_EQ(m.Out(0).dtype, ir::DType::F32);  // no value attribute: float 0
  }
}

TEST(RuntimeShapeInput, ResizeBySizesTakesTheDeclaredShapeAndItsScales) {
  // Resize(x [1,1,2,4], roi = "", scales = "", sizes = run-time) -> [1,1,3,6].
  testing::GraphBuilder b;
  const ir::ValueId x = b.Input("x", {1, 1, 2, 4});
  const ir::ValueId sizes = b.Input("sizes", {4}, ir::DType::I64);
  const ir::ValueId y = b.g.AddValue("y");
  b.g.value(y).declared_shape = {1, 1, 3, 6};
  b.g.value(y).has_declared_shape = true;
  b.Output(y);
  const ir::NodeId n = b.Node("Resize", "resize", {x, ir::kNoValue, ir::kNoValue, sizes}, {y});
  ASSERT_TRUE(InferShapes(b.g).ok()) << InferShapes(b.g);
  EXPECT_EQ(b.g.value(y).shape, (Dims{1, 1, 3, 6}));
  // Sampling follows the sizes: scale = output / input per axis.
  const auto& scales = b.g.nodes[n].attributes.at("kiln.scales").floats;
  ASSERT_EQ(scales.size(), 4u);
  EXPECT_FLOAT_EQ(scales[2], 1.5f);
  EXPECT_FLOAT_EQ(scales[3], 1.5f);
  EXPECT_EQ(RuntimeShapeInput(b.g, b.g.nodes[n]), 3);
}

}  // namespace
}  // namespace kiln::compiler
