// conv2d_packed_f32 / conv2d_packed_res_f32 (output channels in the vector
// lanes, weights packed as kernels.h documents) against the direct
// double-precision loop of conv_reference.h. Tolerance: 1e-5 * (1 + |bias| +
// sum |products|) per element. Also: results are bitwise identical whatever
// partition a host's parallel_for uses, and the checker refuses what the
// kernel cannot take.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "conv_reference.h"
#include "kiln/kernels.h"

namespace {

using kiln::testing::ConvShape;
using kiln::testing::ExpectResidualConvMatches;

using kiln::testing::PackOcPanels;

class PackedConv : public ::testing::TestWithParam<ConvShape> {};

TEST_P(PackedConv, ResidualConvMatchesDirectLoop) {
  const ConvShape s = GetParam();
  ExpectResidualConvMatches(s, kiln_conv2d_packed_res_f32, kiln_conv2d_packed_res_f32_check,
                            [&](const std::vector<float>& w) { return PackOcPanels(s, w); });
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, PackedConv,
    ::testing::Values(ConvShape{1, 16, 7, 7, 64, 3, 1, 1, 1, 1},    // ResNet layer4-like
                      ConvShape{2, 5, 7, 7, 40, 3, 1, 1, 1, 1},     // channels past a tile
                      ConvShape{1, 3, 9, 11, 17, 3, 2, 1, 1, 1},    // stride 2, odd plane
                      ConvShape{1, 6, 5, 5, 33, 1, 1, 0, 1, 1},     // pointwise
                      ConvShape{1, 4, 8, 8, 20, 3, 1, 2, 2, 1},     // dilated
                      ConvShape{1, 3, 4, 40, 5, 3, 2, 4, 1, 1},     // rows in the padding
                      ConvShape{1, 8, 1, 1, 16, 3, 1, 1, 1, 1},     // one position
                      ConvShape{1, 2, 20, 20, 3, 7, 1, 3, 1, 1},    // 49 taps
                      // Dilated past the plane (DeepLab's atrous rates): taps
                      // in the padding for a whole tile, which it skips.
                      ConvShape{1, 6, 6, 7, 20, 3, 1, 5, 5, 1},
                      ConvShape{1, 6, 6, 7, 20, 3, 1, 12, 12, 1},  // the centre tap only
                      // Groups of whole panels (RegNet's and ResNeXt's 3x3 layers):
                      ConvShape{1, 32, 7, 7, 32, 3, 1, 1, 1, 2},    // 16 in, 16 out per group
                      ConvShape{2, 48, 9, 9, 96, 3, 2, 1, 1, 3},    // 32 out per group, stride 2
                      ConvShape{1, 20, 6, 5, 64, 3, 1, 1, 1, 4},    // 5 in per group
                      ConvShape{1, 12, 5, 5, 48, 1, 1, 0, 1, 3},    // pointwise
                      ConvShape{1, 2, 7, 8, 32, 3, 1, 2, 2, 2}));   // one in per group, dilated

TEST(PackedConvCheck, RefusesSplitPanelsTapsAndShortWeights) {
  int64_t ip[18] = {1, 4, 6, 6, 20, 6, 6, 3, 3, 1, 1, 1, 1, 1, 1, 1, KILN_ACT_NONE, 1};
  const float fp[2] = {0, 0};
  const uint64_t packed_bytes = 4 * 32 * 9 * 4;  // two panels of 16 channels
  uint64_t bytes[4] = {4 * 4 * 36, packed_bytes, 4 * 20, 4 * 20 * 36};
  EXPECT_EQ(kiln_conv2d_packed_f32_check(ip, 18, fp, 2, bytes), KILN_OK);
  bytes[1] = packed_bytes - 4;  // one float short of the padded panels
  EXPECT_EQ(kiln_conv2d_packed_f32_check(ip, 18, fp, 2, bytes), KILN_ERR_OUT_OF_RANGE);
  bytes[1] = packed_bytes;
  ip[15] = 2;  // groups of 10 output channels: a panel would span two
  EXPECT_EQ(kiln_conv2d_packed_f32_check(ip, 18, fp, 2, bytes), KILN_ERR_UNIMPLEMENTED);
  ip[4] = 32, ip[15] = 2;  // two groups of one panel, each over 2 channels
  bytes[2] = 4 * 32, bytes[3] = 4 * 32 * 36;
  bytes[1] = 4 * 32 * 9 * 2;
  EXPECT_EQ(kiln_conv2d_packed_f32_check(ip, 18, fp, 2, bytes), KILN_OK);
  bytes[1] -= 4;
  EXPECT_EQ(kiln_conv2d_packed_f32_check(ip, 18, fp, 2, bytes), KILN_ERR_OUT_OF_RANGE);
  bytes[1] = packed_bytes, bytes[2] = 4 * 20, bytes[3] = 4 * 20 * 36;
  ip[4] = 20, ip[15] = 1;
  ip[7] = 9, ip[8] = 9, ip[11] = 4, ip[12] = 4;  // 81 taps
  EXPECT_EQ(kiln_conv2d_packed_f32_check(ip, 18, fp, 2, bytes), KILN_ERR_UNIMPLEMENTED);
}

}  // namespace
