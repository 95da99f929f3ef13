// grid_sample_f32 (runtime/kernels/grid_sample.c): results against the
// torch.nn.functional.grid_sample references written by
// make_reference_grid_sample.py (every mode x padding x align_corners,
// rounding ties, a one-row input, NaN / inf / huge grid values), the
// checker's verdicts, and runs on grids of arbitrary float bit patterns that
// must stay inside X (run under ASan: every buffer here is exactly sized).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "kernel_case.h"
#include "kiln/kernels.h"

KILN_REFERENCE_SUITE(
    GridSampleReference, "grid_sample_f32.bicubic_border_ac0", "grid_sample_f32.bicubic_border_ac1",
    "grid_sample_f32.bicubic_reflection_ac0", "grid_sample_f32.bicubic_reflection_ac1",
    "grid_sample_f32.bicubic_reflection_h1_ac0", "grid_sample_f32.bicubic_reflection_h1_ac1",
    "grid_sample_f32.bicubic_zeros_ac0", "grid_sample_f32.bicubic_zeros_ac1",
    "grid_sample_f32.bilinear_border_ac0", "grid_sample_f32.bilinear_border_ac1",
    "grid_sample_f32.bilinear_reflection_ac0", "grid_sample_f32.bilinear_reflection_ac1",
    "grid_sample_f32.bilinear_reflection_h1_ac0", "grid_sample_f32.bilinear_reflection_h1_ac1",
    "grid_sample_f32.bilinear_zeros_ac0", "grid_sample_f32.bilinear_zeros_ac1",
    "grid_sample_f32.nearest_border_ac0", "grid_sample_f32.nearest_border_ac1",
    "grid_sample_f32.nearest_reflection_ac0", "grid_sample_f32.nearest_reflection_ac1",
    "grid_sample_f32.nearest_reflection_h1_ac0", "grid_sample_f32.nearest_reflection_h1_ac1",
    "grid_sample_f32.nearest_ties_border", "grid_sample_f32.nearest_ties_zeros",
    "grid_sample_f32.nearest_zeros_ac0", "grid_sample_f32.nearest_zeros_ac1",
    "grid_sample_f32.special_bicubic_border_ac0", "grid_sample_f32.special_bicubic_border_ac1",
    "grid_sample_f32.special_bicubic_reflection_ac0",
    "grid_sample_f32.special_bicubic_reflection_ac1", "grid_sample_f32.special_bicubic_zeros_ac0",
    "grid_sample_f32.special_bicubic_zeros_ac1", "grid_sample_f32.special_bilinear_border_ac0",
    "grid_sample_f32.special_bilinear_border_ac1",
    "grid_sample_f32.special_bilinear_reflection_ac0",
    "grid_sample_f32.special_bilinear_reflection_ac1",
    "grid_sample_f32.special_bilinear_zeros_ac0", "grid_sample_f32.special_bilinear_zeros_ac1",
    "grid_sample_f32.special_nearest_border_ac0", "grid_sample_f32.special_nearest_border_ac1",
    "grid_sample_f32.special_nearest_reflection_ac0",
    "grid_sample_f32.special_nearest_reflection_ac1", "grid_sample_f32.special_nearest_zeros_ac0",
    "grid_sample_f32.special_nearest_zeros_ac1");

