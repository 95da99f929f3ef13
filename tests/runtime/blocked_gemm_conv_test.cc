// The blocked GEMM and convolution paths (runtime/kernels/sgemm.h,
// depthwise.h) on shapes that cross every block edge: M not a multiple of any
// micro-tile, N past a 32-column chunk, K past a 256 K-block. Reference: a
// direct double-precision loop in this file (a different algorithm from the
// kernels'). Tolerance: 1e-5 * (1 + sum |products|) per element. Also:
// results are bitwise identical whatever partition a host's parallel_for
// uses, and the packed-B checker bounds its binding.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "kiln/kernels.h"
#include "conv_reference.h"
#include "partition_test_util.h"

namespace {

using kiln::testing::kConcurrentHost;
using kiln::testing::kReverseHost;
using kiln::testing::ConvShape;
using kiln::testing::ExpectResidualConvMatches;
using kiln::testing::Random;

struct GemmShape {
  int64_t m, n, k;
};

class BlockedGemm : public ::testing::TestWithParam<GemmShape> {};

// alpha 1 with ReLU or Clip is the epilogue the micro-kernels fuse (full
// and partial tiles); alpha 0.75 runs it as a separate pass.
TEST_P(BlockedGemm, MatchesDirectLoopPlainAndPacked) {
  const auto [m, n, k] = GetParam();
  for (int variant = 0; variant < 4; ++variant) {
    const float alpha = variant & 1 ? 1.0f : 0.75f;
    const bool clip = variant & 2;
    const int trans_b = variant & 1;
    const std::vector<float> a = Random(m * k, 1), b = Random(k * n, 2), c = Random(n, 3);
    // B as [K,N], or [N,K] when transposed; packed: (j/16)*K*16 + kk*16 + j%16.
    const int64_t panels = (n + 15) / 16;
    std::vector<float> packed(panels * 16 * k, 0.0f);
    for (int64_t kk = 0; kk < k; ++kk)
      for (int64_t j = 0; j < n; ++j)
        packed[(j / 16) * k * 16 + kk * 16 + j % 16] = trans_b ? b[j * k + kk] : b[kk * n + j];
    const int64_t act = clip ? KILN_ACT_CLIP : KILN_ACT_RELU;
    const int64_t ip[9] = {m, n, k, 0, trans_b, 1, 0, 1, act};
    const int64_t ip_pb[9] = {m, n, k, 0, 0, 1, 0, 1, act};
    const float lo = -0.5f, hi = 0.5f;
    const float fp[4] = {alpha, 1.5f, lo, hi};
    std::vector<float> y(m * n), y_pb(m * n), y_thr(m * n), y_pb_thr(m * n), y_pb_conc(m * n);
    void* b1[4] = {const_cast<float*>(a.data()), const_cast<float*>(b.data()),
                   const_cast<float*>(c.data()), y.data()};
    void* b2[4] = {const_cast<float*>(a.data()), packed.data(), const_cast<float*>(c.data()),
                   y_pb.data()};
    void* b3[4] = {const_cast<float*>(a.data()), const_cast<float*>(b.data()),
                   const_cast<float*>(c.data()), y_thr.data()};
    ASSERT_EQ(kiln_gemm_f32(ip, fp, b1, nullptr), KILN_OK);
    ASSERT_EQ(kiln_gemm_pb_f32(ip_pb, fp, b2, nullptr), KILN_OK);
    ASSERT_EQ(kiln_gemm_f32(ip, fp, b3, &kReverseHost), KILN_OK);
    // Packed B on threads: rows split where Y outweighs B, else columns.
    void* b4[4] = {const_cast<float*>(a.data()), packed.data(), const_cast<float*>(c.data()),
                   y_pb_thr.data()};
    void* b5[4] = {const_cast<float*>(a.data()), packed.data(), const_cast<float*>(c.data()),
                   y_pb_conc.data()};
    ASSERT_EQ(kiln_gemm_pb_f32(ip_pb, fp, b4, &kReverseHost), KILN_OK);
    ASSERT_EQ(kiln_gemm_pb_f32(ip_pb, fp, b5, &kConcurrentHost), KILN_OK);
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double s = 0, mag = 0;
        for (int64_t kk = 0; kk < k; ++kk) {
          const double p = double(a[i * k + kk]) * (trans_b ? b[j * k + kk] : b[kk * n + j]);
          s += p;
          mag += std::fabs(p);
        }
        const double pre = alpha * s + 1.5 * c[j];
        const double want = clip ? std::min<double>(hi, std::max<double>(lo, pre))
                                 : std::max(0.0, pre);
        const double tol = 1e-5 * (1 + mag);
        ASSERT_NEAR(y[i * n + j], want, tol)
            << "i " << i << " j " << j << " tb " << trans_b << " alpha " << alpha;
        ASSERT_EQ(y_pb[i * n + j], y[i * n + j]) << "packed B differs at " << i << "," << j;
        ASSERT_EQ(y_thr[i * n + j], y[i * n + j]) << "threaded differs at " << i << "," << j;
        ASSERT_EQ(y_pb_thr[i * n + j], y[i * n + j]) << "packed, threaded at " << i << "," << j;
        ASSERT_EQ(y_pb_conc[i * n + j], y[i * n + j]) << "packed, concurrent at " << i << "," << j;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, BlockedGemm,
                         ::testing::Values(GemmShape{1, 1, 1}, GemmShape{1, 10, 784},
                                           GemmShape{9, 33, 257}, GemmShape{50, 70, 600},
                                           GemmShape{13, 100, 513}, GemmShape{97, 47, 31},
                                           GemmShape{5, 16, 0},
                                           // a last chunk of exactly 8 columns
                                           // (AVX2's one-vector tile), one and
                                           // two K blocks; fewer than 8 columns
                                           // (AVX2's one-vector copy)
                                           GemmShape{11, 24, 37}, GemmShape{8, 40, 300},
                                           GemmShape{13, 1, 300}, GemmShape{7, 5, 40},
                                           // one row against 1 MB of B: under
                                           // 2^19 multiply-adds, yet split
                                           // over a host's threads
                                           GemmShape{1, 520, 512},
                                           // over 2^19 multiply-adds, so split
                                           // on threads: rows (packed: Y
                                           // outweighs B; 3 column groups,
                                           // packed or not), columns (B
                                           // outweighs Y)
                                           GemmShape{203, 300, 40}, GemmShape{101, 130, 64},
                                           GemmShape{60, 300, 100}));

TEST(BlockedGemm, PackedCheckerBoundsPanels) {
  const int64_t ip[9] = {4, 17, 3, 0, 0, 0, 0, 0, KILN_ACT_NONE};
  const float fp[4] = {1, 0, 0, 0};
  // B [3,17] packed: 2 panels * 16 * 3 floats, not 3*17.
  const uint64_t need = 2 * 16 * 3 * 4;
  uint64_t bytes[4] = {4 * 3 * 4, need, 0, 4 * 17 * 4};
  EXPECT_EQ(kiln_gemm_pb_f32_check(ip, 9, fp, 4, bytes), KILN_OK);
  bytes[1] = 3 * 17 * 4;
  EXPECT_EQ(kiln_gemm_pb_f32_check(ip, 9, fp, 4, bytes), KILN_ERR_OUT_OF_RANGE);
  const int64_t ip_t[9] = {4, 17, 3, 0, 1, 0, 0, 0, KILN_ACT_NONE};
  bytes[1] = need;
  EXPECT_EQ(kiln_gemm_pb_f32_check(ip_t, 9, fp, 4, bytes), KILN_ERR_INVALID_ARGUMENT);
}

class BlockedConv : public ::testing::TestWithParam<ConvShape> {};

TEST_P(BlockedConv, ResidualConvMatchesDirectLoop) {
  ExpectResidualConvMatches(GetParam(), kiln_conv2d_res_f32, kiln_conv2d_res_f32_check,
                            [](const std::vector<float>& w) { return w; });
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, BlockedConv,
    ::testing::Values(ConvShape{1, 3, 9, 11, 5, 3, 1, 1, 1, 1},     // im2col, tiny
                      ConvShape{2, 16, 14, 14, 24, 1, 1, 0, 1, 1},  // 1x1 read in place
                      ConvShape{1, 16, 14, 14, 24, 1, 2, 0, 1, 1},  // 1x1 stride 2
                      ConvShape{1, 40, 5, 5, 300, 3, 1, 1, 1, 1},   // K > 256, many rows
                      ConvShape{1, 3, 20, 20, 40, 7, 2, 3, 1, 1},   // stem-like
                      ConvShape{1, 5, 13, 6, 9, 3, 2, 1, 2, 1},     // stride 2, dilated, rows < 16
                      ConvShape{1, 3, 4, 40, 5, 3, 2, 4, 1, 1},     // whole rows in the padding
                      ConvShape{1, 4, 12, 12, 6, 3, 3, 1, 1, 1},    // stride 3 (scalar packing)
                      ConvShape{1, 2, 20, 20, 3, 17, 1, 8, 1, 1},   // 17 wide (scalar packing)
                      ConvShape{1, 8, 10, 10, 8, 3, 1, 2, 2, 2},    // grouped, dilated
                      ConvShape{1, 12, 11, 11, 12, 3, 1, 1, 1, 12},  // depthwise, small plane
                      ConvShape{2, 12, 11, 11, 12, 5, 2, 2, 1, 12},  // depthwise 5x5 stride 2
                      ConvShape{1, 4, 70, 70, 4, 3, 1, 1, 1, 4},     // depthwise, row path
                      ConvShape{1, 12, 11, 11, 12, 3, 3, 1, 2, 12}));

}  // namespace
