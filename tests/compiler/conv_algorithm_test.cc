// ChooseConvAlgorithms: which convolutions run by Winograd's F(4x4, 3x3),
// the scratch output each gets, and their lowering to conv2d_winograd_f32
// with weights transformed at compile time.
#include "compiler/passes/conv_algorithm.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "compiler/emit/lower_winograd.h"
#include "compiler/emit/lowering.h"
#include "compiler/passes/memory_planning.h"
#include "gtest/gtest.h"
#include "kiln/conv_winograd.h"
#include "kiln/kernels.h"
#include "tests/compiler/backend_graph_builder.h"

namespace kiln::compiler {
namespace {

using testing::GraphBuilder;

// x [n, c, h, w] → Conv (k x k, stride, dilation, group) → y, pads 1.
struct OneConv {
  GraphBuilder b;
  ir::ValueId x, y;
  ir::NodeId conv;
  OneConv(int64_t n, int64_t c, int64_t hw, int64_t oc, int64_t k = 3, int64_t stride = 1,
          int64_t dil = 1, int64_t group = 1) {
    const int64_t out = (hw + 2 - dil * (k - 1) - 1) / stride + 1;
    x = b.Input("x", {n, c, hw, hw});
    y = b.Tensor("y", {n, oc, out, out});
    conv = b.Node("Conv", "conv",
                  {x, b.RandomConst("w", {oc, c / group, k, k}, -1, 1, 1),
                   b.RandomConst("bias", {oc}, -1, 1, 2)},
                  {y});
    b.Ints(conv, "strides", {stride, stride});
    b.Ints(conv, "dilations", {dil, dil});
    b.Ints(conv, "pads", {1, 1, 1, 1});
    b.g.nodes[conv].SetInt("group", group);
    b.Output(y);
  }
  // 0: direct; 1: Winograd, weights transformed here; 2: plain weights.
  int64_t Winograd() const { return b.g.nodes[conv].GetInt("kiln.winograd", 0); }
};

absl::StatusOr<emit::LoweredModule> PlanAndLower(const ir::Graph& g) {
  auto plan = PlanMemory(g);
  if (!plan.ok()) return plan.status();
  return emit::Lower(g, *plan);
}

TEST(ConvAlgorithm, A3x3Stride1LayerGoesWinogradWithItsScratch) {
  OneConv m(2, 16, 10, 24);  // 2 x 3 x 3 tiles
  ASSERT_TRUE(ChooseConvAlgorithms(m.b.g).ok());
  ASSERT_EQ(m.Winograd(), 1);
  const ir::Node& n = m.b.g.nodes[m.conv];
  ASSERT_EQ(n.outputs.size(), 2u);
  const ir::Value& s = m.b.g.value(n.outputs[1]);
  EXPECT_EQ(s.dtype, ir::DType::F32);
  EXPECT_EQ(s.shape, (std::vector<int64_t>{kiln_winograd_scratch_floats(2, 16, 24, 10, 10, 1)}));
  // Running the pass again changes nothing (no second scratch).
  ASSERT_TRUE(ChooseConvAlgorithms(m.b.g).ok());
  EXPECT_EQ(m.b.g.nodes[m.conv].outputs.size(), 2u);

  auto lowered = PlanAndLower(m.b.g);
  ASSERT_TRUE(lowered.ok()) << lowered.status();
  ASSERT_EQ(lowered->executables.size(), 1u);
  const emit::ExecutableDesc& e = lowered->executables[0];
  EXPECT_EQ(e.kernel, "kiln_conv2d_winograd_f32");
  EXPECT_EQ(e.iparams,
            (std::vector<int64_t>{2, 16, 10, 10, 24, 10, 10, 3, 3, 1, 1, 1, 1, 1, 1, 1,
                                  KILN_ACT_NONE, 1, 0, 0, 1}));
  ASSERT_EQ(e.binding_count, 5u);
  // U: two panels of 16 output channels over K = 36 * 16, PackedPanel16.
  EXPECT_EQ(e.binding_bytes[1], 2u * 36 * 16 * 16 * 4);
  EXPECT_EQ(e.binding_bytes[4], static_cast<uint64_t>(4 * s.shape[0]));
  bool found = false;
  for (const emit::ConstantDesc& c : lowered->constants) {
    if (c.name != "w.winograd") continue;
    found = true;
    EXPECT_EQ(c.layout, 1);
    EXPECT_EQ(c.data->shape, (std::vector<int64_t>{2, 36 * 16, 16}));
  }
  EXPECT_TRUE(found);
}

// Four tiles: the kernel gets the plain weights (a quarter of U's bytes)
// and a scratch with room for the blocks of U it makes.
TEST(ConvAlgorithm, AFewTileLayerWithAResidualGetsThePlainWeights) {
  OneConv m(1, 16, 8, 20);
  const ir::ValueId r = m.b.Input("r", {1, 20, 8, 8});
  m.b.g.nodes[m.conv].inputs.push_back(r);
  m.b.g.nodes[m.conv].SetInt("kiln.activation", KILN_ACT_RELU);
  ASSERT_TRUE(ChooseConvAlgorithms(m.b.g).ok());
  ASSERT_EQ(m.Winograd(), 2);
  const ir::Value& s = m.b.g.value(m.b.g.nodes[m.conv].outputs[1]);
  EXPECT_EQ(s.shape, (std::vector<int64_t>{kiln_winograd_scratch_floats(1, 16, 20, 8, 8, 0)}));
  auto lowered = PlanAndLower(m.b.g);
  ASSERT_TRUE(lowered.ok()) << lowered.status();
  const emit::ExecutableDesc& e = lowered->executables[0];
  EXPECT_EQ(e.kernel, "kiln_conv2d_winograd_res_f32");
  EXPECT_EQ(e.binding_count, 6u);
  EXPECT_EQ(e.iparams[16], KILN_ACT_RELU);
  EXPECT_EQ(e.iparams[20], 0);
  EXPECT_EQ(e.binding_bytes[1], 2u * 9 * 16 * 16 * 4);
  // An 8x8 plane: w[oc][c][tap] at (oc/16)*9*C*16 + (c*9 + tap)*16 + oc%16.
  const float* w = m.b.g.value(m.b.g.nodes[m.conv].inputs[1]).constant->data<float>();
  for (const emit::ConstantDesc& c : lowered->constants) {
    if (c.name != "w.winograd_plain") continue;
    ASSERT_EQ(c.data->shape, (std::vector<int64_t>{2, 9 * 16, 16}));
    const float* p = c.data->data<float>();
    for (int64_t o = 0; o < 32; ++o)
      for (int64_t k = 0; k < 9 * 16; ++k)
        EXPECT_EQ(p[(o / 16) * 9 * 16 * 16 + k * 16 + o % 16], o < 20 ? w[o * 9 * 16 + k] : 0.0f);
  }
}

// A 7x7 plane (ResNet-18's layer4) takes Winograd with the plain weights
// even in a batch of 5 (20 tiles, past KILN_WINOGRAD_RAW_MAX_TILES): they
// are also what the AVX-512 path's kernel runs directly on such a plane.
TEST(ConvAlgorithm, ASevenBySevenPlaneGetsThePlainWeightsAtAnyBatch) {
  for (int64_t n : {1, 5}) {
    OneConv m(n, 64, 7, 64);
    ASSERT_TRUE(ChooseConvAlgorithms(m.b.g).ok());
    EXPECT_EQ(m.Winograd(), 2) << "batch " << n;
    const ir::Value& s = m.b.g.value(m.b.g.nodes[m.conv].outputs[1]);
    EXPECT_EQ(s.shape, (std::vector<int64_t>{kiln_winograd_scratch_floats(n, 64, 64, 7, 7, 0)}));
    // K tap-major, conv2d_packed_f32's layout: w[oc][c][tap] at
    // (oc/16)*9*C*16 + (tap*C + c)*16 + oc%16.
    auto lowered = PlanAndLower(m.b.g);
    ASSERT_TRUE(lowered.ok()) << lowered.status();
    EXPECT_EQ(lowered->executables[0].kernel, "kiln_conv2d_winograd_f32");
    const float* w = m.b.g.value(m.b.g.nodes[m.conv].inputs[1]).constant->data<float>();
    bool found = false;
    for (const emit::ConstantDesc& c : lowered->constants) {
      if (c.name != "w.winograd_plain") continue;
      found = true;
      ASSERT_EQ(c.data->shape, (std::vector<int64_t>{4, 9 * 64, 16}));
      const float* p = c.data->data<float>();
      for (int64_t o = 0; o < 64; ++o)
        for (int64_t ch = 0; ch < 64; ++ch)
          for (int64_t tap = 0; tap < 9; ++tap)
            ASSERT_EQ(p[(o / 16) * 9 * 64 * 16 + (tap * 64 + ch) * 16 + o % 16],
                      w[(o * 64 + ch) * 9 + tap]);
    }
    EXPECT_TRUE(found);
  }
  OneConv eight(5, 64, 8, 64);  // 20 tiles of an 8x8 plane: U
  ASSERT_TRUE(ChooseConvAlgorithms(eight.b.g).ok());
  EXPECT_EQ(eight.Winograd(), 1);
}

TEST(ConvAlgorithm, OtherConvolutionsStayDirect) {
  struct Case {
    const char* what;
    OneConv m;
  };
  Case cases[] = {
      {"stride 2", OneConv(1, 16, 16, 16, 3, 2)},
      {"dilation 2", OneConv(1, 16, 16, 16, 3, 1, 2)},
      {"two groups", OneConv(1, 16, 16, 16, 3, 1, 1, 2)},
      {"5x5", OneConv(1, 16, 16, 16, 5)},
      {"1x1", OneConv(1, 16, 16, 16, 1)},
      {"3 input channels (a stem)", OneConv(1, 3, 16, 16)},
      {"8 output channels", OneConv(1, 16, 16, 8)},
      {"a 6x6 output plane", OneConv(1, 64, 6, 64)},
  };
  for (Case& c : cases) {
    ASSERT_TRUE(ChooseConvAlgorithms(c.m.b.g).ok());
    EXPECT_EQ(c.m.Winograd(), 0) << c.what;
    EXPECT_EQ(c.m.b.g.nodes[c.m.conv].outputs.size(), 1u) << c.what;
  }
  // Weights computed at run time cannot be transformed at compile time.
  GraphBuilder b;
  const ir::ValueId x = b.Input("x", {1, 16, 16, 16});
  const ir::ValueId w = b.Input("w", {16, 16, 3, 3});
  const ir::ValueId y = b.Tensor("y", {1, 16, 16, 16});
  const ir::NodeId n = b.Node("Conv", "conv", {x, w}, {y});
  b.Ints(n, "pads", {1, 1, 1, 1});
  b.Output(y);
  ASSERT_TRUE(ChooseConvAlgorithms(b.g).ok());
  EXPECT_EQ(b.g.nodes[n].GetInt("kiln.winograd", 0), 0);
}

// U = G g G^T of a kernel with one nonzero tap (u, v) is the outer product of
// G's columns u and v; G's entries as kiln/conv_winograd.h lists them.
TEST(ConvAlgorithm, WinogradWeightsAreTheTransformInPanels) {
  const double g[6][3] = {{0.25, 0, 0},          {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                          {-1.0 / 6, 1.0 / 6, -1.0 / 6}, {1.0 / 24, 1.0 / 12, 1.0 / 6},
                          {1.0 / 24, -1.0 / 12, 1.0 / 6}, {0, 0, 1}};
  // w [OC=17, C=2, 3, 3]: channel pair (oc, c) has tap ((oc + c) % 9) set to oc + 1.
  const int64_t oc = 17, c = 2;
  ir::ConstantData w;
  w.dtype = ir::DType::F32;
  w.shape = {oc, c, 3, 3};
  std::vector<float> v(oc * c * 9, 0.0f);
  for (int64_t o = 0; o < oc; ++o)
    for (int64_t i = 0; i < c; ++i) v[(o * c + i) * 9 + (o + i) % 9] = static_cast<float>(o + 1);
  w.bytes.resize(v.size() * 4);
  std::memcpy(w.bytes.data(), v.data(), w.bytes.size());
  const ir::ConstantPtr u = emit::WinogradWeights(w, oc, c);
  ASSERT_EQ(u->shape, (std::vector<int64_t>{2, 36 * c, 16}));
  const float* p = u->data<float>();
  for (int64_t o = 0; o < 32; ++o)
    for (int64_t i = 0; i < c; ++i)
      for (int f = 0; f < 36; ++f) {
        const int tap = static_cast<int>((o + i) % 9);
        const double want =
            o < oc ? (o + 1) * g[f / 6][tap / 3] * g[f % 6][tap % 3] : 0.0;  // zero past OC
        const float got = p[(o / 16) * 36 * c * 16 + (f * c + i) * 16 + o % 16];
        EXPECT_NEAR(got, want, 1e-6 * std::fabs(want)) << "oc " << o << " c " << i << " f " << f;
      }
}

}  // namespace
}  // namespace kiln::compiler
