// LpPool's window goes through the rule every convolution and pool uses
// (ops/window.h): the same output sizes, resolved kiln.* attributes and
// refusals. Numerics: the ONNX node tests test_lppool_*.
#include <string>
#include <vector>

#include "compiler/passes/shape_inference.h"
#include "gtest/gtest.h"
#include "tests/compiler/backend_graph_builder.h"

namespace kiln::compiler {
namespace {

using testing::ExpectNodeError;
using Dims = std::vector<int64_t>;

struct LpPoolModel {
  testing::GraphBuilder b;
  ir::ValueId y = ir::kNoValue;
  ir::NodeId node = 0;

  explicit LpPoolModel(Dims x_shape) {
    const ir::ValueId x = b.Input("x", std::move(x_shape));
    y = b.g.AddValue("y");
    b.Output(y);
    node = b.Node("LpPool", "lp", {x}, {y});
    b.g.nodes[node].SetInts("kernel_shape", {3, 3});
  }
  ir::Node& lp() { return b.g.nodes[node]; }
};

TEST(LpPoolWindow, CeilModeAndSamePadding) {
  // 4 x 7, kernel 3, stride 3, ceil: rows (4 - 3) / 3 rounded up + 1 = 2,
  // columns (7 - 3) / 3 rounded up + 1 = 3 (the last window starts inside).
  LpPoolModel ceil({1, 2, 4, 7});
  ceil.lp().SetInts("strides", {3, 3});
  ceil.lp().SetInt("ceil_mode", 1);
  ASSERT_TRUE(InferShapes(ceil.b.g).ok());
  EXPECT_EQ(ceil.b.g.value(ceil.y).shape, (Dims{1, 2, 2, 3}));

  // SAME_UPPER, 5 x 6, stride 2: out 3 x 3; total pads 2 and 1, the odd
  // one at the end.
  LpPoolModel same({1, 2, 5, 6});
  same.lp().SetInts("strides", {2, 2});
  ir::Attribute same_upper;
  same_upper.kind = ir::Attribute::Kind::kString;
  same_upper.s = "SAME_UPPER";
  same.lp().attributes["auto_pad"] = same_upper;
  ASSERT_TRUE(InferShapes(same.b.g).ok());
  EXPECT_EQ(same.b.g.value(same.y).shape, (Dims{1, 2, 3, 3}));
  EXPECT_EQ(same.lp().GetInts("kiln.pads", {}), (Dims{1, 0, 1, 1}));
}

TEST(LpPoolWindow, RefusesWhatTheWindowRuleRefuses) {
  LpPoolModel negative({1, 2, 6, 6});
  negative.lp().SetInts("pads", {-1, 0, 0, 0});
  ExpectNodeError(InferShapes(negative.b.g), "negative pads are not supported");

  LpPoolModel too_small({1, 2, 2, 6});
  ExpectNodeError(InferShapes(too_small.b.g), "is larger than the padded input");

  LpPoolModel three_d({1, 2, 6, 6, 6});
  ExpectNodeError(InferShapes(three_d.b.g), "only 2-D LpPool is supported");
}

}  // namespace
}  // namespace kiln::compiler
