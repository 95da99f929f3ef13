// Unique and NonMaxSuppression without a declared output shape (passes/
// ops/data_dependent.cc): their length is a data symbol, known
// during the run. Unique's Y, indices and counts share one, bounded by the
// elements of X (or X's length along the axis), with one result count
// appended once after the scratch and kept to the end of the run;
// inverse_indices stays static. NonMaxSuppression's bound is batches x
// classes x boxes kept per class (min(max_output, boxes) when max_output is
// constant). Other nodes may read such outputs: the length carries on.
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "compiler/passes/shape_inference.h"
#include "gtest/gtest.h"
#include "tests/compiler/backend_graph_builder.h"

namespace kiln::compiler {
namespace {


using Dims = std::vector<int64_t>;

// Unique of x [4,3,2] with all four outputs returned, none declared; along
// `axis` when >= 0; output `read` (-1: none) is also read by an Identity.
struct UniqueModel {
  testing::GraphBuilder b;
  ir::NodeId node = 0;
  std::vector<ir::ValueId> outs;

  explicit UniqueModel(int64_t axis = -1, int read = -1) {
    const ir::ValueId x = b.Input("x", {4, 3, 2});
    for (const char* n : {"y", "indices", "inverse", "counts"}) outs.push_back(b.g.AddValue(n));
    for (ir::ValueId v : outs) b.Output(v);
    node = b.Node("Unique", "uq", {x}, outs);
    if (axis >= 0) {
      ir::Attribute a;
      a.kind = ir::Attribute::Kind::kInt;
      a.i = axis;
      b.g.nodes[node].attributes["axis"] = a;
    }
    if (read >= 0) {
      const ir::ValueId r = b.g.AddValue("r");
      b.Output(r);
      b.Node("Identity", "reader", {outs[static_cast<size_t>(read)]}, {r});
    }
  }
  const ir::Value& V(ir::ValueId v) const { return b.g.value(v); }
};

// `dim` is data symbol 0 of g, bounded by `bound`, written as `count`.
void ExpectLength(const ir::Graph& g, int64_t dim, int64_t bound, ir::ValueId count,
                  const std::string& name) {
  ASSERT_EQ(g.dims.data_symbols().size(), 1u);
  EXPECT_EQ(g.dims.BareData(dim), 0);
  EXPECT_EQ(g.dims.data_symbols()[0].bound, bound);
  EXPECT_EQ(g.dims.data_symbols()[0].count_value, count);
  EXPECT_EQ(g.dims.data_symbols()[0].name, name);
  int64_t upper = -1;
  EXPECT_TRUE(g.dims.UpperBound(dim, &upper));
  EXPECT_EQ(upper, bound);
}

TEST(UniqueAfterRun, SharesOneCountAmongYIndicesAndCounts) {
  UniqueModel m;
  ASSERT_TRUE(InferShapes(m.b.g).ok());
  ASSERT_TRUE(InferShapes(m.b.g).ok());  // rules may run again: nothing appended twice
  const ir::Node& n = m.b.g.nodes[m.node];
  ASSERT_EQ(n.outputs.size(), 6u);  // 4 outputs, scratch, count
  EXPECT_EQ(n.GetInt("kiln.result_count", 0), 5);
  const ir::ValueId count = n.outputs[5];
  EXPECT_EQ(m.V(count).shape, Dims{1});
  EXPECT_EQ(m.V(count).dtype, ir::DType::I64);
  EXPECT_TRUE(m.V(count).live_to_end);
  EXPECT_EQ(m.V(n.outputs[4]).shape, Dims{48});  // scratch: 2 int64 per element
  // One length, bounded by every element being distinct.
  ExpectLength(m.b.g, m.V(m.outs[0]).shape[0], 24, count, "y.length");
  for (size_t k : {0u, 1u, 3u}) {
    ASSERT_EQ(m.V(m.outs[k]).shape.size(), 1u) << k;
    EXPECT_EQ(m.V(m.outs[k]).shape[0], m.V(m.outs[0]).shape[0]) << k;
  }
  EXPECT_EQ(m.V(m.outs[0]).dtype, ir::DType::F32);
  EXPECT_EQ(m.V(m.outs[2]).shape, Dims{24});  // inverse: static, one per element
}

TEST(UniqueAfterRun, AlongAnAxisTheBoundIsTheAxisLength) {
  UniqueModel m(1);
  ASSERT_TRUE(InferShapes(m.b.g).ok());
  const Dims y = m.V(m.outs[0]).shape;
  ASSERT_EQ(y.size(), 3u);
  EXPECT_EQ(y[0], 4);
  EXPECT_EQ(y[2], 2);
  ExpectLength(m.b.g, y[1], 3, m.b.g.nodes[m.node].outputs[5], "y.length");
  EXPECT_EQ(m.V(m.outs[1]).shape, Dims{y[1]});
  EXPECT_EQ(m.V(m.outs[3]).shape, Dims{y[1]});
  EXPECT_EQ(m.V(m.outs[2]).shape, Dims{3});
  EXPECT_EQ(m.V(m.b.g.nodes[m.node].outputs[4]).shape, Dims{6});
}

TEST(UniqueAfterRun, AStaticOutputMayBeRead) {
  UniqueModel m(-1, 2);  // an Identity reads inverse_indices
  EXPECT_TRUE(InferShapes(m.b.g).ok());
}

TEST(UniqueAfterRun, ALengthCarriesOnIntoItsReaders) {
  for (int read : {0, 1, 3}) {
    UniqueModel m(-1, read);
    ASSERT_TRUE(InferShapes(m.b.g).ok()) << read;
    const ir::Value& r = m.b.g.value(m.b.g.outputs.back());
    EXPECT_EQ(r.shape, m.V(m.outs[static_cast<size_t>(read)]).shape) << read;
    EXPECT_EQ(m.b.g.dims.BareData(r.shape[0]), 0) << read;
  }
}

// NonMaxSuppression of boxes [2,5,4] and scores [2,3,5]; max_output is a
// run-time input, or the constant `max` when >= 0 (an int64 initializer).
struct NmsModel {
  testing::GraphBuilder b;
  ir::NodeId node = 0;
  ir::ValueId out = 0;

