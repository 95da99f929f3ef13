// ChooseLayouts: which values go channels last (NHWC) around depthwise
// convs and after image stems, and every reason a value must stay NCHW.
#include "compiler/passes/layout_selection.h"

#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "kiln/kernels.h"
#include "tests/compiler/backend_graph_builder.h"

namespace kiln::compiler {
namespace {

using testing::GraphBuilder;

// x → pointwise conv → a → depthwise 3x3 → b → pointwise conv → c → pool → p,
// planes of height 6 and width `w`.
struct DepthwiseSeparable {
  GraphBuilder b;
  ir::ValueId x, a, d, c, p;
  ir::NodeId expand, dw, project, pool;
  explicit DepthwiseSeparable(int64_t w) {
    x = b.Input("x", {1, 16, 6, w});
    a = b.Tensor("a", {1, 32, 6, w});
    d = b.Tensor("b", {1, 32, 6, w});
    c = b.Tensor("c", {1, 16, 6, w});
    p = b.Tensor("p", {1, 16, 1, 1});
    expand = b.Node("Conv", "expand", {x, b.RandomConst("w1", {32, 16, 1, 1}, -1, 1, 1)}, {a});
    dw = b.Node("Conv", "dw", {a, b.RandomConst("w2", {32, 1, 3, 3}, -1, 1, 2)}, {d});
    b.g.nodes[dw].SetInt("group", 32);
    project = b.Node("Conv", "project", {d, b.RandomConst("w3", {16, 32, 1, 1}, -1, 1, 3)}, {c});
    pool = b.Node("GlobalAveragePool", "pool", {c}, {p});
    b.Output(p);
  }
  bool Nhwc(ir::ValueId v) const { return b.g.value(v).channels_last; }
};

TEST(LayoutSelection, NarrowDepthwiseChainGoesChannelsLastUpToThePool) {
  DepthwiseSeparable m(5);
  ASSERT_TRUE(ChooseLayouts(m.b.g).ok());
  EXPECT_FALSE(m.Nhwc(m.x));  // the caller's input stays as the signature says
  EXPECT_TRUE(m.Nhwc(m.a));
  EXPECT_TRUE(m.Nhwc(m.d));
  EXPECT_TRUE(m.Nhwc(m.c));   // carried on: the pool reads NHWC
  EXPECT_FALSE(m.Nhwc(m.p));  // the graph output
}

TEST(LayoutSelection, WideRowsGoChannelsLastToo) {
  DepthwiseSeparable m(56);
  ASSERT_TRUE(ChooseLayouts(m.b.g).ok());
  for (ir::ValueId v : {m.a, m.d, m.c}) EXPECT_TRUE(m.Nhwc(v));
}

// A node whose first output is absent (an LSTM asked for Y_h only) is passed
// over: the pass once read the value at kNoValue, before the start of the
// value table (AddressSanitizer reported it; the ASan preset runs this test).
TEST(LayoutSelection, SkipsANodeWithoutItsFirstOutput) {
  DepthwiseSeparable m(5);
  const ir::ValueId h = m.b.Tensor("h", {1, 16, 6, 5});
  const ir::NodeId n = m.b.Node("Relu", "relu", {m.c}, {h});
  m.b.g.nodes[n].outputs = {ir::kNoValue, h};
  m.b.Output(h);
  ASSERT_TRUE(ChooseLayouts(m.b.g).ok());
  EXPECT_TRUE(m.Nhwc(m.a));  // the rest is laid out as without it
  EXPECT_FALSE(m.b.g.value(h).channels_last);
}

// x [1, c, 12, 12] → 3x3 stem (32 channels) → s → depthwise 3x3 → d → pool;
// whether s and d went channels last.
std::pair<bool, bool> StemLayouts(int64_t c) {
  GraphBuilder b;
  const ir::ValueId x = b.Input("x", {1, c, 12, 12});
  const ir::ValueId s = b.Tensor("s", {1, 32, 12, 12});
  const ir::ValueId d = b.Tensor("d", {1, 32, 12, 12});
  const ir::ValueId p = b.Tensor("p", {1, 32, 1, 1});
  b.Node("Conv", "stem", {x, b.RandomConst("w1", {32, c, 3, 3}, -1, 1, 6)}, {s});
  const ir::NodeId dw = b.Node("Conv", "dw", {s, b.RandomConst("w2", {32, 1, 3, 3}, -1, 1, 7)}, {d});
  b.g.nodes[dw].SetInt("group", 32);
  b.Node("GlobalAveragePool", "pool", {d}, {p});
  b.Output(p);
  EXPECT_TRUE(ChooseLayouts(b.g).ok());
  return {b.g.value(s).channels_last, b.g.value(d).channels_last};
}

TEST(LayoutSelection, AFewChannelStemWritesItsOutputNhwc) {
  // conv2d_packed_cl_f32 runs an NCHW image of 2 to KILN_CONVP_SMALL_C
  // channels into NHWC with positions in the lanes: the depthwise conv after
  // it goes NHWC.
  EXPECT_EQ(StemLayouts(3), std::make_pair(true, true));
  EXPECT_EQ(StemLayouts(KILN_CONVP_SMALL_C), std::make_pair(true, true));
}

TEST(LayoutSelection, AStemOverMoreChannelsKeepsItsOutputNchw) {
  // Past KILN_CONVP_SMALL_C and below the tiles' 16 channels, no NHWC route
  // of the packed kernel is fast.
  EXPECT_EQ(StemLayouts(KILN_CONVP_SMALL_C + 1), std::make_pair(false, false));
  EXPECT_EQ(StemLayouts(8), std::make_pair(false, false));
}

TEST(LayoutSelection, AReaderWithoutAnNhwcKernelKeepsTheChainNchw) {
  DepthwiseSeparable m(5);
  const ir::ValueId s = m.b.Tensor("s", {1, 32, 6, 5});
  m.b.Node("Sigmoid", "gate", {m.d}, {s});
  m.b.Output(s);
  ASSERT_TRUE(ChooseLayouts(m.b.g).ok());
  EXPECT_FALSE(m.Nhwc(m.a));
  EXPECT_FALSE(m.Nhwc(m.d));
  // The projection, a 1x1 GEMM, reads d NCHW and writes c NHWC for the pool.
  EXPECT_TRUE(m.Nhwc(m.c));
}

TEST(LayoutSelection, GraphOutputsStayNchw) {
  DepthwiseSeparable m(5);
  m.b.Output(m.a);
  ASSERT_TRUE(ChooseLayouts(m.b.g).ok());
  EXPECT_FALSE(m.Nhwc(m.a));
  EXPECT_FALSE(m.Nhwc(m.d));  // its conv needs NHWC on both sides
}

TEST(LayoutSelection, AProducerWithAResidualKeepsItsOutputNchw) {
  DepthwiseSeparable m(5);
  const ir::ValueId r = m.b.Input("r", {1, 32, 6, 5});
  m.b.g.nodes[m.expand].inputs.push_back(ir::kNoValue);  // no bias
  m.b.g.nodes[m.expand].inputs.push_back(r);             // fused residual
  ASSERT_TRUE(ChooseLayouts(m.b.g).ok());
  EXPECT_FALSE(m.Nhwc(m.a));
  EXPECT_FALSE(m.Nhwc(m.d));
}

TEST(LayoutSelection, AResidualReadGoesNhwcWithItsConv) {
  DepthwiseSeparable m(5);
  // a is also added to project's sum through a fused residual: project can
  // write NHWC (its input can be, its reader takes it), so a goes NHWC too.
  m.b.g.nodes[m.project].inputs.push_back(ir::kNoValue);
  m.b.g.nodes[m.project].inputs.push_back(m.a);
  ASSERT_TRUE(ChooseLayouts(m.b.g).ok());
  EXPECT_TRUE(m.Nhwc(m.a));
  EXPECT_TRUE(m.Nhwc(m.d));
  EXPECT_TRUE(m.Nhwc(m.c));  // in its residual's layout
}

TEST(LayoutSelection, AResidualReadStaysNchwWhenItsConvCannotWriteNhwc) {
  DepthwiseSeparable m(5);
  m.b.g.nodes[m.project].inputs.push_back(ir::kNoValue);
  m.b.g.nodes[m.project].inputs.push_back(m.a);
  m.b.Output(m.c);  // project's sum leaves the graph: NCHW, so its residual a too
  ASSERT_TRUE(ChooseLayouts(m.b.g).ok());
  EXPECT_FALSE(m.Nhwc(m.a));
  EXPECT_FALSE(m.Nhwc(m.c));
}

// MobileNetV2's inverted residual blocks: c (a block's output) is read by
// the next block's expansion and, through the residual fused into that
// block's projection, added to its sum; the kernel reads the residual in
// its output's layout, so c and the block's sum c2 go NHWC together.
struct ResidualBlocks {
  GraphBuilder b;
  ir::ValueId c, c2;
  explicit ResidualBlocks(bool shortcut_is_graph_input) {
    const ir::ValueId x = b.Input("x", {1, 16, 6, 5});
    ir::ValueId in = x;
    std::vector<ir::ValueId> outs;
    for (int block = 0; block < 2; ++block) {
      const std::string n = std::to_string(block);
      const ir::ValueId a = b.Tensor("a" + n, {1, 32, 6, 5});
      const ir::ValueId d = b.Tensor("d" + n, {1, 32, 6, 5});
      const ir::ValueId out = b.Tensor("c" + n, {1, 16, 6, 5});
      b.Node("Conv", "expand" + n, {in, b.RandomConst("we" + n, {32, 16, 1, 1}, -1, 1, 10 + block)}, {a});
      const ir::NodeId dw =
          b.Node("Conv", "dw" + n, {a, b.RandomConst("wd" + n, {32, 1, 3, 3}, -1, 1, 20 + block)}, {d});
      b.g.nodes[dw].SetInt("group", 32);
      const ir::NodeId project =
          b.Node("Conv", "project" + n, {d, b.RandomConst("wp" + n, {16, 32, 1, 1}, -1, 1, 30 + block)}, {out});
      if (block == 1) {
        b.g.nodes[project].inputs.push_back(ir::kNoValue);  // no bias
        b.g.nodes[project].inputs.push_back(shortcut_is_graph_input ? x : in);  // fused residual
      }
      outs.push_back(out);
      in = out;
    }
    c = outs[0];
    c2 = outs[1];
    const ir::ValueId p = b.Tensor("p", {1, 16, 1, 1});
    b.Node("GlobalAveragePool", "pool", {c2}, {p});
    b.Output(p);
  }
  bool Nhwc(ir::ValueId v) const { return b.g.value(v).channels_last; }
};

TEST(LayoutSelection, AResidualBlockKeepsTheStreamNhwc) {
  ResidualBlocks m(/*shortcut_is_graph_input=*/false);
  ASSERT_TRUE(ChooseLayouts(m.b.g).ok());
  EXPECT_TRUE(m.Nhwc(m.c));   // the shortcut
  EXPECT_TRUE(m.Nhwc(m.c2));  // the block's sum, in the shortcut's layout
}

TEST(LayoutSelection, AnNchwShortcutKeepsTheSumNchw) {
  // The shortcut is the caller's input, which stays NCHW: the residual conv
  // writes NCHW too, and the expansion before it writes c NHWC only if its
  // readers take it (c is read at slot 0 by the second expansion only).
  ResidualBlocks m(/*shortcut_is_graph_input=*/true);
  ASSERT_TRUE(ChooseLayouts(m.b.g).ok());
  EXPECT_FALSE(m.Nhwc(m.c2));
}

TEST(LayoutSelection, DroppingOneDepthwiseConvDropsItsNeighbour) {
  // x → expand → a → dw → b → dw2 → e → Relu (no NHWC kernel) → out
  DepthwiseSeparable m(5);
  const ir::ValueId e = m.b.Tensor("e", {1, 32, 6, 5});
  const ir::ValueId out = m.b.Tensor("out", {1, 32, 6, 5});
  const ir::NodeId dw2 =
      m.b.Node("Conv", "dw2", {m.d, m.b.RandomConst("w4", {32, 1, 3, 3}, -1, 1, 4)}, {e});
  m.b.g.nodes[dw2].SetInt("group", 32);
  m.b.Node("Relu", "relu", {e}, {out});
  m.b.Output(out);
  ASSERT_TRUE(ChooseLayouts(m.b.g).ok());
  // dw2 cannot write NHWC, so b has a reader without NHWC and dw goes too.
  for (ir::ValueId v : {m.a, m.d, e}) EXPECT_FALSE(m.Nhwc(v));
  EXPECT_TRUE(m.Nhwc(m.c));  // the projection's GEMM starts NHWC for the pool
}

// x → expand → a → dw → d → {pool → g, Mul(d, g) → m} → project → c → pool:
// a squeeze-excitation gate between the depthwise and the projecting conv.
struct GatedBlock {
  GraphBuilder b;
  ir::ValueId a, d, g, m, c;
  explicit GatedBlock(std::vector<int64_t> gate_shape = {1, 32, 1, 1}) {
    const ir::ValueId x = b.Input("x", {1, 16, 6, 5});
    a = b.Tensor("a", {1, 32, 6, 5});
    d = b.Tensor("d", {1, 32, 6, 5});
    g = b.Tensor("g", gate_shape);
    m = b.Tensor("m", {1, 32, 6, 5});
    c = b.Tensor("c", {1, 16, 6, 5});
    const ir::ValueId p = b.Tensor("p", {1, 16, 1, 1});
    b.Node("Conv", "expand", {x, b.RandomConst("w1", {32, 16, 1, 1}, -1, 1, 1)}, {a});
    const ir::NodeId dw =
        b.Node("Conv", "dw", {a, b.RandomConst("w2", {32, 1, 3, 3}, -1, 1, 2)}, {d});
    b.g.nodes[dw].SetInt("group", 32);
    if (gate_shape == std::vector<int64_t>{1, 32, 1, 1}) {
      b.Node("GlobalAveragePool", "squeeze", {d}, {g});
    } else {  // another gate shape, from an input of its own
      b.Node("Sigmoid", "gate", {b.Input("h", gate_shape)}, {g});
    }
    b.Node("Mul", "excite", {g, d}, {m});
    b.Node("Conv", "project", {m, b.RandomConst("w3", {16, 32, 1, 1}, -1, 1, 3)}, {c});
    b.Node("GlobalAveragePool", "pool", {c}, {p});
    b.Output(p);
  }
  bool Nhwc(ir::ValueId v) const { return b.g.value(v).channels_last; }
};

TEST(LayoutSelection, ASqueezeExcitationGateKeepsTheChainChannelsLast) {
  GatedBlock m;
  ASSERT_TRUE(ChooseLayouts(m.b.g).ok());
  for (ir::ValueId v : {m.a, m.d, m.m, m.c}) EXPECT_TRUE(m.Nhwc(v));
  EXPECT_FALSE(m.Nhwc(m.g));  // the per-channel gate: its bytes are the same either way
  GatedBlock rank3({32, 1, 1});  // a gate broadcast from [C, 1, 1]
  ASSERT_TRUE(ChooseLayouts(rank3.b.g).ok());
  EXPECT_TRUE(rank3.Nhwc(rank3.m));
}

TEST(LayoutSelection, AGateWhoseProductLeavesNhwcKeepsTheChainNchw) {
  GatedBlock m;
  m.b.Output(m.m);  // the product is a graph output
  ASSERT_TRUE(ChooseLayouts(m.b.g).ok());
  for (ir::ValueId v : {m.a, m.d, m.m}) EXPECT_FALSE(m.Nhwc(v));
  GatedBlock spatial({1, 32, 6, 1});  // not per channel: varies along H
  ASSERT_TRUE(ChooseLayouts(spatial.b.g).ok());
  for (ir::ValueId v : {spatial.a, spatial.d, spatial.m}) EXPECT_FALSE(spatial.Nhwc(v));
}

TEST(LayoutSelection, ADepthwiseConvOnTheGraphInputStaysNchw) {
  GraphBuilder b;
  const ir::ValueId x = b.Input("x", {1, 32, 6, 5});
  const ir::ValueId y = b.Tensor("y", {1, 32, 6, 5});
  const ir::ValueId p = b.Tensor("p", {1, 32, 1, 1});
  const ir::NodeId dw = b.Node("Conv", "dw", {x, b.RandomConst("w", {32, 1, 3, 3}, -1, 1, 5)}, {y});
  b.g.nodes[dw].SetInt("group", 32);
  b.Node("GlobalMaxPool", "pool", {y}, {p});
  b.Output(p);
  ASSERT_TRUE(ChooseLayouts(b.g).ok());
  EXPECT_FALSE(b.g.value(y).channels_last);
}

// A ResNet's start: x [1, 3, 16, 16] → 3x3 stem (16 channels) → s → 3x3/2
// max pool → m → conv → a → conv + m (fused residual) → r → global pool.
struct ResNetStart {
  GraphBuilder b;
  ir::ValueId s, m, a, r;
  ir::NodeId pool;
  ResNetStart() {
    const ir::ValueId x = b.Input("x", {1, 3, 16, 16});
    s = b.Tensor("s", {1, 16, 16, 16});
    m = b.Tensor("m", {1, 16, 8, 8});
    a = b.Tensor("a", {1, 16, 8, 8});
    r = b.Tensor("r", {1, 16, 8, 8});
    const ir::ValueId p = b.Tensor("p", {1, 16, 1, 1});
    b.Node("Conv", "stem", {x, b.RandomConst("w0", {16, 3, 3, 3}, -1, 1, 40)}, {s});
    pool = b.Node("MaxPool", "pool", {s}, {m});
    b.g.nodes[pool].SetInts("kernel_shape", {3, 3});
    b.g.nodes[pool].SetInts("strides", {2, 2});
    b.g.nodes[pool].SetInts("pads", {1, 1, 1, 1});
    b.Node("Conv", "conv1", {m, b.RandomConst("w1", {16, 16, 3, 3}, -1, 1, 41)}, {a});
    b.Node("Conv", "conv2",
           {a, b.RandomConst("w2", {16, 16, 3, 3}, -1, 1, 42), ir::kNoValue, m}, {r});
    b.Node("GlobalAveragePool", "gap", {r}, {p});
    b.Output(p);
  }
  bool Nhwc(ir::ValueId v) const { return b.g.value(v).channels_last; }
};

TEST(LayoutSelection, AStemStartsAnNhwcChainThroughThePoolAndTheResidualBlock) {
  ResNetStart n;
  ASSERT_TRUE(ChooseLayouts(n.b.g).ok());
  EXPECT_TRUE(n.Nhwc(n.s));
  EXPECT_TRUE(n.Nhwc(n.m));  // the pool keeps the layout
  EXPECT_TRUE(n.Nhwc(n.a));
  EXPECT_TRUE(n.Nhwc(n.r));  // written in its shortcut m's layout
}

// A RegNet / ResNeXt block after a stem: x [1, 3, 16, 16] → stem (32
// channels) → s → 1x1 → a → grouped 3x3 (`groups`, 32 in and out) → g →
// 1x1 + s (fused residual) → r → global pool.
struct GroupedBlock {
  GraphBuilder b;
  ir::ValueId s, a, g, r;
  explicit GroupedBlock(int64_t groups) {
    const ir::ValueId x = b.Input("x", {1, 3, 16, 16});
    s = b.Tensor("s", {1, 32, 8, 8});
    a = b.Tensor("a", {1, 32, 8, 8});
    g = b.Tensor("g", {1, 32, 8, 8});
    r = b.Tensor("r", {1, 32, 8, 8});
    const ir::ValueId p = b.Tensor("p", {1, 32, 1, 1});
    const ir::NodeId stem = b.Node("Conv", "stem", {x, b.RandomConst("w0", {32, 3, 3, 3}, -1, 1, 50)}, {s});
    b.g.nodes[stem].SetInts("strides", {2, 2});
    b.Node("Conv", "a", {s, b.RandomConst("w1", {32, 32, 1, 1}, -1, 1, 51)}, {a});
    const ir::NodeId grouped =
        b.Node("Conv", "b", {a, b.RandomConst("w2", {32, 32 / groups, 3, 3}, -1, 1, 52)}, {g});
    b.g.nodes[grouped].SetInt("group", groups);
    b.Node("Conv", "c", {g, b.RandomConst("w3", {32, 32, 1, 1}, -1, 1, 53), ir::kNoValue, s}, {r});
    b.Node("GlobalAveragePool", "gap", {r}, {p});
    b.Output(p);
  }
  bool Nhwc(ir::ValueId v) const { return b.g.value(v).channels_last; }
};

TEST(LayoutSelection, GroupsOfWholePanelsKeepTheBlockNhwc) {
  GroupedBlock m(2);  // 16 channels in and out per group
  ASSERT_TRUE(ChooseLayouts(m.b.g).ok());
  for (ir::ValueId v : {m.s, m.a, m.g, m.r}) EXPECT_TRUE(m.Nhwc(v));
}

TEST(LayoutSelection, GroupsSplittingAPanelKeepTheBlockNchw) {
  GroupedBlock m(4);  // 8 output channels per group: no packed kernel
  ASSERT_TRUE(ChooseLayouts(m.b.g).ok());
  EXPECT_FALSE(m.Nhwc(m.a));  // the grouped conv reads NCHW
  EXPECT_FALSE(m.Nhwc(m.g));
  EXPECT_FALSE(m.Nhwc(m.r));
}

TEST(LayoutSelection, APoolWhoseOutputLeavesTheGraphKeepsTheStemNchw) {
  ResNetStart n;
  n.b.Output(n.m);
  ASSERT_TRUE(ChooseLayouts(n.b.g).ok());
  for (ir::ValueId v : {n.s, n.m, n.r}) EXPECT_FALSE(n.Nhwc(v));
}

TEST(LayoutSelection, APoolWhoseIndicesAreReadKeepsTheStemNchw) {
  ResNetStart n;
  const ir::ValueId indices = n.b.Tensor("i", {1, 16, 8, 8});
  n.b.g.nodes[n.pool].outputs.push_back(indices);
  n.b.Output(indices);
  ASSERT_TRUE(ChooseLayouts(n.b.g).ok());
  EXPECT_FALSE(n.Nhwc(n.s));
  EXPECT_FALSE(n.Nhwc(n.m));
}

// An Inception block's join: x [1, 3, 16, 16] → stem (16 channels) → s →
// 1x1 convs to 16 (a) and 8 (b) channels → Concat along `axis` (with
// `side`, an NCHW graph input of `side_channels` channels, when given) → c
// → 1x1 conv → d → global pool.
struct InceptionJoin {
  GraphBuilder b;
  ir::ValueId s, a, bb, c, d, side = ir::kNoValue;
  explicit InceptionJoin(int64_t axis = 1, int64_t side_channels = 0) {
    const ir::ValueId x = b.Input("x", {1, 3, 16, 16});
    s = b.Tensor("s", {1, 16, 16, 16});
    a = b.Tensor("a", {1, 16, 16, 16});
    bb = b.Tensor("bb", {1, 8, 16, 16});
    std::vector<ir::ValueId> joined = {a, bb};
    int64_t channels = 24;
    if (side_channels > 0) {
      side = b.Input("side", {1, side_channels, 16, 16});
      joined.push_back(side);
      channels += side_channels;
    }
    c = b.Tensor("c", axis == 1 ? std::vector<int64_t>{1, channels, 16, 16}
                                : std::vector<int64_t>{1, 16, 32, 16});
    if (axis != 1) b.g.value(bb).shape = {1, 16, 16, 16};
    const int64_t c_channels = axis == 1 ? channels : 16;
    d = b.Tensor("d", {1, 8, 16, 16});
    const ir::ValueId p = b.Tensor("p", {1, 8, 1, 1});
    b.Node("Conv", "stem", {x, b.RandomConst("w0", {16, 3, 3, 3}, -1, 1, 50)}, {s});
    b.Node("Conv", "a", {s, b.RandomConst("wa", {16, 16, 1, 1}, -1, 1, 51)}, {a});
    b.Node("Conv", "b", {s, b.RandomConst("wb", {axis == 1 ? 8 : 16, 16, 1, 1}, -1, 1, 52)},
           {bb});
    const ir::NodeId join = b.Node("Concat", "join", joined, {c});
    b.g.nodes[join].SetInt("axis", axis);
    b.Node("Conv", "d", {c, b.RandomConst("wd", {8, c_channels, 1, 1}, -1, 1, 53)}, {d});
    b.Node("GlobalAveragePool", "gap", {d}, {p});
    b.Output(p);
  }
  bool Nhwc(ir::ValueId v) const { return b.g.value(v).channels_last; }
};

TEST(LayoutSelection, AChannelConcatCarriesTheNhwcChain) {
  InceptionJoin n;
  ASSERT_TRUE(ChooseLayouts(n.b.g).ok());
  for (ir::ValueId v : {n.s, n.a, n.bb, n.c, n.d}) EXPECT_TRUE(n.Nhwc(v));
}

TEST(LayoutSelection, AConcatMostlyNhwcGoesNhwcBesideAnNchwInput) {
  InceptionJoin n(1, 8);  // 24 channels NHWC, 8 from the graph input
  ASSERT_TRUE(ChooseLayouts(n.b.g).ok());
  EXPECT_FALSE(n.Nhwc(n.side));
  for (ir::ValueId v : {n.a, n.bb, n.c, n.d}) EXPECT_TRUE(n.Nhwc(v));
}

TEST(LayoutSelection, AConcatMostlyNchwStaysNchwAndItsNhwcInputsAreCopiedAcross) {
  InceptionJoin n(1, 40);  // 24 channels NHWC, 40 from the graph input
  ASSERT_TRUE(ChooseLayouts(n.b.g).ok());
  EXPECT_TRUE(n.Nhwc(n.a));
  EXPECT_TRUE(n.Nhwc(n.bb));
  EXPECT_FALSE(n.Nhwc(n.c));
  EXPECT_TRUE(n.Nhwc(n.d));  // the 1x1 after the join, a GEMM, writes NHWC for the pool
}

// A one-group 1x1 stride-1 conv reading NCHW starts an NHWC chain where every
// reader of its output takes NHWC; with a stride it does not (its route from
// NCHW is not a GEMM).
TEST(LayoutSelection, APointwiseGemmStartsAnNhwcChainFromNchw) {
  for (const bool strided : {false, true}) {
    GraphBuilder b;
    const ir::ValueId x = b.Input("x", {1, 16, 8, 8});
    const int64_t side = strided ? 4 : 8;
    const ir::ValueId a = b.Tensor("a", {1, 32, side, side});
    const ir::ValueId c = b.Tensor("c", {1, 32, side, side});
    const ir::ValueId p = b.Tensor("p", {1, 32, 1, 1});
    const ir::NodeId expand = b.Node("Conv", "expand", {x, b.RandomConst("w1", {32, 16, 1, 1}, -1, 1, 60)}, {a});
    if (strided) b.g.nodes[expand].SetInts("strides", {2, 2});
    b.Node("Conv", "conv", {a, b.RandomConst("w2", {32, 32, 3, 3}, -1, 1, 61)}, {c});
    b.Node("GlobalAveragePool", "gap", {c}, {p});
    b.Output(p);
    ASSERT_TRUE(ChooseLayouts(b.g).ok());
    EXPECT_EQ(b.g.value(a).channels_last, !strided) << "strided " << strided;
    EXPECT_EQ(b.g.value(c).channels_last, !strided) << "strided " << strided;
  }
}

TEST(LayoutSelection, AConcatAlongTheRowsKeepsItsInputsNchw) {
  InceptionJoin n(2);
  ASSERT_TRUE(ChooseLayouts(n.b.g).ok());
  for (ir::ValueId v : {n.a, n.bb, n.c}) EXPECT_FALSE(n.Nhwc(v));
}

}  // namespace
}  // namespace kiln::compiler
