// Kernels that read operator parameters at run time (slice_rt.c, pad_rt.c,
// reduce_rt.c, range.c): results against the NumPy references written by
// make_reference_rt_params.py, the checkers' verdicts on those cases, and
// the run-time refusal (KILN_ERR_SHAPE_MISMATCH, output untouched) of
// parameter values that do not give the compiled output shape. The compiled
// path is covered end to end by tests/models/runtime_params (VM and AOT).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "kernel_case.h"
#include "kiln/kernels.h"

KILN_REFERENCE_SUITE(SliceRtReference, "slice_rt.two_axes", "slice_rt.neg_steps",
                     "slice_rt.int32_params_clamped", "slice_rt.int64_extremes",
                     "slice_rt.huge_steps", "slice_rt.empty_result");
KILN_REFERENCE_SUITE(PadRtReference, "pad_rt.constant", "pad_rt.edge_int32", "pad_rt.reflect",
                     "pad_rt.wrap_axes", "pad_rt.crop_int32_params",
                     "pad_rt.reflect_wider_than_row", "pad_rt.wrap_crop_front_wide_back",
                     "pad_rt.constant_fill_rows_i8", "pad_rt.edge_crop_both_ends_f64");
KILN_REFERENCE_SUITE(ReduceRtReference, "reduce_rt_f32.sum_keepdims",
                     "reduce_rt_f32.sum_two_axes", "reduce_rt_f32.mean_all_empty_axes",
                     "reduce_rt_f32.sum_noop_empty_axes", "reduce_rt_f32.max_middle",
                     "reduce_rt_f32.logsumexp");
KILN_REFERENCE_SUITE(RangeReference, "range.f32_positive", "range.f64_fraction",
                     "range.i32_negative", "range.i16", "range.i64_wide", "range.i64_empty");

