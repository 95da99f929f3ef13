// softmax_f32 against PyTorch references, and its checker.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "kernel_case.h"

namespace {

using kiln_test::With;

constexpr int64_t kBig = int64_t{1} << 40;

KILN_REFERENCE_SUITE(SoftmaxReference, "softmax_f32.last_axis", "softmax_f32.middle_axis",
                     "softmax_f32.log_last_axis", "softmax_f32.log_middle_axis",
                     "softmax_f32.inner_over_block", "softmax_f32.large_values",
                     "softmax_f32.log_large_values");

TEST(SoftmaxCheck, RejectsLogFlagOutOfRange) {
  KILN_LOAD_CASE("softmax_f32.middle_axis", c);
  EXPECT_EQ(c.Check(With(c.iparams, {{3, 2}}), c.binding_bytes()), KILN_ERR_INVALID_ARGUMENT);
}

TEST(SoftmaxCheck, RejectsOverflowingShape) {
  KILN_LOAD_CASE("softmax_f32.middle_axis", c);
  const std::vector<uint64_t> bytes = c.binding_bytes();
  EXPECT_EQ(c.Check(With(c.iparams, {{1, kBig}, {2, kBig}}), bytes), KILN_ERR_OUT_OF_RANGE);
  // Nothing to do with outer = 0, yet the kernel forms axis*inner.
  EXPECT_EQ(c.Check(With(c.iparams, {{0, 0}, {1, kBig}, {2, kBig}}), bytes),
            KILN_ERR_OUT_OF_RANGE);
}

TEST(SoftmaxKernel, RowsSumToOne) {
  // Independent of any reference: every softmax column sums to 1 and the
  // log form exponentiates back to the plain one.
  const int64_t outer = 2, n = 5, inner = 3;
  std::vector<float> x(outer * n * inner), y(x.size()), ly(x.size());
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 37) % 11) - 5.0f;
  int64_t ip[4] = {outer, n, inner, 0};
  void* ptrs[2] = {x.data(), y.data()};
  ASSERT_EQ(kiln_softmax_f32(ip, nullptr, ptrs, nullptr), KILN_OK);
  ip[3] = 1;
  ptrs[1] = ly.data();
  ASSERT_EQ(kiln_softmax_f32(ip, nullptr, ptrs, nullptr), KILN_OK);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t j = 0; j < inner; ++j) {
      float sum = 0.0f;
      for (int64_t a = 0; a < n; ++a) {
        const size_t i = static_cast<size_t>((o * n + a) * inner + j);
        sum += y[i];
        EXPECT_NEAR(std::exp(ly[i]), y[i], 1e-6f);
      }
      EXPECT_NEAR(sum, 1.0f, 1e-6f);
    }
  }
}

}  // namespace