namespace {

enum { kN, kC, kH, kW, kOH, kOW, kMode, kPad, kAlign };

int Check(const std::vector<int64_t>& ip, const std::vector<uint64_t>& bytes) {
  return kiln_grid_sample_f32_check(ip.data(), static_cast<uint32_t>(ip.size()), nullptr, 0,
                                    bytes.data());
}

std::vector<uint64_t> DenseBytes(const std::vector<int64_t>& ip) {
  return {static_cast<uint64_t>(ip[kN] * ip[kC] * ip[kH] * ip[kW] * 4),
          static_cast<uint64_t>(ip[kN] * ip[kOH] * ip[kOW] * 8),
          static_cast<uint64_t>(ip[kN] * ip[kC] * ip[kOH] * ip[kOW] * 4)};
}

TEST(GridSampleChecker, RefusesUnknownCodes) {
  const std::vector<int64_t> ip = {1, 2, 3, 4, 2, 2, 0, 0, 0};
  const std::vector<uint64_t> bytes = DenseBytes(ip);
  ASSERT_EQ(Check(ip, bytes), KILN_OK);
  EXPECT_EQ(Check(kiln_test::With(ip, {{kMode, 3}}), bytes), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(Check(kiln_test::With(ip, {{kPad, 3}}), bytes), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(Check(kiln_test::With(ip, {{kAlign, 2}}), bytes), KILN_ERR_INVALID_ARGUMENT);
}

TEST(GridSampleChecker, RefusesDimsBeyondTheCoordinateClamp) {
  // C = 0 keeps X empty whatever H and W are; the clamp at 2^40 must still
  // lie outside the image.
  const int64_t big = (int64_t{1} << 40) + 1;
  const std::vector<int64_t> ip = {1, 0, 1, big, 1, 1, 0, 0, 0};
  EXPECT_EQ(Check(ip, {0, 8, 0}), KILN_ERR_OUT_OF_RANGE);
  EXPECT_EQ(Check(kiln_test::With(ip, {{kW, 1}, {kH, big}}), {0, 8, 0}), KILN_ERR_OUT_OF_RANGE);
  EXPECT_EQ(Check(kiln_test::With(ip, {{kW, int64_t{1} << 40}}), {0, 8, 0}), KILN_OK);
}

TEST(GridSampleChecker, BoundsTheLoopsOverAnEmptyTensor) {
  // C = 0: no output, yet the loops over N x OH x OW still run; a grid
  // binding big enough for them must not make 2^40 iterations acceptable.
  const std::vector<int64_t> ip = {1, 0, 2, 2, int64_t{1} << 20, int64_t{1} << 20, 0, 0, 0};
  EXPECT_EQ(Check(ip, {0, uint64_t{1} << 43, 0}), KILN_ERR_OUT_OF_RANGE);
  const std::vector<int64_t> small = {1, 0, 2, 2, 64, 64, 0, 0, 0};
  EXPECT_EQ(Check(small, DenseBytes(small)), KILN_OK);
}

// A grid value from one of: arbitrary bits (NaN payloads, denormals, huge),
// the IEEE specials and extremes, or ordinary values around [-1, 1].
float WildValue(std::mt19937& rng) {
  static const float kSpecial[] = {
      std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
      -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::max(),
      std::numeric_limits<float>::lowest(), std::numeric_limits<float>::denorm_min(),
      1e30f, -1e30f, 1.0e10f, -3.0e9f, 0.0f, -0.0f, 1.0f, -1.0f};
  const uint32_t pick = rng() % 4;
  if (pick == 0) {
    const uint32_t bits = rng();
    float v;
    std::memcpy(&v, &bits, 4);
    return v;
  }
  if (pick == 1) return kSpecial[rng() % (sizeof(kSpecial) / sizeof(kSpecial[0]))];
  return std::uniform_real_distribution<float>(-3.0f, 3.0f)(rng);
}

// Every mode, padding and alignment on wild grids: the kernel succeeds
// without leaving X (ASan watches the exactly-sized buffers), and each
// output is what its taps allow: nearest gives 0 or a pixel of its own
// channel, bilinear a value within [min(0, X), max(0, X)] of its channel,
// bicubic at most 2 max|X| (its weights' absolute sums are below 1.41 per
// axis).
TEST(GridSampleSafety, WildGridsStayInsideTheInput) {
  const int64_t N = 2, C = 3, H = 5, W = 4, OH = 6, OW = 7;
  std::mt19937 rng(1234);
  std::vector<float> x(static_cast<size_t>(N * C * H * W));
  for (float& v : x) v = std::uniform_real_distribution<float>(-2.0f, 2.0f)(rng);
  for (int64_t mode = 0; mode < 3; ++mode) {
    for (int64_t pad = 0; pad < 3; ++pad) {
      for (int64_t align = 0; align < 2; ++align) {
        std::vector<float> grid(static_cast<size_t>(N * OH * OW * 2));
        for (float& v : grid) v = WildValue(rng);
        std::vector<float> y(static_cast<size_t>(N * C * OH * OW), -12345.0f);
        const std::vector<int64_t> ip = {N, C, H, W, OH, OW, mode, pad, align};
        ASSERT_EQ(Check(ip, DenseBytes(ip)), KILN_OK);
        void* bindings[3] = {x.data(), grid.data(), y.data()};
        ASSERT_EQ(kiln_grid_sample_f32(ip.data(), nullptr, bindings, nullptr), KILN_OK);
        for (int64_t n = 0; n < N; ++n) {
          for (int64_t c = 0; c < C; ++c) {
            const float* plane = x.data() + (n * C + c) * H * W;
            const float lo = std::min(0.0f, *std::min_element(plane, plane + H * W));
            const float hi = std::max(0.0f, *std::max_element(plane, plane + H * W));
            for (int64_t p = 0; p < OH * OW; ++p) {
              const float v = y[static_cast<size_t>((n * C + c) * OH * OW + p)];
              ASSERT_TRUE(std::isfinite(v)) << mode << pad << align << " pixel " << p;
              if (mode == KILN_GRID_SAMPLE_NEAREST) {
                EXPECT_TRUE(v == 0.0f || std::find(plane, plane + H * W, v) != plane + H * W)
                    << "pad " << pad << " align " << align << " value " << v;
              } else if (mode == KILN_GRID_SAMPLE_BILINEAR) {
                EXPECT_GE(v, lo - 1e-5f);
                EXPECT_LE(v, hi + 1e-5f);
              } else {
                EXPECT_LE(std::fabs(v), 2.0f * std::max(-lo, hi));
              }
            }
          }
        }
      }
    }
  }
}

// No pixels at all (H = 0): every tap is outside, nothing is read, every
// output is 0 whatever the padding.
TEST(GridSampleSafety, EmptyInputSamplesZero) {
  for (int64_t mode = 0; mode < 3; ++mode) {
    for (int64_t pad = 0; pad < 3; ++pad) {
      for (int64_t align = 0; align < 2; ++align) {
        const std::vector<int64_t> ip = {1, 2, 0, 3, 2, 2, mode, pad, align};
        ASSERT_EQ(Check(ip, DenseBytes(ip)), KILN_OK);
        const std::vector<float> grid = {0.0f, 0.0f, -1.0f, 1.0f, 5.0f, -5.0f, 0.3f, 0.9f};
        std::vector<float> y(8, -1.0f);
        void* bindings[3] = {nullptr, const_cast<float*>(grid.data()), y.data()};
        ASSERT_EQ(kiln_grid_sample_f32(ip.data(), nullptr, bindings, nullptr), KILN_OK);
        for (float v : y) EXPECT_EQ(v, 0.0f) << mode << pad << align;
      }
    }
  }
}

}  // namespace
