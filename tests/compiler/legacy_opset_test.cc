// Import of models in opsets below 11: node forms are upgraded to opset 11
// (legacy_opset.cc) and forms without an equivalent are refused precisely.
// Models: tests/compiler/make_legacy_models.py. Numerics of the upgraded
// forms are checked against ONNX data by the conformance suite
// (pytorch-operator, pytorch-converted and the opset 6-10 node tests).
#include "compiler/frontend/onnx_importer.h"

#include <string>

#include "gtest/gtest.h"

namespace kiln::compiler {
namespace {

std::string Model(const std::string& name) {
  return std::string(KILN_SOURCE_DIR) + "/tests/compiler/models/" + name;
}

const ir::Node* FindNode(const ir::Graph& g, const std::string& name) {
  for (const ir::Node& n : g.nodes) {
    if (n.name == name) return &n;
  }
  return nullptr;
}

std::vector<int64_t> ConstInts(const ir::Graph& g, ir::ValueId id) {
  std::vector<int64_t> out;
  const ir::ConstantPtr& c = g.value(id).constant;
  for (int64_t k = 0; c && k < c->element_count(); ++k) out.push_back(c->IntAt(k));
  return out;
}

TEST(LegacyOpsetTest, BroadcastAxisBecomesUnsqueeze) {
  auto g = ImportOnnx(Model("legacy_add_axis.onnx"));
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->opset, 11);  // the nodes now follow opset 11
  const ir::Node* add = FindNode(*g, "add");
  ASSERT_NE(add, nullptr);
  EXPECT_FALSE(add->HasAttr("broadcast"));
  EXPECT_FALSE(add->HasAttr("axis"));
  // b [3] at axis 1 of a [2,3,4] → Unsqueeze(b, axes [1]) = [3,1].
  const ir::ValueId b2 = add->inputs[1];
  ASSERT_NE(g->value(b2).producer, ir::kNoNode);
  const ir::Node& unsq = g->nodes[g->value(b2).producer];
  EXPECT_EQ(unsq.op_type, "Unsqueeze");
  EXPECT_EQ(unsq.GetInts("axes", {}), (std::vector<int64_t>{1}));
  EXPECT_EQ(g->value(unsq.inputs[0]).name, "b");
  // A constant operand (w [2] at axis 0 of a [2,3,4]) is reshaped in place: [2,1,1].
  const ir::Node* mul = FindNode(*g, "mul");
  ASSERT_NE(mul, nullptr);
  const ir::Value& w = g->value(mul->inputs[1]);
  ASSERT_NE(w.constant, nullptr);
  EXPECT_EQ(w.shape, (std::vector<int64_t>{2, 1, 1}));
}

TEST(LegacyOpsetTest, AttributesBecomeInputsAndUpsampleBecomesResize) {
  auto g = ImportOnnx(Model("legacy_slice_pad_upsample.onnx"));
  ASSERT_TRUE(g.ok()) << g.status();
  const ir::Node* slice = FindNode(*g, "slice");
  ASSERT_NE(slice, nullptr);
  ASSERT_EQ(slice->inputs.size(), 4u);
  EXPECT_EQ(ConstInts(*g, slice->inputs[1]), (std::vector<int64_t>{1}));
  EXPECT_EQ(ConstInts(*g, slice->inputs[2]), (std::vector<int64_t>{3}));
  EXPECT_EQ(ConstInts(*g, slice->inputs[3]), (std::vector<int64_t>{2}));
  const ir::Node* pad = FindNode(*g, "pad");
  ASSERT_NE(pad, nullptr);
  ASSERT_GE(pad->inputs.size(), 2u);
  EXPECT_EQ(ConstInts(*g, pad->inputs[1]), (std::vector<int64_t>{0, 0, 1, 0, 0, 0, 1, 0}));
  const ir::Node* up = FindNode(*g, "up");
  ASSERT_NE(up, nullptr);
  EXPECT_EQ(up->op_type, "Resize");
  ASSERT_EQ(up->inputs.size(), 3u);
  EXPECT_EQ(up->inputs[1], ir::kNoValue);  // no roi
  EXPECT_EQ(g->value(up->inputs[2]).name, "scales");
  EXPECT_EQ(up->GetString("coordinate_transformation_mode", ""), "asymmetric");
  EXPECT_EQ(up->GetString("nearest_mode", ""), "floor");
}

TEST(LegacyOpsetTest, TrainingBatchNormIsRefused) {
  auto g = ImportOnnx(Model("legacy_bn_training.onnx"));
  ASSERT_FALSE(g.ok());
  const std::string msg(g.status().message());
  EXPECT_NE(msg.find("'bn' (BatchNormalization)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("opset 6 form of BatchNormalization not supported: training mode"),
            std::string::npos) << msg;
}

TEST(LegacyOpsetTest, AxisBroadcastNeedsKnownRank) {
  auto g = ImportOnnx(Model("legacy_axis_unknown_rank.onnx"));
  ASSERT_FALSE(g.ok());
  const std::string msg(g.status().message());
  EXPECT_NE(msg.find("'add' (Add)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("needs both input ranks"), std::string::npos) << msg;
}

TEST(LegacyOpsetTest, OldOpsetImportsAsOpset11) {
  auto g = ImportOnnx(Model("opset9.onnx"));
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->opset, 11);
}

}  // namespace
}  // namespace kiln::compiler
