// pool2d_f32, pool2d_nhwc_f32, global_pool_f32 and global_pool_nhwc_f32
// against PyTorch references, and checkers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "kernel_case.h"
#include "partition_test_util.h"

namespace {

using kiln_test::With;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kBig = int64_t{1} << 40;

enum { KIND, N, C, H, W, OH, OW, KH, KW, SH, SW, PT, PL, PB, PR, DH, DW, CIP };

KILN_REFERENCE_SUITE(Pool2dReference, "pool2d_f32.max_k3_s2_p1", "pool2d_f32.max_dilated_ceil",
                     "pool2d_f32.avg_k3_s1_p1_cip", "pool2d_f32.avg_k3_s2_p1_nocip",
                     "pool2d_f32.avg_ceil_cip", "pool2d_f32.avg_ceil_nocip",
                     "pool2d_f32.max_k2_s2", "pool2d_f32.max_asym_pads",
                     "pool2d_f32.avg_asym_pads_cip", "pool2d_f32.avg_asym_pads_nocip",
                     "pool2d_f32.max_wide_k3_s2_p1", "pool2d_f32.max_wide_k3_s1_p1",
                     "pool2d_f32.max_wide_dilated_ceil", "pool2d_f32.max_wide_asym_pads",
                     "pool2d_f32.max_wide_stride3", "pool2d_f32.avg_wide_k3_s1_p1_cip",
                     "pool2d_f32.avg_wide_k3_s2_ceil_nocip",
                     "pool2d_f32.avg_wide_asym_pads_nocip", "pool2d_f32.avg_wide_stride3_cip",
                     "pool2d_f32.max_flat_planes_k3_s1_p1", "pool2d_f32.avg_flat_planes_k3_s1_p1_cip",
                     "pool2d_f32.avg_flat_planes_k3_s1_p1_nocip", "pool2d_f32.max_flat_s2_ceil",
                     "pool2d_f32.max_blocks_k3_s1_p1", "pool2d_f32.max_blocks_dilated",
                     "pool2d_f32.max_flat_asym_pads", "pool2d_f32.max_flat_infinities",
                     "pool2d_f32.max_long_rows_direct", "pool2d_f32.avg_long_rows_direct");

KILN_REFERENCE_SUITE(GlobalPoolReference, "global_pool_f32.max", "global_pool_f32.avg",
                     "global_pool_f32.avg_rows_19");

TEST(Pool2dCheck, RejectsEnumsAndZeroWindowParams) {
  KILN_LOAD_CASE("pool2d_f32.max_k3_s2_p1", c);
  const std::vector<uint64_t> bytes = c.binding_bytes();
  EXPECT_EQ(c.Check(With(c.iparams, {{KIND, 2}}), bytes), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(c.Check(With(c.iparams, {{CIP, 2}}), bytes), KILN_ERR_INVALID_ARGUMENT);
  for (size_t i : {KH, KW, SH, SW, DH, DW}) {
    EXPECT_EQ(c.Check(With(c.iparams, {{i, 0}}), bytes), KILN_ERR_INVALID_ARGUMENT)
        << "iparam " << i;
  }
}

TEST(Pool2dCheck, OutputSizeIsFloorOrCeilMode) {
  // H=10 (+1+1 pads), kernel 3 dilated by 2 (extent 5), stride 2:
  // floor mode gives (12-5)/2+1 = 4 rows, ceil mode 5; nothing else is valid.
  KILN_LOAD_CASE("pool2d_f32.max_dilated_ceil", c);
  ASSERT_EQ(c.iparams[H], 10);
  ASSERT_EQ(c.iparams[OH], 5);
  const std::vector<uint64_t> bytes = c.binding_bytes();
  EXPECT_EQ(c.Check(With(c.iparams, {{OH, 4}}), bytes), KILN_OK);
  EXPECT_EQ(c.Check(With(c.iparams, {{OH, 3}}), bytes), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(c.Check(With(c.iparams, {{OH, 6}}), bytes), KILN_ERR_INVALID_ARGUMENT);
  // A window larger than the padded input yields no output at all.
  EXPECT_EQ(c.Check(With(c.iparams, {{H, 1}, {PT, 0}, {PB, 0}}), bytes),
            KILN_ERR_INVALID_ARGUMENT);
}

TEST(Pool2dCheck, RejectsOverflow) {
  KILN_LOAD_CASE("pool2d_f32.max_k2_s2", c);  // 6x6 input, no pads
  const std::vector<uint64_t> bytes = c.binding_bytes();
  EXPECT_EQ(c.Check(With(c.iparams, {{N, kBig}, {C, kBig}}), bytes), KILN_ERR_OUT_OF_RANGE);
  EXPECT_EQ(c.Check(With(c.iparams, {{PB, kMax - 2}}), bytes), KILN_ERR_OUT_OF_RANGE);
  EXPECT_EQ(c.Check(With(c.iparams, {{KW, 4}, {DW, kMax / 2}}), bytes), KILN_ERR_OUT_OF_RANGE);
  EXPECT_EQ(c.Check(With(c.iparams, {{N, 0}, {C, kBig}, {H, kBig}, {OH, kBig / 2}}), bytes),
            KILN_ERR_OUT_OF_RANGE);
}

TEST(Pool2dCheck, RejectsWindowAreaOverflow) {
  // A 2^40 x 2^40 window, stride 2^41, over a 1x1 input padded by 2^40 on
  // every side: one output per axis, each axis valid alone, but the
  // average's divisor KH*KW overflows.
  const int64_t b = kBig, s = 2 * kBig;
  int64_t ip[] = {KILN_POOL_AVG, 1, 1, 1, 1, 1, 1, b, b, s, s, b, b, b, b, 1, 1, 1};
  const uint64_t bytes[2] = {4, 4};
  EXPECT_EQ(kiln_pool2d_f32_check(ip, 18, nullptr, 0, bytes), KILN_ERR_OUT_OF_RANGE);
  ip[KW] = 1;  // a 2^40 x 1 window: no overflow, but 2^40 taps over one element
  ip[PL] = ip[PR] = 0;
  EXPECT_EQ(kiln_pool2d_f32_check(ip, 18, nullptr, 0, bytes), KILN_ERR_OUT_OF_RANGE);
  ip[KH] = ip[PT] = ip[PB] = 4096;  // 4096 taps over it: within the reuse bound
  ip[SH] = 8192;
  EXPECT_EQ(kiln_pool2d_f32_check(ip, 18, nullptr, 0, bytes), KILN_OK);
}

TEST(Pool2dCheck, BoundsTapsPerElementRead) {
  // One 64 x 64 input read by 2^13 x 2^13 windows at stride 1 (padding
  // 2^13 on every side): about 2^37 taps, nearly all in the padding —
  // minutes inside one kernel call. A window pool may re-read each element
  // at most KILN_MAX_REUSE (4096) times; 3x3 windows are far inside it.
  const int64_t k = 8192, pad = 8192, out = 64 + 2 * pad - k + 1;
  int64_t ip[] = {KILN_POOL_MAX, 1, 1, 64, 64, out, out, k, k, 1, 1, pad, pad, pad, pad, 1, 1, 0};
  const uint64_t bytes[2] = {64 * 64 * 4, static_cast<uint64_t>(out * out * 4)};
  EXPECT_EQ(kiln_pool2d_f32_check(ip, 18, nullptr, 0, bytes), KILN_ERR_OUT_OF_RANGE);
  int64_t small[] = {KILN_POOL_MAX, 1, 1, 64, 64, 64, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0};
  const uint64_t small_bytes[2] = {64 * 64 * 4, 64 * 64 * 4};
  EXPECT_EQ(kiln_pool2d_f32_check(small, 18, nullptr, 0, small_bytes), KILN_OK);
}

// Every PyTorch pool2d case handed over NHWC: the reference output (within
// kernel_case.h's tolerance) in NHWC order, and max pooling equal to
// pool2d_f32's bits.
TEST(Pool2dNhwc, MatchesReferenceAndNchwKernel) {
  for (const char* name :
       {"pool2d_f32.max_k3_s2_p1", "pool2d_f32.max_dilated_ceil", "pool2d_f32.avg_k3_s1_p1_cip",
        "pool2d_f32.avg_k3_s2_p1_nocip", "pool2d_f32.avg_ceil_cip", "pool2d_f32.avg_ceil_nocip",
        "pool2d_f32.max_k2_s2", "pool2d_f32.max_asym_pads", "pool2d_f32.avg_asym_pads_cip",
        "pool2d_f32.avg_asym_pads_nocip", "pool2d_f32.max_wide_k3_s2_p1",
        "pool2d_f32.max_wide_k3_s1_p1", "pool2d_f32.max_wide_dilated_ceil",
        "pool2d_f32.max_wide_asym_pads", "pool2d_f32.max_wide_stride3",
        "pool2d_f32.avg_wide_k3_s1_p1_cip", "pool2d_f32.avg_wide_k3_s2_ceil_nocip",
        "pool2d_f32.avg_wide_asym_pads_nocip", "pool2d_f32.avg_wide_stride3_cip",
        "pool2d_f32.max_flat_planes_k3_s1_p1", "pool2d_f32.avg_flat_planes_k3_s1_p1_cip",
        "pool2d_f32.max_flat_s2_ceil", "pool2d_f32.max_flat_infinities",
        "pool2d_f32.max_long_rows_direct", "pool2d_f32.avg_long_rows_direct"}) {
    KILN_LOAD_CASE(name, c);
    const std::vector<int64_t>& ip = c.iparams;
    const int64_t n = ip[N], ch = ip[C], plane = ip[H] * ip[W], out_plane = ip[OH] * ip[OW];
    std::vector<float> x(n * ch * plane), want(n * ch * out_plane), nhwc(x.size()),
        got(want.size()), nchw_out(want.size());
    std::memcpy(x.data(), c.bindings[0].initial.data(), x.size() * sizeof(float));
    std::memcpy(want.data(), c.bindings[1].expected.data(), want.size() * sizeof(float));
    for (int64_t i = 0; i < n; ++i)
      for (int64_t k = 0; k < ch; ++k)
        for (int64_t s = 0; s < plane; ++s)
          nhwc[(i * plane + s) * ch + k] = x[(i * ch + k) * plane + s];
    const std::vector<uint64_t> bytes = c.binding_bytes();
    ASSERT_EQ(kiln_pool2d_nhwc_f32_check(ip.data(), 18, nullptr, 0, bytes.data()), KILN_OK)
        << name;
    void* b[2] = {nhwc.data(), got.data()};
    ASSERT_EQ(kiln_pool2d_nhwc_f32(ip.data(), nullptr, b, nullptr), KILN_OK) << name;
    void* b_nchw[2] = {x.data(), nchw_out.data()};
    ASSERT_EQ(kiln_pool2d_f32(ip.data(), nullptr, b_nchw, nullptr), KILN_OK) << name;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t k = 0; k < ch; ++k)
        for (int64_t s = 0; s < out_plane; ++s) {
          const float g = got[(i * out_plane + s) * ch + k];
          const float w = want[(i * ch + k) * out_plane + s];
          if (std::isinf(w)) {
            EXPECT_EQ(g, w) << name << " image " << i << " channel " << k << " position " << s;
          } else {
            EXPECT_NEAR(g, w, kiln_test::kAtol + kiln_test::kRtol * std::fabs(w))
                << name << " image " << i << " channel " << k << " position " << s;
          }
          if (ip[KIND] == KILN_POOL_MAX) {
            EXPECT_EQ(g, nchw_out[(i * ch + k) * out_plane + s]);
          }
        }
  }
}

TEST(Pool2dNhwcCheck, IsPool2dsCheck) {
  KILN_LOAD_CASE("pool2d_f32.max_k3_s2_p1", c);
  std::vector<uint64_t> bytes = c.binding_bytes();
  EXPECT_EQ(kiln_pool2d_nhwc_f32_check(c.iparams.data(), 18, nullptr, 0, bytes.data()), KILN_OK);
  EXPECT_EQ(kiln_pool2d_nhwc_f32_check(c.iparams.data(), 17, nullptr, 0, bytes.data()),
            KILN_ERR_INVALID_ARGUMENT);
  bytes[1] -= 4;
  EXPECT_EQ(kiln_pool2d_nhwc_f32_check(c.iparams.data(), 18, nullptr, 0, bytes.data()),
            KILN_ERR_OUT_OF_RANGE);
}

TEST(GlobalPoolCheck, RejectsKindAndOverflow) {
  KILN_LOAD_CASE("global_pool_f32.avg", c);
  const std::vector<uint64_t> bytes = c.binding_bytes();
  EXPECT_EQ(c.Check(With(c.iparams, {{0, 2}}), bytes), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(c.Check(With(c.iparams, {{1, kBig}, {2, kBig}}), bytes), KILN_ERR_OUT_OF_RANGE);
  EXPECT_EQ(c.Check(With(c.iparams, {{1, 0}, {2, kMax}}), bytes), KILN_OK);
}

// The PyTorch cases' inputs [rows, spatial] read as one NCHW image of
// `rows` channels and handed over NHWC: the same reference output (within
// kernel_case.h's tolerance), and global_pool_f32's bits.
TEST(GlobalPoolNhwc, MatchesReferenceAndNchwKernelBitwise) {
  for (const char* name : {"global_pool_f32.max", "global_pool_f32.avg",
                           "global_pool_f32.avg_rows_19"}) {
    KILN_LOAD_CASE(name, c);
    const int64_t rows = c.iparams[1], spatial = c.iparams[2];
    std::vector<float> x(rows * spatial), want(rows), nhwc(rows * spatial), got(rows),
        nchw_out(rows);
    std::memcpy(x.data(), c.bindings[0].initial.data(), x.size() * sizeof(float));
    std::memcpy(want.data(), c.bindings[1].expected.data(), want.size() * sizeof(float));
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t s = 0; s < spatial; ++s) nhwc[s * rows + r] = x[r * spatial + s];
    const int64_t ip[4] = {c.iparams[0], 1, spatial, rows};
    const uint64_t bytes[2] = {4 * nhwc.size(), 4 * got.size()};
    ASSERT_EQ(kiln_global_pool_nhwc_f32_check(ip, 4, nullptr, 0, bytes), KILN_OK) << name;
    void* b[2] = {nhwc.data(), got.data()};
    ASSERT_EQ(kiln_global_pool_nhwc_f32(ip, nullptr, b, nullptr), KILN_OK);
    void* b_nchw[2] = {x.data(), nchw_out.data()};
    ASSERT_EQ(kiln_global_pool_f32(c.iparams.data(), nullptr, b_nchw, nullptr), KILN_OK);
    for (int64_t r = 0; r < rows; ++r) {
      EXPECT_NEAR(got[r], want[r], kiln_test::kAtol + kiln_test::kRtol * std::fabs(want[r]))
          << name << " row " << r;
      EXPECT_EQ(got[r], nchw_out[r]) << name << " row " << r;
    }
  }
}

TEST(GlobalPoolNhwcCheck, RejectsKindCountsAndShortBindings) {
  int64_t ip[4] = {KILN_POOL_AVG, 2, 6, 3};
  uint64_t bytes[2] = {4 * 36, 4 * 6};
  EXPECT_EQ(kiln_global_pool_nhwc_f32_check(ip, 4, nullptr, 0, bytes), KILN_OK);
  EXPECT_EQ(kiln_global_pool_nhwc_f32_check(ip, 3, nullptr, 0, bytes), KILN_ERR_INVALID_ARGUMENT);
  bytes[0] -= 4;
  EXPECT_EQ(kiln_global_pool_nhwc_f32_check(ip, 4, nullptr, 0, bytes), KILN_ERR_OUT_OF_RANGE);
  bytes[0] += 4;
  bytes[1] -= 4;
  EXPECT_EQ(kiln_global_pool_nhwc_f32_check(ip, 4, nullptr, 0, bytes), KILN_ERR_OUT_OF_RANGE);
  bytes[1] += 4;
  ip[0] = 2;
  EXPECT_EQ(kiln_global_pool_nhwc_f32_check(ip, 4, nullptr, 0, bytes), KILN_ERR_INVALID_ARGUMENT);
  ip[0] = KILN_POOL_AVG;
  ip[1] = kBig, ip[2] = kBig;
  EXPECT_EQ(kiln_global_pool_nhwc_f32_check(ip, 4, nullptr, 0, bytes), KILN_ERR_OUT_OF_RANGE);
}

TEST(Pool2dKernel, MaxOfNegativeValuesIgnoresPadding) {
  // 1x1x2x2 input of negatives, 3x3 window, pad 1: padding must not act as 0.
  const int64_t ip[] = {KILN_POOL_MAX, 1, 1, 2, 2, 2, 2, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 0};
  float x[4] = {-4.0f, -3.0f, -2.0f, -1.0f}, y[4];
  void* ptrs[2] = {x, y};
  const uint64_t bytes[2] = {sizeof x, sizeof y};
  ASSERT_EQ(kiln_pool2d_f32_check(ip, 18, nullptr, 0, bytes), KILN_OK);
  ASSERT_EQ(kiln_pool2d_f32(ip, nullptr, ptrs, nullptr), KILN_OK);
  for (float v : y) EXPECT_EQ(v, -1.0f);
}

// Large enough that the NHWC kernel splits its pixel blocks over a host's
// threads (and two slabs of channels, lane tails included), and small enough
// for blocks with no pixels: on every partition the same bits, and those of
// the NCHW kernel on the same values; against a double-precision mean within
// 1e-6 relative (the sums' rounding), the max exactly.
TEST(GlobalPoolNhwc, ThreadedBlocksMatchNchwKernelAndReference) {
  struct Shape {
    int64_t n, spatial, c;
  };
  for (const Shape sh : {Shape{2, 3136, 300}, Shape{1, 3, 20}, Shape{1, 49, 1280}}) {
    const std::vector<float> nhwc = kiln::testing::Random(sh.n * sh.spatial * sh.c, 7);
    std::vector<float> nchw(nhwc.size());
    for (int64_t n = 0; n < sh.n; ++n)
      for (int64_t p = 0; p < sh.spatial; ++p)
        for (int64_t c = 0; c < sh.c; ++c)
          nchw[(n * sh.c + c) * sh.spatial + p] = nhwc[(n * sh.spatial + p) * sh.c + c];
    for (const int64_t kind : {int64_t{KILN_POOL_AVG}, int64_t{KILN_POOL_MAX}}) {
      const int64_t ip[4] = {kind, sh.n, sh.spatial, sh.c};
      const int64_t ip_nchw[3] = {kind, sh.n * sh.c, sh.spatial};
      std::vector<float> want(sh.n * sh.c);
      void* b_nchw[2] = {nchw.data(), want.data()};
      ASSERT_EQ(kiln_global_pool_f32(ip_nchw, nullptr, b_nchw, nullptr), KILN_OK);
      for (const kiln_host* host :
           {static_cast<const kiln_host*>(nullptr), &kiln::testing::kReverseHost,
            &kiln::testing::kConcurrentHost}) {
        std::vector<float> got(sh.n * sh.c, -1.0f);
        void* b[2] = {const_cast<float*>(nhwc.data()), got.data()};
        ASSERT_EQ(kiln_global_pool_nhwc_f32(ip, nullptr, b, host), KILN_OK);
        for (int64_t r = 0; r < sh.n * sh.c; ++r) {
          const float* xr = nchw.data() + r * sh.spatial;
          double ref = kind == KILN_POOL_MAX ? -INFINITY : 0.0;
          for (int64_t p = 0; p < sh.spatial; ++p)
            ref = kind == KILN_POOL_MAX ? std::max<double>(ref, xr[p]) : ref + xr[p];
          if (kind == KILN_POOL_AVG) ref /= double(sh.spatial);
          ASSERT_EQ(got[r], want[r]) << "spatial " << sh.spatial << " kind " << kind << " row " << r;
          if (kind == KILN_POOL_MAX) ASSERT_EQ(got[r], float(ref)) << "row " << r;
          else ASSERT_NEAR(got[r], ref, 1e-6 * (1.0 + std::fabs(ref))) << "row " << r;
        }
      }
    }
  }
}

}  // namespace
