// Kernels whose output length depends on the data (nonzero.c, compress.c):
// results against the NumPy references written by
// make_reference_data_dependent.py, the checkers' verdicts on those cases,
// and the run-time refusal (KILN_ERR_INVALID_ARGUMENT, output untouched) of
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

namespace {

using kiln_test::Case;
using Bytes = std::vector<unsigned char>;

// Runs case `name` with input binding k's bytes replaced by `values` (same
// size); returns the kernel's code and whether the output (the last
// binding) kept its sentinel bytes.
int RunWith(const std::string& name, size_t k, const Bytes& values, bool* untouched) {
  Case c;
  std::string error;
  EXPECT_TRUE(kiln_test::LoadCase(name, &c, &error)) << error;
  EXPECT_EQ(values.size(), c.bindings.at(k).nbytes) << name;
  EXPECT_EQ(c.Check(c.iparams, c.binding_bytes()), KILN_OK) << name;
  std::vector<Bytes> buf(c.bindings.size());
  std::vector<void*> ptrs(c.bindings.size(), nullptr);
  for (size_t i = 0; i < c.bindings.size(); ++i) {
    buf[i] = c.bindings[i].role == kiln_test::kOut ? Bytes(c.bindings[i].nbytes, 0xAB)
                                                    : c.bindings[i].initial;
    if (i == k) buf[i] = values;
    if (!buf[i].empty()) ptrs[i] = buf[i].data();
  }
  const int code = kiln_test::FindKernel(c.kernel)->fn(c.iparams.data(), c.fp(), ptrs.data(),
                                                        nullptr);
  *untouched = true;
  for (unsigned char b : buf.back()) *untouched = *untouched && b == 0xAB;
  return code;
}

void ExpectRefused(const std::string& name, size_t k, const Bytes& values) {
  bool untouched = false;
  EXPECT_EQ(RunWith(name, k, values, &untouched), KILN_ERR_INVALID_ARGUMENT) << name;
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
  ExpectRefused("compress.i64_long_condition", 1, {1, 0, 0, 1, 0});
  ExpectRefused("compress.i64_long_condition", 1, {1, 0, 1, 0, 1});  // 3, one out of range
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

}  // namespace
