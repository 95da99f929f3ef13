// topk, maxpool_argmax_f32, qmatmul, qconv2d, signal_window and
// mel_weight_matrix against NumPy/PyTorch references
// (tests/runtime/make_reference_ops.py), mel_weight_matrix_dims against shapes
// ONNX and ONNX Runtime gave, and their checkers' verdicts.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <tuple>
#include <utility>
#include <vector>

#include "kernel_case.h"

namespace {

using kiln_test::With;

KILN_REFERENCE_SUITE(TopKReference, "topk.f32_mid_axis", "topk.i32_smallest_ties",
                     "topk.i64_runtime_k", "topk.u8_all");
KILN_REFERENCE_SUITE(MaxPoolArgmaxReference, "maxpool_argmax_f32.padded",
                     "maxpool_argmax_f32.strided_col_major", "maxpool_argmax_f32.dilated");
KILN_REFERENCE_SUITE(QMatMulReference, "qmatmul.integer_rowzp_batch", "qmatmul.integer_i8_colzp",
                     "qmatmul.qlinear_u8", "qmatmul.qlinear_i8_per_col");
KILN_REFERENCE_SUITE(QConvReference, "qconv2d.integer_padded_grouped",
                     "qconv2d.integer_i8_per_channel_zp", "qconv2d.qlinear_u8",
                     "qconv2d.qlinear_i8_bias_per_channel");
KILN_REFERENCE_SUITE(SignalWindowReference, "signal_window.hann_10_periodic",
                     "signal_window.hann_17_symmetric", "signal_window.hamming_10_periodic",
                     "signal_window.hamming_17_symmetric", "signal_window.blackman_10_periodic",
                     "signal_window.blackman_17_symmetric");
KILN_REFERENCE_SUITE(MelWeightMatrixReference, "mel_weight_matrix.small",
                     "mel_weight_matrix.speech");

// Runs a case's kernel on its reference inputs with `patch` applied to input
// binding `b`; returns the kernel's status.
int RunPatched(const kiln_test::Case& c, size_t b, const void* patch, size_t n) {
  std::vector<std::vector<unsigned char>> buf(c.bindings.size());
  std::vector<void*> ptrs(c.bindings.size(), nullptr);
  for (size_t k = 0; k < c.bindings.size(); ++k) {
    const kiln_test::CaseBinding& cb = c.bindings[k];
    buf[k] = cb.role == kiln_test::kIn ? cb.initial : std::vector<unsigned char>(cb.nbytes);
    if (!buf[k].empty()) ptrs[k] = buf[k].data();
  }
  std::memcpy(buf[b].data(), patch, n);
  return kiln_test::FindKernel(c.kernel)->fn(c.iparams.data(), c.fp(), ptrs.data(), nullptr);
}

TEST(TopKRun, RefusesARunTimeKOtherThanTheCompiledOne) {
  KILN_LOAD_CASE("topk.i64_runtime_k", c);  // compiled for K = 2
  const int64_t two = 2, three = 3;
  EXPECT_EQ(RunPatched(c, 1, &two, 8), KILN_OK);
  EXPECT_EQ(RunPatched(c, 1, &three, 8), KILN_ERR_SHAPE_MISMATCH);
}

TEST(TopKCheck, RejectsKBeyondTheAxisBadDtypesAndUnboundedWork) {
  KILN_LOAD_CASE("topk.f32_mid_axis", c);  // dtype outer len inner K largest k_dtype
  EXPECT_EQ(c.Check(With(c.iparams, {{4, c.iparams[2] + 1}}), c.binding_bytes()),
            KILN_ERR_INVALID_ARGUMENT);
  for (int64_t t : {0, 9 /* bool */, 99}) {
    EXPECT_EQ(c.Check(With(c.iparams, {{0, t}}), c.binding_bytes()), KILN_ERR_INVALID_ARGUMENT);
  }
  EXPECT_EQ(c.Check(With(c.iparams, {{5, 2}}), c.binding_bytes()), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(c.Check(With(c.iparams, {{6, 1}}), c.binding_bytes()), KILN_ERR_INVALID_ARGUMENT);
  // inner = 0 empties every buffer; the outer x len x K loops must stay bounded.
  EXPECT_EQ(c.Check(With(c.iparams, {{1, int64_t{1} << 20}, {2, int64_t{1} << 20},
                                     {3, 0}, {4, int64_t{1} << 20}}),
                    c.binding_bytes()),
            KILN_ERR_OUT_OF_RANGE);
}

TEST(MaxPoolArgmaxCheck, RejectsBadStorageOrderAndUnboundedWindows) {
  KILN_LOAD_CASE("maxpool_argmax_f32.padded", c);
  EXPECT_EQ(c.Check(With(c.iparams, {{14, 2}}), c.binding_bytes()), KILN_ERR_INVALID_ARGUMENT);
  // A huge window over a real output: taps index nothing past the bounds
  // tests, so only the work bound stops it.
  EXPECT_EQ(c.Check(With(c.iparams, {{6, int64_t{1} << 30}, {7, int64_t{1} << 30}}),
                    c.binding_bytes()),
            KILN_ERR_OUT_OF_RANGE);
  EXPECT_EQ(c.Check(With(c.iparams, {{8, INT64_MAX}}), c.binding_bytes()), KILN_ERR_OUT_OF_RANGE);
}

TEST(QMatMulCheck, RejectsDtypesModesAndScalesWithoutRequantizing) {
  KILN_LOAD_CASE("qmatmul.integer_rowzp_batch", c);
  // a_dtype b_dtype y_dtype M N K a_zp b_zp a_scale b_scale R ...
  EXPECT_EQ(c.Check(With(c.iparams, {{0, 1}}), c.binding_bytes()), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(c.Check(With(c.iparams, {{2, 1}}), c.binding_bytes()), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(c.Check(With(c.iparams, {{6, 3}}), c.binding_bytes()), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(c.Check(With(c.iparams, {{8, 1}}), c.binding_bytes()), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(c.Check(With(c.iparams, {{10, 9}}), c.binding_bytes()), KILN_ERR_INVALID_ARGUMENT);
  // K = 0 leaves the M x N x batch loops bounded only by the work limit.
  KILN_LOAD_CASE("qmatmul.integer_i8_colzp", d);  // R = 0: M N K at 3 4 5
  std::vector<uint64_t> bytes = d.binding_bytes();
  bytes[8] = UINT64_MAX;
  EXPECT_EQ(d.Check(With(d.iparams, {{3, int64_t{1} << 21}, {4, int64_t{1} << 21}, {5, 0}}), bytes),
            KILN_ERR_OUT_OF_RANGE);
}

TEST(QConvCheck, RejectsGroupsModesAndDtypes) {
  KILN_LOAD_CASE("qconv2d.integer_padded_grouped", c);  // C=4, OC=6, groups=2
  EXPECT_EQ(c.Check(With(c.iparams, {{18, 0}}), c.binding_bytes()), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(c.Check(With(c.iparams, {{18, 3}}), c.binding_bytes()), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(c.Check(With(c.iparams, {{19, 2}}), c.binding_bytes()), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(c.Check(With(c.iparams, {{21, 1}}), c.binding_bytes()), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(c.Check(With(c.iparams, {{22, 2}}), c.binding_bytes()), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(c.Check(With(c.iparams, {{1, 6}}), c.binding_bytes()), KILN_ERR_INVALID_ARGUMENT);
  KILN_LOAD_CASE("qconv2d.qlinear_u8", q);
  EXPECT_EQ(q.Check(With(q.iparams, {{21, 0}}), q.binding_bytes()), KILN_ERR_INVALID_ARGUMENT);
}

TEST(SignalWindowRun, RefusesASizeOtherThanTheCompiledOne) {
  KILN_LOAD_CASE("signal_window.hann_10_periodic", c);
  const int32_t ten = 10, eleven = 11;
  EXPECT_EQ(RunPatched(c, 0, &ten, 4), KILN_OK);
  EXPECT_EQ(RunPatched(c, 0, &eleven, 4), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(c.Check(With(c.iparams, {{0, 3}}), c.binding_bytes()), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(c.Check(With(c.iparams, {{4, 6}}), c.binding_bytes()), KILN_ERR_INVALID_ARGUMENT);
}

TEST(MelWeightMatrixRun, RefusesMismatchedSizesAndBinsOutsideTheSpectrum) {
  KILN_LOAD_CASE("mel_weight_matrix.small", c);  // 8 bins, dft 16, rate 8192
  const int32_t nine = 9, dft20 = 20, tiny_rate = 1;
  EXPECT_EQ(RunPatched(c, 0, &nine, 4), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(RunPatched(c, 1, &dft20, 4), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(RunPatched(c, 2, &tiny_rate, 4), KILN_ERR_OUT_OF_RANGE);
  EXPECT_EQ(c.Check(With(c.iparams, {{1, 0}}), c.binding_bytes()), KILN_ERR_INVALID_ARGUMENT);
}

// mel_weight_matrix_dims against shapes an independent implementation gave:
// ONNX's test_melweightmatrix declares [9, 8] for 8 bins and dft_length 16;
// ONNX Runtime gave [32, 12] for 12 bins and dft_length 63
// (tests/models/opset/unbounded/melweightmatrix17_runtime_sizes, second run).
TEST(MelWeightMatrixDims, ReportsTheSpectrumAndMelBins) {
  for (auto [bins, dft, rows] : {std::tuple<int64_t, int64_t, int64_t>{8, 16, 9}, {12, 63, 32}}) {
    int64_t dims[2] = {-1, -1};
    void* b[3] = {&bins, &dft, dims};
    const int64_t ip[1] = {KILN_DTYPE_I64};
    const uint64_t bytes[3] = {8, 8, 16};
    ASSERT_EQ(kiln_mel_weight_matrix_dims_check(ip, 1, nullptr, 0, bytes), KILN_OK);
    ASSERT_EQ(kiln_mel_weight_matrix_dims(ip, nullptr, b, nullptr), KILN_OK);
    EXPECT_EQ(dims[0], rows);
    EXPECT_EQ(dims[1], bins);
  }
  int32_t bins32 = 5, dft32 = 10;
  int64_t dims[2];
  void* b[3] = {&bins32, &dft32, dims};
  const int64_t ip32[1] = {KILN_DTYPE_I32};
  ASSERT_EQ(kiln_mel_weight_matrix_dims(ip32, nullptr, b, nullptr), KILN_OK);
  EXPECT_EQ(dims[0], 6);
  EXPECT_EQ(dims[1], 5);
}

TEST(MelWeightMatrixDims, RefusesNoBinsANegativeLengthAndBadParams) {
  const int64_t ip[1] = {KILN_DTYPE_I64};
  for (auto [bins, dft] : {std::pair<int64_t, int64_t>{0, 16}, {-2, 16}, {8, -1}}) {
    int64_t dims[2] = {-1, -1};
    void* b[3] = {&bins, &dft, dims};
    EXPECT_EQ(kiln_mel_weight_matrix_dims(ip, nullptr, b, nullptr), KILN_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(dims[0], -1);
  }
  const uint64_t bytes[3] = {8, 8, 16};
  const int64_t float_ip[1] = {KILN_DTYPE_F32};
  EXPECT_EQ(kiln_mel_weight_matrix_dims_check(float_ip, 1, nullptr, 0, bytes),
            KILN_ERR_INVALID_ARGUMENT);
  EXPECT_NE(kiln_mel_weight_matrix_dims_check(ip, 2, nullptr, 0, bytes), KILN_OK);
  for (int k = 0; k < 3; ++k) {
    uint64_t short_bytes[3] = {8, 8, 16};
    short_bytes[k] -= 1;
    EXPECT_EQ(kiln_mel_weight_matrix_dims_check(ip, 1, nullptr, 0, short_bytes),
              KILN_ERR_OUT_OF_RANGE) << k;
  }
}

}  // namespace
