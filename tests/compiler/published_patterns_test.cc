// Shape rules for what published models (PaddleOCR det/rec/cls from
// paddle2onnx, Silero VAD) need over symbolic sizes: unprovable equalities
// become run-time requirements, scoped to the graph that makes them;
// paddle2onnx's int32 size casts; Not and Size folding; ConvTranspose and
// the recurrent ops over symbolic sizes. The e2e counterparts are
// tests/models/dynamic/generate_published_patterns.py and tests/real_models.
#include "compiler/ir/graph_util.h"
#include "compiler/passes/constant_folding.h"
#include "compiler/passes/shape_inference.h"
#include "compiler/passes/symbolic_support.h"
#include "gtest/gtest.h"
#include "kiln/kernels.h"
#include "tests/compiler/backend_graph_builder.h"

namespace kiln::compiler {
namespace {

using testing::GraphBuilder;

ir::ValueId Ints(GraphBuilder& b, const std::string& name, std::vector<int64_t> values) {
  return b.g.AddConstant(name, ir::MakeI64Constant({static_cast<int64_t>(values.size())}, values));
}

std::string ShapeOf(const GraphBuilder& b, ir::ValueId v) {
  return SymbolicShapeStr(b.g, b.g.value(v).shape);
}

void Unshape(GraphBuilder& b) {
  for (const ir::Node& n : b.g.nodes) {
    for (ir::ValueId v : n.outputs) b.g.value(v).has_shape = false;
  }
}

TEST(PublishedPatterns, ConcatAssumesUnprovableDimsEqualAndChainsThem) {
  GraphBuilder b;
  const int64_t s = b.g.dims.Symbol("S"), t = b.g.dims.Symbol("T"), u = b.g.dims.Symbol("U");
  const ir::ValueId y = b.Tensor("y", {});
  b.Node("Concat", "cat", {b.Input("a", {s, 4}), b.Input("c", {t, 4}), b.Input("d", {u, 2})}, {y});
  b.g.nodes.back().SetInt("axis", 1);
  b.Output(y);
  Unshape(b);
  ASSERT_TRUE(InferShapes(b.g).ok());
  ASSERT_EQ(b.g.dims.assumptions().size(), 2u);
  EXPECT_EQ(b.g.value(y).shape[1], 10);
  // S == T and then the survivor == U: S == U through the chain.
  EXPECT_TRUE(b.g.dims.SameDim(s, u));
  EXPECT_TRUE(b.g.dims.SameDim(u, s));
  EXPECT_TRUE(b.g.dims.SameDim(b.g.value(y).shape[0], t));
}

TEST(PublishedPatterns, ConcatStillRefusesDifferentStaticDims) {
  GraphBuilder b;
  const int64_t s = b.g.dims.Symbol("S");
  const ir::ValueId y = b.Tensor("y", {});
  b.Node("Concat", "cat", {b.Input("a", {s, 4}), b.Input("c", {s, 5})}, {y});
  b.g.nodes.back().SetInt("axis", 0);
  b.Output(y);
  Unshape(b);
  absl::Status st = InferShapes(b.g);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(std::string(st.message()).find("[S,4] and [S,5] differ outside axis 0"),
            std::string::npos) << st;
}

TEST(PublishedPatterns, SqueezeOfASymbolicDimRequiresItToBeOne) {
  // Silero v5: Squeeze(x [N, 128, floor(L/128)]) on the last axis.
  GraphBuilder b;
  const int64_t n = b.g.dims.Symbol("N"), l = b.g.dims.Symbol("L");
  const int64_t frames = b.g.dims.FloorDiv(l, 128);
  const ir::ValueId y = b.Tensor("y", {});
  b.Node("Squeeze", "squeeze", {b.Input("x", {n, 128, frames}), Ints(b, "axes", {-1})}, {y});
  b.Output(y);
  Unshape(b);
  ASSERT_TRUE(InferShapes(b.g).ok());
  EXPECT_EQ(ShapeOf(b, y), "[N,128]");
  ASSERT_EQ(b.g.dims.assumptions().size(), 1u);
  EXPECT_TRUE(b.g.dims.SameDim(frames, 1));
}

TEST(PublishedPatterns, AssumptionsRecordTheScopeTheyAroseIn) {
  // One If branch's requirement must not be checked when the other runs:
  // each is kept with its graph's scope; an If inlined into its caller asks
  // again there.
  ir::DimPool dims;
  const int64_t s = dims.Symbol("S"), t = dims.Symbol("T");
  dims.set_scope("If_0.then_branch/");
  dims.AssumeEqual(s, t);
  dims.AssumeEqual(t, s);  // the same pair in the same scope: kept once
  dims.set_scope("");
  dims.AssumeEqual(s, t);
  ASSERT_EQ(dims.assumptions().size(), 2u);
  EXPECT_EQ(dims.assumptions()[0].scope, "If_0.then_branch/");
  EXPECT_EQ(dims.assumptions()[1].scope, "");
}

TEST(PublishedPatterns, RankTestsFoldThroughSizeAndNot) {
  // TorchScript's squeeze export: Not(Equal(Size(Shape(x)), 3)) on a
  // symbolic x: the rank is static, so the condition folds.
  GraphBuilder b;
  const int64_t s = b.g.dims.Symbol("S");
  const ir::ValueId x = b.Input("x", {s, 4, 2});
  const ir::ValueId shape = b.Tensor("shape", {}, ir::DType::I64);
  const ir::ValueId size = b.Tensor("size", {}, ir::DType::I64);
  const ir::ValueId eq = b.Tensor("eq", {}, ir::DType::Bool);
  const ir::ValueId ne = b.Tensor("ne", {}, ir::DType::Bool);
  b.Node("Shape", "shape", {x}, {shape});
  b.Node("Size", "size", {shape}, {size});
  auto three = ir::MakeI64Constant({}, {3});
  b.Node("Equal", "eq", {size, b.g.AddConstant("three", three)}, {eq});
  b.Node("Not", "not", {eq}, {ne});
  b.Output(ne);
  b.Output(x);
  Unshape(b);
  ASSERT_TRUE(FoldConstants(b.g).ok());
  const ir::Value& out = b.g.value(b.g.outputs[0]);
  ASSERT_NE(out.constant, nullptr);
  EXPECT_EQ(out.constant->IntAt(0), 0);  // rank 3: Equal true, Not false
}

TEST(PublishedPatterns, Int32SizeCastsRoundTripSymbolicSizesIntoReshape) {
  // paddle2onnx: Reshape(pooled, Concat(Cast64(Slice(Cast32(Shape(x)))), [-1])).
  GraphBuilder b;
  const int64_t n = b.g.dims.Symbol("N"), h = b.g.dims.Symbol("H");
  const ir::ValueId x = b.Input("x", {n, 4, h, h});
  const ir::ValueId pooled = b.Tensor("pooled", {});
  const ir::ValueId shape = b.Tensor("shape", {}, ir::DType::I64);
  const ir::ValueId s32 = b.Tensor("s32", {}, ir::DType::I32);
  const ir::ValueId n32 = b.Tensor("n32", {}, ir::DType::I32);
  const ir::ValueId n64 = b.Tensor("n64", {}, ir::DType::I64);
  const ir::ValueId target = b.Tensor("target", {}, ir::DType::I64);
  const ir::ValueId y = b.Tensor("y", {});
  b.Node("GlobalAveragePool", "pool", {x}, {pooled});
  b.Node("Shape", "shape", {x}, {shape});
  const ir::NodeId to32 = b.Node("Cast", "to32", {shape}, {s32});
  b.g.nodes[to32].SetInt("to", 6);
  b.Node("Slice", "first", {s32, Ints(b, "zero", {0}), Ints(b, "one", {1})}, {n32});
  b.Node("Cast", "to64", {n32}, {n64});
  b.g.nodes.back().SetInt("to", 7);
  b.Node("Concat", "target", {n64, Ints(b, "rest", {-1})}, {target});
  b.g.nodes.back().SetInt("axis", 0);
  b.Node("Reshape", "flat", {pooled, target}, {y});
  b.Output(y);
  Unshape(b);
  ASSERT_TRUE(FoldConstants(b.g).ok());
  EXPECT_EQ(ShapeOf(b, y), "[N,4]");
}

TEST(PublishedPatterns, Int32SizeCastFeedingArithmeticIsLeftAlone) {
  // An int32 size used in int32 arithmetic keeps its type: widening it would
  // change the Add's operand types.
  GraphBuilder b;
  const int64_t n = b.g.dims.Symbol("N");
  const ir::ValueId x = b.Input("x", {n, 4});
  const ir::ValueId shape = b.Tensor("shape", {}, ir::DType::I64);
  const ir::ValueId s32 = b.Tensor("s32", {}, ir::DType::I32);
  const ir::ValueId sum = b.Tensor("sum", {}, ir::DType::I32);
  b.Node("Shape", "shape", {x}, {shape});
  const ir::NodeId to32 = b.Node("Cast", "to32", {shape}, {s32});
  b.g.nodes[to32].SetInt("to", 6);
  auto one = std::make_shared<ir::ConstantData>();
  one->dtype = ir::DType::I32;
  one->shape = {2};
  one->bytes.assign(8, 0);
  b.Node("Add", "plus", {s32, b.g.AddConstant("one32", one)}, {sum});
  b.Output(sum);
  Unshape(b);
  (void)FoldConstants(b.g);  // refused or not: the cast must stay int32
  bool found = false;
  for (const ir::Node& node : b.g.nodes) {
    if (node.name == "to32") {
      found = true;
      EXPECT_EQ(node.GetInt("to", 0), 6);
    }
  }
  EXPECT_TRUE(found);
}

// Swin Transformer's window partition over a symbolic width W: the padding
// (7 - W % 7) % 7 folds to a pool expression (never negative), the Pad adds
// it to W, and viewing the padded row as 7-wide windows is a Reshape whose
// element counts the pool cannot prove equal: a run-time requirement.
TEST(PublishedPatterns, WindowPaddingFoldsAndItsViewIsARequirement) {
  GraphBuilder b;
  const int64_t w = b.g.dims.Symbol("W");
  const ir::ValueId x = b.Input("x", {w, 3});
  const auto i64 = [&](const char* name) { return b.Tensor(name, {}, ir::DType::I64); };
  const ir::ValueId shape = i64("shape"), width = i64("width"), rem = i64("rem"),
                    up = i64("up"), pad = i64("pad"), pads = i64("pads"), padded_w = i64("padded_w"),
                    count = i64("count"), spec = i64("spec");
  const ir::ValueId padded = b.Tensor("padded", {}), y = b.Tensor("y", {});
  const auto seven = [&](const char* name) { return Ints(b, name, {7}); };
  b.Node("Shape", "shape", {x}, {shape});
  b.Node("Slice", "width", {shape, Ints(b, "zero", {0}), Ints(b, "one", {1})}, {width});
  b.Node("Mod", "rem", {width, seven("seven0")}, {rem});
  b.Node("Sub", "up", {seven("seven1"), rem}, {up});
  b.Node("Mod", "pad", {up, seven("seven2")}, {pad});
  b.Node("Concat", "pads", {Ints(b, "begin", {0, 0}), pad, Ints(b, "zero_end", {0})}, {pads});
  b.g.nodes.back().SetInt("axis", 0);
  b.Node("Pad", "pad_x", {x, pads}, {padded});
  b.Node("Add", "plus", {width, pad}, {padded_w});
  b.Node("Div", "count", {padded_w, seven("seven3")}, {count});
  b.Node("Concat", "spec", {count, Ints(b, "window", {7, 3})}, {spec});
  b.g.nodes.back().SetInt("axis", 0);
  b.Node("Reshape", "view", {padded, spec}, {y});
  b.Output(y);
  Unshape(b);
  ASSERT_TRUE(FoldConstants(b.g).ok());
  ir::DimPool& dims = b.g.dims;
  const int64_t want_pad = dims.Mod(dims.Sub(7, dims.Mod(w, 7)), 7);
  EXPECT_EQ(ShapeOf(b, padded), SymbolicShapeStr(b.g, {dims.Add(w, want_pad), 3}));
  EXPECT_EQ(ShapeOf(b, y),
            SymbolicShapeStr(b.g, {dims.FloorDiv(dims.Add(w, want_pad), 7), 7, 3}));
  ASSERT_EQ(dims.assumptions().size(), 1u);
  const ir::DimPool::Assumption& a = dims.assumptions()[0];
  for (int64_t wv : {1, 7, 10, 22}) {  // true at every width
    EXPECT_EQ(dims.Evaluate(a.a, {wv}), dims.Evaluate(a.b, {wv})) << "W=" << wv;
  }
}

// Swin Transformer's B * nW / nW with nW = floor(W / 7) windows: nW may be
// 0 for W under 7 (then the run's IDIV refuses it, ONNX leaving a division
// by zero undefined), never negative, so the division folds to the pool's.
TEST(PublishedPatterns, DivisionByAWindowCountFolds) {
  GraphBuilder b;
  const int64_t n = b.g.dims.Symbol("N"), w = b.g.dims.Symbol("W");
  const ir::ValueId x = b.Input("x", {n, w});
  const ir::ValueId shape = b.Tensor("shape", {}, ir::DType::I64);
  const ir::ValueId batch = b.Tensor("batch", {}, ir::DType::I64);
  const ir::ValueId width = b.Tensor("width", {}, ir::DType::I64);
  const ir::ValueId count = b.Tensor("count", {}, ir::DType::I64);
  const ir::ValueId scaled = b.Tensor("scaled", {}, ir::DType::I64);
  const ir::ValueId back = b.Tensor("back", {}, ir::DType::I64);
  b.Node("Shape", "shape", {x}, {shape});
  b.Node("Slice", "batch", {shape, Ints(b, "zero", {0}), Ints(b, "one", {1})}, {batch});
  b.Node("Slice", "width", {shape, Ints(b, "one_", {1}), Ints(b, "two", {2})}, {width});
  b.Node("Div", "count", {width, Ints(b, "seven", {7})}, {count});
  b.Node("Mul", "scaled", {batch, count}, {scaled});
  b.Node("Div", "back", {scaled, count}, {back});
  b.Output(back);
  b.Output(x);
  Unshape(b);
  ASSERT_TRUE(FoldConstants(b.g).ok());
  const ir::Value& out = b.g.value(b.g.outputs[0]);
  ASSERT_NE(out.constant, nullptr);
  EXPECT_EQ(out.constant->IntAt(0), n);
}

// A symbolic pad that may be negative (a crop) is refused, naming it; a
// Reshape whose counts differ by a constant is refused at compile time.
TEST(PublishedPatterns, SymbolicPadsMustBeNonNegativeAndCountsMayNotDifferByAConstant) {
  GraphBuilder b;
  const int64_t w = b.g.dims.Symbol("W");
  const ir::ValueId x = b.Input("x", {w, 3});
  const ir::ValueId shape = b.Tensor("shape", {}, ir::DType::I64);
  const ir::ValueId width = b.Tensor("width", {}, ir::DType::I64);
  const ir::ValueId crop = b.Tensor("crop", {}, ir::DType::I64);
  const ir::ValueId pads = b.Tensor("pads", {}, ir::DType::I64);
  const ir::ValueId y = b.Tensor("y", {});
  b.Node("Shape", "shape", {x}, {shape});
  b.Node("Slice", "width", {shape, Ints(b, "zero", {0}), Ints(b, "one", {1})}, {width});
  b.Node("Sub", "crop", {Ints(b, "two", {2}), width}, {crop});  // 2 - W
  b.Node("Concat", "pads", {Ints(b, "begin", {0, 0}), crop, Ints(b, "end", {0})}, {pads});
  b.g.nodes.back().SetInt("axis", 0);
  b.Node("Pad", "pad_x", {x, pads}, {y});
  b.Output(y);
  Unshape(b);
  absl::Status st = FoldConstants(b.g);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(std::string(st.message()).find("pad -1*W + 2 of axis 0 may be negative"),
            std::string::npos) << st;

  GraphBuilder c;
  const int64_t n = c.g.dims.Symbol("N");
  const ir::ValueId y2 = c.Tensor("y", {});
  c.Node("Reshape", "view",
         {c.Input("x", {c.g.dims.Add(n, 1), 2}),
          c.g.AddConstant("spec", ir::MakeI64Constant({2}, {n, 2}))},
         {y2});
  c.Output(y2);
  Unshape(c);
  st = InferShapes(c.g);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(std::string(st.message()).find("cannot reshape"), std::string::npos) << st;
}

TEST(PublishedPatterns, ConvTransposeOverSymbolicSizes) {
  // PaddleOCR det's upsampling: 3x3 stride 2, pads 1, output_padding 1 → 2H.
  GraphBuilder b;
  const int64_t h = b.g.dims.Symbol("H"), w = b.g.dims.Symbol("W");
  const ir::ValueId x = b.Input("x", {1, 4, h, w});
  const ir::ValueId wt = b.RandomConst("w", {4, 3, 3, 3}, -1, 1, 7);
  const ir::ValueId y = b.Tensor("y", {}), same = b.Tensor("same", {});
  const ir::NodeId up = b.Node("ConvTranspose", "up", {x, wt}, {y});
  b.Ints(up, "strides", {2, 2});
  b.Ints(up, "pads", {1, 1, 1, 1});
  b.Ints(up, "output_padding", {1, 1});
  const ir::NodeId sup = b.Node("ConvTranspose", "same", {x, wt}, {same});
  b.Ints(sup, "strides", {3, 3});
  b.g.nodes[sup].attributes["auto_pad"].kind = ir::Attribute::Kind::kString;
  b.g.nodes[sup].attributes["auto_pad"].s = "SAME_UPPER";
  b.Output(y);
  b.Output(same);
  Unshape(b);
  ASSERT_TRUE(InferShapes(b.g).ok());
  const auto& dims = b.g.dims;
  for (int64_t hv : {1, 5, 12}) {
    EXPECT_EQ(dims.Evaluate(b.g.value(y).shape[2], {hv, 7}), 2 * hv);
    EXPECT_EQ(dims.Evaluate(b.g.value(same).shape[2], {hv, 7}), 3 * hv);  // SAME: in * stride
  }
  EXPECT_EQ(dims.Evaluate(b.g.value(y).shape[3], {5, 7}), 14);
}

TEST(PublishedPatterns, ConvTransposeRefusesOutputShapeOverASymbolicSize) {
  GraphBuilder b;
  const int64_t h = b.g.dims.Symbol("H");
  const ir::ValueId y = b.Tensor("y", {});
  const ir::ValueId x = b.Input("x", {1, 4, h, 6});
  const ir::NodeId up =
      b.Node("ConvTranspose", "up", {x, b.RandomConst("w", {4, 3, 3, 3}, -1, 1, 7)}, {y});
  b.Ints(up, "strides", {2, 2});
  b.Ints(up, "output_shape", {10, 12});
  b.Output(y);
  Unshape(b);
  absl::Status st = InferShapes(b.g);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(std::string(st.message()).find("output_shape with a symbolic input size"),
            std::string::npos) << st;
}

TEST(PublishedPatterns, LstmOverASymbolicLengthAndBatchPlansItsScratchAsAFormula) {
  // X [S, B, 8]; the initial state's batch is another input's symbol M
  // (Silero v5: input [N, L], state [2, M, 128]): M == B at run time.
  GraphBuilder b;
  const int64_t s = b.g.dims.Symbol("S"), bt = b.g.dims.Symbol("B"), m = b.g.dims.Symbol("M");
  const ir::ValueId x = b.Input("x", {s, bt, 8});
  const ir::ValueId h0 = b.Input("h0", {1, m, 16});
  const ir::ValueId wt = b.RandomConst("w", {1, 64, 8}, -1, 1, 1);
  const ir::ValueId rt = b.RandomConst("r", {1, 64, 16}, -1, 1, 2);
  const ir::ValueId y = b.Tensor("y", {}), yh = b.Tensor("yh", {}), yc = b.Tensor("yc", {});
  const ir::NodeId lstm =
      b.Node("LSTM", "lstm", {x, wt, rt, ir::kNoValue, ir::kNoValue, h0}, {y, yh, yc});
  b.g.nodes[lstm].SetInt("hidden_size", 16);
  b.Output(y);
  Unshape(b);
  const absl::Status st = InferShapes(b.g);
  ASSERT_TRUE(st.ok()) << st;
  EXPECT_EQ(ShapeOf(b, y), "[S,1,B,16]");
  EXPECT_TRUE(b.g.dims.SameDim(m, bt));
  const ir::Node& node = b.g.nodes[lstm];
  ASSERT_EQ(node.outputs.size(), 4u);  // Y, Y_h, Y_c, scratch
  const int64_t scratch = b.g.value(node.outputs[3]).shape[0];
  for (int64_t sv : {1, 3, 1000, 5000}) {  // past 2^16 / 64 steps the chunk stops growing
    EXPECT_EQ(b.g.dims.Evaluate(scratch, {sv, 2, 2}),
              kiln_recurrent_scratch_floats(2, sv, 8, 16, 1, 1))
        << sv;
  }
}

}  // namespace
}  // namespace kiln::compiler
