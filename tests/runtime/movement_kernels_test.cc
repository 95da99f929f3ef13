// Index-driven and movement kernels (gather.c, pad.c, cumsum.c, mask.c,
// resize.c, einsum.c, rnn.c, strided_copy's negative strides): small cases
// with hand-computed results, run-time index errors, and the checkers'
// verdicts on parameters that would reach outside a binding. Full numeric
// coverage comes from the ONNX node tests (conformance) and
// tests/models/generate_movement.py (PyTorch references).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "kiln/kernels.h"

namespace {

template <typename T>
uint64_t Bytes(const std::vector<T>& v) { return v.size() * sizeof(T); }

int Check(kiln_kernel_check_fn fn, const std::vector<int64_t>& ip, const std::vector<float>& fp,
          const std::vector<uint64_t>& bytes) {
  return fn(ip.data(), static_cast<uint32_t>(ip.size()), fp.empty() ? nullptr : fp.data(),
            static_cast<uint32_t>(fp.size()), bytes.data());
}

TEST(GatherKernel, GathersRowsAndWrapsNegativeIndices) {
  const std::vector<float> x = {0, 1, 2, 3, 4, 5};  // [3, 2]
  const std::vector<int64_t> idx = {2, -3, 1};
  std::vector<float> y(6, -1);
  const std::vector<int64_t> ip = {4, 8, 1, 3, 2, 3};
  ASSERT_EQ(Check(kiln_gather_check, ip, {}, {Bytes(x), Bytes(idx), Bytes(y)}), KILN_OK);
  void* b[] = {const_cast<float*>(x.data()), const_cast<int64_t*>(idx.data()), y.data()};
  ASSERT_EQ(kiln_gather(ip.data(), nullptr, b, nullptr), KILN_OK);
  EXPECT_EQ(y, (std::vector<float>{4, 5, 0, 1, 2, 3}));
}

TEST(GatherKernel, OutOfRangeRunTimeIndexFailsWithoutReading) {
  const std::vector<float> x = {0, 1, 2, 3, 4, 5};
  for (int32_t bad : {3, -4, 1 << 30}) {
    const std::vector<int32_t> idx = {0, bad};
    std::vector<float> y(4, -1);
    const std::vector<int64_t> ip = {4, 4, 1, 3, 2, 2};
    void* b[] = {const_cast<float*>(x.data()), const_cast<int32_t*>(idx.data()), y.data()};
    EXPECT_EQ(kiln_gather(ip.data(), nullptr, b, nullptr), KILN_ERR_OUT_OF_RANGE) << bad;
  }
}

TEST(GatherKernel, CheckerRejectsShortBindingsAndBadIndexWidth) {
  const std::vector<int64_t> ip = {4, 8, 1, 3, 2, 3};
  EXPECT_EQ(Check(kiln_gather_check, ip, {}, {24, 23, 24}), KILN_ERR_OUT_OF_RANGE);
  EXPECT_EQ(Check(kiln_gather_check, ip, {}, {20, 24, 24}), KILN_ERR_OUT_OF_RANGE);
  EXPECT_EQ(Check(kiln_gather_check, {4, 2, 1, 3, 2, 3}, {}, {24, 24, 24}),
            KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(Check(kiln_gather_check, {4, 8, int64_t{1} << 40, int64_t{1} << 40, 2, 3}, {},
                  {24, 24, 24}),
            KILN_ERR_OUT_OF_RANGE);
}

TEST(ScatterElementsKernel, AddsDuplicatesAndRejectsBadIndex) {
  const std::vector<float> data = {1, 2, 3, 4};  // [1, 4]
  const std::vector<int64_t> idx = {1, 1, -1};    // [1, 3]
  const std::vector<float> upd = {10, 20, 30};
  std::vector<float> y(4);
  // eb ib R axis kind(f32) reduction(add) data_dims index_dims
  const std::vector<int64_t> ip = {4, 8, 2, 1, 1, 1, 1, 4, 1, 3};
  ASSERT_EQ(Check(kiln_scatter_elements_check, ip, {}, {16, 24, 12, 16}), KILN_OK);
  void* b[] = {const_cast<float*>(data.data()), const_cast<int64_t*>(idx.data()),
               const_cast<float*>(upd.data()), y.data()};
  ASSERT_EQ(kiln_scatter_elements(ip.data(), nullptr, b, nullptr), KILN_OK);
  EXPECT_EQ(y, (std::vector<float>{1, 32, 3, 34}));
  const std::vector<int64_t> bad = {1, 4, 0};
  b[1] = const_cast<int64_t*>(bad.data());
  EXPECT_EQ(kiln_scatter_elements(ip.data(), nullptr, b, nullptr), KILN_ERR_OUT_OF_RANGE);
  // Index dims larger than data dims off the axis would read outside.
  EXPECT_EQ(Check(kiln_scatter_elements_check, {4, 8, 2, 1, 1, 1, 1, 4, 2, 3}, {},
                  {16, 48, 24, 16}),
            KILN_ERR_INVALID_ARGUMENT);
  // A reduction on raw bytes is meaningless.
  EXPECT_EQ(Check(kiln_scatter_elements_check, {4, 8, 2, 1, 0, 1, 1, 4, 1, 3}, {},
                  {16, 24, 12, 16}),
            KILN_ERR_INVALID_ARGUMENT);
}

TEST(GatherNDKernel, GathersSlicesAndRejectsBadIndex) {
  const std::vector<int32_t> data = {0, 1, 2, 3, 4, 5, 6, 7};  // [2, 2, 2]
  const std::vector<int64_t> idx = {1, 0, 0, 1};                // [2, 2] → k = 2
  std::vector<int32_t> y(4);
  const std::vector<int64_t> ip = {4, 8, 0, 0, 1, 2, 2, 2, 2, 2};
  ASSERT_EQ(Check(kiln_gather_nd_check, ip, {}, {32, 32, 16}), KILN_OK);
  void* b[] = {const_cast<int32_t*>(data.data()), const_cast<int64_t*>(idx.data()), y.data()};
  ASSERT_EQ(kiln_gather_nd(ip.data(), nullptr, b, nullptr), KILN_OK);
  EXPECT_EQ(y, (std::vector<int32_t>{4, 5, 2, 3}));
  const std::vector<int64_t> bad = {2, 0, 0, 0};
  b[1] = const_cast<int64_t*>(bad.data());
  EXPECT_EQ(kiln_gather_nd(ip.data(), nullptr, b, nullptr), KILN_ERR_OUT_OF_RANGE);
  EXPECT_EQ(Check(kiln_gather_nd_check, ip, {}, {31, 32, 16}), KILN_ERR_OUT_OF_RANGE);
}

TEST(PadKernel, ReflectEdgeConstant) {
  const std::vector<float> x = {1, 2, 3};
  for (auto [mode, want] : std::vector<std::pair<int64_t, std::vector<float>>>{
           {0, {9, 9, 1, 2, 3, 9}}, {1, {1, 1, 1, 2, 3, 3}}, {2, {3, 2, 1, 2, 3, 2}}}) {
    std::vector<float> y(6);
    const float fill = 9;
    int64_t bits = 0;
    memcpy(&bits, &fill, 4);
    const std::vector<int64_t> ip = {4, mode, 1, bits, 3, 2, 6};
    ASSERT_EQ(Check(kiln_pad_check, ip, {}, {12, 24}), KILN_OK);
    void* b[] = {const_cast<float*>(x.data()), y.data()};
    ASSERT_EQ(kiln_pad(ip.data(), nullptr, b, nullptr), KILN_OK);
    EXPECT_EQ(y, want) << "mode " << mode;
  }
  EXPECT_EQ(Check(kiln_pad_check, {4, 0, 1, 0, 3, 2, 6}, {}, {11, 24}), KILN_ERR_OUT_OF_RANGE);
  EXPECT_EQ(Check(kiln_pad_check, {4, 2, 1, 0, 0, 2, 6}, {}, {0, 24}), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(Check(kiln_pad_check, {4, 0, 1, 0, 3, INT64_MIN, 6}, {}, {12, 24}),
            KILN_ERR_INVALID_ARGUMENT);
}

TEST(StridedCopyKernel, NegativeSourceStridesAreBoundedBelow) {
  const std::vector<float> x = {0, 1, 2, 3, 4};
  std::vector<float> y(3);
  // Reverse every other element: start at 4, stride -2.
  const std::vector<int64_t> ip = {4, 1, 4, 0, 3, -2, 1};
  ASSERT_EQ(Check(kiln_strided_copy_check, ip, {}, {20, 12}), KILN_OK);
  void* b[] = {const_cast<float*>(x.data()), y.data()};
  ASSERT_EQ(kiln_strided_copy(ip.data(), nullptr, b, nullptr), KILN_OK);
  EXPECT_EQ(y, (std::vector<float>{4, 2, 0}));
  EXPECT_EQ(Check(kiln_strided_copy_check, {4, 1, 3, 0, 3, -2, 1}, {}, {20, 12}),
            KILN_ERR_INVALID_ARGUMENT);  // would reach index -1
  EXPECT_EQ(Check(kiln_strided_copy_check, {4, 1, 4, 0, 3, 2, -1}, {}, {20, 12}),
            KILN_ERR_INVALID_ARGUMENT);  // destination strides stay >= 0
}

TEST(CumSumKernel, RunTimeAxisIsRangeChecked) {
  const std::vector<float> x = {1, 2, 3, 4, 5, 6};  // [2, 3]
  std::vector<float> y(6);
  const std::vector<int64_t> axis = {-1};
  const std::vector<int64_t> ip = {1, 8, 1, 0, 0, 2, 2, 3};  // exclusive, axis from binding
  ASSERT_EQ(Check(kiln_cumsum_check, ip, {}, {24, 8, 24}), KILN_OK);
  void* b[] = {const_cast<float*>(x.data()), const_cast<int64_t*>(axis.data()), y.data()};
  ASSERT_EQ(kiln_cumsum(ip.data(), nullptr, b, nullptr), KILN_OK);
  EXPECT_EQ(y, (std::vector<float>{0, 1, 3, 0, 4, 9}));
  const std::vector<int64_t> bad = {2};
  b[1] = const_cast<int64_t*>(bad.data());
  EXPECT_EQ(kiln_cumsum(ip.data(), nullptr, b, nullptr), KILN_ERR_OUT_OF_RANGE);
  EXPECT_EQ(Check(kiln_cumsum_check, ip, {}, {24, 4, 24}), KILN_ERR_OUT_OF_RANGE);
}

TEST(ResizeKernel, CheckerRejectsTableIndexOutsideInput) {
  // 1-D, in 2 → out 3, one tap each, weights 1.
  std::vector<int64_t> ip = {1, 2, 3, 1, 0, 1, 1};
  const std::vector<float> fp = {1, 1, 1, 0};
  ASSERT_EQ(Check(kiln_resize_f32_check, ip, fp, {8, 12}), KILN_OK);
  const std::vector<float> x = {5, 7};
  std::vector<float> y(3);
  void* b[] = {const_cast<float*>(x.data()), y.data()};
  ASSERT_EQ(kiln_resize_f32(ip.data(), fp.data(), b, nullptr), KILN_OK);
  EXPECT_EQ(y, (std::vector<float>{5, 7, 7}));
  ip[6] = 2;
  EXPECT_EQ(Check(kiln_resize_f32_check, ip, fp, {8, 12}), KILN_ERR_OUT_OF_RANGE);
  ip[6] = -2;
  EXPECT_EQ(Check(kiln_resize_f32_check, ip, fp, {8, 12}), KILN_ERR_OUT_OF_RANGE);
  ip[6] = 1;
  EXPECT_EQ(Check(kiln_resize_f32_check, ip, {1, 1, 1}, {8, 12}), KILN_ERR_INVALID_ARGUMENT);
}

TEST(RecurrentKernel, CheckerBoundsEveryBinding) {
  // RNN, seq 2, batch 1, input 1, hidden 1, forward; has_y only.
  std::vector<int64_t> ip = {0, 2, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0,
                             1, 0, 0, 0, 0, 0, 2};
  const std::vector<float> fp(13, 0.0f);
  const int64_t scratch_floats = kiln_recurrent_scratch_floats(0, 2, 1, 1, 1, 0);
  ASSERT_GT(scratch_floats, 0);
  const uint64_t scratch_bytes = static_cast<uint64_t>(scratch_floats) * 4;
  std::vector<uint64_t> bytes = {8, 4, 4, 0, 0, 0, 0, 8, 0, 0, scratch_bytes, 0};
  ASSERT_EQ(Check(kiln_recurrent_f32_check, ip, fp, bytes), KILN_OK);
  const std::vector<float> x = {1, 2}, w = {0.5f}, r = {0.25f};
  std::vector<float> y(2), scratch(static_cast<size_t>(scratch_floats));
  void* b[12] = {const_cast<float*>(x.data()), const_cast<float*>(w.data()),
                 const_cast<float*>(r.data()), nullptr, nullptr, nullptr, nullptr, y.data(),
                 nullptr, nullptr, scratch.data(), nullptr};
  ASSERT_EQ(kiln_recurrent_f32(ip.data(), fp.data(), b, nullptr), KILN_OK);
  const float h1 = std::tanh(0.5f), h2 = std::tanh(1.0f + 0.25f * h1);
  EXPECT_NEAR(y[0], h1, 1e-6);
  EXPECT_NEAR(y[1], h2, 1e-6);
  bytes[10] = scratch_bytes - 4;  // scratch too small
  EXPECT_EQ(Check(kiln_recurrent_f32_check, ip, fp, bytes), KILN_ERR_OUT_OF_RANGE);
  bytes[10] = scratch_bytes;
  ip.back() = 3;  // a sequence length beyond seq
  EXPECT_EQ(Check(kiln_recurrent_f32_check, ip, fp, bytes), KILN_ERR_INVALID_ARGUMENT);
  ip.back() = 2;
  ip[11] = 1;  // peepholes on an RNN
  EXPECT_EQ(Check(kiln_recurrent_f32_check, ip, fp, bytes), KILN_ERR_INVALID_ARGUMENT);
}

TEST(RecurrentKernel, HasLensTwoRunsEveryRowForTheWholeSequenceWithoutAList) {
  // The RNN above with has_lens 2: 25 iparams, no per-batch list (a
  // symbolic batch needs none); batch 2 rows, each over both steps.
  std::vector<int64_t> ip = {0, 2, 2, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 2,
                             1, 0, 0, 0, 0, 0};
  const std::vector<float> fp(13, 0.0f);
  const int64_t scratch_floats = kiln_recurrent_scratch_floats(0, 2, 1, 1, 1, 0);
  const uint64_t scratch_bytes = static_cast<uint64_t>(scratch_floats) * 4;
  const std::vector<uint64_t> bytes = {16, 4, 4, 0, 0, 0, 0, 16, 0, 0, scratch_bytes, 0};
  ASSERT_EQ(Check(kiln_recurrent_f32_check, ip, fp, bytes), KILN_OK);
  const std::vector<float> x = {1, -1, 2, 3}, w = {0.5f}, r = {0.25f};  // [seq, batch, 1]
  std::vector<float> y(4), scratch(static_cast<size_t>(scratch_floats));
  void* b[12] = {const_cast<float*>(x.data()), const_cast<float*>(w.data()),
                 const_cast<float*>(r.data()), nullptr, nullptr, nullptr, nullptr, y.data(),
                 nullptr, nullptr, scratch.data(), nullptr};
  ASSERT_EQ(kiln_recurrent_f32(ip.data(), fp.data(), b, nullptr), KILN_OK);
  for (int row = 0; row < 2; ++row) {
    const float h1 = std::tanh(0.5f * x[row]), h2 = std::tanh(0.5f * x[2 + row] + 0.25f * h1);
    EXPECT_NEAR(y[row], h1, 1e-6) << row;
    EXPECT_NEAR(y[2 + row], h2, 1e-6) << row;
  }
  ip.push_back(2);  // a list as well: the wrong iparam count
  ip.push_back(2);
  EXPECT_EQ(Check(kiln_recurrent_f32_check, ip, fp, bytes), KILN_ERR_INVALID_ARGUMENT);
  ip.resize(25);
  ip[18] = 3;  // no such mode
  EXPECT_EQ(Check(kiln_recurrent_f32_check, ip, fp, bytes), KILN_ERR_INVALID_ARGUMENT);
}

TEST(EinsumKernel, CheckerBoundsStridedOperands) {
  // "ij,jk->ik" with i=2, j=3, k=2: letters i k j.
  const std::vector<int64_t> ip = {3, 2, 1, 0, 2, 2, 3, 3, 0, 1, 0, 1, 2};
  ASSERT_EQ(Check(kiln_einsum_check, ip, {}, {24, 24, 16}), KILN_OK);
  EXPECT_EQ(Check(kiln_einsum_check, ip, {}, {20, 24, 16}), KILN_ERR_OUT_OF_RANGE);
  const std::vector<float> a = {1, 2, 3, 4, 5, 6}, bm = {1, 0, 0, 1, 1, 1};
  std::vector<float> y(4);
  void* b[] = {const_cast<float*>(a.data()), const_cast<float*>(bm.data()), y.data()};
  ASSERT_EQ(kiln_einsum(ip.data(), nullptr, b, nullptr), KILN_OK);
  EXPECT_EQ(y, (std::vector<float>{4, 5, 10, 11}));
}

}  // namespace
