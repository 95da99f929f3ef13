// Kernels whose output length depends on the data (nonzero.c, compress.c,
// unique.c, non_max_suppression.c):
// results against the NumPy references written by
// make_reference_data_dependent.py, the checkers' verdicts on those cases,
// and the run-time refusal (KILN_ERR_SHAPE_MISMATCH, output untouched) of
// data whose result has another length than the compiled one. The compiled
// path is covered by the ONNX node conformance tests (VM and AOT).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "kernel_case.h"
#include "kiln/kernels.h"

KILN_REFERENCE_SUITE(NonZeroReference, "nonzero.f32_signed_zero_nan", "nonzero.bool_2x2",
                     "nonzero.i16_rank3", "nonzero.u8_all_zero", "nonzero.i64_rank5",
                     "nonzero.f64_dense");
KILN_REFERENCE_SUITE(CompressReference, "compress.f32_axis0", "compress.i32_axis1_short",
                     "compress.f64_flat", "compress.i8_negative_axis", "compress.u16_none",
                     "compress.i64_long_condition", "compress.bool_axis2");
KILN_REFERENCE_SUITE(UniqueReference, "unique.f32_flat", "unique.f32_flat_unsorted",
                     "unique.i32_axis0", "unique.i64_axis1_3d_unsorted",
                     "unique.f64_negative_axis", "unique.i8_signed", "unique.u64_unsigned",
                     "unique.u16_only_y", "unique.bool_counts_only", "unique.f32_empty",
                     "unique.i16_long");
KILN_REFERENCE_SUITE(NonMaxSuppressionReference, "non_max_suppression.corners_2b_3c",
                     "non_max_suppression.center_no_score_thr",
                     "non_max_suppression.tied_scores_i32_f64",
                     "non_max_suppression.no_max_output",
                     "non_max_suppression.negative_max_output",
                     "non_max_suppression.nan_score_empty_box", "non_max_suppression.clustered");

