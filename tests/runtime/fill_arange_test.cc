// fill and arange (runtime/kernels/fill.c: ConstantOfShape and Range over
// symbolic sizes): outputs against literal values and plain loops for every
// element size / dtype the checkers accept, n = 0, that nothing past n
// elements is written, and every checker refusal.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "kiln/kernels.h"

namespace {

// Bytes past the n elements a kernel may write: they must stay untouched.
constexpr size_t kGuard = 16;
constexpr unsigned char kGuardByte = 0xA5;

int FillCheck(const std::vector<int64_t>& ip, uint64_t value_bytes, uint64_t out_bytes) {
  const uint64_t bytes[] = {value_bytes, out_bytes};
  return kiln_fill_check(ip.data(), static_cast<uint32_t>(ip.size()), nullptr, 0, bytes);
}

int ArangeCheck(const std::vector<int64_t>& ip, uint64_t out_bytes) {
  const uint64_t bytes[] = {out_bytes};
  return kiln_arange_check(ip.data(), static_cast<uint32_t>(ip.size()), nullptr, 0, bytes);
}

// Runs fill with an eb-byte value over n elements (after its checker
// accepted the exact sizes) and returns the output with its guard bytes.
std::vector<unsigned char> RunFill(int64_t eb, int64_t n, const unsigned char* value) {
  const std::vector<int64_t> ip = {eb, n};
  EXPECT_EQ(FillCheck(ip, eb, static_cast<uint64_t>(n * eb)), KILN_OK) << "eb=" << eb << " n=" << n;
  std::vector<unsigned char> out(static_cast<size_t>(n * eb) + kGuard, kGuardByte);
  void* bindings[] = {const_cast<unsigned char*>(value), out.data()};
  EXPECT_EQ(kiln_fill(ip.data(), nullptr, bindings, nullptr), KILN_OK);
  return out;
}

TEST(Fill, RepeatsTheValueOfEachElementSize) {
  // Eight distinct bytes: an element of eb bytes is the first eb of them.
  const unsigned char value[8] = {0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF};
  for (int64_t eb : {1, 2, 4, 8}) {
    for (int64_t n : {1, 3, 17}) {
      const std::vector<unsigned char> out = RunFill(eb, n, value);
      for (int64_t i = 0; i < n; ++i) {
        for (int64_t b = 0; b < eb; ++b) {
          ASSERT_EQ(out[i * eb + b], value[b]) << "eb=" << eb << " n=" << n << " element " << i;
        }
      }
      for (size_t g = static_cast<size_t>(n * eb); g < out.size(); ++g) {
        ASSERT_EQ(out[g], kGuardByte) << "eb=" << eb << " n=" << n << ": wrote byte " << g;
      }
    }
  }
}

TEST(Fill, TypedValuesComeBackAsTheSameType) {
  // What ConstantOfShape produces: float 2.5, int64 -7, bool true.
  const float f = 2.5f;
  std::vector<unsigned char> out = RunFill(4, 5, reinterpret_cast<const unsigned char*>(&f));
  std::vector<float> floats(5);
  std::memcpy(floats.data(), out.data(), 20);
  EXPECT_EQ(floats, std::vector<float>(5, 2.5f));
  const int64_t i = -7;
  out = RunFill(8, 3, reinterpret_cast<const unsigned char*>(&i));
  std::vector<int64_t> ints(3);
  std::memcpy(ints.data(), out.data(), 24);
  EXPECT_EQ(ints, std::vector<int64_t>(3, -7));
  const unsigned char yes = 1;
  out = RunFill(1, 4, &yes);
  EXPECT_EQ(std::vector<unsigned char>(out.begin(), out.begin() + 4), std::vector<unsigned char>(4, 1));
}

TEST(Fill, ZeroElementsWriteNothing) {
  const unsigned char value[8] = {9, 9, 9, 9, 9, 9, 9, 9};
  for (int64_t eb : {1, 2, 4, 8}) {
    EXPECT_EQ(FillCheck({eb, 0}, eb, 0), KILN_OK) << eb;
    const std::vector<unsigned char> out = RunFill(eb, 0, value);
    EXPECT_EQ(out, std::vector<unsigned char>(kGuard, kGuardByte)) << eb;
  }
}

TEST(Fill, CheckerRefusals) {
  // The accepted baseline, then one thing wrong at a time.
  EXPECT_EQ(FillCheck({4, 3}, 4, 12), KILN_OK);
  EXPECT_EQ(FillCheck({4, 3}, 8, 100), KILN_OK);  // larger bindings are fine
  // Parameter counts, and a missing parameter list.
  EXPECT_EQ(FillCheck({4}, 4, 12), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(FillCheck({4, 3, 0}, 4, 12), KILN_ERR_INVALID_ARGUMENT);
  const uint64_t bytes[] = {4, 12};
  const float fp[] = {1.0f};
  const int64_t ip[] = {4, 3};
  EXPECT_EQ(kiln_fill_check(ip, 2, fp, 1, bytes), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(kiln_fill_check(nullptr, 2, nullptr, 0, bytes), KILN_ERR_INVALID_ARGUMENT);
  // Element sizes other than 1, 2, 4, 8.
  for (int64_t eb : {0, 3, 5, 16, -4}) {
    EXPECT_NE(FillCheck({eb, 3}, 16, 48), KILN_OK) << "eb=" << eb;
  }
  // A negative count.
  EXPECT_EQ(FillCheck({4, -1}, 4, 12), KILN_ERR_INVALID_ARGUMENT);
  // The value shorter than one element, the output shorter than n elements.
  EXPECT_EQ(FillCheck({4, 3}, 3, 12), KILN_ERR_OUT_OF_RANGE);
  EXPECT_EQ(FillCheck({8, 3}, 4, 24), KILN_ERR_OUT_OF_RANGE);
  EXPECT_EQ(FillCheck({4, 3}, 4, 11), KILN_ERR_OUT_OF_RANGE);
  EXPECT_EQ(FillCheck({1, 1}, 1, 0), KILN_ERR_OUT_OF_RANGE);
  // n * eb past int64.
  EXPECT_NE(FillCheck({8, std::numeric_limits<int64_t>::max() / 4}, 8, UINT64_MAX), KILN_OK);
}

// Runs arange (checker first) and returns the n elements as T, checking
// that nothing past them was written.
template <typename T>
std::vector<T> RunArange(int64_t dtype, int64_t n, int64_t start, int64_t delta) {
  const std::vector<int64_t> ip = {dtype, n, start, delta};
  const uint64_t bytes = static_cast<uint64_t>(n) * sizeof(T);
  EXPECT_EQ(ArangeCheck(ip, bytes), KILN_OK) << "dtype=" << dtype << " n=" << n;
  std::vector<unsigned char> out(bytes + kGuard, kGuardByte);
  void* bindings[] = {out.data()};
  EXPECT_EQ(kiln_arange(ip.data(), nullptr, bindings, nullptr), KILN_OK);
  for (size_t g = bytes; g < out.size(); ++g) EXPECT_EQ(out[g], kGuardByte) << "wrote byte " << g;
  std::vector<T> values(static_cast<size_t>(n));
  if (n > 0) std::memcpy(values.data(), out.data(), bytes);
  return values;
}

TEST(Arange, LiteralValuesOfEachDtype) {
  // Range(-3, 7, 2) and Range(4, -2, -3) as ONNX (and numpy.arange) give them.
  EXPECT_EQ(RunArange<float>(KILN_DTYPE_F32, 5, -3, 2), (std::vector<float>{-3, -1, 1, 3, 5}));
  EXPECT_EQ(RunArange<double>(KILN_DTYPE_F64, 5, -3, 2), (std::vector<double>{-3, -1, 1, 3, 5}));
  EXPECT_EQ(RunArange<int32_t>(KILN_DTYPE_I32, 5, -3, 2), (std::vector<int32_t>{-3, -1, 1, 3, 5}));
  EXPECT_EQ(RunArange<int64_t>(KILN_DTYPE_I64, 5, -3, 2), (std::vector<int64_t>{-3, -1, 1, 3, 5}));
  EXPECT_EQ(RunArange<float>(KILN_DTYPE_F32, 2, 4, -3), (std::vector<float>{4, 1}));
  EXPECT_EQ(RunArange<int64_t>(KILN_DTYPE_I64, 2, 4, -3), (std::vector<int64_t>{4, 1}));
  // arange(P, P + S) of a decoder's positions: delta 1, a past length start.
  EXPECT_EQ(RunArange<int64_t>(KILN_DTYPE_I64, 4, 10, 1), (std::vector<int64_t>{10, 11, 12, 13}));
  // A zero step repeats the start.
  EXPECT_EQ(RunArange<int32_t>(KILN_DTYPE_I32, 3, 6, 0), (std::vector<int32_t>{6, 6, 6}));
}

TEST(Arange, LongRangesAgainstALoop) {
  const int64_t n = 1000, start = -12345, delta = 7;
  const std::vector<float> f32 = RunArange<float>(KILN_DTYPE_F32, n, start, delta);
  const std::vector<double> f64 = RunArange<double>(KILN_DTYPE_F64, n, start, delta);
  const std::vector<int32_t> i32 = RunArange<int32_t>(KILN_DTYPE_I32, n, start, delta);
  const std::vector<int64_t> i64 = RunArange<int64_t>(KILN_DTYPE_I64, n, start, delta);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t want = start + i * delta;  // |want| < 2^24: exact in float
    ASSERT_EQ(f32[i], static_cast<float>(want)) << i;
    ASSERT_EQ(f64[i], static_cast<double>(want)) << i;
    ASSERT_EQ(i32[i], want) << i;
    ASSERT_EQ(i64[i], want) << i;
  }
  // Large int64 values stay exact (no trip through double).
  const int64_t big = int64_t{1} << 60;
  EXPECT_EQ(RunArange<int64_t>(KILN_DTYPE_I64, 3, big + 1, 3),
            (std::vector<int64_t>{big + 1, big + 4, big + 7}));
}

TEST(Arange, Int32WrapsAsTwosComplement) {
  // Documented in fill.c: integers wrap (the compiler's bounds never reach it).
  const int32_t max = std::numeric_limits<int32_t>::max(), min = std::numeric_limits<int32_t>::min();
  EXPECT_EQ(RunArange<int32_t>(KILN_DTYPE_I32, 3, max - 1, 1), (std::vector<int32_t>{max - 1, max, min}));
}

TEST(Arange, ZeroElementsWriteNothing) {
  for (int64_t dtype : {KILN_DTYPE_F32, KILN_DTYPE_F64, KILN_DTYPE_I32, KILN_DTYPE_I64}) {
    EXPECT_EQ(ArangeCheck({dtype, 0, 5, 1}, 0), KILN_OK) << dtype;
    std::vector<unsigned char> out(kGuard, kGuardByte);
    const int64_t ip[] = {dtype, 0, 5, 1};
    void* bindings[] = {out.data()};
    EXPECT_EQ(kiln_arange(ip, nullptr, bindings, nullptr), KILN_OK);
    EXPECT_EQ(out, std::vector<unsigned char>(kGuard, kGuardByte)) << dtype;
  }
}

TEST(Arange, CheckerRefusals) {
  EXPECT_EQ(ArangeCheck({KILN_DTYPE_F32, 3, -5, -2}, 12), KILN_OK);  // start, delta may be < 0
  EXPECT_EQ(ArangeCheck({KILN_DTYPE_I64, 3, 0, 1}, 100), KILN_OK);
  // Parameter counts, fparams, a missing parameter list.
  EXPECT_EQ(ArangeCheck({KILN_DTYPE_F32, 3, 0}, 12), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ArangeCheck({KILN_DTYPE_F32, 3, 0, 1, 0}, 12), KILN_ERR_INVALID_ARGUMENT);
  const uint64_t bytes[] = {12};
  const float fp[] = {1.0f};
  const int64_t ip[] = {KILN_DTYPE_F32, 3, 0, 1};
  EXPECT_EQ(kiln_arange_check(ip, 4, fp, 1, bytes), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(kiln_arange_check(nullptr, 4, nullptr, 0, bytes), KILN_ERR_INVALID_ARGUMENT);
  // Dtypes the kernel does not write ((b)float16, the small and unsigned
  // integers, bool) and codes that are no dtype.
  for (int64_t dtype : {0, -1, static_cast<int>(KILN_DTYPE_F16), static_cast<int>(KILN_DTYPE_I8),
                        static_cast<int>(KILN_DTYPE_I16), static_cast<int>(KILN_DTYPE_U8),
                        static_cast<int>(KILN_DTYPE_BOOL), static_cast<int>(KILN_DTYPE_U16),
                        static_cast<int>(KILN_DTYPE_U32), static_cast<int>(KILN_DTYPE_U64),
                        static_cast<int>(KILN_DTYPE_BF16), 14, 1000}) {
    EXPECT_EQ(ArangeCheck({dtype, 3, 0, 1}, 64), KILN_ERR_INVALID_ARGUMENT) << "dtype=" << dtype;
  }
  // A negative count, an output shorter than n elements, n * size past int64.
  EXPECT_EQ(ArangeCheck({KILN_DTYPE_I32, -1, 0, 1}, 64), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ArangeCheck({KILN_DTYPE_I32, 3, 0, 1}, 11), KILN_ERR_OUT_OF_RANGE);
  EXPECT_EQ(ArangeCheck({KILN_DTYPE_F64, 3, 0, 1}, 23), KILN_ERR_OUT_OF_RANGE);
  EXPECT_EQ(ArangeCheck({KILN_DTYPE_I64, 1, 0, 1}, 0), KILN_ERR_OUT_OF_RANGE);
  EXPECT_NE(ArangeCheck({KILN_DTYPE_I64, std::numeric_limits<int64_t>::max() / 4, 0, 1}, UINT64_MAX),
            KILN_OK);
}

}  // namespace
