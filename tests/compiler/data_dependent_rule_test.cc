// Shape rules of Unique, NonMaxSuppression (passes/
// ops/data_dependent.cc) and Dropout (ops/dropout.h):
// outputs take the model's declared static shape when it can come from the
// inputs, the kernels get their scratch output, and an impossible
// declaration, or inputs of the wrong kind, are refused naming the node.
// Without a declaration (outputs shaped after the run, or refused):
// result_shape_rule_test.cc.
#include <string>
#include <vector>

#include "compiler/passes/dispatch_formation.h"
#include "compiler/passes/shape_inference.h"
#include "gtest/gtest.h"
#include "tests/compiler/backend_graph_builder.h"

namespace kiln::compiler {
namespace {

using testing::ExpectNodeError;

using Dims = std::vector<int64_t>;

void Declare(testing::GraphBuilder& b, ir::ValueId v, const Dims& shape) {
  b.g.value(v).declared_shape = shape;
  b.g.value(v).has_declared_shape = true;
}

// Shape inference over a model built in place.
template <typename Model>
absl::Status Infer(Model&& m) {
  return InferShapes(m.b.g);
}

// Unique of x [4,3,2] (along `axis` when given) with all four outputs; Y
// declares `y` ({-1}: nothing).
struct UniqueModel {
  testing::GraphBuilder b;
  ir::NodeId node = 0;
  std::vector<ir::ValueId> outs;

  UniqueModel(const Dims& y, bool axis, int64_t axis_value = 1) {
    const ir::ValueId x = b.Input("x", {4, 3, 2});
    for (const char* n : {"y", "indices", "inverse", "counts"}) outs.push_back(b.g.AddValue(n));
    if (y != Dims{-1}) Declare(b, outs[0], y);
    for (ir::ValueId v : outs) b.Output(v);
    node = b.Node("Unique", "uq", {x}, outs);
    if (axis) {
      ir::Attribute a;
      a.kind = ir::Attribute::Kind::kInt;
      a.i = axis_value;
      b.g.nodes[node].attributes["axis"] = a;
    }
  }
};

TEST(UniqueRule, OutputsTakeTheDeclaredCount) {
  UniqueModel flat({5}, false);
  ASSERT_TRUE(InferShapes(flat.b.g).ok());
  EXPECT_EQ(flat.b.g.value(flat.outs[0]).shape, Dims{5});
  EXPECT_EQ(flat.b.g.value(flat.outs[1]).shape, Dims{5});
  EXPECT_EQ(flat.b.g.value(flat.outs[2]).shape, Dims{24});  // one per element
  EXPECT_EQ(flat.b.g.value(flat.outs[3]).shape, Dims{5});
  EXPECT_EQ(flat.b.g.value(flat.outs[2]).dtype, ir::DType::I64);
  // The kernel's scratch: 2 int64 per element.
  const ir::Node& n = flat.b.g.nodes[flat.node];
  ASSERT_EQ(n.outputs.size(), 5u);
  EXPECT_EQ(flat.b.g.value(n.outputs[4]).shape, Dims{48});

  UniqueModel rows({4, 2, 2}, true, -2);
  ASSERT_TRUE(InferShapes(rows.b.g).ok());
  EXPECT_EQ(rows.b.g.value(rows.outs[0]).shape, (Dims{4, 2, 2}));
  EXPECT_EQ(rows.b.g.value(rows.outs[2]).shape, Dims{3});  // one per slice
  EXPECT_EQ(rows.b.g.value(rows.b.g.nodes[rows.node].outputs[4]).shape, Dims{6});
}

TEST(UniqueRule, RefusesMissingOrImpossibleDeclarations) {
  ExpectNodeError(Infer(UniqueModel({25}, false)), "is not a set of distinct elements");
  ExpectNodeError(Infer(UniqueModel({0}, false)), "is not a set of distinct elements");
  ExpectNodeError(Infer(UniqueModel({5, 1}, false)), "is not a set of distinct");
  ExpectNodeError(Infer(UniqueModel({4, 4, 2}, true)), "is not a set of distinct slices");
  ExpectNodeError(Infer(UniqueModel({4, 2, 1}, true)), "is not a set of distinct slices");
  ExpectNodeError(Infer(UniqueModel({4, 2, 2}, true, 3)), "out of range");
  UniqueModel bad_counts({5}, false);
  Declare(bad_counts.b, bad_counts.outs[3], {6});
  ExpectNodeError(InferShapes(bad_counts.b.g), "output 3 is declared [6]");
}

// NonMaxSuppression of boxes [2,5,4] and scores [2,3,5] with run-time
// scalars; selected_indices declares `y`.
struct NmsModel {
  testing::GraphBuilder b;
  ir::NodeId node = 0;
  ir::ValueId out = 0;

