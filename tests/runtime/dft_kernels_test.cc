// dft_f32, stft_f32 and stft_dims against NumPy's np.fft (values pasted below, computed
// by /usr/bin/python3 with numpy) and against a naive double-precision DFT
// written here; plus the checkers' refusals. Tolerance: 1e-5 absolute on
// values of magnitude < 10 (float32 output of a double accumulation).
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <vector>

#include "kiln/kernels.h"

namespace {

using cd = std::complex<double>;
constexpr double kTol = 1e-5;
constexpr double kPi = 3.14159265358979323846;

std::vector<double> Table(int64_t n) {
  std::vector<double> t(2 * n);
  for (int64_t m = 0; m < n; ++m) {
    t[2 * m] = std::cos(2 * kPi * m / n);
    t[2 * m + 1] = std::sin(2 * kPi * m / n);
  }
  return t;
}

// Runs dft_f32 on one line (O = I = 1) after its checker accepts it.
std::vector<float> Dft(const std::vector<float>& x, int64_t comps, int64_t n, int64_t K,
                       bool inverse) {
  const int64_t nin = static_cast<int64_t>(x.size()) / comps;
  const int64_t ip[7] = {1, nin, 1, comps, n, K, inverse ? 1 : 0};
  std::vector<double> t = Table(n);
  std::vector<float> y(2 * K, -99.0f);
  const uint64_t bytes[3] = {x.size() * 4, t.size() * 8, y.size() * 4};
  EXPECT_EQ(kiln_dft_f32_check(ip, 7, nullptr, 0, bytes), KILN_OK);
  void* b[3] = {const_cast<float*>(x.data()), t.data(), y.data()};
  EXPECT_EQ(kiln_dft_f32(ip, nullptr, b, nullptr), KILN_OK);
  return y;
}

void ExpectNear(const std::vector<float>& y, const std::vector<cd>& ref) {
  ASSERT_EQ(y.size(), 2 * ref.size());
  for (size_t k = 0; k < ref.size(); ++k) {
    EXPECT_NEAR(y[2 * k], ref[k].real(), kTol) << "bin " << k;
    EXPECT_NEAR(y[2 * k + 1], ref[k].imag(), kTol) << "bin " << k;
  }
}

const std::vector<float> kX5 = {1, 2, -1, 0.5f, 3};

TEST(DftKernel, ForwardMatchesNumPy) {
  // np.fft.fft([1, 2, -1, 0.5, 3])
  ExpectNear(Dft(kX5, 1, 5, 5, false),
             {{5.5, 0}, {2.949593469, 1.832734395}, {-3.199593469, -0.838799522},
              {-3.199593469, 0.838799522}, {2.949593469, -1.832734395}});
}

TEST(DftKernel, OnesidedZeroPaddedMatchesNumPy) {
  // np.fft.rfft([1, 2, -1, 0.5, 3], n=8)
  ExpectNear(Dft(kX5, 1, 8, 5, false),
             {{5.5, 0}, {-0.939339828, -0.767766953}, {5, -1.5},
              {-3.060660172, -2.767766953}, {0.5, 0}});
}

TEST(DftKernel, TruncatedMatchesNumPy) {
  // np.fft.fft([1, 2, -1, 0.5, 3], n=3)
  ExpectNear(Dft(kX5, 1, 3, 3, false), {{2, 0}, {0.5, -2.598076211}, {0.5, 2.598076211}});
}

TEST(DftKernel, InverseComplexMatchesNumPy) {
  // np.fft.ifft([1+2j, -0.5+1j, 3-1j, 0.25])
  ExpectNear(Dft({1, 2, -0.5f, 1, 3, -1, 0.25f, 0}, 2, 4, 4, true),
             {{0.9375, 0.5}, {-0.75, 0.5625}, {1.0625, 0}, {-0.25, 0.9375}});
}

// Naive transform along the middle axis of [O, NIN, I, 2], zero-padded to n.
std::vector<cd> Naive(const std::vector<float>& x, int64_t O, int64_t nin, int64_t I, int64_t n,
                      bool inverse) {
  std::vector<cd> y(O * n * I);
  for (int64_t o = 0; o < O; ++o)
    for (int64_t i = 0; i < I; ++i)
      for (int64_t k = 0; k < n; ++k) {
        cd acc = 0;
        for (int64_t j = 0; j < std::min(nin, n); ++j) {
          const size_t p = ((o * nin + j) * I + i) * 2;
          const double a = (inverse ? 2 : -2) * kPi * static_cast<double>(j * k) / n;
          acc += cd(x[p], x[p + 1]) * std::polar(1.0, a);
        }
        y[(o * n + k) * I + i] = inverse ? acc / static_cast<double>(n) : acc;
      }
  return y;
}

TEST(DftKernel, InnerAxisLayoutMatchesNaive) {
  const int64_t O = 2, nin = 6, I = 3, n = 7;
  std::vector<float> x(O * nin * I * 2);
  for (size_t k = 0; k < x.size(); ++k) x[k] = std::sin(0.7 * k) * 2 + 0.1f * (k % 5);
  for (bool inverse : {false, true}) {
    const int64_t ip[7] = {O, nin, I, 2, n, n, inverse ? 1 : 0};
    std::vector<double> t = Table(n);
    std::vector<float> y(O * n * I * 2);
    const uint64_t bytes[3] = {x.size() * 4, t.size() * 8, y.size() * 4};
    ASSERT_EQ(kiln_dft_f32_check(ip, 7, nullptr, 0, bytes), KILN_OK);
    void* b[3] = {x.data(), t.data(), y.data()};
    ASSERT_EQ(kiln_dft_f32(ip, nullptr, b, nullptr), KILN_OK);
    ExpectNear(y, Naive(x, O, nin, I, n, inverse));
  }
}

TEST(DftCheck, RefusesBadParamsAndShortBindings) {
  const int64_t ip[7] = {2, 6, 3, 2, 7, 7, 0};
  const uint64_t ok[3] = {2 * 6 * 3 * 2 * 4, 7 * 16, 2 * 7 * 3 * 2 * 4};
  ASSERT_EQ(kiln_dft_f32_check(ip, 7, nullptr, 0, ok), KILN_OK);
  EXPECT_NE(kiln_dft_f32_check(ip, 6, nullptr, 0, ok), KILN_OK);
  for (int b = 0; b < 3; ++b) {
    uint64_t bytes[3] = {ok[0], ok[1], ok[2]};
    bytes[b] -= 1;
    EXPECT_EQ(kiln_dft_f32_check(ip, 7, nullptr, 0, bytes), KILN_ERR_OUT_OF_RANGE) << b;
  }
  const auto with = [&](int k, int64_t v) {
    int64_t p[7];
    for (int i = 0; i < 7; ++i) p[i] = ip[i];
    p[k] = v;
    return kiln_dft_f32_check(p, 7, nullptr, 0, ok);
  };
  EXPECT_NE(with(3, 3), KILN_OK);    // C must be 1 or 2
  EXPECT_NE(with(4, 0), KILN_OK);    // n >= 1
  EXPECT_NE(with(5, 8), KILN_OK);    // K <= n
  EXPECT_NE(with(6, 2), KILN_OK);    // inverse is 0 or 1
  EXPECT_NE(with(0, -1), KILN_OK);   // negative dims
  EXPECT_NE(with(0, int64_t{1} << 40), KILN_OK);  // work / bytes beyond limits
  EXPECT_NE(with(1, INT64_MAX / 2), KILN_OK);
}

// STFT of NumPy's case: signal s = arange(10)**1.5 * 0.1 - 0.7, step 3,
// window [0, 0.5, 1, 0.5]; reference np.fft.rfft of the windowed frames.
const std::vector<float> kSig = {-0.7f, -0.6f, -0.417157288f, -0.180384758f, 0.1f,
                                 0.418033989f, 0.769693846f, 1.152025918f, 1.5627417f, 2.0f};
const std::vector<float> kWin = {0, 0.5f, 1, 0.5f};
const std::vector<cd> kStftRef = {
    {-0.807349666, 0}, {0.417157288, 0.209807621}, {-0.026964909, 0},
    {0.852880912, 0},  {-0.418033989, 0.334846923}, {-0.016812934, 0},
    {3.138754659, 0},  {-1.5627417, 0.423987041},  {-0.013271259, 0}};

struct Stft {
  std::vector<int64_t> ip;  // B L C F K onesided wlen has_fl table_n step_dt fl_dt
  int64_t step = 3, fl = 4;
  std::vector<float> window = kWin;
  std::vector<double> table;
  std::vector<float> y = std::vector<float>(18, -99.0f);
  uint64_t bytes[6];
  void* b[6];
  int Run() {
    bytes[0] = kSig.size() * 4;
    bytes[1] = 8;
    bytes[2] = ip[6] * 4;
    bytes[3] = ip[7] ? 8 : 0;
    bytes[4] = table.size() * 8;
    bytes[5] = y.size() * 4;
    b[0] = const_cast<float*>(kSig.data());
    b[1] = &step;
    b[2] = window.data();
    b[3] = &fl;
    b[4] = table.data();
    b[5] = y.data();
    const int c = kiln_stft_f32_check(ip.data(), 11, nullptr, 0, bytes);
    if (c != KILN_OK) return c;
    return kiln_stft_f32(ip.data(), nullptr, b, nullptr);
  }
};

TEST(StftKernel, WindowedMatchesNumPyWithAndWithoutTable) {
  for (bool table : {true, false}) {
    Stft s;
    s.ip = {1, 10, 1, 3, 3, 1, 4, 0, table ? 4 : 0, KILN_DTYPE_I64, 0};
    if (table) s.table = Table(4);
    ASSERT_EQ(s.Run(), KILN_OK);
    ExpectNear(s.y, kStftRef);
  }
}

TEST(StftKernel, FrameLengthScalarMatchesNaive) {
  // No window (rectangular), full spectrum, fl = 4 read at run time.
  Stft s;
  s.ip = {1, 10, 1, 3, 4, 0, 0, 1, 0, KILN_DTYPE_I64, KILN_DTYPE_I64};
  s.y.assign(24, 0);
  ASSERT_EQ(s.Run(), KILN_OK);
  std::vector<cd> ref;
  for (int f = 0; f < 3; ++f) {
    std::vector<float> frame(kSig.begin() + 3 * f, kSig.begin() + 3 * f + 4), cx;
    for (float v : frame) cx.insert(cx.end(), {v, 0.0f});
    std::vector<cd> r = Naive(cx, 1, 4, 1, 4, false);
    ref.insert(ref.end(), r.begin(), r.end());
  }
  ExpectNear(s.y, ref);
}

TEST(StftKernel, RunTimeScalarsMustGiveTheCompiledShape) {
  const std::vector<int64_t> ip = {1, 10, 1, 3, 3, 1, 4, 1, 4, KILN_DTYPE_I64, KILN_DTYPE_I64};
  for (auto [step, fl] : {std::pair<int64_t, int64_t>{2, 4}, {0, 4}, {-3, 4}, {3, 5},
                          {3, 0}, {3, -4}, {INT64_MAX, 4}}) {
    Stft s;
    s.ip = ip;
    s.table = Table(4);
    s.step = step;
    s.fl = fl;
    EXPECT_EQ(s.Run(), KILN_ERR_INVALID_ARGUMENT) << step << " " << fl;
    for (float v : s.y) EXPECT_EQ(v, -99.0f);  // untouched
  }
}

TEST(StftCheck, RefusesBadParamsAndShortBindings) {
  Stft s;
  s.ip = {1, 10, 1, 3, 3, 1, 4, 1, 4, KILN_DTYPE_I64, KILN_DTYPE_I64};
  s.table = Table(4);
  ASSERT_EQ(s.Run(), KILN_OK);
  for (int k = 0; k < 6; ++k) {
    uint64_t bytes[6];
    for (int i = 0; i < 6; ++i) bytes[i] = s.bytes[i];
    bytes[k] -= 1;
    EXPECT_EQ(kiln_stft_f32_check(s.ip.data(), 11, nullptr, 0, bytes), KILN_ERR_OUT_OF_RANGE)
        << k;
  }
  const auto with = [&](int k, int64_t v) {
    std::vector<int64_t> p = s.ip;
    p[k] = v;
    return kiln_stft_f32_check(p.data(), 11, nullptr, 0, s.bytes);
  };
  EXPECT_NE(kiln_stft_f32_check(s.ip.data(), 10, nullptr, 0, s.bytes), KILN_OK);
  EXPECT_NE(with(2, 3), KILN_OK);                 // C
  EXPECT_NE(with(5, 2), KILN_OK);                 // onesided
  EXPECT_NE(with(9, KILN_DTYPE_F32), KILN_OK);    // step dtype
  EXPECT_NE(with(10, KILN_DTYPE_F32), KILN_OK);   // frame_length dtype
  EXPECT_NE(with(1, -1), KILN_OK);
  EXPECT_NE(with(4, int64_t{1} << 30), KILN_OK);  // K * 2K terms beyond the work limit
  std::vector<int64_t> none = s.ip;               // neither window nor frame_length
  none[6] = 0;
  none[7] = 0;
  EXPECT_NE(kiln_stft_f32_check(none.data(), 11, nullptr, 0, s.bytes), KILN_OK);
}

// stft_dims against shapes an independent implementation gave: ONNX's
// test_stft declares [1, 15, 9, 2] for L = 128, step 8, frame_length 16,
// onesided; ONNX Runtime gave [2, 6, 12, 2] for L = 50, a 12-point window,
// step 7, two-sided (tests/models/opset/unbounded/stft17_window_runtime_step).
TEST(StftDims, ReportsFramesAndBinsOfTheRunTimeScalars) {
  struct Case {
    std::vector<int64_t> ip;  // L onesided window_len has_fl step_dtype fl_dtype
    int64_t step, fl, frames, bins;
  };
  for (const Case& t : {Case{{128, 1, 0, 1, KILN_DTYPE_I64, KILN_DTYPE_I64}, 8, 16, 15, 9},
                        Case{{50, 0, 12, 0, KILN_DTYPE_I64, 0}, 7, 0, 6, 12},
                        Case{{50, 0, 12, 1, KILN_DTYPE_I64, KILN_DTYPE_I64}, 7, 12, 6, 12}}) {
    int64_t step = t.step, fl = t.fl, dims[2] = {-1, -1};
    const uint64_t bytes[3] = {8, t.ip[3] ? 8u : 0u, 16};
    void* b[3] = {&step, &fl, dims};
    ASSERT_EQ(kiln_stft_dims_check(t.ip.data(), 6, nullptr, 0, bytes), KILN_OK);
    ASSERT_EQ(kiln_stft_dims(t.ip.data(), nullptr, b, nullptr), KILN_OK);
    EXPECT_EQ(dims[0], t.frames);
    EXPECT_EQ(dims[1], t.bins);
  }
}

TEST(StftDims, RefusesStepsAndLengthsOutOfRangeAndBadParams) {
  const std::vector<int64_t> ip = {10, 1, 0, 1, KILN_DTYPE_I64, KILN_DTYPE_I64};
  const uint64_t bytes[3] = {8, 8, 16};
  for (auto [step, fl] : {std::pair<int64_t, int64_t>{0, 4}, {-1, 4}, {3, 0}, {3, 11},
                          {3, -4}}) {
    int64_t dims[2] = {-1, -1};
    void* b[3] = {&step, &fl, dims};
    EXPECT_EQ(kiln_stft_dims(ip.data(), nullptr, b, nullptr), KILN_ERR_INVALID_ARGUMENT)
        << step << " " << fl;
    EXPECT_EQ(dims[0], -1);  // untouched
  }
  int64_t step = 3, wrong_fl = 5, dims[2];
  std::vector<int64_t> windowed = ip;
  windowed[2] = 4;  // a window of 4 and a frame_length of 5 disagree
  void* b[3] = {&step, &wrong_fl, dims};
  EXPECT_EQ(kiln_stft_dims(windowed.data(), nullptr, b, nullptr), KILN_ERR_INVALID_ARGUMENT);
  const auto with = [&](int k, int64_t v) {
    std::vector<int64_t> p = ip;
    p[k] = v;
    return kiln_stft_dims_check(p.data(), 6, nullptr, 0, bytes);
  };
  EXPECT_NE(kiln_stft_dims_check(ip.data(), 5, nullptr, 0, bytes), KILN_OK);
  EXPECT_NE(with(1, 2), KILN_OK);                // onesided
  EXPECT_NE(with(4, KILN_DTYPE_F32), KILN_OK);   // step dtype
  EXPECT_NE(with(5, KILN_DTYPE_F32), KILN_OK);   // frame_length dtype
  EXPECT_NE(with(3, 0), KILN_OK);                // neither window nor frame_length
  for (int k = 0; k < 3; ++k) {
    uint64_t short_bytes[3] = {bytes[0], bytes[1], bytes[2]};
    short_bytes[k] -= 1;
    EXPECT_EQ(kiln_stft_dims_check(ip.data(), 6, nullptr, 0, short_bytes), KILN_ERR_OUT_OF_RANGE)
        << k;
  }
}

}  // namespace
