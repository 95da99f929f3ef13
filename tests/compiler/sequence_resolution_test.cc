// Sequences of compile-time structure (passes/sequence_resolution.h) become
// the tensors they hold: positions (negative ones too) pick the elements,
// SequenceLength is a constant, ConcatFromSequence a Concat; run-time
// positions and positions out of range are refused naming the node, and a
// sequence something else reads is left for op support to refuse. The
// numbers: the simple/test_sequence_model1..7 conformance tests.
#include <string>
#include <vector>

#include "compiler/ir/graph_util.h"
#include "compiler/passes/sequence_resolution.h"
#include "gtest/gtest.h"
#include "tests/compiler/backend_graph_builder.h"

namespace kiln::compiler {
namespace {

using testing::ExpectNodeError;
using testing::GraphBuilder;

ir::ValueId Position(GraphBuilder& b, const std::string& name, int64_t v) {
  return b.g.AddConstant(name, ir::MakeI64Constant({}, {v}));
}

// The node writing `v` and the inputs it reads.
const ir::Node* ProducerOf(const ir::Graph& g, ir::ValueId v) {
  for (const ir::Node& n : g.nodes) {
    if (!n.removed && !n.outputs.empty() && n.outputs[0] == v) return &n;
  }
  return nullptr;
}

// seq = [x, y, z]; erase position -3 (x) -> [y, z]; insert x at -1 -> [y, x, z];
// out = seq[pos_at]; count = SequenceLength.
struct Model {
  GraphBuilder b;
  ir::ValueId x, y, z, out, count;
  explicit Model(int64_t pos_at, bool runtime_position = false) {
    x = b.Input("x", {2});
    y = b.Input("y", {2});
    z = b.Input("z", {2});
    const ir::ValueId s1 = b.g.AddValue("s1"), s2 = b.g.AddValue("s2"), s3 = b.g.AddValue("s3");
    out = b.Tensor("out", {});
    count = b.Tensor("count", {}, ir::DType::I64);
    b.Node("SequenceConstruct", "construct", {x, y, z}, {s1});
    b.Node("SequenceErase", "erase", {s1, Position(b, "pe", -3)}, {s2});
    b.Node("SequenceInsert", "insert", {s2, x, Position(b, "pi", -1)}, {s3});
    const ir::ValueId at = runtime_position ? b.Input("pos", {}, ir::DType::I64)
                                            : Position(b, "pa", pos_at);
    b.Node("SequenceAt", "at", {s3, at}, {out});
    b.Node("SequenceLength", "length", {s3}, {count});
    b.Output(out);
    b.Output(count);
  }
};

TEST(SequenceResolution, PositionsPickTheElements) {
  const size_t want[] = {1, 0, 2};  // y, x, z by input order
  for (int64_t at : {0, 1, 2, -1, -2, -3}) {
    Model m(at);
    ASSERT_TRUE(ResolveSequences(m.b.g).ok()) << at;
    const ir::Node* n = ProducerOf(m.b.g, m.out);
    ASSERT_NE(n, nullptr);
    EXPECT_EQ(n->op_type, "Identity");
    const ir::ValueId inputs[] = {m.x, m.y, m.z};
    EXPECT_EQ(n->inputs[0], inputs[want[static_cast<size_t>((at + 3) % 3)]]) << at;
    const ir::Node* len = ProducerOf(m.b.g, m.count);
    ASSERT_NE(len, nullptr);
    const ir::ConstantPtr& c = m.b.g.value(len->inputs[0]).constant;
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->IntAt(0), 3);
    for (const ir::Node& node : m.b.g.nodes) {
      EXPECT_EQ(node.op_type.rfind("Sequence", 0), std::string::npos) << node.op_type;
    }
  }
}

TEST(SequenceResolution, RefusesRunTimeOrOutOfRangePositions) {
  Model runtime(0, true);
  ExpectNodeError(ResolveSequences(runtime.b.g), "must be known at compile time");
  Model beyond(3);
  ExpectNodeError(ResolveSequences(beyond.b.g), "position 3 is outside [-3, 2]");
}

TEST(SequenceResolution, ConcatFromSequenceWithANewAxisUnsqueezesEachElement) {
  GraphBuilder b;
  const ir::ValueId x = b.Input("x", {2, 3}), y = b.Input("y", {2, 3});
  const ir::ValueId s = b.g.AddValue("s"), out = b.Tensor("out", {});
  b.Node("SequenceConstruct", "construct", {x, y}, {s});
  const ir::NodeId cat = b.Node("ConcatFromSequence", "cat", {s}, {out});
  b.g.nodes[cat].SetInt("axis", -1);
  b.g.nodes[cat].SetInt("new_axis", 1);
  b.Output(out);
  ASSERT_TRUE(ResolveSequences(b.g).ok());
  const ir::Node* n = ProducerOf(b.g, out);
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->op_type, "Concat");
  EXPECT_EQ(n->GetInt("axis", 0), -1);
  ASSERT_EQ(n->inputs.size(), 2u);
  for (ir::ValueId in : n->inputs) {
    const ir::Node* u = ProducerOf(b.g, in);
    ASSERT_NE(u, nullptr);
    EXPECT_EQ(u->op_type, "Unsqueeze");
  }
}

TEST(SequenceResolution, ASequenceOtherOpsReadIsLeftAlone) {
  GraphBuilder b;
  const ir::ValueId x = b.Input("x", {2});
  const ir::ValueId s = b.g.AddValue("s");
  b.Node("SequenceConstruct", "construct", {x}, {s});
  b.Output(s);  // a sequence output: Kiln has no sequences at run time
  const size_t before = b.g.nodes.size();
  ASSERT_TRUE(ResolveSequences(b.g).ok());
  ASSERT_EQ(b.g.nodes.size(), before);
  EXPECT_EQ(b.g.nodes[0].op_type, "SequenceConstruct");
}

}  // namespace
}  // namespace kiln::compiler