  explicit NmsModel(int64_t max = -1, bool read = false) {
    ir::ValueId m;
    if (max >= 0) {
      auto c = std::make_shared<ir::ConstantData>();
      c->dtype = ir::DType::I64;
      c->shape = {1};
      c->bytes.resize(8);
      std::memcpy(c->bytes.data(), &max, 8);
      m = b.g.AddConstant("max", c);
    } else {
      m = b.Input("max", {1}, ir::DType::I64);
    }
    std::vector<ir::ValueId> ins = {b.Input("boxes", {2, 5, 4}), b.Input("scores", {2, 3, 5}), m,
                                    b.Input("iou", {1}), b.Input("score", {})};
    out = b.g.AddValue("selected");
    b.Output(out);
    node = b.Node("NonMaxSuppression", "nms", ins, {out});
    if (read) {
      const ir::ValueId r = b.g.AddValue("r");
      b.Output(r);
      b.Node("Identity", "reader", {out}, {r});
    }
  }
};

TEST(NmsAfterRun, BoundIsEveryBoxOfEveryClassForARunTimeMax) {
  NmsModel m;
  ASSERT_TRUE(InferShapes(m.b.g).ok());
  const ir::Node& n = m.b.g.nodes[m.node];
  ASSERT_EQ(n.outputs.size(), 3u);  // output, scratch, count
  const Dims y = m.b.g.value(m.out).shape;
  ASSERT_EQ(y.size(), 2u);
  EXPECT_EQ(y[1], 3);
  ExpectLength(m.b.g, y[0], 30, n.outputs[2], "selected.length");
  EXPECT_TRUE(m.b.g.value(n.outputs[2]).live_to_end);
  EXPECT_EQ(m.b.g.value(n.outputs[1]).shape, Dims{15});
}

TEST(NmsAfterRun, AConstantMaxBoundsEachClass) {
  NmsModel two(2);
  ASSERT_TRUE(InferShapes(two.b.g).ok());
  // 2 batches x 3 classes x 2
  EXPECT_EQ(two.b.g.dims.data_symbols().at(0).bound, 12);
  NmsModel many(9);
  ASSERT_TRUE(InferShapes(many.b.g).ok());
  EXPECT_EQ(many.b.g.dims.data_symbols().at(0).bound, 30);  // at most the 5 boxes
}

TEST(NmsAfterRun, ALengthCarriesOnIntoItsReaders) {
  NmsModel m(-1, true);
  ASSERT_TRUE(InferShapes(m.b.g).ok());
  EXPECT_EQ(m.b.g.value(m.b.g.outputs.back()).shape, m.b.g.value(m.out).shape);
}

}  // namespace
}  // namespace kiln::compiler
