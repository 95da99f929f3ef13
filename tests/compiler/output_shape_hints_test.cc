// A graph output's declared static shape reaches back through elementwise
// ops (over scalar constants) to the values producing it, where the rules
// of run-time-length ops read it; other ops stop it.
#include "compiler/passes/output_shape_hints.h"

#include "compiler/ir/graph_util.h"
#include "gtest/gtest.h"
#include "tests/compiler/backend_graph_builder.h"

namespace kiln::compiler {
namespace {

using testing::GraphBuilder;

TEST(OutputShapeHints, ReachBackThroughElementwiseOps) {
  // r = Range(0, n, 1) (n a run-time scalar); c = Cos(r * k); y = 0.5 - c + c2, declared [10]
  GraphBuilder b;
  const ir::ValueId n = b.Input("n", {}, ir::DType::F32);
  const ir::ValueId zero = b.g.AddConstant("zero", ir::MakeConstant(ir::DType::F32, {}, {0, 0, 0, 0}));
  const ir::ValueId one = b.g.AddConstant("one", ir::MakeConstant(ir::DType::F32, {}, {0, 0, 128, 63}));
  const ir::ValueId r = b.Tensor("r", {});
  const ir::ValueId rk = b.Tensor("rk", {});
  const ir::ValueId c = b.Tensor("c", {});
  const ir::ValueId c2 = b.Tensor("c2", {});
  const ir::ValueId d = b.Tensor("d", {});
  const ir::ValueId y = b.Tensor("y", {});
  b.Node("Range", "range", {zero, n, one}, {r});
  b.Node("Mul", "scale", {r, n}, {rk});      // n: a graph input, which has its shape
  b.Node("Cos", "cos", {rk}, {c});
  b.Node("Sin", "sin", {rk}, {c2});
  b.Node("Sub", "sub", {one, c}, {d});       // a scalar constant operand keeps no hint
  b.Node("Add", "add", {d, c2}, {y});
  b.Output(y);
  b.g.value(y).declared_shape = {10};
  b.g.value(y).has_declared_shape = true;
  ASSERT_TRUE(PropagateOutputShapeHints(b.g).ok());
  for (ir::ValueId v : {r, rk, c, c2, d}) {
    EXPECT_TRUE(b.g.value(v).has_declared_shape) << b.g.value(v).name;
    EXPECT_EQ(b.g.value(v).declared_shape, (std::vector<int64_t>{10})) << b.g.value(v).name;
  }
  EXPECT_FALSE(b.g.value(one).has_declared_shape);
  EXPECT_FALSE(b.g.value(n).has_declared_shape);
  EXPECT_FALSE(b.g.value(zero).has_declared_shape);
}

TEST(OutputShapeHints, StopAtOtherOpsAndKeepDeclaredShapes) {
  GraphBuilder b;
  const ir::ValueId x = b.Input("x", {4, 3});
  const ir::ValueId w = b.Input("w", {3, 5});
  const ir::ValueId m = b.Tensor("m", {});
  const ir::ValueId e = b.Tensor("e", {});
  const ir::ValueId y = b.Tensor("y", {});
  b.Node("MatMul", "mm", {x, w}, {m});
  b.Node("Exp", "exp", {m}, {e});
  b.Node("Relu", "relu", {e}, {y});
  b.Output(y);
  b.g.value(y).declared_shape = {4, 5};
  b.g.value(y).has_declared_shape = true;
  b.g.value(e).declared_shape = {4, 5};  // a graph that declares it already
  b.g.value(e).has_declared_shape = true;
  ASSERT_TRUE(PropagateOutputShapeHints(b.g).ok());
  EXPECT_FALSE(b.g.value(m).has_declared_shape);  // behind Exp's declared input: not revisited
  EXPECT_FALSE(b.g.value(x).has_declared_shape);
  EXPECT_FALSE(b.g.value(w).has_declared_shape);
}

TEST(OutputShapeHints, ASymbolicDeclaredShapeGivesNoHint) {
  GraphBuilder b;
  const ir::ValueId x = b.Input("x", {4});
  const ir::ValueId e = b.Tensor("e", {});
  const ir::ValueId y = b.Tensor("y", {});
  b.Node("Exp", "exp", {x}, {e});
  b.Node("Relu", "relu", {e}, {y});
  b.Output(y);
  b.g.value(y).declared_shape = {-1};
  b.g.value(y).has_declared_shape = true;
  ASSERT_TRUE(PropagateOutputShapeHints(b.g).ok());
  EXPECT_FALSE(b.g.value(e).has_declared_shape);
}

}  // namespace
}  // namespace kiln::compiler
