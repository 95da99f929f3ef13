// The dropout kernel (dropout.c): the identity when not training or at
// ratio 0 (bit for bit, mask all true), the statistics of training's mask
// (every output is 0 or x / (1 - ratio), matching the mask; the kept
// fraction near 1 - ratio over 100k elements), reproducibility by seed, the
// refusal of a ratio outside [0, 1) with nothing written, and the checker.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "kernel_case.h"
#include "kiln/kernels.h"

namespace {

struct DropoutRun {
  std::vector<float> x, y;
  std::vector<unsigned char> mask;
  int code = 0;
};

// Runs dropout over float32 x (n elements 1..n, scaled) with the given
// ratio (float32) and training flag; y and mask start as sentinels.
DropoutRun Dropout(int64_t n, float ratio, bool training, uint64_t seed = 42,
                   bool with_ratio = true) {
  DropoutRun r;
  r.x.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) r.x[static_cast<size_t>(i)] = 0.25f * static_cast<float>(i + 1);
  r.y.assign(r.x.size(), -7.0f);
  r.mask.assign(r.x.size(), 0xAB);
  unsigned char t = training ? 1 : 0;
  const int64_t ip[7] = {KILN_DTYPE_F32, n, with_ratio ? KILN_DTYPE_F32 : 0, 1, 1,
                         static_cast<int64_t>(seed >> 32),
                         static_cast<int64_t>(seed & 0xFFFFFFFFu)};
  void* b[5] = {r.x.data(), &ratio, &t, r.y.data(), r.mask.data()};
  const std::vector<uint64_t> bytes = {r.x.size() * 4, 4, 1, r.y.size() * 4, r.mask.size()};
  EXPECT_EQ(kiln_dropout_check(ip, 7, nullptr, 0, bytes.data()), KILN_OK);
  r.code = kiln_dropout(ip, nullptr, b, nullptr);
  return r;
}

void ExpectIdentity(const DropoutRun& r) {
  ASSERT_EQ(r.code, KILN_OK);
  EXPECT_EQ(0, std::memcmp(r.x.data(), r.y.data(), r.x.size() * 4));
  for (unsigned char m : r.mask) ASSERT_EQ(m, 1);
}

TEST(DropoutKernel, ZeroRatioIsTheIdentity) { ExpectIdentity(Dropout(1000, 0.0f, true)); }

TEST(DropoutKernel, NotTrainingIsTheIdentity) {
  ExpectIdentity(Dropout(1000, 0.5f, false));
  ExpectIdentity(Dropout(1000, 0.9f, false));
}

TEST(DropoutKernel, TrainingKeepsAboutOneMinusRatioScaled) {
  const int64_t n = 100000;
  const DropoutRun r = Dropout(n, 0.5f, true);
  ASSERT_EQ(r.code, KILN_OK);
  int64_t kept = 0;
  for (size_t i = 0; i < r.x.size(); ++i) {
    ASSERT_TRUE(r.mask[i] == 0 || r.mask[i] == 1) << i;
    if (r.mask[i]) {
      ++kept;
      ASSERT_EQ(r.y[i], 2.0f * r.x[i]) << i;  // exact: a power-of-two scale
    } else {
      ASSERT_EQ(r.y[i], 0.0f) << i;
    }
  }
  const double fraction = static_cast<double>(kept) / static_cast<double>(n);
  EXPECT_NEAR(fraction, 0.5, 0.01);
  // Another ratio: the scale is 1 / (1 - ratio) and the kept share follows.
  const DropoutRun q = Dropout(n, 0.2f, true);
  ASSERT_EQ(q.code, KILN_OK);
  kept = 0;
  const double scale = 1.0 / (1.0 - static_cast<double>(0.2f));
  for (size_t i = 0; i < q.x.size(); ++i) {
    kept += q.mask[i];
    const float want = q.mask[i] ? static_cast<float>(q.x[i] * scale) : 0.0f;
    ASSERT_EQ(q.y[i], want) << i;
  }
  EXPECT_NEAR(static_cast<double>(kept) / static_cast<double>(n), 0.8, 0.01);
}

TEST(DropoutKernel, TheSeedAloneDecidesTheMask) {
  const DropoutRun a = Dropout(4096, 0.5f, true, 7), b = Dropout(4096, 0.5f, true, 7);
  const DropoutRun c = Dropout(4096, 0.5f, true, 8);
  EXPECT_EQ(a.mask, b.mask);
  EXPECT_NE(a.mask, c.mask);
  // A prefix of a longer run is the shorter run: element k depends on k only.
  const DropoutRun longer = Dropout(8192, 0.5f, true, 7);
  EXPECT_TRUE(std::equal(a.mask.begin(), a.mask.end(), longer.mask.begin()));
}

