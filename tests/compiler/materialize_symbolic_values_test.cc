// Sizes read as tensor data become run-time tensors (kiln:SymbolicValue)
// written just before their first reader; readers that take them as dims
// keep the constant; a Shape returned by the graph keeps its name.
#include "compiler/passes/materialize_symbolic_values.h"

#include "compiler/ir/graph_util.h"
#include "compiler/passes/constant_folding.h"
#include "gtest/gtest.h"
#include "tests/compiler/backend_graph_builder.h"

namespace kiln::compiler {
namespace {

using testing::GraphBuilder;

TEST(MaterializeSymbolicValues, ASizeReadAsDataIsWrittenBeforeItsReader) {
  // y = Cast(Shape(x)) as float, shape value [N, 4] read as data; Reshape
  // of x by the same value reads it as dims.
  GraphBuilder b;
  const int64_t n = b.g.dims.Symbol("N");
  const ir::ValueId x = b.Input("x", {n, 4});
  const ir::ValueId shape = b.Tensor("shape", {}, ir::DType::I64);
  const ir::ValueId y = b.Tensor("y", {});
  const ir::ValueId r = b.Tensor("r", {});
  b.Node("Shape", "shape", {x}, {shape});
  b.Node("Cast", "cast", {shape}, {y});
  b.g.nodes.back().SetInt("to", 1);
  b.Node("Reshape", "reshape", {x, shape}, {r});
  b.Output(y);
  b.Output(r);
  for (ir::ValueId v : {shape, y, r}) b.g.value(v).has_shape = false;
  ASSERT_TRUE(FoldConstants(b.g).ok());
  ASSERT_NE(b.g.value(shape).constant, nullptr);
  ASSERT_TRUE(b.g.value(shape).constant->symbolic);
  ASSERT_TRUE(MaterializeSymbolicValues(b.g).ok());

  std::vector<const ir::Node*> live;
  for (const ir::Node& node : b.g.nodes) {
    if (!node.removed) live.push_back(&node);
  }
  ASSERT_EQ(live.size(), 3u);
  EXPECT_EQ(live[0]->op_type, kSymbolicValueOp);
  EXPECT_EQ(live[0]->domain, kSymbolicValueDomain);
  EXPECT_EQ(live[0]->GetInts("values", {}), (std::vector<int64_t>{n, 4}));
  const ir::ValueId tensor = live[0]->outputs[0];
  EXPECT_EQ(b.g.value(tensor).constant, nullptr);
  EXPECT_EQ(b.g.value(tensor).shape, (std::vector<int64_t>{2}));
  EXPECT_EQ(live[1]->op_type, "Cast");
  EXPECT_EQ(live[1]->inputs[0], tensor);
  EXPECT_EQ(live[2]->op_type, "Reshape");
  EXPECT_EQ(live[2]->inputs[1], shape);  // as dims: the constant
}

TEST(MaterializeSymbolicValues, AReturnedShapeKeepsItsName) {
  GraphBuilder b;
  const int64_t n = b.g.dims.Symbol("N");
  const ir::ValueId x = b.Input("x", {n, 3});
  const ir::ValueId s = b.Tensor("s", {}, ir::DType::I64);
  b.Node("Shape", "shape", {x}, {s});
  b.Output(s);
  b.g.value(s).has_shape = false;
  ASSERT_TRUE(FoldConstants(b.g).ok());
  ASSERT_TRUE(MaterializeSymbolicValues(b.g).ok());
  const ir::ValueId out = b.g.outputs[0];
  EXPECT_NE(out, s);
  EXPECT_EQ(b.g.value(out).name, "s");
  EXPECT_EQ(b.g.value(out).constant, nullptr);
  const ir::Node& writer = b.g.nodes[b.g.value(out).producer];
  EXPECT_EQ(writer.op_type, kSymbolicValueOp);
  EXPECT_EQ(writer.GetInts("values", {}), (std::vector<int64_t>{n, 3}));
}

TEST(MaterializeSymbolicValues, StaticModelsAreLeftAlone) {
  GraphBuilder b;
  const ir::ValueId x = b.Input("x", {2, 3});
  const ir::ValueId s = b.Tensor("s", {}, ir::DType::I64);
  b.Node("Shape", "shape", {x}, {s});
  b.Output(s);
  b.g.value(s).has_shape = false;
  ASSERT_TRUE(FoldConstants(b.g).ok());
  const size_t nodes = b.g.nodes.size();
  ASSERT_TRUE(MaterializeSymbolicValues(b.g).ok());
  EXPECT_EQ(b.g.nodes.size(), nodes);
  EXPECT_EQ(b.g.outputs[0], s);
}

}  // namespace
}  // namespace kiln::compiler
