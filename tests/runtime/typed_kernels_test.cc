// The dtype-generic kernels (cast, binary_typed, compare, where, unary_typed):
// values derived by hand from the ONNX semantics, and their checkers.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "kiln/kernels.h"

namespace {

template <typename T>
std::vector<uint64_t> Bytes(const std::vector<T>& v) {
  return {v.size() * sizeof(T)};
}

// Runs a 2-binding kernel after its checker accepted the parameters.
template <typename X, typename Y>
void Run2(int (*fn)(const int64_t*, const float*, void* const*, const kiln_host*),
          int (*check)(const int64_t*, uint32_t, const float*, uint32_t, const uint64_t*),
          const std::vector<int64_t>& ip, std::vector<X>& x, std::vector<Y>& y) {
  const uint64_t bb[2] = {x.size() * sizeof(X), y.size() * sizeof(Y)};
  ASSERT_EQ(check(ip.data(), static_cast<uint32_t>(ip.size()), nullptr, 0, bb), KILN_OK);
  void* const b[2] = {x.data(), y.data()};
  ASSERT_EQ(fn(ip.data(), nullptr, b, nullptr), KILN_OK);
}

template <typename A, typename Y>
void Run3(int (*fn)(const int64_t*, const float*, void* const*, const kiln_host*),
          int (*check)(const int64_t*, uint32_t, const float*, uint32_t, const uint64_t*),
          const std::vector<int64_t>& ip, std::vector<A>& a, std::vector<A>& b, std::vector<Y>& y) {
  const uint64_t bb[3] = {a.size() * sizeof(A), b.size() * sizeof(A), y.size() * sizeof(Y)};
  ASSERT_EQ(check(ip.data(), static_cast<uint32_t>(ip.size()), nullptr, 0, bb), KILN_OK);
  void* const bind[3] = {a.data(), b.data(), y.data()};
  ASSERT_EQ(fn(ip.data(), nullptr, bind, nullptr), KILN_OK);
}

TEST(Cast, FloatToIntTruncatesAndSaturates) {
  std::vector<float> x = {1.9f, -1.9f, 300.0f, -300.0f, NAN, 0.0f};
  std::vector<int8_t> y(6);
  Run2(kiln_cast, kiln_cast_check, {KILN_DTYPE_F32, KILN_DTYPE_I8, 6}, x, y);
  EXPECT_EQ(y, (std::vector<int8_t>{1, -1, 127, -128, 0, 0}));
}

TEST(Cast, IntegerNarrowingKeepsLowBits) {
  std::vector<int64_t> x = {257, -1, 65535};
  std::vector<uint8_t> y(3);
  Run2(kiln_cast, kiln_cast_check, {KILN_DTYPE_I64, KILN_DTYPE_U8, 3}, x, y);
  EXPECT_EQ(y, (std::vector<uint8_t>{1, 255, 255}));
}

TEST(Cast, ToBoolAndBack) {
  std::vector<float> x = {0.0f, -0.0f, 0.5f, NAN};
  std::vector<uint8_t> y(4);
  Run2(kiln_cast, kiln_cast_check, {KILN_DTYPE_F32, KILN_DTYPE_BOOL, 4}, x, y);
  EXPECT_EQ(y, (std::vector<uint8_t>{0, 0, 1, 1}));
  std::vector<double> z(4);
  Run2(kiln_cast, kiln_cast_check, {KILN_DTYPE_BOOL, KILN_DTYPE_F64, 4}, y, z);
  EXPECT_EQ(z, (std::vector<double>{0, 0, 1, 1}));
}

TEST(Cast, Float16RoundTripAndRounding) {
  // 1 + 2^-11 is halfway between 1 and the next half (1 + 2^-10): ties to even -> 1.
  // 65520 rounds past the largest half (65504) to infinity; 2^-24 is the least subnormal.
  std::vector<float> x = {1.0f, 1.0f + std::ldexp(1.0f, -11), 65504.0f, 65520.0f,
                          std::ldexp(1.0f, -24), -2.5f};
  std::vector<uint16_t> h(6);
  Run2(kiln_cast, kiln_cast_check, {KILN_DTYPE_F32, KILN_DTYPE_F16, 6}, x, h);
  EXPECT_EQ(h, (std::vector<uint16_t>{0x3c00, 0x3c00, 0x7bff, 0x7c00, 0x0001, 0xc100}));
  std::vector<float> back(6);
  Run2(kiln_cast, kiln_cast_check, {KILN_DTYPE_F16, KILN_DTYPE_F32, 6}, h, back);
  EXPECT_EQ(back[0], 1.0f);
  EXPECT_EQ(back[2], 65504.0f);
  EXPECT_TRUE(std::isinf(back[3]));
  EXPECT_EQ(back[4], std::ldexp(1.0f, -24));
  EXPECT_EQ(back[5], -2.5f);
}

TEST(Cast, BFloat16RoundsToNearestEven) {
  // Expected bits from torch 1.13: torch.tensor(x).to(torch.bfloat16).view(torch.int16).
  // Ties 1 + 2^-8 (down to even) and 1 + 3*2^-8 (up to even), just past a tie, the
  // largest bfloat16, FLT_MAX (rounds to infinity), infinities, a float32 subnormal,
  // -0 and 65504 (carries into the exponent: 65536).
  std::vector<float> x = {1.0f + std::ldexp(1.0f, -8), 1.0f + 3 * std::ldexp(1.0f, -8),
                          -(1.0f + std::ldexp(1.0f, -8) + std::ldexp(1.0f, -20)),
                          3.3895314e38f, std::numeric_limits<float>::max(),
                          std::numeric_limits<float>::infinity(),
                          -std::numeric_limits<float>::infinity(), 1e-40f, -0.0f, 65504.0f,
                          std::numeric_limits<float>::quiet_NaN()};
  std::vector<uint16_t> b(x.size());
  Run2(kiln_cast, kiln_cast_check, {KILN_DTYPE_F32, KILN_DTYPE_BF16, 11}, x, b);
  EXPECT_EQ(std::vector<uint16_t>(b.begin(), b.end() - 1),
            (std::vector<uint16_t>{0x3f80, 0x3f82, 0xbf81, 0x7f7f, 0x7f80, 0x7f80, 0xff80, 0x0001,
                                   0x8000, 0x4780}));
  std::vector<float> back(x.size());
  Run2(kiln_cast, kiln_cast_check, {KILN_DTYPE_BF16, KILN_DTYPE_F32, 11}, b, back);
  EXPECT_EQ(back[1], 1.015625f);
  EXPECT_EQ(back[3], 3.3895314e38f);  // exact: widening only appends zero bits
  EXPECT_TRUE(std::isinf(back[4]));
  EXPECT_EQ(back[9], 65536.0f);
  EXPECT_TRUE(std::isnan(back[10]));  // NaN stays NaN (never rounds to infinity)
  std::vector<int32_t> ints(x.size());
  Run2(kiln_cast, kiln_cast_check, {KILN_DTYPE_BF16, KILN_DTYPE_I32, 11}, b, ints);
  EXPECT_EQ(ints[2], -1);
  EXPECT_EQ(ints[9], 65536);
}

TEST(Cast, Uint64ToFloatAndInt64Extremes) {
  std::vector<uint64_t> x = {std::numeric_limits<uint64_t>::max(), 3};
  std::vector<double> y(2);
  Run2(kiln_cast, kiln_cast_check, {KILN_DTYPE_U64, KILN_DTYPE_F64, 2}, x, y);
  EXPECT_EQ(y[0], 18446744073709551615.0);
  EXPECT_EQ(y[1], 3.0);
  std::vector<float> f = {1e30f, -1e30f};
  std::vector<int64_t> i(2);
  Run2(kiln_cast, kiln_cast_check, {KILN_DTYPE_F32, KILN_DTYPE_I64, 2}, f, i);
  EXPECT_EQ(i[0], std::numeric_limits<int64_t>::max());
  EXPECT_EQ(i[1], std::numeric_limits<int64_t>::min());
}

TEST(CastCheck, RejectsUnknownDtypeAndShortBuffers) {
  const std::vector<int64_t> ip = {KILN_DTYPE_F32, 99, 4};
  const uint64_t bb[2] = {16, 64};
  EXPECT_EQ(kiln_cast_check(ip.data(), 3, nullptr, 0, bb), KILN_ERR_INVALID_ARGUMENT);
  const std::vector<int64_t> ok = {KILN_DTYPE_F32, KILN_DTYPE_I64, 4};
  const uint64_t short_out[2] = {16, 31};
  EXPECT_EQ(kiln_cast_check(ok.data(), 3, nullptr, 0, short_out), KILN_ERR_OUT_OF_RANGE);
  const std::vector<int64_t> huge = {KILN_DTYPE_F32, KILN_DTYPE_I64, int64_t{1} << 61};
  EXPECT_EQ(kiln_cast_check(huge.data(), 3, nullptr, 0, bb), KILN_ERR_OUT_OF_RANGE);
  EXPECT_EQ(kiln_cast_check(ok.data(), 2, nullptr, 0, bb), KILN_ERR_INVALID_ARGUMENT);
}

TEST(BinaryTyped, IntegerDivTruncatesAndWraps) {
  // [2,2] / [2] broadcast along the last dim.
  std::vector<int32_t> a = {-7, 7, std::numeric_limits<int32_t>::min(), 5};
  std::vector<int32_t> b = {2, -1};
  std::vector<int32_t> y(4);
  Run3(kiln_binary_typed, kiln_binary_typed_check,
       {KILN_TBINARY_DIV, KILN_DTYPE_I32, 2, 2, 2, 2, 1, 0, 1}, a, b, y);
  EXPECT_EQ(y, (std::vector<int32_t>{-3, -7, std::numeric_limits<int32_t>::min() / 2, -5}));
}

TEST(BinaryTyped, Uint8AddWrapsAndSubUnderflows) {
  std::vector<uint8_t> a = {250, 3}, b = {10, 5}, y(2);
  Run3(kiln_binary_typed, kiln_binary_typed_check, {KILN_TBINARY_ADD, KILN_DTYPE_U8, 1, 2, 1, 1},
       a, b, y);
  EXPECT_EQ(y, (std::vector<uint8_t>{4, 8}));
  Run3(kiln_binary_typed, kiln_binary_typed_check, {KILN_TBINARY_SUB, KILN_DTYPE_U8, 1, 2, 1, 1},
       a, b, y);
  EXPECT_EQ(y, (std::vector<uint8_t>{240, 254}));
}

TEST(BinaryTyped, Int64MulAndFloat64Div) {
  std::vector<int64_t> a = {int64_t{1} << 40, -3}, b = {1 << 20, 4}, y(2);
  Run3(kiln_binary_typed, kiln_binary_typed_check, {KILN_TBINARY_MUL, KILN_DTYPE_I64, 1, 2, 1, 1},
       a, b, y);
  EXPECT_EQ(y, (std::vector<int64_t>{int64_t{1} << 60, -12}));
  std::vector<double> c = {1.0, -3.0}, d = {3.0, 0.0}, z(2);
  Run3(kiln_binary_typed, kiln_binary_typed_check, {KILN_TBINARY_DIV, KILN_DTYPE_F64, 1, 2, 1, 1},
       c, d, z);
  EXPECT_EQ(z[0], 1.0 / 3.0);
  EXPECT_TRUE(std::isinf(z[1]) && z[1] < 0);
}

TEST(BinaryTyped, BoolLogicScalarBroadcast) {
  std::vector<uint8_t> a = {0, 1, 0, 1}, b = {1}, y(4);
  for (auto [op, want] : std::vector<std::pair<int64_t, std::vector<uint8_t>>>{
           {KILN_TBINARY_AND, {0, 1, 0, 1}}, {KILN_TBINARY_OR, {1, 1, 1, 1}},
           {KILN_TBINARY_XOR, {1, 0, 1, 0}}}) {
    Run3(kiln_binary_typed, kiln_binary_typed_check, {op, KILN_DTYPE_BOOL, 1, 4, 1, 0}, a, b, y);
    EXPECT_EQ(y, want) << "op " << op;
  }
}

TEST(BinaryTyped, BitwiseOnSignedAndUint64KeepsEveryBit) {
  // [2,2] op [2]: the sign bit of int8 and the top bit of uint64 take part.
  std::vector<int8_t> a = {-128, 0x5a, -1, 0x0f}, b = {-1, 0x33}, y(4);
  for (auto [op, want] : std::vector<std::pair<int64_t, std::vector<int8_t>>>{
           {KILN_TBINARY_BITAND, {-128, 0x12, -1, 0x03}},
           {KILN_TBINARY_BITOR, {-1, 0x7b, -1, 0x3f}},
           {KILN_TBINARY_BITXOR, {127, 0x69, 0, 0x3c}}}) {
    Run3(kiln_binary_typed, kiln_binary_typed_check, {op, KILN_DTYPE_I8, 2, 2, 2, 2, 1, 0, 1}, a, b,
         y);
    EXPECT_EQ(y, want) << "op " << op;
  }
  const uint64_t top = uint64_t{1} << 63;
  std::vector<uint64_t> c = {top | 6, 5}, d = {top | 3}, z(2);
  Run3(kiln_binary_typed, kiln_binary_typed_check, {KILN_TBINARY_BITXOR, KILN_DTYPE_U64, 1, 2, 1, 0},
       c, d, z);
  EXPECT_EQ(z, (std::vector<uint64_t>{5, top | 6}));
}

TEST(BinaryTypedCheck, RejectsBitwiseOnFloatAndBool) {
  const uint64_t bb[3] = {32, 32, 32};
  for (int64_t dtype : {KILN_DTYPE_F32, KILN_DTYPE_F64, KILN_DTYPE_F16, KILN_DTYPE_BOOL}) {
    const int64_t ip[] = {KILN_TBINARY_BITAND, dtype, 1, 4, 1, 1};
    EXPECT_EQ(kiln_binary_typed_check(ip, 6, nullptr, 0, bb), KILN_ERR_INVALID_ARGUMENT)
        << "dtype " << dtype;
  }
  const int64_t past_last_op[] = {KILN_TBINARY_BITXOR + 1, KILN_DTYPE_I32, 1, 4, 1, 1};
  EXPECT_EQ(kiln_binary_typed_check(past_last_op, 6, nullptr, 0, bb), KILN_ERR_INVALID_ARGUMENT);
}

TEST(BinaryTypedCheck, RejectsLogicOnIntsArithmeticOnBoolAndShortInput) {
  const uint64_t bb[3] = {16, 16, 16};
  const int64_t logic_int[] = {KILN_TBINARY_AND, KILN_DTYPE_I32, 1, 4, 1, 1};
  EXPECT_EQ(kiln_binary_typed_check(logic_int, 6, nullptr, 0, bb), KILN_ERR_INVALID_ARGUMENT);
  const int64_t add_bool[] = {KILN_TBINARY_ADD, KILN_DTYPE_BOOL, 1, 4, 1, 1};
  EXPECT_EQ(kiln_binary_typed_check(add_bool, 6, nullptr, 0, bb), KILN_ERR_INVALID_ARGUMENT);
  const int64_t add_i64[] = {KILN_TBINARY_ADD, KILN_DTYPE_I64, 1, 4, 1, 1};
  EXPECT_EQ(kiln_binary_typed_check(add_i64, 6, nullptr, 0, bb), KILN_ERR_OUT_OF_RANGE);
  const int64_t bad_rank[] = {KILN_TBINARY_ADD, KILN_DTYPE_I32, 9};
  EXPECT_EQ(kiln_binary_typed_check(bad_rank, 3, nullptr, 0, bb), KILN_ERR_INVALID_ARGUMENT);
}

TEST(Compare, SignedUnsignedAndNaN) {
  std::vector<int8_t> a = {-1, 2, 3}, b = {1, 2, 1};
  std::vector<uint8_t> y(3);
  Run3(kiln_compare, kiln_compare_check, {KILN_CMP_LT, KILN_DTYPE_I8, 1, 3, 1, 1}, a, b, y);
  EXPECT_EQ(y, (std::vector<uint8_t>{1, 0, 0}));
  std::vector<uint64_t> c = {std::numeric_limits<uint64_t>::max(), 0}, d = {1, 0};
  std::vector<uint8_t> z(2);
  Run3(kiln_compare, kiln_compare_check, {KILN_CMP_GT, KILN_DTYPE_U64, 1, 2, 1, 1}, c, d, z);
  EXPECT_EQ(z, (std::vector<uint8_t>{1, 0}));
  std::vector<float> e = {NAN, 1.0f}, f = {NAN, 1.0f};
  Run3(kiln_compare, kiln_compare_check, {KILN_CMP_EQ, KILN_DTYPE_F32, 1, 2, 1, 1}, e, f, z);
  EXPECT_EQ(z, (std::vector<uint8_t>{0, 1}));
  Run3(kiln_compare, kiln_compare_check, {KILN_CMP_GE, KILN_DTYPE_F32, 1, 2, 1, 1}, e, f, z);
  EXPECT_EQ(z, (std::vector<uint8_t>{0, 1}));
}

TEST(Compare, OuterBroadcast) {
  // [3,1] <= [1,2] -> [3,2]
  std::vector<int64_t> a = {0, 1, 2}, b = {1, 2};
  std::vector<uint8_t> y(6);
  Run3(kiln_compare, kiln_compare_check, {KILN_CMP_LE, KILN_DTYPE_I64, 2, 3, 2, 1, 0, 0, 1}, a, b,
       y);
  EXPECT_EQ(y, (std::vector<uint8_t>{1, 1, 1, 1, 0, 1}));
}

TEST(CompareCheck, RejectsBadOpAndShortOutput) {
  const uint64_t bb[3] = {24, 24, 3};
  const int64_t bad_op[] = {KILN_CMP_GE + 1, KILN_DTYPE_I64, 1, 3, 1, 1};
  EXPECT_EQ(kiln_compare_check(bad_op, 6, nullptr, 0, bb), KILN_ERR_INVALID_ARGUMENT);
  const int64_t ok[] = {KILN_CMP_EQ, KILN_DTYPE_I64, 1, 3, 1, 1};
  EXPECT_EQ(kiln_compare_check(ok, 6, nullptr, 0, bb), KILN_OK);
  const uint64_t short_out[3] = {24, 24, 2};
  EXPECT_EQ(kiln_compare_check(ok, 6, nullptr, 0, short_out), KILN_ERR_OUT_OF_RANGE);
}

TEST(Where, ThreeWayBroadcastInt64) {
  // cond [2,1], a [1,2], b scalar -> [2,2]
  std::vector<uint8_t> c = {1, 0};
  std::vector<int64_t> a = {10, 20}, b = {-1}, y(4);
  const std::vector<int64_t> ip = {8, 2, 2, 2, 1, 0, 0, 1, 0, 0};
  const uint64_t bb[4] = {2, 16, 8, 32};
  ASSERT_EQ(kiln_where_check(ip.data(), static_cast<uint32_t>(ip.size()), nullptr, 0, bb), KILN_OK);
  void* const bind[4] = {c.data(), a.data(), b.data(), y.data()};
  ASSERT_EQ(kiln_where(ip.data(), nullptr, bind, nullptr), KILN_OK);
  EXPECT_EQ(y, (std::vector<int64_t>{10, 20, -1, -1}));
  const std::vector<int64_t> odd = {3, 2, 2, 2, 1, 0, 0, 1, 0, 0};
  EXPECT_EQ(kiln_where_check(odd.data(), 10, nullptr, 0, bb), KILN_ERR_INVALID_ARGUMENT);
  const uint64_t short_a[4] = {2, 8, 8, 32};
  EXPECT_EQ(kiln_where_check(ip.data(), 10, nullptr, 0, short_a), KILN_ERR_OUT_OF_RANGE);
}

TEST(UnaryTyped, NotIsNaNIsInfNegAbs) {
  std::vector<uint8_t> b = {0, 1}, nb(2);
  Run2(kiln_unary_typed, kiln_unary_typed_check, {KILN_TUNARY_NOT, KILN_DTYPE_BOOL, 2, 0, 0}, b,
       nb);
  EXPECT_EQ(nb, (std::vector<uint8_t>{1, 0}));
  std::vector<double> x = {NAN, INFINITY, -INFINITY, 1.0};
  std::vector<uint8_t> y(4);
  Run2(kiln_unary_typed, kiln_unary_typed_check, {KILN_TUNARY_ISNAN, KILN_DTYPE_F64, 4, 0, 0}, x,
       y);
  EXPECT_EQ(y, (std::vector<uint8_t>{1, 0, 0, 0}));
  Run2(kiln_unary_typed, kiln_unary_typed_check, {KILN_TUNARY_ISINF, KILN_DTYPE_F64, 4, 0, 1}, x,
       y);
  EXPECT_EQ(y, (std::vector<uint8_t>{0, 0, 1, 0}));
  std::vector<int8_t> i = {-128, -3, 4}, o(3);
  Run2(kiln_unary_typed, kiln_unary_typed_check, {KILN_TUNARY_ABS, KILN_DTYPE_I8, 3, 0, 0}, i, o);
  EXPECT_EQ(o, (std::vector<int8_t>{-128, 3, 4}));
  Run2(kiln_unary_typed, kiln_unary_typed_check, {KILN_TUNARY_NEG, KILN_DTYPE_I8, 3, 0, 0}, i, o);
  EXPECT_EQ(o, (std::vector<int8_t>{-128, 3, -4}));
}

TEST(UnaryTyped, BitwiseNotFlipsEveryBit) {
  std::vector<int16_t> i = {0, -1, 0x1234, -32768}, o(4);
  Run2(kiln_unary_typed, kiln_unary_typed_check, {KILN_TUNARY_BITNOT, KILN_DTYPE_I16, 4, 0, 0}, i,
       o);
  EXPECT_EQ(o, (std::vector<int16_t>{-1, 0, -0x1235, 32767}));
  std::vector<uint32_t> u = {0, 0xf0f0f0f0u}, v(2);
  Run2(kiln_unary_typed, kiln_unary_typed_check, {KILN_TUNARY_BITNOT, KILN_DTYPE_U32, 2, 0, 0}, u,
       v);
  EXPECT_EQ(v, (std::vector<uint32_t>{0xffffffffu, 0x0f0f0f0fu}));
}

TEST(UnaryTypedCheck, RejectsMismatchedDtypes) {
  const uint64_t bits[2] = {64, 64};
  for (int64_t dtype : {KILN_DTYPE_F32, KILN_DTYPE_F64, KILN_DTYPE_BOOL}) {
    const int64_t bitnot[] = {KILN_TUNARY_BITNOT, dtype, 4, 0, 0};
    EXPECT_EQ(kiln_unary_typed_check(bitnot, 5, nullptr, 0, bits), KILN_ERR_INVALID_ARGUMENT)
        << "dtype " << dtype;
  }
  const uint64_t bb[2] = {64, 64};
  const int64_t not_int[] = {KILN_TUNARY_NOT, KILN_DTYPE_I32, 4, 0, 0};
  EXPECT_EQ(kiln_unary_typed_check(not_int, 5, nullptr, 0, bb), KILN_ERR_INVALID_ARGUMENT);
  const int64_t isnan_int[] = {KILN_TUNARY_ISNAN, KILN_DTYPE_I32, 4, 0, 0};
  EXPECT_EQ(kiln_unary_typed_check(isnan_int, 5, nullptr, 0, bb), KILN_ERR_INVALID_ARGUMENT);
  const int64_t neg_bool[] = {KILN_TUNARY_NEG, KILN_DTYPE_BOOL, 4, 0, 0};
  EXPECT_EQ(kiln_unary_typed_check(neg_bool, 5, nullptr, 0, bb), KILN_ERR_INVALID_ARGUMENT);
  const int64_t neg_long[] = {KILN_TUNARY_NEG, KILN_DTYPE_I64, 9, 0, 0};
  EXPECT_EQ(kiln_unary_typed_check(neg_long, 5, nullptr, 0, bb), KILN_ERR_OUT_OF_RANGE);
}

}  // namespace
