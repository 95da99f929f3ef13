// conv2d_f32 against PyTorch references, and its checker's verdicts.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "kernel_case.h"

namespace {

using kiln_test::With;

enum { N, C, H, W, OC, OH, OW, KH, KW, SH, SW, PT, PL, DH, DW, G, ACT, HAS_BIAS };
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

KILN_REFERENCE_SUITE(Conv2dReference, "conv2d_f32.basic", "conv2d_f32.strided_asym_pads",
                     "conv2d_f32.dilated_grouped", "conv2d_f32.depthwise_s2_clip",
                     "conv2d_f32.depthwise_k5_nobias", "conv2d_f32.pointwise_tanh",
                     "conv2d_f32.pointwise_strided", "conv2d_f32.pad_beyond_kernel",
                     "conv2d_f32.grouped_oc_multiple", "conv2d_f32.smallc_stem_wide_clip",
                     "conv2d_f32.smallc_rows_dilated_sigmoid", "conv2d_f32.im2col_vector_s1",
                     "conv2d_f32.im2col_vector_s2");

TEST(Conv2dCheck, RejectsZeroKernelStrideDilationOrGroups) {
  KILN_LOAD_CASE("conv2d_f32.basic", c);
  for (size_t i : {KH, KW, SH, SW, DH, DW, G}) {
    EXPECT_EQ(c.Check(With(c.iparams, {{i, 0}}), c.binding_bytes()), KILN_ERR_INVALID_ARGUMENT)
        << "iparam " << i;
  }
}

TEST(Conv2dCheck, RejectsGroupsThatDoNotDivideChannels) {
  KILN_LOAD_CASE("conv2d_f32.dilated_grouped", c);  // C=4, OC=6, groups=2
  EXPECT_EQ(c.Check(With(c.iparams, {{G, 4}}), c.binding_bytes()), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(c.Check(With(c.iparams, {{G, 3}}), c.binding_bytes()), KILN_ERR_INVALID_ARGUMENT);
}

TEST(Conv2dCheck, RejectsEnumsOutOfRange) {
  KILN_LOAD_CASE("conv2d_f32.basic", c);
  EXPECT_EQ(c.Check(With(c.iparams, {{ACT, KILN_ACT_GELU_TANH + 1}}), c.binding_bytes()),
            KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(c.Check(With(c.iparams, {{HAS_BIAS, 2}}), c.binding_bytes()),
            KILN_ERR_INVALID_ARGUMENT);
}

TEST(Conv2dCheck, OutputSizeFollowsTheConvFormula) {
  KILN_LOAD_CASE("conv2d_f32.strided_asym_pads", c);
  std::vector<uint64_t> bytes = c.binding_bytes();
  // Fewer outputs than even an unpadded bottom/right edge gives. Rows: H=10,
  // KH=3, stride 2, top pad 1, no bottom pad: (10+1-3)/2+1 = 5 is the least.
  // Columns: W=11, KW=2, stride 3, left pad 2: (11+2-2)/3+1 = 4 is the least,
  // while the reference's right pad of 1 gives 5.
  EXPECT_EQ(c.iparams[OH], 5);
  EXPECT_EQ(c.iparams[OW], 5);
  EXPECT_EQ(c.Check(With(c.iparams, {{OH, 4}}), bytes), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(c.Check(With(c.iparams, {{OW, 3}}), bytes), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(c.Check(With(c.iparams, {{OW, 4}}), bytes), KILN_OK);  // y only gets smaller
  // One more output row means a larger implied bottom pad: valid, but the
  // output binding must grow with it.
  const std::vector<int64_t> taller = With(c.iparams, {{OH, c.iparams[OH] + 1}});
  EXPECT_EQ(c.Check(taller, bytes), KILN_ERR_OUT_OF_RANGE);
  bytes[3] += static_cast<uint64_t>(c.iparams[N] * c.iparams[OC] * c.iparams[OW]) * 4;
  EXPECT_EQ(c.Check(taller, bytes), KILN_OK);
}

TEST(Conv2dCheck, RejectsOverflowingProducts) {
  KILN_LOAD_CASE("conv2d_f32.basic", c);
  const std::vector<uint64_t> bytes = c.binding_bytes();
  const int64_t big = int64_t{1} << 40;
  EXPECT_EQ(c.Check(With(c.iparams, {{N, kMax / 4}}), bytes), KILN_ERR_OUT_OF_RANGE);
  EXPECT_EQ(c.Check(With(c.iparams, {{OC, int64_t{1} << 62}}), bytes), KILN_ERR_OUT_OF_RANGE);
  EXPECT_EQ(c.Check(With(c.iparams, {{H, big}, {W, big}, {OH, big}, {OW, big}}), bytes),
            KILN_ERR_OUT_OF_RANGE);
  EXPECT_EQ(c.Check(With(c.iparams, {{PT, kMax - 1}}), bytes), KILN_ERR_OUT_OF_RANGE);
  EXPECT_EQ(c.Check(With(c.iparams, {{SH, kMax / 2}}), bytes), KILN_ERR_OUT_OF_RANGE);
  EXPECT_EQ(c.Check(With(c.iparams, {{DW, kMax / 2}}), bytes), KILN_ERR_OUT_OF_RANGE);
  // An empty batch does not excuse an overflow among the other dims.
  EXPECT_EQ(c.Check(With(c.iparams, {{N, 0}, {H, big}, {W, big}, {OH, big}, {OW, big}}), bytes),
            KILN_ERR_OUT_OF_RANGE);
}

TEST(Conv2dCheck, UnreadBiasNeedsNoBytes) {
  KILN_LOAD_CASE("conv2d_f32.basic", c);
  std::vector<uint64_t> bytes = c.binding_bytes();
  bytes[2] = 0;
  EXPECT_EQ(c.Check(c.iparams, bytes), KILN_ERR_OUT_OF_RANGE);
  EXPECT_EQ(c.Check(With(c.iparams, {{HAS_BIAS, 0}}), bytes), KILN_OK);
}

TEST(Conv2dKernel, EmptyBatchTouchesNoActivations) {
  KILN_LOAD_CASE("conv2d_f32.basic", c);
  const std::vector<int64_t> ip = With(c.iparams, {{N, 0}});
  std::vector<uint64_t> bytes = c.binding_bytes();
  bytes[0] = bytes[3] = 0;
  ASSERT_EQ(c.Check(ip, bytes), KILN_OK);
  std::vector<unsigned char> w = c.bindings[1].initial, b = c.bindings[2].initial;
  void* ptrs[4] = {nullptr, w.data(), b.data(), nullptr};
  EXPECT_EQ(kiln_conv2d_f32(ip.data(), c.fp(), ptrs, nullptr), KILN_OK);
}

}  // namespace
