// Resize with run-time scales or roi (passes/shape_rules_resize_rt.h): the
// output comes from the model's static declaration when it fits, today's
// error stands without a declaration, and declarations or inputs that
// cannot fit are refused naming the node.
#include <string>
#include <vector>

#include "compiler/passes/shape_inference.h"
#include "compiler/passes/shape_rules_resize_rt.h"
#include "compiler/passes/shape_rules_runtime.h"
#include "gtest/gtest.h"
#include "tests/compiler/backend_graph_builder.h"

namespace kiln::compiler {
namespace {

using Dims = std::vector<int64_t>;
constexpr ir::ValueId kNone = ir::kNoValue;

// Resize(x [1,1,4,4], roi, scales, sizes) -> y declared `declared` ({-1}:
// not declared). Each of roi/scales/sizes: a run-time input of `shape`
// (dtype as given), or absent when its shape is {-1}.
struct Model {
  testing::GraphBuilder b;
  ir::NodeId node = 0;
  ir::ValueId y = 0;

  Model(const Dims& declared, const Dims& roi, const Dims& scales, const Dims& sizes,
        const std::string& ctm = "half_pixel", ir::DType scales_t = ir::DType::F32,
        const Dims& x_shape = {1, 1, 4, 4}) {
    const ir::ValueId x = b.Input("x", x_shape);
    const ir::ValueId r = roi == Dims{-1} ? kNone : b.Input("roi", roi);
    const ir::ValueId s = scales == Dims{-1} ? kNone : b.Input("scales", scales, scales_t);
    const ir::ValueId z = sizes == Dims{-1} ? kNone : b.Input("sizes", sizes, ir::DType::I64);
    y = b.g.AddValue("y");
    if (declared != Dims{-1}) {
      b.g.value(y).declared_shape = declared;
      b.g.value(y).has_declared_shape = true;
    }
    b.Output(y);
    node = b.Node("Resize", "rs", {x, r, s, z}, {y});
    ir::Attribute a;
    a.kind = ir::Attribute::Kind::kString;
    a.s = ctm;
    b.g.nodes[node].attributes["coordinate_transformation_mode"] = a;
  }
};

TEST(RuntimeResize, ScalesTakeTheDeclaredShape) {
  Model m({1, 1, 3, 3}, {-1}, {4}, {-1});
  ASSERT_TRUE(InferShapes(m.b.g).ok()) << InferShapes(m.b.g);
  EXPECT_EQ(m.b.g.value(m.y).shape, (Dims{1, 1, 3, 3}));
  EXPECT_TRUE(HasRuntimeResizeParams(m.b.g, m.b.g.nodes[m.node]));
}

TEST(RuntimeResize, RuntimeRoiWithRuntimeSizesKeepsTheSizesCheck) {
  Model m({1, 1, 3, 3}, {8}, {-1}, {4}, "tf_crop_and_resize");
  ASSERT_TRUE(InferShapes(m.b.g).ok()) << InferShapes(m.b.g);
  EXPECT_EQ(m.b.g.value(m.y).shape, (Dims{1, 1, 3, 3}));
  EXPECT_TRUE(HasRuntimeResizeParams(m.b.g, m.b.g.nodes[m.node]));
  EXPECT_EQ(RuntimeShapeInput(m.b.g, m.b.g.nodes[m.node]), 3);  // shape_check on sizes
}

TEST(RuntimeResize, ConstantScalesAreNotRuntime) {
  testing::GraphBuilder b;
  const ir::ValueId x = b.Input("x", {1, 1, 2, 2});
  const ir::ValueId s = b.Const("scales", {4}, {1, 1, 2, 3});
  const ir::ValueId y = b.g.AddValue("y");
  b.Output(y);
  const ir::NodeId n = b.Node("Resize", "rs", {x, kNone, s}, {y});
  ASSERT_TRUE(InferShapes(b.g).ok()) << InferShapes(b.g);
  EXPECT_EQ(b.g.value(y).shape, (Dims{1, 1, 4, 6}));
  EXPECT_FALSE(HasRuntimeResizeParams(b.g, b.g.nodes[n]));
}

// Without a declaration (run-time scales or sizes): every output dim is a
// length shape_resolve reports, without a bound (ir::kNoBound).
TEST(RuntimeResize, WithoutADeclarationEachDimIsReportedWithoutABound) {
  for (Model* m : {new Model({-1}, {-1}, {4}, {-1}), new Model({-1}, {-1}, {-1}, {4})}) {
    const absl::Status s = InferShapes(m->b.g);
    ASSERT_TRUE(s.ok()) << s;
    EXPECT_EQ(m->b.g.nodes[m->node].outputs.size(), 2u);
    const Dims& y = m->b.g.value(m->y).shape;
    ASSERT_EQ(y.size(), 4u);
    for (int64_t d : y) {
      const int32_t k = m->b.g.dims.BareData(d);
      ASSERT_GE(k, 0);
      EXPECT_EQ(m->b.g.dims.data_symbols()[static_cast<size_t>(k)].bound, ir::kNoBound);
    }
    delete m;
  }
}

// Scales Concat([1, 2], run-time [2]): the dims known whole-number scales
// multiply stay static (x * k), only the run-time ones are reported; a known
// scale of 0 is refused by name.
TEST(RuntimeResize, KnownWholeScalesKeepTheirDimsStatic) {
  for (const float second : {2.0f, 0.0f}) {
    testing::GraphBuilder b;
    const ir::ValueId x = b.Input("x", {1, 3, 4, 4});
    const ir::ValueId fixed = b.Const("fixed", {2}, {1, second});
    const ir::ValueId hw = b.Input("hw", {2});
    const ir::ValueId s = b.g.AddValue("scales");
    b.Node("Concat", "cat", {fixed, hw}, {s});
    ir::Attribute axis;
    axis.kind = ir::Attribute::Kind::kInt;
    axis.i = 0;
    b.g.nodes.back().attributes["axis"] = axis;
    const ir::ValueId y = b.g.AddValue("y");
    b.Output(y);
    b.Node("Resize", "rs", {x, kNone, s}, {y});
    const absl::Status st = InferShapes(b.g);
    if (second == 0.0f) {
      EXPECT_FALSE(st.ok());
      EXPECT_NE(std::string(st.message()).find("scales[1] = 0 is not positive"), std::string::npos)
          << st;
      EXPECT_NE(std::string(st.message()).find("rs"), std::string::npos) << st;
      continue;
    }
    ASSERT_TRUE(st.ok()) << st;
    const Dims& out = b.g.value(y).shape;
    ASSERT_EQ(out.size(), 4u);
    EXPECT_EQ(out[0], 1);
    EXPECT_EQ(out[1], 6);
    for (size_t d = 2; d < 4; ++d) {
      const int32_t k = b.g.dims.BareData(out[d]);
      ASSERT_GE(k, 0) << d;
      EXPECT_EQ(b.g.dims.data_symbols()[static_cast<size_t>(k)].bound, ir::kNoBound);
    }
  }
}

TEST(RuntimeResize, WhatCannotFitIsRefusedNamingTheNode) {
  struct Bad {
    Model m;
    const char* why;
  };
  std::vector<Bad> cases;
  cases.push_back({Model({1, 1, 3}, {-1}, {4}, {-1}), "has not the 4 dims"});
  cases.push_back({Model({1, 1, 3, 3}, {-1}, {3}, {-1}), "scales input 'scales' must be"});
  cases.push_back(
      {Model({1, 1, 3, 3}, {-1}, {4}, {-1}, "half_pixel", ir::DType::I64), "must be a 1-D float32"});
  cases.push_back({Model({1, 1, 3, 3}, {-1}, {4}, {4}), "exactly one of scales and sizes"});
  cases.push_back({Model({1, 1, 3, 3}, {6}, {4}, {-1}, "tf_crop_and_resize"), "roi input"});
  cases.push_back({Model({1, 1, 3, 3}, {-1}, {4}, {-1}, "half_pixel", ir::DType::F32,
                         {1, 1, 0, 4}),
                   "empty input"});
  for (Bad& c : cases) {
    const absl::Status s = InferShapes(c.m.b.g);
    ASSERT_FALSE(s.ok()) << c.why;
    EXPECT_NE(s.message().find("'rs' (Resize)"), std::string::npos) << s;
    EXPECT_NE(s.message().find(c.why), std::string::npos) << s;
  }
}

TEST(RuntimeResize, KnownScalesMustGiveTheDeclaredShape) {
  // A run-time roi makes the node run-time; its constant scales still fix the shape.
  testing::GraphBuilder b;
  const ir::ValueId x = b.Input("x", {1, 1, 4, 4});
  const ir::ValueId roi = b.Input("roi", {8});
  const ir::ValueId s = b.Const("scales", {4}, {1, 1, 0.8f, 0.8f});
  const ir::ValueId y = b.g.AddValue("y");
  b.g.value(y).declared_shape = {1, 1, 4, 3};
  b.g.value(y).has_declared_shape = true;
  b.Output(y);
  b.Node("Resize", "rs", {x, roi, s}, {y});
  const absl::Status st = InferShapes(b.g);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("scaled by scales[2]"), std::string::npos) << st;
}

}  // namespace
}  // namespace kiln::compiler