  explicit NmsModel(const Dims& y, const Dims& boxes = {2, 5, 4},
                    ir::DType max_dtype = ir::DType::I64) {
    std::vector<ir::ValueId> ins = {b.Input("boxes", boxes), b.Input("scores", {2, 3, 5}),
                                    b.Input("max", {1}, max_dtype), b.Input("iou", {1}),
                                    b.Input("score", {})};
    out = b.g.AddValue("selected");
    if (y != Dims{-1}) Declare(b, out, y);
    b.Output(out);
    node = b.Node("NonMaxSuppression", "nms", ins, {out});
  }
};

TEST(NonMaxSuppressionRule, OutputTakesTheDeclaredCount) {
  NmsModel m({7, 3});
  ASSERT_TRUE(InferShapes(m.b.g).ok());
  EXPECT_EQ(m.b.g.value(m.out).shape, (Dims{7, 3}));
  EXPECT_EQ(m.b.g.value(m.out).dtype, ir::DType::I64);
  EXPECT_EQ(m.b.g.value(m.b.g.nodes[m.node].outputs[1]).shape, Dims{15});  // 3 per box
  NmsModel all({30, 3});  // every box of every class
  EXPECT_TRUE(InferShapes(all.b.g).ok());
}

// Inputs sized by a length found earlier are planned at its bound; a model
// symbol has none, so the result could not be planned: refused by name.
TEST(NonZeroRule, RefusesAnInputSizedByAModelSymbol) {
  testing::GraphBuilder b;
  const int64_t s = b.g.dims.Symbol("S");
  const ir::ValueId x = b.Input("x", {s});
  const ir::ValueId y = b.g.AddValue("y");
  b.Output(y);
  b.Node("NonZero", "nz", {x}, {y});
  ExpectNodeError(InferShapes(b.g), "must have static sizes or lengths with a bound");
}

TEST(NonMaxSuppressionRule, RefusesBadDeclarationsAndInputs) {
  ExpectNodeError(Infer(NmsModel({31, 3})), "is not [count, 3] with count <= 30");
  ExpectNodeError(Infer(NmsModel({7, 2})), "is not [count, 3]");
  ExpectNodeError(Infer(NmsModel({7, 3}, {2, 5, 3})), "are not [batch, boxes, 4]");
  ExpectNodeError(Infer(NmsModel({7, 3}, {2, 4, 4})), "are not [batch, boxes, 4]");
  ExpectNodeError(Infer(NmsModel({7, 3}, {2, 5, 4}, ir::DType::F32)),
              "max_output_boxes_per_class must be one int64 value");
}

// Dropout of x [2,3] with a ratio and a training_mode (run-time inputs,
// or constants when given).
struct DropoutModel {
  testing::GraphBuilder b;
  ir::NodeId node = 0;

  DropoutModel(ir::DType training_dtype, const Dims& training_shape = {}, float ratio = -1) {
    const ir::ValueId x = b.Input("x", {2, 3});
    const ir::ValueId r = ratio < 0 ? b.Input("ratio", {}) : b.Const("ratio", {}, {ratio});
    const ir::ValueId t = b.Input("training", training_shape, training_dtype);
    const ir::ValueId y = b.g.AddValue("y"), mask = b.g.AddValue("mask");
    b.Output(y);
    b.Output(mask);
    node = b.Node("Dropout", "drop", {x, r, t}, {y, mask});
  }
};

TEST(DropoutRule, RunTimeTrainingModeRunsTheKernel) {
  DropoutModel m(ir::DType::Bool);
  ASSERT_TRUE(InferShapes(m.b.g).ok());
  const ir::Node& n = m.b.g.nodes[m.node];
  EXPECT_EQ(n.GetInt("kiln.dropout_kernel", 0), 1);
  EXPECT_FALSE(IsAliasNode(n));
  EXPECT_EQ(m.b.g.value(n.outputs[1]).dtype, ir::DType::Bool);
  EXPECT_EQ(m.b.g.value(n.outputs[1]).shape, (Dims{2, 3}));
}

TEST(DropoutRule, RefusesBadTrainingModeAndRatio) {
  ExpectNodeError(Infer(DropoutModel(ir::DType::I64)), "training_mode must be one bool");
  ExpectNodeError(Infer(DropoutModel(ir::DType::Bool, {2})),
              "training_mode must be one bool");
  ExpectNodeError(Infer(DropoutModel(ir::DType::Bool, {}, 1.0f)),
              "ratio 1 is outside [0, 1)");
  EXPECT_TRUE(Infer(DropoutModel(ir::DType::Bool, {}, 0.0f)).ok());
}

}  // namespace
}  // namespace kiln::compiler
