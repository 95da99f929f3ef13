// Symbolic dims through GatherND, Reduce*, ArgMax/ArgMin, CumSum and TopK
// (issue 8, third round): the output dim expressions of their shape rules,
// what stays refused, and which kernel parameters become run-time patches
// (a patched slot is 0 in the executable; its dim is filled in per run). The
// e2e counterpart is tests/models/dynamic/generate_ops.py.
#include "compiler/emit/lowering.h"
#include "compiler/ir/graph_util.h"
#include "compiler/passes/constant_folding.h"
#include "compiler/passes/memory_planning.h"
#include "compiler/passes/shape_inference.h"
#include "compiler/passes/symbolic_support.h"
#include "gtest/gtest.h"
#include "kiln/kernels.h"
#include "tests/compiler/backend_graph_builder.h"

namespace kiln::compiler {
namespace {

using testing::GraphBuilder;
using I = std::vector<int64_t>;

std::string ShapeOf(const GraphBuilder& b, ir::ValueId v) {
  return SymbolicShapeStr(b.g, b.g.value(v).shape);
}

void Unshape(GraphBuilder& b) {
  for (const ir::Node& n : b.g.nodes) {
    for (ir::ValueId v : n.outputs) b.g.value(v).has_shape = false;
  }
}

ir::ValueId Ints(GraphBuilder& b, const std::string& name, I values) {
  return b.g.AddConstant(name, ir::MakeI64Constant({static_cast<int64_t>(values.size())}, values));
}

// Shape inference, then lowering; the executables' iparams in node order.
std::vector<I> LowerParams(GraphBuilder& b) {
  std::vector<I> out;
  absl::Status st = InferShapes(b.g);
  EXPECT_TRUE(st.ok()) << st;
  if (!st.ok()) return out;
  auto plan = PlanMemory(b.g);
  EXPECT_TRUE(plan.ok()) << plan.status();
  if (!plan.ok()) return out;
  auto m = emit::Lower(b.g, *plan);
  EXPECT_TRUE(m.ok()) << m.status();
  if (!m.ok()) return out;
  for (const auto& e : m->executables) out.push_back(e.iparams);
  return out;
}

TEST(SymbolicOps2, GatherNDKeepsSymbolicTuplesAndDataDims) {
  GraphBuilder b;
  const int64_t s = b.g.dims.Symbol("S"), t = b.g.dims.Symbol("T");
  const ir::ValueId x = b.Input("x", {s, 5, 3});
  const ir::ValueId pairs_idx = b.Input("idx", {t, 2}, ir::DType::I64);
  const ir::ValueId rows_idx = b.Input("idx1", {2, t, 1}, ir::DType::I64);
  const ir::ValueId pairs = b.Tensor("pairs", {}), rows = b.Tensor("rows", {});
  b.Node("GatherND", "pairs", {x, pairs_idx}, {pairs});
  b.Node("GatherND", "rows", {x, rows_idx}, {rows});
  b.Output(pairs);
  b.Output(rows);
  Unshape(b);
  const std::vector<I> ip = LowerParams(b);
  EXPECT_EQ(ShapeOf(b, pairs), "[T,3]");
  EXPECT_EQ(ShapeOf(b, rows), "[2,T,5,3]");
  // eb ib kind red batch count k slice dims[k]: the tuple count (T, 2*T) and
  // the indexed dim S are patched, so the kernel checks indices against S.
  ASSERT_EQ(ip.size(), 2u);
  EXPECT_EQ(ip[0], (I{4, 8, 0, 0, 1, 0, 2, 3, 0, 5}));
  EXPECT_EQ(ip[1], (I{4, 8, 0, 0, 1, 0, 1, 15, 0}));
}

TEST(SymbolicOps2, GatherNDBatchDimsMakesTheirEqualityARequirement) {
  GraphBuilder b;
  const int64_t s = b.g.dims.Symbol("S"), t = b.g.dims.Symbol("T");
  const ir::ValueId x = b.Input("x", {s, 4, 3});
  const ir::ValueId idx = b.Input("idx", {t, 2, 1}, ir::DType::I64);
  const ir::ValueId y = b.Tensor("y", {});
  const ir::NodeId n = b.Node("GatherND", "batch", {x, idx}, {y});
  b.g.nodes[n].SetInt("batch_dims", 1);
  b.Output(y);
  Unshape(b);
  ASSERT_TRUE(InferShapes(b.g).ok());
  ASSERT_EQ(b.g.value(y).shape.size(), 3u);
  EXPECT_EQ(b.g.value(y).shape[1], 2);
  EXPECT_EQ(b.g.value(y).shape[2], 3);
  ASSERT_EQ(b.g.dims.assumptions().size(), 1u);  // S == T, checked when a run starts
  EXPECT_TRUE(b.g.dims.SameDim(s, t));
}

TEST(SymbolicOps2, GatherNDRefusesASymbolicIndexDepth) {
  GraphBuilder b;
  const int64_t s = b.g.dims.Symbol("S");
  const ir::ValueId x = b.Input("x", {4, 5, 3});
  const ir::ValueId idx = b.Input("idx", {2, s}, ir::DType::I64);
  const ir::ValueId y = b.Tensor("y", {});
  b.Node("GatherND", "deep", {x, idx}, {y});
  b.Output(y);
  Unshape(b);
  const absl::Status st = InferShapes(b.g);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(std::string(st.message()).find("index depth"), std::string::npos) << st;
}

TEST(SymbolicOps2, ReduceOverASymbolicAxisThatMayBeEmpty) {
  // inner = x[1:-1] has max(S-2, 0)-ish rows; reducing it over axis 0 gives
  // a static [4]; reducing x [2,S,3] over axes {0,2} keeps [S], and over
  // axis 1 walks rows 3 elements apart in blocks of 3*S.
  GraphBuilder b;
  const int64_t s = b.g.dims.Symbol("S");
  const ir::ValueId x = b.Input("x", {s, 4});
  const ir::ValueId x3 = b.Input("x3", {2, s, 3});
  const ir::ValueId inner = b.Tensor("inner", {}), sum = b.Tensor("sum", {});
  const ir::ValueId mx = b.Tensor("max", {}), l2 = b.Tensor("l2", {});
  b.Node("Slice", "inner", {x, Ints(b, "s1", {1}), Ints(b, "e1", {-1}), Ints(b, "a1", {0})},
         {inner});
  ir::NodeId n = b.Node("ReduceSum", "sum", {inner, Ints(b, "ax0", {0})}, {sum});
  b.g.nodes[n].SetInt("keepdims", 0);
  n = b.Node("ReduceMax", "max", {x3}, {mx});
  b.Ints(n, "axes", {0, 2});
  b.g.nodes[n].SetInt("keepdims", 0);
  n = b.Node("ReduceL2", "l2", {x3}, {l2});
  b.Ints(n, "axes", {1});
  b.Output(sum);
  b.Output(mx);
  b.Output(l2);
  Unshape(b);
  const std::vector<I> ip = LowerParams(b);
  EXPECT_EQ(ShapeOf(b, sum), "[4]");
  EXPECT_EQ(ShapeOf(b, mx), "[S]");
  EXPECT_EQ(ShapeOf(b, l2), "[2,1,3]");
  const int64_t rows = b.g.value(inner).shape[0];
  for (int64_t v : {1, 2, 3, 7}) EXPECT_EQ(b.g.dims.Evaluate(rows, {v}), std::max<int64_t>(v - 2, 0));
  // kind RO RR out_dims out_strides red_dims red_strides (Slice is a copy).
  ASSERT_EQ(ip.size(), 4u);
  EXPECT_EQ(ip[1], (I{KILN_REDUCE_SUM, 1, 1, 4, 1, 0, 4}));          // red dim patched
  EXPECT_EQ(ip[2], (I{KILN_REDUCE_MAX, 1, 2, 0, 3, 2, 3, 0, 1}));    // S and 3*S patched
  EXPECT_EQ(ip[3], (I{KILN_REDUCE_L2, 2, 1, 2, 3, 0, 1, 0, 3}));     // 3*S, S, then 3
}

TEST(SymbolicOps2, ArgReduceCumSumAndTopKPatchTheirSizes) {
  GraphBuilder b;
  const int64_t s = b.g.dims.Symbol("S");
  const ir::ValueId x = b.Input("x", {s, 6});
  const ir::ValueId am = b.Tensor("am", {}, ir::DType::I64), cs = b.Tensor("cs", {});
  const ir::ValueId tv = b.Tensor("tv", {}), ti = b.Tensor("ti", {}, ir::DType::I64);
  const ir::ValueId sv = b.Tensor("sv", {}), si = b.Tensor("si", {}, ir::DType::I64);
  ir::NodeId n = b.Node("ArgMax", "am", {x}, {am});
  b.g.nodes[n].SetInt("keepdims", 0);
  b.g.nodes[n].SetInt("select_last_index", 1);
  b.Node("CumSum", "cs", {x, b.g.AddConstant("zero", ir::MakeI64Constant({}, {0}))}, {cs});
  b.Node("TopK", "top", {x, Ints(b, "k3", {3})}, {tv, ti});  // along 6, beside S
  n = b.Node("TopK", "along_s", {x, Ints(b, "k2", {2})}, {sv, si});
  b.g.nodes[n].SetInt("axis", 0);  // k = 2 along S: the kernel checks 2 <= S per run
  for (ir::ValueId v : {am, cs, tv, ti, sv, si}) b.Output(v);
  Unshape(b);
  const std::vector<I> ip = LowerParams(b);
  EXPECT_EQ(ShapeOf(b, am), "[6]");
  EXPECT_EQ(ShapeOf(b, cs), "[S,6]");
  EXPECT_EQ(ShapeOf(b, tv), "[S,3]");
  EXPECT_EQ(ShapeOf(b, si), "[2,6]");
  ASSERT_EQ(ip.size(), 4u);
  EXPECT_EQ(ip[0], (I{1, 0, 6, 0, 1}));                       // outer n inner is_min last
  EXPECT_EQ(ip[1], (I{1, 0, 0, 0, 0, 2, 0, 6}));              // kind axis_ib excl rev axis R dims
  EXPECT_EQ(ip[2], (I{static_cast<int64_t>(ir::DType::F32), 0, 6, 1, 3, 1, 0}));    // dtype outer len inner k ...
  EXPECT_EQ(ip[3], (I{static_cast<int64_t>(ir::DType::F32), 1, 0, 6, 2, 1, 0}));
}

// torchvision's num_topk = min(topk_candidates, scores.size(0)): ReduceMin
// of a Concat of a dim and a constant folds to min(S, 300), TopK's k and its
// output dim, patched per run; ReduceProd of a Shape (a numel) folds too.
TEST(SymbolicOps2, TopKTakesKFromAMinimumOfDims) {
  GraphBuilder b;
  const int64_t s = b.g.dims.Symbol("S");
  const ir::ValueId x = b.Input("x", {s, 6});
  const ir::ValueId shape = b.Tensor("shape", {}, ir::DType::I64);
  const ir::ValueId len = b.Tensor("len", {}, ir::DType::I64);
  const ir::ValueId len1 = b.Tensor("len1", {}, ir::DType::I64);
  const ir::ValueId both = b.Tensor("both", {}, ir::DType::I64);
  const ir::ValueId k = b.Tensor("k", {}, ir::DType::I64);
  const ir::ValueId numel = b.Tensor("numel", {}, ir::DType::I64);
  const ir::ValueId numel_x = b.Tensor("numel_x", {}, ir::DType::I64);
  const ir::ValueId v = b.Tensor("v", {}), i = b.Tensor("i", {}, ir::DType::I64);
  b.Node("Shape", "shape", {x}, {shape});
  b.Node("Gather", "len", {shape, b.g.AddConstant("zero", ir::MakeI64Constant({}, {0}))}, {len});
  b.Node("Unsqueeze", "len1", {len, Ints(b, "axis0", {0})}, {len1});
  b.g.nodes[b.Node("Concat", "both", {len1, Ints(b, "cap", {300})}, {both})].SetInt("axis", 0);
  b.g.nodes[b.Node("ReduceMin", "k", {both}, {k})].SetInt("keepdims", 1);
  b.g.nodes[b.Node("ReduceProd", "numel", {shape}, {numel})].SetInt("keepdims", 0);
  b.Node("Mul", "numel_x", {numel, len}, {numel_x});
  b.g.nodes[b.Node("TopK", "top", {x, k}, {v, i})].SetInt("axis", 0);
  b.Output(v);
  b.Output(i);
  Unshape(b);
  const absl::Status folded = FoldConstants(b.g);
  ASSERT_TRUE(folded.ok()) << folded;
  const ir::ConstantData* n = b.g.value(numel_x).constant.get();
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(b.g.dims.ToString(n->IntAt(0)), "6*S*S");
  const std::vector<I> ip = LowerParams(b);
  EXPECT_EQ(ShapeOf(b, v), "[min(S, 300),6]");
  EXPECT_EQ(ShapeOf(b, i), "[min(S, 300),6]");
  ASSERT_EQ(ip.size(), 1u);
  // dtype outer len inner k largest k_dtype: len and k patched per run.
  EXPECT_EQ(ip[0], (I{static_cast<int64_t>(ir::DType::F32), 1, 0, 6, 0, 1, 0}));
}

TEST(SymbolicOps2, TopKOnAStaticAxisStillChecksK) {
  GraphBuilder b;
  const int64_t s = b.g.dims.Symbol("S");
  const ir::ValueId x = b.Input("x", {s, 6});
  const ir::ValueId v = b.Tensor("v", {}), i = b.Tensor("i", {}, ir::DType::I64);
  b.Node("TopK", "top", {x, Ints(b, "k7", {7})}, {v, i});
  b.Output(v);
  b.Output(i);
  Unshape(b);
  const absl::Status st = InferShapes(b.g);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(std::string(st.message()).find("k = 7 is outside [0, 6]"), std::string::npos) << st;
}

// ScatterND over symbolic dims (Swin Transformer's shifted-window mask:
// slices of a [pH, pW] zeros written with the window ids): the output keeps
// the data's shape, an updates dim the pool cannot prove equal to the one it
// must be becomes a run-time requirement, and a static mismatch is refused.
TEST(SymbolicOps2, ScatterNDTakesSymbolicDims) {
  GraphBuilder b;
  const int64_t s = b.g.dims.Symbol("S"), t = b.g.dims.Symbol("T");
  const ir::ValueId x = b.Input("x", {s, 3});
  const ir::ValueId idx = b.Input("idx", {t, 1}, ir::DType::I64);
  const ir::ValueId upd = b.Input("upd", {b.g.dims.FloorDiv(s, 2), 3});
  const ir::ValueId y = b.Tensor("y", {});
  b.Node("ScatterND", "scatter", {x, idx, upd}, {y});
  b.Output(y);
  Unshape(b);
  ASSERT_TRUE(InferShapes(b.g).ok());
  EXPECT_EQ(SymbolicShapeStr(b.g, b.g.value(y).shape), "[S,3]");
  ASSERT_EQ(b.g.dims.assumptions().size(), 1u);
  EXPECT_TRUE(b.g.dims.SameDim(t, b.g.dims.FloorDiv(s, 2)));

  GraphBuilder c;
  const int64_t s2 = c.g.dims.Symbol("S");
  const ir::ValueId y2 = c.Tensor("y", {});
  c.Node("ScatterND", "scatter",
         {c.Input("x", {s2, 3}), c.Input("idx", {2, 1}, ir::DType::I64), c.Input("upd", {2, 4})},
         {y2});
  c.Output(y2);
  Unshape(c);
  const absl::Status st = InferShapes(c.g);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(std::string(st.message()).find("updates [2,4] should be [2,3]"), std::string::npos)
      << st;
}

}  // namespace
}  // namespace kiln::compiler
