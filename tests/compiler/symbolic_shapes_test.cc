// Shape inference and folding with symbolic dims: exporters' shape chains
// fold to expressions, Slice clamps symbolic bounds, broadcasting records the
// equalities it assumes, and symbolic values never reach a place that would
// read them as plain numbers.
#include "compiler/ir/graph_util.h"
#include "compiler/passes/constant_folding.h"
#include "compiler/passes/shape_inference.h"
#include "compiler/passes/symbolic_support.h"
#include "gtest/gtest.h"
#include "tests/compiler/backend_graph_builder.h"

namespace kiln::compiler {
namespace {

using testing::GraphBuilder;

ir::ValueId IntConst(GraphBuilder& b, const std::string& name, std::vector<int64_t> values) {
  return b.g.AddConstant(name, ir::MakeI64Constant({static_cast<int64_t>(values.size())}, values));
}

std::string ShapeOf(const GraphBuilder& b, ir::ValueId v) {
  return SymbolicShapeStr(b.g, b.g.value(v).shape);
}

TEST(SymbolicShapes, ExportedShapeChainFoldsIntoReshape) {
  // x [1,S,16] -> Shape -> Gather(1) -> Unsqueeze -> Concat [1, S, 2, 8] -> Reshape
  GraphBuilder b;
  const int64_t s = b.g.dims.Symbol("S");
  const ir::ValueId x = b.Input("x", {1, s, 16});
  const ir::ValueId shape = b.Tensor("shape", {}, ir::DType::I64);
  const ir::ValueId seq = b.Tensor("seq", {}, ir::DType::I64);
  const ir::ValueId seq1 = b.Tensor("seq1", {}, ir::DType::I64);
  const ir::ValueId spec = b.Tensor("spec", {}, ir::DType::I64);
  const ir::ValueId y = b.Tensor("y", {});
  b.Node("Shape", "shape", {x}, {shape});
  b.Node("Gather", "gather", {shape, b.g.AddConstant("one", ir::MakeI64Constant({}, {1}))}, {seq});
  b.Node("Unsqueeze", "unsq", {seq, IntConst(b, "axes", {0})}, {seq1});
  b.Node("Concat", "concat", {IntConst(b, "head", {1}), seq1, IntConst(b, "tail", {2, 8})}, {spec});
  b.g.nodes.back().SetInt("axis", 0);
  b.Node("Reshape", "reshape", {x, spec}, {y});
  b.Output(y);
  for (ir::ValueId v : {shape, seq, seq1, spec, y}) b.g.value(v).has_shape = false;
  ASSERT_TRUE(FoldConstants(b.g).ok());
  const ir::ValueId out = b.g.outputs[0];
  EXPECT_EQ(ShapeOf(b, out), "[1,S,2,8]");
  // The spec folded to a symbolic value; only the Reshape is left.
  int live = 0;
  for (const ir::Node& n : b.g.nodes) live += !n.removed;
  EXPECT_EQ(live, 1);
}

TEST(SymbolicShapes, ArithmeticOnShapeValuesFolds) {
  // [1, S, 128] -> Reshape to [1, (S*4)/2, 64]: Mul and Div of a Shape element.
  GraphBuilder b;
  const int64_t s = b.g.dims.Symbol("S");
  const ir::ValueId x = b.Input("x", {1, s, 128});
  std::vector<ir::ValueId> v;
  for (const char* name : {"shape", "seq", "seq4", "seq2", "seq2u", "spec"}) {
    v.push_back(b.Tensor(name, {}, ir::DType::I64));
  }
  const ir::ValueId y = b.Tensor("y", {});
  b.Node("Shape", "shape", {x}, {v[0]});
  b.Node("Gather", "gather", {v[0], b.g.AddConstant("one", ir::MakeI64Constant({}, {1}))}, {v[1]});
  b.Node("Mul", "mul", {v[1], b.g.AddConstant("four", ir::MakeI64Constant({}, {4}))}, {v[2]});
  b.Node("Div", "div", {v[2], b.g.AddConstant("two", ir::MakeI64Constant({}, {2}))}, {v[3]});
  b.Node("Unsqueeze", "unsq", {v[3], IntConst(b, "axes", {0})}, {v[4]});
  b.Node("Concat", "concat", {IntConst(b, "head", {1}), v[4], IntConst(b, "tail", {64})}, {v[5]});
  b.g.nodes.back().SetInt("axis", 0);
  b.Node("Reshape", "reshape", {x, v[5]}, {y});
  b.Output(y);
  for (ir::ValueId id : v) b.g.value(id).has_shape = false;
  b.g.value(y).has_shape = false;
  ASSERT_TRUE(FoldConstants(b.g).ok());
  EXPECT_EQ(ShapeOf(b, b.g.outputs[0]), "[1,2*S,64]");
}

TEST(SymbolicShapes, SliceClampsASymbolicEnd) {
  // pos [1,64] sliced to [:, :S] (S from a Shape chain) -> [1, min(S, 64)]
  GraphBuilder b;
  const int64_t s = b.g.dims.Symbol("S");
  const ir::ValueId x = b.Input("x", {1, s});
  const ir::ValueId pos = b.Const("pos", {1, 64}, std::vector<float>(64, 1.0f));
  const ir::ValueId shape = b.Tensor("shape", {}, ir::DType::I64);
  const ir::ValueId end = b.Tensor("end", {}, ir::DType::I64);
  const ir::ValueId y = b.Tensor("y", {});
  const ir::ValueId sum = b.Tensor("sum", {});
  b.Node("Shape", "shape", {x}, {shape});
  b.Node("Slice", "end", {shape, IntConst(b, "s1", {1}), IntConst(b, "e1", {2})}, {end});
  b.Node("Slice", "slice", {pos, IntConst(b, "s0", {0}), end, IntConst(b, "ax", {1})}, {y});
  b.Node("Add", "add", {x, y}, {sum});
  b.Output(sum);
  for (ir::ValueId v : {shape, end, y, sum}) b.g.value(v).has_shape = false;
  ASSERT_TRUE(FoldConstants(b.g).ok());
  EXPECT_EQ(ShapeOf(b, b.g.FindValue("y")), "[1,min(S, 64)]");
  // Broadcasting S against min(S, 64) keeps S and records the requirement.
  EXPECT_EQ(ShapeOf(b, b.g.outputs[0]), "[1,S]");
  ASSERT_EQ(b.g.dims.assumptions().size(), 1u);
  EXPECT_TRUE(b.g.dims.SameDim(s, b.g.value(b.g.FindValue("y")).shape[1]));
}

TEST(SymbolicShapes, SymbolicValueAsAnIndexIsRefused) {
  // Gather(data, indices = Shape(x)): a symbolic value read as numbers.
  GraphBuilder b;
  const int64_t n = b.g.dims.Symbol("N");
  const ir::ValueId x = b.Input("x", {n, 4});
  const ir::ValueId data = b.Const("data", {8}, std::vector<float>(8, 0.0f));
  const ir::ValueId shape = b.Tensor("shape", {}, ir::DType::I64);
  const ir::ValueId y = b.Tensor("y", {});
  b.Node("Shape", "shape", {x}, {shape});
  b.Node("Gather", "gather_by_shape", {data, shape}, {y});
  b.Output(y);
  for (ir::ValueId v : {shape, y}) b.g.value(v).has_shape = false;
  absl::Status s = FoldConstants(b.g);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message()).find("node 'gather_by_shape' (Gather): input 1"),
            std::string::npos)
      << s;
  EXPECT_NE(std::string(s.message()).find("computed from symbolic dimensions"), std::string::npos)
      << s;
}

