// Output dim expressions of the ops that take symbolic dims since issue 8's
// second round: Concat (sums of dims on the axis), Expand (constant and
// symbolic shape values), comparisons and Where (broadcasting as Add does),
// Gather (symbolic data and index dims) and Slice with constant bounds on a
// symbolic axis (clamped with min/max). The e2e counterpart, running each at
// several sizes, is tests/models/dynamic/generate_ops.py.
#include "absl/strings/str_cat.h"
#include "compiler/ir/graph_util.h"
#include "compiler/passes/constant_folding.h"
#include "compiler/ops/slice.h"
#include "compiler/passes/shape_inference.h"
#include "compiler/passes/symbolic_support.h"
#include "gtest/gtest.h"
#include "tests/compiler/backend_graph_builder.h"

namespace kiln::compiler {
namespace {

using testing::GraphBuilder;

ir::ValueId Ints(GraphBuilder& b, const std::string& name, std::vector<int64_t> values) {
  return b.g.AddConstant(name, ir::MakeI64Constant({static_cast<int64_t>(values.size())}, values));
}

std::string ShapeOf(const GraphBuilder& b, const char* name) {
  return SymbolicShapeStr(b.g, b.g.value(b.g.FindValue(name)).shape);
}

// Marks every node output as unshaped so shape inference computes it.
void Unshape(GraphBuilder& b) {
  for (const ir::Node& n : b.g.nodes) {
    for (ir::ValueId v : n.outputs) b.g.value(v).has_shape = false;
  }
}

TEST(SymbolicOps, ConcatSumsDimsOnTheAxis) {
  GraphBuilder b;
  const int64_t s = b.g.dims.Symbol("S"), t = b.g.dims.Symbol("T");
  const ir::ValueId a = b.Input("a", {s, 4});
  const ir::ValueId c = b.Input("c", {t, 4});
  const ir::ValueId head = b.Const("head", {2, 8}, std::vector<float>(16, 0.0f));
  const ir::ValueId ab = b.Tensor("ab", {}), wide = b.Tensor("wide", {}), y = b.Tensor("y", {});
  b.Node("Concat", "rows", {a, c}, {ab});
  b.g.nodes.back().SetInt("axis", 0);
  b.Node("Concat", "cols", {ab, ab}, {wide});
  b.g.nodes.back().SetInt("axis", -1);
  b.Node("Concat", "head", {head, wide}, {y});
  b.g.nodes.back().SetInt("axis", 0);
  b.Output(y);
  Unshape(b);
  ASSERT_TRUE(InferShapes(b.g).ok());
  ir::DimPool& dims = b.g.dims;  // expressions are canonical: compare them as dims
  const int64_t st = dims.Add(s, t);
  EXPECT_EQ(b.g.value(ab).shape, (std::vector<int64_t>{st, 4})) << ShapeOf(b, "ab");
  EXPECT_EQ(b.g.value(wide).shape, (std::vector<int64_t>{st, 8})) << ShapeOf(b, "wide");
  EXPECT_EQ(b.g.value(y).shape, (std::vector<int64_t>{dims.Add(st, 2), 8})) << ShapeOf(b, "y");
  EXPECT_EQ(b.g.dims.Evaluate(b.g.value(y).shape[0], {3, 5}), 10);
}

TEST(SymbolicOps, ConcatRequiresDifferentSymbolicDimsOffTheAxisEqual) {
  // ONNX requires them equal: the run checks S == T (published_patterns_test
  // covers chains and the static refusal).
  GraphBuilder b;
  const int64_t s = b.g.dims.Symbol("S"), t = b.g.dims.Symbol("T");
  const ir::ValueId a = b.Input("a", {s, 4});
  const ir::ValueId c = b.Input("c", {t, 4});
  const ir::ValueId y = b.Tensor("y", {});
  b.Node("Concat", "cols", {a, c}, {y});
  b.g.nodes.back().SetInt("axis", 1);
  b.Output(y);
  Unshape(b);
  ASSERT_TRUE(InferShapes(b.g).ok());
  EXPECT_EQ(b.g.value(y).shape[1], 8);
  ASSERT_EQ(b.g.dims.assumptions().size(), 1u);
  EXPECT_TRUE(b.g.dims.SameDim(s, t));
}

TEST(SymbolicOps, ExpandTakesConstantAndSymbolicShapes) {
  // e1 = Expand(x [S,1], [2,1,3]); e2 = Expand(row [3], Shape(e1)).
  GraphBuilder b;
  const int64_t s = b.g.dims.Symbol("S");
  const ir::ValueId x = b.Input("x", {s, 1});
  const ir::ValueId row = b.Const("row", {3}, {1.0f, 2.0f, 3.0f});
  const ir::ValueId e1 = b.Tensor("e1", {}), shape = b.Tensor("shape", {}, ir::DType::I64);
  const ir::ValueId e2 = b.Tensor("e2", {});
  b.Node("Expand", "expand_const", {x, Ints(b, "target", {2, 1, 3})}, {e1});
  b.Node("Shape", "shape", {e1}, {shape});
  b.Node("Expand", "expand_as", {row, shape}, {e2});
  b.Output(e2);
  Unshape(b);
  ASSERT_TRUE(FoldConstants(b.g).ok());
  EXPECT_EQ(ShapeOf(b, "e1"), "[2,S,3]");
  EXPECT_EQ(ShapeOf(b, "e2"), "[2,S,3]");
  EXPECT_TRUE(b.g.dims.assumptions().empty());
}

TEST(SymbolicOps, ExpandRefusesANegativeShape) {
  GraphBuilder b;
  const int64_t s = b.g.dims.Symbol("S");
  const ir::ValueId x = b.Input("x", {1, s});
  const ir::ValueId y = b.Tensor("y", {});
  b.Node("Expand", "expand", {x, Ints(b, "target", {-1, 1})}, {y});
  b.Output(y);
  Unshape(b);
  absl::Status st = InferShapes(b.g);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(std::string(st.message()).find("negative"), std::string::npos) << st;
}

TEST(SymbolicOps, ComparisonsAndWhereBroadcastSymbolicDims) {
  // Less(x [2,S], y [S]) -> [2,S]; Where(mask, x, pos [min(S, 8)]) keeps S
  // and records S == min(S, 8) as Add does.
  GraphBuilder b;
  const int64_t s = b.g.dims.Symbol("S");
  const ir::ValueId x = b.Input("x", {2, s});
  const ir::ValueId y = b.Input("y", {s});
  const ir::ValueId table = b.Const("table", {8}, std::vector<float>(8, 1.0f));
  const ir::ValueId shape = b.Tensor("shape", {}, ir::DType::I64);
  const ir::ValueId pos = b.Tensor("pos", {});
  const ir::ValueId mask = b.Tensor("mask", {}, ir::DType::Bool);
  const ir::ValueId nmask = b.Tensor("nmask", {}, ir::DType::Bool);
  const ir::ValueId out = b.Tensor("out", {});
  b.Node("Shape", "shape", {y}, {shape});
  b.Node("Slice", "table_end", {table, Ints(b, "s0", {0}), shape}, {pos});
  b.Node("Less", "less", {x, y}, {mask});
  b.Node("Not", "not", {mask}, {nmask});
  b.Node("Where", "where", {nmask, x, pos}, {out});
  b.Output(out);
  Unshape(b);
  ASSERT_TRUE(FoldConstants(b.g).ok());
  EXPECT_EQ(ShapeOf(b, "pos"), "[min(S, 8)]");
  EXPECT_EQ(ShapeOf(b, "mask"), "[2,S]");
  EXPECT_EQ(ShapeOf(b, "nmask"), "[2,S]");
  EXPECT_EQ(ShapeOf(b, "out"), "[2,S]");
  ASSERT_EQ(b.g.dims.assumptions().size(), 1u);
  EXPECT_TRUE(b.g.dims.SameDim(s, b.g.value(pos).shape[0]));
}

TEST(SymbolicOps, GatherKeepsSymbolicDataAndIndexDims) {
  GraphBuilder b;
  const int64_t s = b.g.dims.Symbol("S"), t = b.g.dims.Symbol("T");
  const ir::ValueId x = b.Input("x", {s, 6});
  const ir::ValueId ids = b.Input("ids", {t}, ir::DType::I64);
  const ir::ValueId rows = b.Tensor("rows", {}), last = b.Tensor("last", {});
  const ir::ValueId cols = b.Tensor("cols", {});
  b.Node("Gather", "rows", {x, ids}, {rows});
  b.Node("Gather", "last", {x, b.g.AddConstant("m1", ir::MakeI64Constant({}, {-1}))}, {last});
  const ir::NodeId g = b.Node(
      "Gather", "cols", {x, b.g.AddConstant("c", ir::MakeI64Constant({2, 2}, {0, -1, 3, 2}))},
      {cols});
  b.g.nodes[g].SetInt("axis", 1);
  b.Output(rows);
  b.Output(last);
  b.Output(cols);
  Unshape(b);
  ASSERT_TRUE(InferShapes(b.g).ok());
  EXPECT_EQ(ShapeOf(b, "rows"), "[T,6]");
  EXPECT_EQ(ShapeOf(b, "last"), "[6]");
  EXPECT_EQ(ShapeOf(b, "cols"), "[S,2,2]");
}

TEST(SymbolicOps, SliceClampsConstantBoundsToASymbolicAxis) {
  // x [S,5]: x[1:-1], x[0:3], x[0::2] as expressions valid for every S >= 1.
  GraphBuilder b;
  const int64_t s = b.g.dims.Symbol("S");
  const ir::ValueId x = b.Input("x", {s, 5});
  const ir::ValueId inner = b.Tensor("inner", {}), head = b.Tensor("head", {});
  const ir::ValueId even = b.Tensor("even", {});
  b.Node("Slice", "inner", {x, Ints(b, "s1", {1}), Ints(b, "e1", {-1}), Ints(b, "a1", {0})}, {inner});
  b.Node("Slice", "head", {x, Ints(b, "s2", {0}), Ints(b, "e2", {3}), Ints(b, "a2", {0})}, {head});
  b.Node("Slice", "even",
         {x, Ints(b, "s3", {0}), Ints(b, "e3", {INT64_MAX}), Ints(b, "a3", {0}), Ints(b, "t3", {2})},
         {even});
  b.Output(inner);
  b.Output(head);
  b.Output(even);
  Unshape(b);
  ASSERT_TRUE(InferShapes(b.g).ok());
  EXPECT_EQ(ShapeOf(b, "head"), "[min(S, 3),5]");
  const ir::DimPool& dims = b.g.dims;
  const int64_t in_len = b.g.value(inner).shape[0];
  const int64_t head_len = b.g.value(head).shape[0];
  const int64_t even_len = b.g.value(even).shape[0];
  for (int64_t v : {1, 2, 3, 4, 9}) {
    // Python's len(range(...)) of the same slices.
    EXPECT_EQ(dims.Evaluate(in_len, {v}), std::max<int64_t>(v - 2, 0)) << "S=" << v;
    EXPECT_EQ(dims.Evaluate(head_len, {v}), std::min<int64_t>(v, 3)) << "S=" << v;
    EXPECT_EQ(dims.Evaluate(even_len, {v}), (v + 1) / 2) << "S=" << v;
  }
}

// Backwards slices over a symbolic axis against the static rule of the same
// slice at each size (the static rule is what the ONNX conformance tests
// check): length and first row agree for every S.
TEST(SymbolicOps, BackwardSlicesMatchTheStaticRuleAtEverySize) {
  struct Case {
    int64_t start, end, step;
  };
  const Case cases[] = {{-1, INT64_MIN, -1}, {5, 0, -2}, {-1, INT64_MIN, -3}, {2, -4, -1},
                        {INT64_MAX, -2, -2}, {0, -1, -1},  {-3, INT64_MIN, -1}};
  for (const Case& c : cases) {
    GraphBuilder b;
    const int64_t sym = b.g.dims.Symbol("S");
    const ir::ValueId x = b.Input("x", {sym, 2});
    const ir::NodeId n = b.Node("Slice", "back",
                                {x, Ints(b, "s", {c.start}), Ints(b, "e", {c.end}),
                                 Ints(b, "a", {0}), Ints(b, "t", {c.step})},
                                {b.Tensor("y", {})});
    std::vector<int64_t> starts, steps, shape;
    ASSERT_TRUE(SliceParams(b.g, b.g.nodes[n], {}, {sym, 2}, &starts, &steps, &shape).ok());
    for (int64_t v = 1; v <= 9; ++v) {
      std::vector<int64_t> s_starts, s_steps, s_shape;
      ASSERT_TRUE(SliceParams(b.g, b.g.nodes[n], {}, {v, 2}, &s_starts, &s_steps, &s_shape).ok());
      const std::string where = absl::StrCat("x[", c.start, ":", c.end, ":", c.step, "] at S=", v);
      EXPECT_EQ(b.g.dims.Evaluate(shape[0], {v}), s_shape[0]) << where;
      if (s_shape[0] > 0) {
        EXPECT_EQ(b.g.dims.Evaluate(starts[0], {v}), s_starts[0]) << where;
      }
      EXPECT_EQ(steps[0], c.step);
    }
  }
}

}  // namespace
}  // namespace kiln::compiler
