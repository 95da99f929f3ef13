// channel_affine_f32 against NumPy references, and its checker.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "kernel_case.h"

namespace {

using kiln_test::With;

constexpr int64_t kBig = int64_t{1} << 40;

KILN_REFERENCE_SUITE(ChannelAffineReference, "channel_affine_f32.relu",
                     "channel_affine_f32.none_s1", "channel_affine_f32.tanh");

TEST(ChannelAffineCheck, RejectsActivationOutOfRange) {
  KILN_LOAD_CASE("channel_affine_f32.relu", c);
  EXPECT_EQ(c.Check(With(c.iparams, {{3, KILN_ACT_GELU_TANH + 1}}), c.binding_bytes()),
            KILN_ERR_INVALID_ARGUMENT);
}

TEST(ChannelAffineCheck, RejectsOverflowAndShortScale) {
  KILN_LOAD_CASE("channel_affine_f32.relu", c);  // N=2, C=3, spatial=10
  std::vector<uint64_t> bytes = c.binding_bytes();
  EXPECT_EQ(c.Check(With(c.iparams, {{0, kBig}, {2, kBig}}), bytes), KILN_ERR_OUT_OF_RANGE);
  // Same element count with more channels: scale and shift are now short.
  const std::vector<int64_t> wide = With(c.iparams, {{1, 6}, {2, 5}});
  EXPECT_EQ(c.Check(wide, bytes), KILN_ERR_OUT_OF_RANGE);
  bytes[1] = bytes[2] = 6 * 4;
  EXPECT_EQ(c.Check(wide, bytes), KILN_OK);
}

}  // namespace