TEST(SymbolicShapes, NegativeSymbolicSliceBoundIsRefused) {
  // ends = 0 - S can be negative, so no clamp applies at compile time.
  GraphBuilder b;
  const int64_t s = b.g.dims.Symbol("S");
  const ir::ValueId x = b.Input("x", {1, s});
  const ir::ValueId pos = b.Const("pos", {1, 64}, std::vector<float>(64, 1.0f));
  const ir::ValueId ends = b.g.AddConstant(
      "ends", ir::MakeI64Constant({1}, {b.g.dims.Sub(0, s)}));
  std::const_pointer_cast<ir::ConstantData>(b.g.value(ends).constant)->symbolic = true;
  const ir::ValueId y = b.Tensor("y", {});
  b.Node("Slice", "slice", {pos, IntConst(b, "s0", {0}), ends, IntConst(b, "ax", {1})}, {y});
  b.Output(y);
  b.g.value(y).has_shape = false;
  (void)x;
  absl::Status st = FoldConstants(b.g);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(std::string(st.message()).find("may be negative"), std::string::npos) << st;
}

TEST(SymbolicShapes, StaticBoundsInTheEncodedRangeStayNumbers) {
  // x[:, :, INT64_MIN:INT64_MAX] in a model with symbols: the bounds are
  // plain numbers even though they fall in the range encoded dims use.
  GraphBuilder b;
  const int64_t s = b.g.dims.Symbol("S");
  const ir::ValueId x = b.Input("x", {1, s, 8});
  const ir::ValueId y = b.Tensor("y", {});
  b.Node("Slice", "slice",
         {x, IntConst(b, "lo", {INT64_MIN}), IntConst(b, "hi", {INT64_MAX}), IntConst(b, "ax", {2})},
         {y});
  b.Output(y);
  b.g.value(y).has_shape = false;
  ASSERT_TRUE(FoldConstants(b.g).ok());
  EXPECT_EQ(ShapeOf(b, b.g.outputs[0]), "[1,S,8]");
  EXPECT_FALSE(b.g.dims.Known(INT64_MIN));
}

}  // namespace
}  // namespace kiln::compiler
