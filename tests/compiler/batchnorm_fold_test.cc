#include "compiler/passes/batchnorm_fold.h"

#include <cmath>

#include "gtest/gtest.h"
#include "tests/compiler/backend_graph_builder.h"

namespace kiln::compiler {
namespace {

using testing::GraphBuilder;

// Naive NCHW conv (N=1, groups=1, stride 1, symmetric zero padding `pad`),
// written independently of the compiler as the reference.
std::vector<float> NaiveConv(const std::vector<float>& x, int c, int h, int w,
                             const std::vector<float>& wt, const std::vector<float>* bias, int oc,
                             int k, int pad) {
  const int oh = h + 2 * pad - k + 1, ow = w + 2 * pad - k + 1;
  std::vector<float> y(static_cast<size_t>(oc * oh * ow));
  for (int o = 0; o < oc; ++o) {
    for (int i = 0; i < oh; ++i) {
      for (int j = 0; j < ow; ++j) {
        double acc = bias ? (*bias)[o] : 0.0;
        for (int ci = 0; ci < c; ++ci) {
          for (int a = 0; a < k; ++a) {
            for (int b = 0; b < k; ++b) {
              const int yy = i + a - pad, xx = j + b - pad;
              if (yy < 0 || yy >= h || xx < 0 || xx >= w) continue;
              acc += x[(ci * h + yy) * w + xx] * wt[((o * c + ci) * k + a) * k + b];
            }
          }
        }
        y[(o * oh + i) * ow + j] = static_cast<float>(acc);
      }
    }
  }
  return y;
}

std::vector<float> Data(const ir::Graph& g, ir::ValueId v) {
  const ir::ConstantData& c = *g.value(v).constant;
  return std::vector<float>(c.data<float>(), c.data<float>() + c.element_count());
}

struct ConvBn {
  GraphBuilder b;
  ir::ValueId x, w, bias, scale, shift, mean, var, conv_out, y;
  ir::NodeId conv, bn;
};

// x[1,3,6,6] → Conv(4 filters 3x3, pad 1) → BN(eps 1e-3) → y
void Build(ConvBn& m, bool with_bias) {
  GraphBuilder& b = m.b;
  m.x = b.Input("x", {1, 3, 6, 6});
  m.w = b.RandomConst("w", {4, 3, 3, 3}, -1, 1, 1);
  m.bias = with_bias ? b.RandomConst("bias", {4}, -1, 1, 2) : ir::kNoValue;
  m.scale = b.RandomConst("scale", {4}, 0.5f, 2, 3);
  m.shift = b.RandomConst("shift", {4}, -1, 1, 4);
  m.mean = b.RandomConst("mean", {4}, -1, 1, 5);
  m.var = b.RandomConst("var", {4}, 0.1f, 2, 6);
  m.conv_out = b.Tensor("conv_out", {1, 4, 6, 6});
  m.y = b.Tensor("y", {1, 4, 6, 6});
  std::vector<ir::ValueId> conv_in = {m.x, m.w};
  if (with_bias) conv_in.push_back(m.bias);
  m.conv = b.Node("Conv", "conv", conv_in, {m.conv_out});
  b.Ints(m.conv, "pads", {1, 1, 1, 1});
  m.bn = b.Node("BatchNormalization", "bn", {m.conv_out, m.scale, m.shift, m.mean, m.var}, {m.y});
  b.g.nodes[m.bn].SetFloat("epsilon", 1e-3f);
  b.Output(m.y);
}

void CheckFoldedNumerics(bool with_bias) {
  ConvBn m;
  Build(m, with_bias);
  const ir::Graph before = m.b.g;
  ASSERT_TRUE(FoldBatchNormIntoConv(m.b.g).ok());
  const ir::Graph& g = m.b.g;
  ASSERT_EQ(g.nodes.size(), 1u);
  const ir::Node& conv = g.nodes[0];
  EXPECT_EQ(conv.op_type, "Conv");
  ASSERT_EQ(conv.outputs.size(), 1u);
  EXPECT_EQ(conv.outputs[0], m.y);
  EXPECT_EQ(g.value(m.y).producer, 0);
  ASSERT_EQ(conv.fused.size(), 1u);
  EXPECT_EQ(conv.fused[0].name, "bn");
  EXPECT_EQ(conv.fused[0].op_type, "BatchNormalization");
  ASSERT_EQ(conv.inputs.size(), 3u);

  // Reference: unfused conv, then BN applied to its output element-wise.
  const std::vector<float> x = GraphBuilder::Random(3 * 6 * 6, -1, 1, 99);
  const std::vector<float> bias = with_bias ? Data(before, m.bias) : std::vector<float>();
  std::vector<float> ref =
      NaiveConv(x, 3, 6, 6, Data(before, m.w), with_bias ? &bias : nullptr, 4, 3, 1);
  const auto sc = Data(before, m.scale), sh = Data(before, m.shift), mu = Data(before, m.mean),
             va = Data(before, m.var);
  for (int o = 0; o < 4; ++o) {
    for (int k = 0; k < 36; ++k) {
      float& v = ref[o * 36 + k];
      v = static_cast<float>((v - mu[o]) / std::sqrt(va[o] + 1e-3) * sc[o] + sh[o]);
    }
  }
  const std::vector<float> folded_b = Data(g, conv.inputs[2]);
  const std::vector<float> got = NaiveConv(x, 3, 6, 6, Data(g, conv.inputs[1]), &folded_b, 4, 3, 1);
  ASSERT_EQ(got.size(), ref.size());
  for (size_t k = 0; k < ref.size(); ++k) {
    // float32 rounding of folded weights: relative 1e-5 of the magnitudes involved
    EXPECT_NEAR(got[k], ref[k], 1e-4 * (1 + std::fabs(ref[k]))) << "at " << k;
  }
}

TEST(BatchNormFold, FoldsConvWithBias) { CheckFoldedNumerics(true); }
TEST(BatchNormFold, FoldsConvWithoutBias) { CheckFoldedNumerics(false); }

TEST(BatchNormFold, KeepsBnWhenConvOutputHasAnotherUser) {
  ConvBn m;
  Build(m, true);
  const ir::ValueId other = m.b.Tensor("other", {1, 4, 6, 6});
  m.b.Node("Relu", "relu", {m.conv_out}, {other});
  m.b.Output(other);
  ASSERT_TRUE(FoldBatchNormIntoConv(m.b.g).ok());
  ASSERT_EQ(m.b.g.nodes.size(), 3u);
  EXPECT_EQ(m.b.g.nodes[1].op_type, "BatchNormalization");
  EXPECT_TRUE(m.b.g.nodes[0].fused.empty());
}

TEST(BatchNormFold, KeepsBnWhenConvOutputIsGraphOutput) {
  ConvBn m;
  Build(m, true);
  m.b.Output(m.conv_out);
  ASSERT_TRUE(FoldBatchNormIntoConv(m.b.g).ok());
  EXPECT_EQ(m.b.g.nodes.size(), 2u);
}

TEST(BatchNormFold, KeepsBnWithNonConstantStatistics) {
  ConvBn m;
  Build(m, true);
  const ir::ValueId mean_in = m.b.Input("mean_in", {4});
  m.b.g.nodes[m.bn].inputs[3] = mean_in;
  ASSERT_TRUE(FoldBatchNormIntoConv(m.b.g).ok());
  EXPECT_EQ(m.b.g.nodes.size(), 2u);
}

}  // namespace
}  // namespace kiln::compiler
