// Graph IR bookkeeping: naming, producers, uses, compaction, printing.
#include "compiler/ir/graph.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "compiler/ir/graph_util.h"
#include "gtest/gtest.h"

namespace kiln::ir {
namespace {

Node MakeNode(const std::string& name, const std::string& op, std::vector<ValueId> in,
              std::vector<ValueId> out) {
  Node n;
  n.name = name;
  n.op_type = op;
  n.inputs = std::move(in);
  n.outputs = std::move(out);
  return n;
}

TEST(GraphTest, DTypeHelpers) {
  EXPECT_EQ(DTypeSize(DType::F32), 4u);
  EXPECT_EQ(DTypeSize(DType::I64), 8u);
  EXPECT_EQ(DTypeSize(DType::Bool), 1u);
  EXPECT_EQ(DTypeSize(DType::Unknown), 0u);
  EXPECT_STREQ(DTypeName(DType::F16), "float16");
  EXPECT_EQ(ElementCount({2, 3, 4}), 24);
  EXPECT_EQ(ElementCount({}), 1);
  EXPECT_EQ(ElementCount({2, 0}), 0);
  EXPECT_EQ(ElementCount({2, -1}), -1);
  EXPECT_EQ(ElementCount({1LL << 40, 1LL << 40}), -1);  // overflow
}

TEST(GraphTest, ConstantAccessors) {
  auto c = MakeI64Constant({3}, {5, -2, 7});
  EXPECT_EQ(c->IntAt(1), -2);
  EXPECT_DOUBLE_EQ(c->FloatAt(2), 7.0);
  // float16 1.5 = 0x3E00, -2 = 0xC000.
  std::vector<uint8_t> half = {0x00, 0x3E, 0x00, 0xC0};
  auto h = MakeConstant(DType::F16, {2}, half);
  EXPECT_DOUBLE_EQ(h->FloatAt(0), 1.5);
  EXPECT_DOUBLE_EQ(h->FloatAt(1), -2.0);
  // bfloat16 1.5 = 0x3FC0, -2 = 0xC000 (a float32's high half).
  std::vector<uint8_t> bf = {0xC0, 0x3F, 0x00, 0xC0};
  auto b = MakeConstant(DType::BF16, {2}, bf);
  EXPECT_DOUBLE_EQ(b->FloatAt(0), 1.5);
  EXPECT_EQ(b->IntAt(1), -2);
  EXPECT_TRUE(IsFloat(DType::BF16));
  EXPECT_FALSE(IsFloat(DType::U16));
  EXPECT_STREQ(DTypeName(DType::BF16), "bfloat16");
}

TEST(GraphTest, BFloat16RoundsToNearestEven) {
  // Expected bits from torch 1.13 (.to(torch.bfloat16)), as in
  // tests/runtime/typed_kernels_test.cc: ties to even, a carry into the
  // exponent, FLT_MAX to infinity; NaN stays NaN.
  EXPECT_EQ(FloatToBFloat16(1.0f + std::ldexp(1.0f, -8)), 0x3f80);
  EXPECT_EQ(FloatToBFloat16(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3f82);
  EXPECT_EQ(FloatToBFloat16(65504.0f), 0x4780);
  EXPECT_EQ(FloatToBFloat16(std::numeric_limits<float>::max()), 0x7f80);
  EXPECT_TRUE(std::isnan(BFloat16ToFloat(FloatToBFloat16(std::nanf("")))));
  EXPECT_EQ(BFloat16ToFloat(0xbf81), -1.0078125f);
}

TEST(GraphTest, NamesAreUniqueAndFindable) {
  Graph g;
  ValueId a = g.AddValue("a");
  ValueId a2 = g.AddValue("a");
  ValueId anon = g.AddValue("");
  EXPECT_NE(g.value(a).name, g.value(a2).name);
  EXPECT_FALSE(g.value(anon).name.empty());
  EXPECT_EQ(g.FindValue("a"), a);
  EXPECT_EQ(g.FindValue(g.value(a2).name), a2);
  EXPECT_EQ(g.FindValue("missing"), kNoValue);
}

TEST(GraphTest, UsesReplaceAndCompact) {
  Graph g;
  ValueId x = g.AddValue("x");
  g.inputs.push_back(x);
  ValueId y = g.AddValue("y");
  ValueId z = g.AddValue("z");
  ValueId dead = g.AddValue("dead");
  ValueId dead2 = g.AddValue("dead2");
  g.AddNode(MakeNode("relu", "Relu", {x}, {y}));
  g.AddNode(MakeNode("id", "Identity", {y}, {z}));
  g.AddNode(MakeNode("d1", "Relu", {x}, {dead}));
  g.AddNode(MakeNode("d2", "Relu", {dead}, {dead2}));
  g.outputs.push_back(z);
  EXPECT_EQ(g.value(z).producer, 1);
  EXPECT_EQ(g.Users(x), (std::vector<NodeId>{0, 2}));
  EXPECT_TRUE(g.IsGraphOutput(z));

  // Bypass the Identity: its output's readers (the graph output) read y.
  g.ReplaceAllUses(z, y);
  g.nodes[1].removed = true;
  EXPECT_TRUE(g.IsGraphOutput(y));
  g.Compact();
  // The dead chain d1→d2 and the removed Identity are gone.
  ASSERT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(g.nodes[0].name, "relu");
  EXPECT_EQ(g.value(y).producer, 0);
  EXPECT_EQ(g.value(z).producer, kNoNode);
  EXPECT_EQ(g.value(dead).producer, kNoNode);
}

TEST(GraphTest, AttributesAndDescribe) {
  Node n = MakeNode("conv1", "Conv", {}, {});
  n.SetInt("group", 2);
  n.SetFloat("alpha", 0.5f);
  Attribute ints;
  ints.kind = Attribute::Kind::kInts;
  ints.ints = {2, 2};
  n.attributes["strides"] = ints;
  EXPECT_EQ(n.GetInt("group", 1), 2);
  EXPECT_EQ(n.GetInt("missing", 7), 7);
  EXPECT_FLOAT_EQ(n.GetFloat("alpha", 0), 0.5f);
  EXPECT_EQ(n.GetInts("strides", {}), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(n.GetInts("group", {9}), (std::vector<int64_t>{9}));  // wrong kind → fallback
  EXPECT_EQ(n.GetString("auto_pad", "NOTSET"), "NOTSET");
  EXPECT_EQ(n.Describe(), "'conv1' (Conv)");
}

TEST(GraphTest, ToStringListsNodesAndConstants) {
  Graph g;
  g.source = "m.onnx";
  g.opset = 13;
  ValueId x = g.AddValue("x");
  g.value(x).dtype = DType::F32;
  g.value(x).shape = {1, 3, 8, 8};
  g.value(x).has_shape = true;
  g.inputs.push_back(x);
  std::vector<uint8_t> wbytes(4 * 4 * 3 * 9, 0);
  ValueId w = g.AddConstant("w", MakeConstant(DType::F32, {4, 3, 3, 3}, wbytes));
  ValueId y = g.AddValue("y");
  g.value(y).dtype = DType::F32;
  g.value(y).shape = {1, 4, 4, 4};
  g.value(y).has_shape = true;
  Node conv = MakeNode("conv0", "Conv", {x, w}, {y});
  Attribute strides;
  strides.kind = Attribute::Kind::kInts;
  strides.ints = {2, 2};
  conv.attributes["strides"] = strides;
  g.AddNode(conv);
  g.outputs.push_back(y);
  const std::string s = g.ToString();
  EXPECT_NE(s.find("%y:float32[1,4,4,4] = Conv(%x, %w(const)) {strides=[2,2]} # conv0"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("const %w:float32[4,3,3,3]"), std::string::npos) << s;
  EXPECT_NE(s.find("input %x:float32[1,3,8,8]"), std::string::npos) << s;
}

TEST(GraphTest, Broadcast) {
  std::vector<int64_t> out;
  ASSERT_TRUE(BroadcastShapes({2, 1, 4}, {3, 1}, &out));
  EXPECT_EQ(out, (std::vector<int64_t>{2, 3, 4}));
  ASSERT_TRUE(BroadcastShapes({}, {5}, &out));
  EXPECT_EQ(out, (std::vector<int64_t>{5}));
  EXPECT_FALSE(BroadcastShapes({2, 3}, {4, 3}, &out));
}

}  // namespace
}  // namespace kiln::ir