TEST(DropoutKernel, AbsentRatioIsOneHalf) {
  const DropoutRun r = Dropout(100000, 0.9f, true, 42, /*with_ratio=*/false);
  ASSERT_EQ(r.code, KILN_OK);
  int64_t kept = 0;
  for (size_t i = 0; i < r.x.size(); ++i) {
    kept += r.mask[i];
    ASSERT_EQ(r.y[i], r.mask[i] ? 2.0f * r.x[i] : 0.0f) << i;
  }
  EXPECT_NEAR(static_cast<double>(kept) / 100000.0, 0.5, 0.01);
}

TEST(DropoutKernel, RefusesRatiosOutsideZeroToOne) {
  for (float ratio : {1.0f, 1.5f, -0.1f, std::numeric_limits<float>::quiet_NaN()}) {
    for (bool training : {true, false}) {
      const DropoutRun r = Dropout(16, ratio, training);
      EXPECT_EQ(r.code, KILN_ERR_BAD_VALUE) << ratio;
      for (float v : r.y) ASSERT_EQ(v, -7.0f) << "wrote y for ratio " << ratio;
      for (unsigned char m : r.mask) ASSERT_EQ(m, 0xAB) << "wrote the mask for ratio " << ratio;
    }
  }
}

TEST(DropoutKernel, Float64AndHalf) {
  std::vector<double> x = {1.5, -2.0, 3.25, 0.0}, y(4, 9.0);
  double ratio = 0.5;
  unsigned char t = 1;
  const int64_t ip[7] = {KILN_DTYPE_F64, 4, KILN_DTYPE_F64, 1, 0, 0, 3};
  void* b[5] = {x.data(), &ratio, &t, y.data(), y.data()};
  ASSERT_EQ(kiln_dropout(ip, nullptr, b, nullptr), KILN_OK);
  for (size_t i = 0; i < 4; ++i) EXPECT_TRUE(y[i] == 0.0 || y[i] == 2.0 * x[i]) << i;
  std::vector<uint16_t> h = {0x3C00, 0xC000}, hy(2, 0);  // 1.0, -2.0
  const int64_t ih[7] = {KILN_DTYPE_F16, 2, KILN_DTYPE_F64, 1, 0, 0, 3};
  t = 0;
  void* hb[5] = {h.data(), &ratio, &t, hy.data(), hy.data()};
  ASSERT_EQ(kiln_dropout(ih, nullptr, hb, nullptr), KILN_OK);
  EXPECT_EQ(hy, h);
}

TEST(DropoutKernel, CheckerVerdicts) {
  const std::vector<uint64_t> bytes = {40, 4, 1, 40, 10};
  const std::vector<int64_t> ip = {KILN_DTYPE_F32, 10, KILN_DTYPE_F32, 1, 1, 0, 5};
  auto check = [&](const std::vector<int64_t>& p, const std::vector<uint64_t>& b) {
    return kiln_dropout_check(p.data(), static_cast<uint32_t>(p.size()), nullptr, 0, b.data());
  };
  EXPECT_EQ(check(ip, bytes), KILN_OK);
  EXPECT_EQ(check(kiln_test::With(ip, {{0, KILN_DTYPE_I32}}), bytes), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(check(kiln_test::With(ip, {{2, KILN_DTYPE_I64}}), bytes), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(check(kiln_test::With(ip, {{3, 2}}), bytes), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(check(kiln_test::With(ip, {{5, int64_t{1} << 32}}), bytes), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(check(kiln_test::With(ip, {{1, 11}}), bytes), KILN_ERR_OUT_OF_RANGE);
  for (size_t k = 0; k < bytes.size(); ++k) {
    std::vector<uint64_t> small = bytes;
    small[k] -= 1;
    EXPECT_EQ(check(ip, small), KILN_ERR_OUT_OF_RANGE) << "binding " << k;
  }
  // Absent ratio, training flag and mask need no bytes.
  EXPECT_EQ(check(kiln_test::With(ip, {{2, 0}, {3, 0}, {4, 0}}), {40, 0, 0, 40, 0}), KILN_OK);
  for (size_t i = 0; i < ip.size(); ++i) {
    EXPECT_EQ(check(kiln_test::With(ip, {{i, -1}}), bytes), KILN_ERR_INVALID_ARGUMENT) << i;
  }
  std::vector<int64_t> longer = ip;
  longer.push_back(0);
  EXPECT_EQ(check(longer, bytes), KILN_ERR_INVALID_ARGUMENT);
}

}  // namespace