namespace {

using kiln_test::Case;
using Bytes = std::vector<unsigned char>;

// Runs case `name` with input binding k's bytes replaced by `values` (same
// size); returns the kernel's code and whether the outputs (the kOut
// bindings) kept their sentinel bytes.
int RunWith(const std::string& name, size_t k, const Bytes& values, bool* untouched) {
  Case c;
  std::string error;
  EXPECT_TRUE(kiln_test::LoadCase(name, &c, &error)) << error;
  EXPECT_EQ(values.size(), c.bindings.at(k).nbytes) << name;
  EXPECT_EQ(c.Check(c.iparams, c.binding_bytes()), KILN_OK) << name;
  std::vector<Bytes> buf(c.bindings.size());
  std::vector<void*> ptrs(c.bindings.size(), nullptr);
  for (size_t i = 0; i < c.bindings.size(); ++i) {
    const uint32_t role = c.bindings[i].role;
    buf[i] = role == kiln_test::kOut || role == kiln_test::kScratch
                 ? Bytes(c.bindings[i].nbytes, 0xAB)
                 : c.bindings[i].initial;
    if (i == k) buf[i] = values;
    if (!buf[i].empty()) ptrs[i] = buf[i].data();
  }
  const int code = kiln_test::FindKernel(c.kernel)->fn(c.iparams.data(), c.fp(), ptrs.data(),
                                                        nullptr);
  *untouched = true;
  for (size_t i = 0; i < c.bindings.size(); ++i) {
    if (c.bindings[i].role != kiln_test::kOut) continue;
    for (unsigned char b : buf[i]) *untouched = *untouched && b == 0xAB;
  }
  return code;
}

void ExpectRefused(const std::string& name, size_t k, const Bytes& values,
                   int want = KILN_ERR_SHAPE_MISMATCH) {
  bool untouched = false;
  EXPECT_EQ(RunWith(name, k, values, &untouched), want) << name;
  EXPECT_TRUE(untouched) << name << ": the output was written";
}

void ExpectAccepted(const std::string& name, size_t k, const Bytes& values) {
  bool untouched = false;
  EXPECT_EQ(RunWith(name, k, values, &untouched), KILN_OK) << name;
}

Bytes Input(const std::string& name, size_t k) {
  Case c;
  std::string error;
  EXPECT_TRUE(kiln_test::LoadCase(name, &c, &error)) << error;
  return c.bindings.at(k).initial;
}

template <typename T>
Bytes AsBytes(const std::vector<T>& v) {
  Bytes b(v.size() * sizeof(T));
  if (!b.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}

// bool [[1,0],[1,1]] compiled for 3 non-zero elements.
TEST(NonZeroKernel, RefusesDataWithAnotherCount) {
  const std::string n = "nonzero.bool_2x2";
  ExpectRefused(n, 0, {1, 1, 1, 1});  // 4, not 3
  ExpectRefused(n, 0, {0, 0, 1, 0});  // 1
  ExpectRefused(n, 0, {0, 0, 0, 0});  // none
  ExpectAccepted(n, 0, {0, 1, 1, 1});  // another 3
}

TEST(NonZeroKernel, FloatZeroIsByValue) {
  // float32 [3]: -0.0 is zero, NaN and the smallest subnormal are not. The
  // case is [3,4]; fill it with zeros but for 3 set elements of the 12.
  const std::string n = "nonzero.f32_signed_zero_nan";
  const Bytes orig = Input(n, 0);
  std::vector<float> x(orig.size() / sizeof(float), -0.0f);
  ExpectRefused(n, 0, AsBytes(x));  // all (negative) zeros: none set
  Case c;
  std::string error;
  ASSERT_TRUE(kiln_test::LoadCase(n, &c, &error)) << error;
  const int64_t count = c.iparams[2];
  ASSERT_GE(count, 3);
  for (int64_t i = 0; i < count; ++i) x[static_cast<size_t>(i)] = 1.0f;
  ExpectAccepted(n, 0, AsBytes(x));
  x[0] = std::numeric_limits<float>::quiet_NaN();
  x[1] = std::numeric_limits<float>::denorm_min();
  ExpectAccepted(n, 0, AsBytes(x));
  x[2] = 0.0f;
  ExpectRefused(n, 0, AsBytes(x));  // one fewer
}

// f32 [3,2] along axis 0 by [0,1,1]: 2 rows.
TEST(CompressKernel, RefusesConditionsWithAnotherCount) {
  const std::string n = "compress.f32_axis0";
  ExpectRefused(n, 1, {1, 1, 1});
  ExpectRefused(n, 1, {0, 0, 1});
  ExpectAccepted(n, 1, {1, 0, 1});
  // [3,2] by [1,0,1,0,0] (longer than the axis): a true past the axis fails.
  ExpectRefused("compress.i64_long_condition", 1, {1, 0, 0, 1, 0}, KILN_ERR_INDEX_OUT_OF_RANGE);
  ExpectRefused("compress.i64_long_condition", 1, {1, 0, 1, 0, 1},  // 3, one out of range
                KILN_ERR_INDEX_OUT_OF_RANGE);
  ExpectAccepted("compress.i64_long_condition", 1, {0, 1, 1, 0, 0});
  // Nothing compiled, something selected.
  ExpectRefused("compress.u16_none", 1, {0, 1, 0, 0});
}

TEST(CompressKernel, CheckerBoundsTheSelection) {
  const std::string n = "compress.i32_axis1_short";
  Case c;
  std::string error;
  ASSERT_TRUE(kiln_test::LoadCase(n, &c, &error)) << error;
  const std::vector<int64_t>& ip = c.iparams;  // eb outer len inner cond out
  const std::vector<uint64_t> bytes = c.binding_bytes();
  EXPECT_EQ(c.Check(ip, bytes), KILN_OK);
  EXPECT_EQ(c.Check(kiln_test::With(ip, {{5, 4}}), bytes), KILN_ERR_INVALID_ARGUMENT);  // > cond
  EXPECT_EQ(c.Check(kiln_test::With(ip, {{0, 0}}), bytes), KILN_ERR_INVALID_ARGUMENT);  // eb 0
  EXPECT_EQ(c.Check(kiln_test::With(ip, {{0, 9}}), bytes), KILN_ERR_INVALID_ARGUMENT);  // eb 9
  // An empty input whose loops would still spin.
  EXPECT_NE(c.Check(kiln_test::With(ip, {{1, int64_t{1} << 40}, {2, 0}, {5, 0}}), bytes),
            KILN_OK);
}

TEST(NonZeroKernel, CheckerBoundsTheShape) {
  const std::string n = "nonzero.i16_rank3";
  Case c;
  std::string error;
  ASSERT_TRUE(kiln_test::LoadCase(n, &c, &error)) << error;
  const std::vector<int64_t>& ip = c.iparams;  // dtype R count dims[3]
  const std::vector<uint64_t> bytes = c.binding_bytes();
  EXPECT_EQ(c.Check(ip, bytes), KILN_OK);
  EXPECT_EQ(c.Check(kiln_test::With(ip, {{2, 25}}), bytes),
            KILN_ERR_INVALID_ARGUMENT);  // more than 24 elements
  EXPECT_EQ(c.Check(kiln_test::With(ip, {{0, 99}}), bytes), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(c.Check(kiln_test::With(ip, {{0, 0}}), bytes), KILN_ERR_INVALID_ARGUMENT);
  // Empty input, huge other dims: the odometer would spin.
  EXPECT_NE(c.Check(kiln_test::With(ip, {{2, 0}, {3, 0}, {4, int64_t{1} << 30},
                                          {5, int64_t{1} << 30}}),
                    bytes),
            KILN_OK);
}

// float32 [2,1,1,3,4,3,-0,0,NaN,1,NaN] compiled for 6 distinct values.
TEST(UniqueKernel, RefusesDataWithAnotherCount) {
  const std::string n = "unique.f32_flat";
  std::vector<float> x = {2, 1, 1, 3, 4, 3, -0.0f, 0.0f, 1, 1, 1};
  ExpectRefused(n, 0, AsBytes(x));  // 5: no NaN
  x[8] = std::numeric_limits<float>::quiet_NaN();
  ExpectAccepted(n, 0, AsBytes(x));  // NaN makes 6
  x[9] = std::numeric_limits<float>::quiet_NaN();
  ExpectAccepted(n, 0, AsBytes(x));  // NaNs are one value
  x[10] = 7;
  ExpectRefused(n, 0, AsBytes(x));  // 7
  // Slices along axis 0 of int32 [7,2], compiled for 6: rows compare whole.
  const std::string a = "unique.i32_axis0";
  std::vector<int32_t> rows = {0, 0, 0, 1, 1, 0, 1, 1, 2, 0, 0, 2, 0, 0};  // 6 distinct rows
  ExpectAccepted(a, 0, AsBytes(rows));
  rows[12] = 3;  // a 7th
  ExpectRefused(a, 0, AsBytes(rows));
  rows = std::vector<int32_t>(14, 5);  // one
  ExpectRefused(a, 0, AsBytes(rows));
}

// The same bits, but the unsigned order: 2^64-1 sorts last, not first.
TEST(UniqueKernel, ComparesByTheDtype) {
  KILN_LOAD_CASE("unique.u64_unsigned", c);
  std::vector<uint64_t> y(c.bindings[1].expected.size() / 8);
  std::memcpy(y.data(), c.bindings[1].expected.data(), y.size() * 8);
  ASSERT_EQ(y.size(), 4u);
  EXPECT_EQ(y.back(), ~uint64_t{0});
}

TEST(UniqueKernel, CheckerBoundsTheSort) {
  KILN_LOAD_CASE("unique.i64_axis1_3d_unsorted", c);
  const std::vector<int64_t>& ip = c.iparams;  // dtype outer len inner count sorted has x3
  const std::vector<uint64_t> bytes = c.binding_bytes();
  EXPECT_EQ(c.Check(ip, bytes), KILN_OK);
  EXPECT_EQ(c.Check(kiln_test::With(ip, {{4, 7}}), bytes), KILN_ERR_INVALID_ARGUMENT);  // > len
  EXPECT_EQ(c.Check(kiln_test::With(ip, {{0, 99}}), bytes), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(c.Check(kiln_test::With(ip, {{5, 2}}), bytes), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(c.Check(kiln_test::With(ip, {{8, 2}}), bytes), KILN_ERR_INVALID_ARGUMENT);
  // An absent output needs no bytes.
  std::vector<uint64_t> no_counts = bytes;
  no_counts[4] = 0;
  EXPECT_EQ(c.Check(ip, no_counts), KILN_ERR_OUT_OF_RANGE);
  EXPECT_EQ(c.Check(kiln_test::With(ip, {{8, 0}}), no_counts), KILN_OK);
  // Empty slices of a huge count: the sort would spin over nothing.
  EXPECT_NE(c.Check(kiln_test::With(ip, {{1, 0}, {2, int64_t{1} << 40}, {4, 0}}), bytes),
            KILN_OK);
}

// corners_2b_3c keeps 30 boxes (5 per batch and class).
TEST(NonMaxSuppressionKernel, RefusesDataWithAnotherCount) {
  const std::string n = "non_max_suppression.corners_2b_3c";
  ExpectRefused(n, 2, AsBytes(std::vector<int64_t>{4}));  // max_output 4: 24
  ExpectRefused(n, 2, AsBytes(std::vector<int64_t>{0}));
  ExpectRefused(n, 2, AsBytes(std::vector<int64_t>{-1}));
  ExpectAccepted(n, 2, AsBytes(std::vector<int64_t>{5}));
  ExpectRefused(n, 4, AsBytes(std::vector<float>{2.0f}));  // every score under the threshold
  // Every box the same: one kept per batch and class.
  std::vector<float> same(2 * 12 * 4);
  for (size_t i = 0; i < same.size(); i += 4) same[i + 2] = same[i + 3] = 1.0f;
  ExpectRefused(n, 0, AsBytes(same));
}

TEST(NonMaxSuppressionKernel, IdenticalBoxesKeepTheFirstOfEqualScores) {
  // Three identical boxes, all scoring 0.5, the middle one 0.9 later.
  std::vector<float> boxes = {0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1};
  std::vector<float> scores = {0.5f, 0.5f, 0.5f};
  int64_t max_out = 3, y[3] = {-1, -1, -1}, scratch[9];
  float iou = 0.5f;
  const int64_t ip[8] = {1, 3, 1, 0, 1, KILN_DTYPE_I64, KILN_DTYPE_F32, 0};
  void* b[7] = {boxes.data(), scores.data(), &max_out, &iou, boxes.data(), y, scratch};
  ASSERT_EQ(kiln_non_max_suppression(ip, nullptr, b, nullptr), KILN_OK);
  EXPECT_EQ(y[0], 0);
  EXPECT_EQ(y[1], 0);
  EXPECT_EQ(y[2], 0);  // box 0: equal scores keep the lower index
  scores[1] = 0.9f;
  ASSERT_EQ(kiln_non_max_suppression(ip, nullptr, b, nullptr), KILN_OK);
  EXPECT_EQ(y[2], 1);
}

TEST(NonMaxSuppressionKernel, CheckerBoundsTheInputs) {
  KILN_LOAD_CASE("non_max_suppression.tied_scores_i32_f64", c);
  const std::vector<int64_t>& ip = c.iparams;  // B N C center count max_dt iou_dt score_dt
  const std::vector<uint64_t> bytes = c.binding_bytes();
  EXPECT_EQ(c.Check(ip, bytes), KILN_OK);
  EXPECT_EQ(c.Check(kiln_test::With(ip, {{3, 2}}), bytes), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(c.Check(kiln_test::With(ip, {{4, 17}}), bytes), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(c.Check(kiln_test::With(ip, {{5, KILN_DTYPE_F32}}), bytes),
            KILN_ERR_INVALID_ARGUMENT);  // max_output must be an integer
  EXPECT_EQ(c.Check(kiln_test::With(ip, {{6, KILN_DTYPE_I64}}), bytes),
            KILN_ERR_INVALID_ARGUMENT);  // thresholds must be floats
  EXPECT_EQ(c.Check(kiln_test::With(ip, {{7, KILN_DTYPE_F32}}), bytes),
            KILN_OK);  // float32 needs 4 of the 8 bytes
  // Absent scalars need no bytes.
  std::vector<uint64_t> none = bytes;
  none[2] = none[3] = none[4] = 0;
  EXPECT_EQ(c.Check(ip, none), KILN_ERR_OUT_OF_RANGE);
  EXPECT_EQ(c.Check(kiln_test::With(ip, {{5, 0}, {6, 0}, {7, 0}}), none), KILN_OK);
  // No boxes, many classes and batches: the loops would spin over nothing.
  EXPECT_NE(c.Check(kiln_test::With(ip, {{0, int64_t{1} << 30}, {1, 0}, {2, int64_t{1} << 30},
                                          {4, 0}}),
                    bytes),
            KILN_OK);
}

}  // namespace
