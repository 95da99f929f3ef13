// Shapes inferred by Kiln against ONNX's own shape inference / PyTorch
// (recorded by make_models.py in models/expected_shapes.txt).
#include "compiler/passes/shape_inference.h"

#include <fstream>
#include <sstream>

#include "absl/strings/str_split.h"
#include "compiler/frontend/onnx_importer.h"
#include "compiler/passes/constant_folding.h"
#include "gtest/gtest.h"

namespace kiln::compiler {
namespace {

std::string Model(const std::string& name) {
  return std::string(KILN_SOURCE_DIR) + "/tests/compiler/models/" + name;
}

struct Expected {
  std::string value, dtype;
  std::vector<int64_t> shape;
};

std::vector<Expected> ExpectedFor(const std::string& model) {
  std::ifstream in(Model("expected_shapes.txt"));
  std::vector<Expected> out;
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> f = absl::StrSplit(line, ' ');
    if (f.size() < 3 || f[0] != model) continue;
    Expected e{f[1], f[2], {}};
    if (f.size() > 3 && !f[3].empty()) {
      for (const auto& d : absl::StrSplit(f[3], ',')) e.shape.push_back(std::stoll(std::string(d)));
    }
    out.push_back(e);
  }
  return out;
}

// Checks every recorded value of `model` after `pass`.
void CheckModel(const std::string& model, absl::Status (*pass)(ir::Graph&)) {
  auto g = ImportOnnx(Model(model));
  ASSERT_TRUE(g.ok()) << g.status();
  ASSERT_TRUE(pass(*g).ok()) << pass(*g);
  const auto expected = ExpectedFor(model);
  ASSERT_FALSE(expected.empty()) << model;
  for (const auto& e : expected) {
    ir::ValueId id = g->FindValue(e.value);
    ASSERT_NE(id, ir::kNoValue) << model << " " << e.value;
    const ir::Value& v = g->value(id);
    EXPECT_TRUE(v.has_shape) << model << " " << e.value;
    EXPECT_EQ(v.shape, e.shape) << model << " " << e.value;
    EXPECT_EQ(ir::DTypeName(v.dtype), e.dtype) << model << " " << e.value;
  }
}

class ShapeModels : public ::testing::TestWithParam<const char*> {};

TEST_P(ShapeModels, InferShapesMatchesReference) { CheckModel(GetParam(), InferShapes); }
TEST_P(ShapeModels, FoldConstantsMatchesReference) { CheckModel(GetParam(), FoldConstants); }

INSTANTIATE_TEST_SUITE_P(
    Models, ShapeModels,
    ::testing::Values("torch_view.onnx", "pool_ceil.onnx", "pool_ceil_edge.onnx",
                      "avgpool_ceil.onnx", "conv_same_upper.onnx", "conv_same_lower.onnx",
                      "conv_valid.onnx", "conv_pads_dil_group.onnx", "shape_zoo.onnx",
                      "opset11_axes.onnx", "folding_values.onnx"));

const ir::Node& OnlyNode(const ir::Graph& g, const std::string& op) {
  for (const auto& n : g.nodes) {
    if (n.op_type == op) return n;
  }
  static ir::Node none;
  ADD_FAILURE() << "no " << op;
  return none;
}

TEST(ShapeInferenceTest, ResolvedWindowAttributes) {
  // SAME_UPPER, input 7x9, kernel 3, stride 2: out 4x5; total pad
  // (4-1)*2+3-7 = 2 rows → 1/1, (5-1)*2+3-9 = 2 cols → 1/1.
  auto g = ImportOnnx(Model("conv_same_upper.onnx"));
  ASSERT_TRUE(g.ok() && InferShapes(*g).ok());
  const ir::Node& c = OnlyNode(*g, "Conv");
  EXPECT_EQ(c.GetInts("kiln.pads", {}), (std::vector<int64_t>{1, 1, 1, 1}));
  EXPECT_EQ(c.GetInts("kiln.strides", {}), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(c.GetInts("kiln.kernel_shape", {}), (std::vector<int64_t>{3, 3}));
  EXPECT_EQ(c.GetInts("kiln.dilations", {}), (std::vector<int64_t>{1, 1}));

  // SAME_LOWER, 6x6, kernel 2x4, strides 1x2: out 6x3; rows total 1 → begin 1,
  // end 0; cols total (3-1)*2+4-6 = 2 → 1/1.
  g = ImportOnnx(Model("conv_same_lower.onnx"));
  ASSERT_TRUE(g.ok() && InferShapes(*g).ok());
  EXPECT_EQ(OnlyNode(*g, "Conv").GetInts("kiln.pads", {}), (std::vector<int64_t>{1, 1, 0, 1}));

  g = ImportOnnx(Model("conv_valid.onnx"));
  ASSERT_TRUE(g.ok() && InferShapes(*g).ok());
  EXPECT_EQ(OnlyNode(*g, "Conv").GetInts("kiln.pads", {}), (std::vector<int64_t>{0, 0, 0, 0}));

  g = ImportOnnx(Model("pool_ceil_edge.onnx"));
  ASSERT_TRUE(g.ok() && InferShapes(*g).ok());
  const ir::Node& p = OnlyNode(*g, "MaxPool");
  EXPECT_EQ(p.GetInts("kiln.pads", {}), (std::vector<int64_t>{1, 1, 1, 1}));
  EXPECT_EQ(p.GetInts("kiln.kernel_shape", {}), (std::vector<int64_t>{2, 2}));
}

TEST(ShapeInferenceTest, MismatchNamesNodeAndShapes) {
  auto g = ImportOnnx(Model("conv_channel_mismatch.onnx"));
  ASSERT_TRUE(g.ok()) << g.status();
  absl::Status s = InferShapes(*g);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  const std::string msg(s.message());
  EXPECT_NE(msg.find("'bad_conv' (Conv)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("[1,3,8,8]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("[4,2,3,3]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("conv_channel_mismatch.onnx"), std::string::npos) << msg;
}

TEST(ShapeInferenceTest, InferShapesDoesNotChangeGraph) {
  auto g = ImportOnnx(Model("torch_view.onnx"));
  ASSERT_TRUE(g.ok()) << g.status();
  const size_t nodes = g->nodes.size();
  ASSERT_TRUE(InferShapes(*g).ok());
  EXPECT_EQ(g->nodes.size(), nodes);
  for (const auto& v : g->values) EXPECT_TRUE(v.has_shape) << v.name;
}

}  // namespace
}  // namespace kiln::compiler
