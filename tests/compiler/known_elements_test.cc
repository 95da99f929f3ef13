// Entries of run-time integer tensors known at compile time
// (passes/known_elements.h), and what Resize, Pad and Range make of them:
// torchvision's detection transform builds a Resize's sizes from a Shape's
// static part and computed H and W, and a Pad's pads from zeros and
// computed amounts, then counts anchors with arange(int32(width)).
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compiler/passes/constant_folding.h"
#include "compiler/passes/known_elements.h"
#include "compiler/passes/shape_inference.h"
#include "compiler/passes/shape_rules_runtime_params.h"
#include "gtest/gtest.h"
#include "tests/compiler/backend_graph_builder.h"

namespace kiln::compiler {
namespace {

using Dims = std::vector<int64_t>;
using Known = std::vector<std::optional<int64_t>>;
constexpr ir::ValueId kNone = ir::kNoValue;

ir::ValueId Ints(testing::GraphBuilder& b, const std::string& name, Dims shape,
                 const std::vector<int64_t>& v, ir::DType t = ir::DType::I64) {
  auto c = std::make_shared<ir::ConstantData>();
  c->dtype = t;
  c->shape = std::move(shape);
  if (t == ir::DType::I64) {
    c->bytes.resize(v.size() * sizeof(int64_t));
    if (!v.empty()) std::memcpy(c->bytes.data(), v.data(), c->bytes.size());
  } else {
    for (int64_t x : v) {
      const int32_t y = static_cast<int32_t>(x);
      const auto* p = reinterpret_cast<const uint8_t*>(&y);
      c->bytes.insert(c->bytes.end(), p, p + 4);
    }
  }
  return b.g.AddConstant(name, c);
}

void Set(testing::GraphBuilder& b, ir::NodeId n, const std::string& key, int64_t v) {
  ir::Attribute a;
  a.kind = ir::Attribute::Kind::kInt;
  a.i = v;
  b.g.nodes[n].attributes[key] = a;
}

// sizes = Concat(Shape(x)[0:2], hw): x [1, 3, H, W], hw a run-time int64 [2].
struct SizesModel {
  testing::GraphBuilder b;
  ir::ValueId x, hw, sizes;
  SizesModel() {
    x = b.Input("x", {1, 3, b.g.dims.Symbol("H"), b.g.dims.Symbol("W")});
    hw = b.Input("hw", {2}, ir::DType::I64);
    const ir::ValueId shape = b.Tensor("shape", {4}, ir::DType::I64);
    b.Node("Shape", "shape", {x}, {shape});
    const ir::ValueId head = b.Tensor("head", {2}, ir::DType::I64);
    b.Node("Slice", "head", {shape, Ints(b, "s", {1}, {0}), Ints(b, "e", {1}, {2})}, {head});
    sizes = b.Tensor("sizes", {4}, ir::DType::I64);
    Set(b, b.Node("Concat", "sizes", {head, hw}, {sizes}), "axis", 0);
  }
};

TEST(KnownElements, AShapesStaticPartBesideRunTimeValues) {
  SizesModel m;
  m.b.Output(m.sizes);
  ASSERT_TRUE(FoldConstants(m.b.g).ok());
  EXPECT_EQ(KnownElements(m.b.g, m.sizes, {}), (Known{1, 3, std::nullopt, std::nullopt}));
  EXPECT_EQ(KnownElements(m.b.g, m.hw, {}), (Known{std::nullopt, std::nullopt}));
}

// torchvision's pads: Concat([0], a, [0], b, [0], c) -> Reshape [-1, 2] ->
// rows reversed -> Transpose -> Reshape [-1]: [0, 0, 0, c, b, a].
TEST(KnownElements, FollowsReshapeReversedSliceAndTranspose) {
  testing::GraphBuilder b;
  const ir::ValueId amounts = b.Input("amounts", {3}, ir::DType::I64);
  std::vector<ir::ValueId> parts;
  for (int k = 0; k < 3; ++k) {
    const ir::ValueId one = b.Tensor("a" + std::to_string(k), {1}, ir::DType::I64);
    b.Node("Gather", "g" + std::to_string(k), {amounts, Ints(b, "i" + std::to_string(k), {1}, {k})},
           {one});
    parts.push_back(Ints(b, "z" + std::to_string(k), {1}, {0}));
    parts.push_back(one);
  }
  const ir::ValueId cat = b.Tensor("cat", {6}, ir::DType::I64);
  Set(b, b.Node("Concat", "cat", parts, {cat}), "axis", 0);
  const ir::ValueId pairs = b.Tensor("pairs", {3, 2}, ir::DType::I64);
  b.Node("Reshape", "pairs", {cat, Ints(b, "to2", {2}, {-1, 2})}, {pairs});
  const ir::ValueId rev = b.Tensor("rev", {3, 2}, ir::DType::I64);
  b.Node("Slice", "rev",
         {pairs, Ints(b, "rs", {1}, {-1}), Ints(b, "re", {1}, {INT64_MIN + 1}),
          Ints(b, "ra", {1}, {0}), Ints(b, "rst", {1}, {-1})},
         {rev});
  const ir::ValueId tr = b.Tensor("tr", {2, 3}, ir::DType::I64);
  b.Node("Transpose", "tr", {rev}, {tr});
  const ir::ValueId pads = b.Tensor("pads", {6}, ir::DType::I64);
  b.Node("Reshape", "pads", {tr, Ints(b, "to1", {1}, {-1})}, {pads});
  b.Output(pads);
  ASSERT_TRUE(InferShapes(b.g).ok()) << InferShapes(b.g);
  const Known k = KnownElements(b.g, pads, {});
  EXPECT_EQ(k, (Known{0, 0, 0, std::nullopt, std::nullopt, std::nullopt}));
}

TEST(KnownElements, ResizeKeepsTheDimsItsSizesKnow) {
  SizesModel m;
  const ir::ValueId y = m.b.g.AddValue("y");
  m.b.Output(y);
  m.b.Node("Resize", "rs", {m.x, kNone, kNone, m.sizes}, {y});
  const absl::Status s = InferShapes(m.b.g);
  ASSERT_TRUE(s.ok()) << s;
  const Dims& dims = m.b.g.value(y).shape;
  ASSERT_EQ(dims.size(), 4u);
  EXPECT_EQ(dims[0], 1);
  EXPECT_EQ(dims[1], 3);
  for (int d : {2, 3}) {  // reported during the run, without a bound
    const int32_t k = m.b.g.dims.BareData(dims[d]);
    ASSERT_GE(k, 0) << d;
    EXPECT_EQ(m.b.g.dims.data_symbols()[static_cast<size_t>(k)].bound, ir::kNoBound);
  }
}

TEST(KnownElements, PadKeepsTheAxesWhosePadsAreKnown) {
  testing::GraphBuilder b;
  const int64_t h = b.g.dims.Symbol("H");
  const ir::ValueId x = b.Input("x", {3, h, 8});
  const ir::ValueId amount = b.Input("amount", {1}, ir::DType::I64);
  const ir::ValueId pads = b.Tensor("pads", {6}, ir::DType::I64);
  // begins [0, 0, 2], ends [1, amount, 0]
  Set(b, b.Node("Concat", "pads", {Ints(b, "b", {4}, {0, 0, 2, 1}), amount, Ints(b, "e", {1}, {0})},
                {pads}),
      "axis", 0);
  const ir::ValueId y = b.g.AddValue("y");
  b.Output(y);
  b.Node("Pad", "pad", {x, pads}, {y});
  b.g.opset = 13;
  const absl::Status s = InferShapes(b.g);
  ASSERT_TRUE(s.ok()) << s;
  const Dims& dims = b.g.value(y).shape;
  ASSERT_EQ(dims.size(), 3u);
  EXPECT_EQ(dims[0], 4);
  EXPECT_GE(b.g.dims.BareData(dims[1]), 0);  // H + amount: reported
  EXPECT_EQ(dims[2], 10);
}

TEST(KnownElements, RangeTakesABoundCastToInt32FromASize) {
  testing::GraphBuilder b;
  const int64_t w = b.g.dims.Symbol("W");
  const ir::ValueId x = b.Input("x", {1, 4, 5, w});
  const ir::ValueId shape = b.Tensor("shape", {4}, ir::DType::I64);
  b.Node("Shape", "shape", {x}, {shape});
  const ir::ValueId width = b.Tensor("width", {}, ir::DType::I64);
  b.Node("Gather", "width", {shape, Ints(b, "three", {}, {3})}, {width});
  const ir::ValueId w32 = b.Tensor("w32", {}, ir::DType::I32);
  Set(b, b.Node("Cast", "w32", {width}, {w32}), "to", 6);  // ONNX int32
  const ir::ValueId r = b.g.AddValue("r");
  b.Output(r);
  const ir::NodeId n = b.Node("Range", "range",
                              {Ints(b, "zero", {}, {0}, ir::DType::I32), w32,
                               Ints(b, "one", {}, {1}, ir::DType::I32)},
                              {r});
  const absl::Status s = InferShapes(b.g);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(b.g.value(r).shape, (Dims{w}));
  EXPECT_EQ(b.g.value(r).dtype, ir::DType::I32);
  EXPECT_FALSE(HasRuntimeParams(b.g, b.g.nodes[n]));  // the symbolic Range's lowering
}

// Known entries that cannot be sizes are refused by name at compile time.
TEST(KnownElements, KnownEntriesThatGiveNoSizeAreRefused) {
  {
    testing::GraphBuilder b;
    const ir::ValueId x = b.Input("x", {1, 3, b.g.dims.Symbol("H"), b.g.dims.Symbol("W")});
    const ir::ValueId sizes = b.Tensor("sizes", {4}, ir::DType::I64);
    Set(b, b.Node("Concat", "sizes", {Ints(b, "head", {2}, {1, -1}),
                                      b.Input("hw", {2}, ir::DType::I64)}, {sizes}),
        "axis", 0);
    const ir::ValueId y = b.g.AddValue("y");
    b.Output(y);
    b.Node("Resize", "rs", {x, kNone, kNone, sizes}, {y});
    const absl::Status s = InferShapes(b.g);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find("'rs' (Resize)"), std::string::npos) << s;
    EXPECT_NE(s.message().find("sizes[1] = -1 is not a size"), std::string::npos) << s;
  }
  {
    testing::GraphBuilder b;
    const ir::ValueId x = b.Input("x", {3, b.g.dims.Symbol("H"), 8});
    const ir::ValueId pads = b.Tensor("pads", {6}, ir::DType::I64);
    // axis 2: begin -6, end -3 of 8 entries
    Set(b, b.Node("Concat", "pads", {Ints(b, "b", {3}, {0, 0, -6}),
                                     b.Input("end0", {1}, ir::DType::I64),
                                     Ints(b, "e", {2}, {0, -3})}, {pads}),
        "axis", 0);
    const ir::ValueId y = b.g.AddValue("y");
    b.Output(y);
    b.Node("Pad", "pad", {x, pads}, {y});
    const absl::Status s = InferShapes(b.g);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.message().find("'pad' (Pad)"), std::string::npos) << s;
    EXPECT_NE(s.message().find("pads remove 9 entries from axis 2"), std::string::npos) << s;
  }
}

}  // namespace
}  // namespace kiln::compiler