namespace {

using kiln_test::Case;
using Ints = std::vector<int64_t>;
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

// Runs case `name` with binding k's bytes replaced by `values` (same size,
// so the checker still accepts the module); returns the kernel's code and
// whether the output binding kept its sentinel bytes.
template <typename T>
int RunWith(const std::string& name, size_t k, const std::vector<T>& values, bool* untouched,
            const Ints& iparams = {}) {
  Case c;
  std::string error;
  EXPECT_TRUE(kiln_test::LoadCase(name, &c, &error)) << error;
  if (!iparams.empty()) c.iparams = iparams;
  EXPECT_EQ(values.size() * sizeof(T), c.bindings.at(k).nbytes) << name;
  EXPECT_EQ(c.Check(c.iparams, c.binding_bytes()), KILN_OK) << name;
  std::vector<std::vector<unsigned char>> buf(c.bindings.size());
  std::vector<void*> ptrs(c.bindings.size(), nullptr);
  for (size_t i = 0; i < c.bindings.size(); ++i) {
    buf[i] = c.bindings[i].role == kiln_test::kOut
                 ? std::vector<unsigned char>(c.bindings[i].nbytes, 0xAB)
                 : c.bindings[i].initial;
    if (i == k) {
      buf[i].resize(values.size() * sizeof(T));
      if (!values.empty()) std::memcpy(buf[i].data(), values.data(), buf[i].size());
    }
    if (!buf[i].empty()) ptrs[i] = buf[i].data();
  }
  const int code = kiln_test::FindKernel(c.kernel)->fn(c.iparams.data(), c.fp(), ptrs.data(),
                                                        nullptr);
  *untouched = true;
  for (unsigned char b : buf.back()) *untouched = *untouched && b == 0xAB;
  return code;
}

template <typename T>
void ExpectRefused(const std::string& name, size_t k, const std::vector<T>& values,
                   const Ints& iparams = {}) {
  bool untouched = false;
  EXPECT_EQ(RunWith(name, k, values, &untouched, iparams), KILN_ERR_SHAPE_MISMATCH)
      << name << " binding " << k << " = " << ::testing::PrintToString(values);
  EXPECT_TRUE(untouched) << name << ": the output was written";
}

template <typename T>
void ExpectAccepted(const std::string& name, size_t k, const std::vector<T>& values) {
  bool untouched = false;
  EXPECT_EQ(RunWith(name, k, values, &untouched), KILN_OK)
      << name << " binding " << k << " = " << ::testing::PrintToString(values);
}

// The checker's verdict on `iparams` with the case's bindings, binding
// `shrink` (if any) emptied.
int CheckWith(const std::string& name, const Ints& iparams, int shrink = -1) {
  Case c;
  std::string error;
  EXPECT_TRUE(kiln_test::LoadCase(name, &c, &error)) << error;
  std::vector<uint64_t> bytes = c.binding_bytes();
  if (shrink >= 0) bytes.at(static_cast<size_t>(shrink)) = 0;
  return c.Check(iparams, bytes);
}

Ints Params(const std::string& name) {
  Case c;
  std::string error;
  EXPECT_TRUE(kiln_test::LoadCase(name, &c, &error)) << error;
  return c.iparams;
}

// x [20,10,5] sliced to [3,10,5] by starts [0,0] ends [3,10] axes [0,1].
TEST(SliceRtKernel, RefusesValuesThatGiveAnotherShape) {
  const std::string n = "slice_rt.two_axes";
  ExpectRefused<int64_t>(n, 2, {4, 10});                 // 4 rows, not 3
  ExpectRefused<int64_t>(n, 1, {1, 0});                  // rows 1..2: 2
  ExpectRefused<int64_t>(n, 3, {0, 0});                  // a repeated axis
  ExpectRefused<int64_t>(n, 3, {0, 3});                  // axis out of range
  ExpectRefused<int64_t>(n, 3, {0, -4});                 // axis out of range from the back
  ExpectRefused<int64_t>(n, 4, {1, 0});                  // a zero step
  ExpectRefused<int64_t>(n, 3, {1, 0});                  // 3 of axis 1, 10 of axis 0
  ExpectAccepted<int64_t>(n, 3, {0, 2});  // axis 2 taken whole by 0..10, axis 1 unlisted
  // Values that mean the same slice are accepted: negative and clamped bounds.
  ExpectAccepted<int64_t>(n, 1, {-20, -10});
  ExpectAccepted<int64_t>(n, 2, {-17, kMax});
  ExpectAccepted<int64_t>(n, 3, {-3, -2});
}

TEST(SliceRtKernel, NegativeStepBoundsClampToTheLastElement) {
  // Axis 0 of [20,10,5] with step -1 from 20 (clamped to 19) to 0: 19 rows.
  ExpectAccepted<int64_t>("slice_rt.neg_steps", 1, {kMax, 10, 4});
  ExpectRefused<int64_t>("slice_rt.neg_steps", 2, {-1, 0, 1});  // end 19: nothing
  ExpectRefused<int64_t>("slice_rt.neg_steps", 4, {-1, -3, kMin});  // one element, not 2
}

TEST(SliceRtKernel, CheckerBoundsEveryParameter) {
  const std::string n = "slice_rt.two_axes";
  const Ints ip = Params(n);  // eb R n t t t t  in[3] out[3]
  EXPECT_EQ(CheckWith(n, ip), KILN_OK);
  EXPECT_EQ(CheckWith(n, kiln_test::With(ip, {{2, 4}})), KILN_ERR_INVALID_ARGUMENT);  // n > R
  EXPECT_EQ(CheckWith(n, kiln_test::With(ip, {{3, KILN_DTYPE_F32}})), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(CheckWith(n, kiln_test::With(ip, {{0, 0}})), KILN_ERR_INVALID_ARGUMENT);  // eb 0
  EXPECT_EQ(CheckWith(n, kiln_test::With(ip, {{10, 21}})), KILN_ERR_INVALID_ARGUMENT);  // grows
  EXPECT_EQ(CheckWith(n, kiln_test::With(ip, {{1, KILN_MAX_RANK + 1}})),
            KILN_ERR_INVALID_ARGUMENT);
  // Dims whose product overflows.
  EXPECT_NE(CheckWith(n, kiln_test::With(ip, {{7, int64_t{1} << 40}, {8, int64_t{1} << 40},
                                              {10, 1}, {11, 1}})),
            KILN_OK);
}

// x [1,3,4,5] padded by [0,0,1,3, 0,0,2,4] to [1,3,7,12].
TEST(PadRtKernel, RefusesValuesThatGiveAnotherShape) {
  const std::string n = "pad_rt.constant";
  ExpectRefused<int64_t>(n, 1, {0, 0, 1, 3, 0, 0, 2, 5});
  ExpectRefused<int64_t>(n, 1, {0, 0, 1, 3, 0, 1, 2, 4});
  // Pads that add up but lie beyond 2^61 (the loop's coordinate bound).
  const int64_t big = int64_t{1} << 62;
  ExpectRefused<int64_t>(n, 1, {0, 0, big, 3, 0, 0, 2 - big, 4});
  ExpectRefused<int64_t>(n, 3, {0, 1, 2, 2});   // a repeated axis
  ExpectRefused<int64_t>(n, 3, {0, 1, 2, 4});   // axis out of range
  ExpectAccepted<int64_t>(n, 1, {0, 0, 2, 3, 0, 0, 1, 4});  // another split, same shape
  ExpectAccepted<int64_t>(n, 1, {0, 1, 1, 3, 0, -1, 2, 4});  // axis 1 grows then crops
  ExpectAccepted<int64_t>(n, 3, {-4, -3, -2, -1});
}

TEST(PadRtKernel, CheckerBoundsEveryParameter) {
  const std::string n = "pad_rt.reflect";
  const Ints ip = Params(n);  // eb mode R n tp ta  in[4] out[4]
  EXPECT_EQ(CheckWith(n, ip), KILN_OK);
  EXPECT_EQ(CheckWith(n, kiln_test::With(ip, {{0, 9}})), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(CheckWith(n, kiln_test::With(ip, {{1, 4}})), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(CheckWith(n, kiln_test::With(ip, {{3, 5}})), KILN_ERR_INVALID_ARGUMENT);  // n > R
  EXPECT_EQ(CheckWith(n, kiln_test::With(ip, {{4, KILN_DTYPE_U8}})), KILN_ERR_INVALID_ARGUMENT);
  // Reflecting an empty input into a non-empty output has no source.
  EXPECT_EQ(CheckWith(n, kiln_test::With(ip, {{8, 0}}), 0), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(CheckWith(n, kiln_test::With(ip, {{1, 0}, {8, 0}}), 0), KILN_OK);  // constant fills
}

// x [3,2,2] summed over axis 1 with keepdims: [3,1,2].
TEST(ReduceRtKernel, RefusesAxesThatGiveAnotherShape) {
  const std::string n = "reduce_rt_f32.sum_keepdims";
  ExpectRefused<int64_t>(n, 1, {2});   // [3,2,1]
  ExpectRefused<int64_t>(n, 1, {3});   // out of range
  ExpectRefused<int64_t>(n, 1, {-4});  // out of range
  ExpectAccepted<int64_t>(n, 1, {-2});
  // Two axes, one repeated: x [3,4,5] over [-1, 0] -> [4].
  ExpectRefused<int32_t>("reduce_rt_f32.sum_two_axes", 1, {2, -1});
  ExpectRefused<int32_t>("reduce_rt_f32.sum_two_axes", 1, {1, 0});
  ExpectAccepted<int32_t>("reduce_rt_f32.sum_two_axes", 1, {0, 2});
}

TEST(ReduceRtKernel, NoopWithEmptyAxesNeedsTheInputShape) {
  Ints ip = Params("reduce_rt_f32.sum_noop_empty_axes");  // kind keep noop t n R RO in out
  ASSERT_EQ(ip.size(), 7u + 2 + 2);
  bool untouched = false;
  EXPECT_EQ(RunWith<int64_t>("reduce_rt_f32.sum_noop_empty_axes", 1, {}, &untouched), KILN_OK);
  // Without noop, empty axes reduce everything: [2,3] is not [] .
  ExpectRefused<int64_t>("reduce_rt_f32.sum_noop_empty_axes", 1, {},
                         kiln_test::With(ip, {{2, 0}}));
}

TEST(ReduceRtKernel, CheckerBoundsEveryParameter) {
  const std::string n = "reduce_rt_f32.sum_two_axes";
  const Ints ip = Params(n);  // kind keep noop t n R RO  in[3] out[1]
  EXPECT_EQ(CheckWith(n, ip), KILN_OK);
  EXPECT_EQ(CheckWith(n, kiln_test::With(ip, {{0, 10}})), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(CheckWith(n, kiln_test::With(ip, {{1, 2}})), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(CheckWith(n, kiln_test::With(ip, {{3, KILN_DTYPE_I16}})), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(CheckWith(n, kiln_test::With(ip, {{4, 4}})), KILN_ERR_INVALID_ARGUMENT);  // n > R
  Ints more_out = ip;  // RO above R
  more_out[6] = 4;
  more_out.insert(more_out.end(), {1, 1, 1});
  EXPECT_EQ(CheckWith(n, more_out), KILN_ERR_INVALID_ARGUMENT);
}

TEST(RangeKernel, RefusesValuesThatGiveAnotherCount) {
  ExpectRefused<float>("range.f32_positive", 2, {0.0f});  // delta 0
  ExpectRefused<float>("range.f32_positive", 2, {1.0f});  // 4 elements, not 2
  ExpectRefused<float>("range.f32_positive", 1, {std::nanf("")});
  ExpectRefused<float>("range.f32_positive", 1, {INFINITY});
  ExpectRefused<float>("range.f32_positive", 2, {-2.0f});  // empty
  ExpectAccepted<float>("range.f32_positive", 1, {4.5f});  // ceil(3.5 / 2) = 2
  ExpectRefused<int32_t>("range.i32_negative", 2, {3});
  ExpectRefused<int64_t>("range.i64_wide", 0, {kMin});  // a count near 2^63
  ExpectRefused<int64_t>("range.i64_empty", 0, {kMin});  // 5 - INT64_MIN elements, not 0
}

TEST(RangeKernel, CheckerBoundsEveryParameter) {
  const std::string n = "range.i32_negative";
  EXPECT_EQ(CheckWith(n, {KILN_DTYPE_I32, 2}), KILN_OK);
  EXPECT_EQ(CheckWith(n, {KILN_DTYPE_U8, 2}), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(CheckWith(n, {KILN_DTYPE_I32, 3}), KILN_ERR_OUT_OF_RANGE);
  EXPECT_EQ(CheckWith(n, {KILN_DTYPE_I64, 2}), KILN_ERR_OUT_OF_RANGE);
  EXPECT_EQ(CheckWith(n, {KILN_DTYPE_I32, kMax}), KILN_ERR_OUT_OF_RANGE);
}

}  // namespace
