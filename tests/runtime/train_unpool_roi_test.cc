// The optimizer kernels (optimizers.c), max_unpool.c and roi_align.c:
// results against the NumPy references of make_reference_train_unpool_roi.py,
// the checkers' verdicts on those cases, and the run-time refusals
// (KILN_ERR_INDEX_OUT_OF_RANGE with the output untouched) of an unpool index
// outside the tensor, a batch index outside the batch and an adaptive grid
// that cannot be computed. The compiled path is covered by the ONNX node
// conformance tests (VM and AOT).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "kernel_case.h"
#include "kiln/kernels.h"

KILN_REFERENCE_SUITE(AdagradReference, "adagrad_f32.t0", "adagrad_f32.t5_decay");
KILN_REFERENCE_SUITE(AdamReference, "adam_f32.t0", "adam_f32.t3_post", "adam_f32.t1_large_beta");
KILN_REFERENCE_SUITE(MomentumReference, "momentum_f32.standard_t0", "momentum_f32.standard_t4",
                     "momentum_f32.nesterov_t0", "momentum_f32.nesterov_t2");
KILN_REFERENCE_SUITE(MaxUnpoolReference, "max_unpool.f32_2d_same", "max_unpool.f32_2d_larger",
                     "max_unpool.f64_1d_larger", "max_unpool.f16_3d_same",
                     "max_unpool.f32_duplicates");
KILN_REFERENCE_SUITE(RoiAlignReference, "roi_align_f32.avg_half_pixel_adaptive",
                     "roi_align_f32.avg_output_half_pixel_fixed",
                     "roi_align_f32.max_half_pixel_fixed",
                     "roi_align_f32.max_output_half_pixel_adaptive",
                     "roi_align_f32.avg_one_by_one_map");

namespace {

using kiln_test::Case;
using Bytes = std::vector<unsigned char>;

Case Load(const std::string& name) {
  Case c;
  std::string error;
  EXPECT_TRUE(kiln_test::LoadCase(name, &c, &error)) << error;
  return c;
}

// Runs case `name` with input binding k's bytes replaced by `values` (same
// size); returns the kernel's code and whether the output (the last
// binding) kept its sentinel bytes.
int RunWith(const std::string& name, size_t k, const Bytes& values, bool* untouched) {
  Case c = Load(name);
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
  EXPECT_EQ(RunWith(name, k, values, &untouched), KILN_ERR_INDEX_OUT_OF_RANGE) << name;
  EXPECT_TRUE(untouched) << name << ": the output was written";
}

template <typename T>
std::vector<T> Values(const std::string& name, size_t k) {
  Case c = Load(name);
  const Bytes& b = c.bindings.at(k).initial;
  std::vector<T> v(b.size() / sizeof(T));
  if (!v.empty()) std::memcpy(v.data(), b.data(), b.size());
  return v;
}

template <typename T>
Bytes AsBytes(const std::vector<T>& v) {
  Bytes b(v.size() * sizeof(T));
  if (!b.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}

TEST(MaxUnpoolKernel, RefusesAnIndexOutsideTheUnpooledTensor) {
  // f32_2d_larger: inferred [2,1,4,4] (32 positions) inside a [2,1,5,7] output.
  const std::string name = "max_unpool.f32_2d_larger";
  for (int64_t bad : {int64_t{-1}, int64_t{32}, int64_t{2 * 5 * 7},
                      std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min()}) {
    for (size_t at : {size_t{0}, size_t{7}}) {  // first and last element
      std::vector<int64_t> idx = Values<int64_t>(name, 1);
      idx.at(at) = bad;
      ExpectRefused(name, 1, AsBytes(idx));
    }
  }
  // The last valid position is accepted.
  std::vector<int64_t> idx = Values<int64_t>(name, 1);
  idx[0] = 31;
  bool untouched = false;
  EXPECT_EQ(RunWith(name, 1, AsBytes(idx), &untouched), KILN_OK);
}

TEST(MaxUnpoolKernel, CheckerRefusesAnOutputSmallerThanTheUnpooledShape) {
  Case c = Load("max_unpool.f32_2d_larger");  // elem n R inferred[4] out[4]
  const std::vector<uint64_t> bytes = c.binding_bytes();
  EXPECT_EQ(c.Check(c.iparams, bytes), KILN_OK);
  EXPECT_EQ(c.Check(kiln_test::With(c.iparams, {{3 + 4 + 3, 3}}), bytes),
            KILN_ERR_INVALID_ARGUMENT);  // out W 3 < inferred W 4
  EXPECT_EQ(c.Check(kiln_test::With(c.iparams, {{0, 9}}), bytes), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(c.Check(kiln_test::With(c.iparams, {{2, 9}}), bytes), KILN_ERR_INVALID_ARGUMENT);
  // More X elements than the bindings hold.
  EXPECT_EQ(c.Check(kiln_test::With(c.iparams, {{1, 9}}), bytes), KILN_ERR_OUT_OF_RANGE);
}

TEST(RoiAlignKernel, RefusesABatchIndexOutsideTheBatch) {
  // avg_half_pixel_adaptive: N = 2, six regions.
  const std::string name = "roi_align_f32.avg_half_pixel_adaptive";
  for (int64_t bad : {int64_t{-1}, int64_t{2}, std::numeric_limits<int64_t>::max(),
                      std::numeric_limits<int64_t>::min()}) {
    for (size_t at : {size_t{0}, size_t{5}}) {
      std::vector<int64_t> batch = Values<int64_t>(name, 2);
      batch.at(at) = bad;
      ExpectRefused(name, 2, AsBytes(batch));
    }
  }
}

TEST(RoiAlignKernel, RefusesAnAdaptiveGridThatCannotBeComputed) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  struct Case {
    const char* name;
    std::vector<float> bad;
  };
  // NaN and infinite region sides (3e38 * spatial_scale 1.1 overflows);
  // minus infinity too in half_pixel mode, where a reversed region is not
  // widened to 1x1.
  const Case cases[] = {{"roi_align_f32.max_output_half_pixel_adaptive", {nan, inf, 3e38f}},
                        {"roi_align_f32.avg_half_pixel_adaptive", {nan, inf, -inf}}};
  for (const Case& c : cases) {
    for (float v : c.bad) {
      std::vector<float> rois = Values<float>(c.name, 1);
      rois.at(4 * 2 + 3) = v;  // y2 of region 2
      SCOPED_TRACE(v);
      ExpectRefused(c.name, 1, AsBytes(rois));
    }
  }
}

TEST(RoiAlignKernel, AFixedGridToleratesAnyRegion) {
  // With sampling_ratio 2 every sample of a non-finite region lies outside
  // the map and reads as 0; nothing is refused and nothing is read out of
  // bounds (ASan builds check the latter).
  const std::string name = "roi_align_f32.max_half_pixel_fixed";
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  for (float bad : {nan, inf, -inf, 3e38f, -3e38f}) {
    std::vector<float> rois = Values<float>(name, 1);
    for (size_t k = 0; k < 4; ++k) rois.at(4 + k) = bad;
    bool untouched = false;
    EXPECT_EQ(RunWith(name, 1, AsBytes(rois), &untouched), KILN_OK) << bad;
  }
}

TEST(RoiAlignKernel, CheckerRefusesEmptyMapsAndBadEnums) {
  Case c = Load("roi_align_f32.avg_output_half_pixel_fixed");
  const std::vector<uint64_t> bytes = c.binding_bytes();
  EXPECT_EQ(c.Check(c.iparams, bytes), KILN_OK);
  for (size_t k : {size_t{0}, size_t{2}, size_t{3}, size_t{5}, size_t{6}}) {  // N H W OH OW
    EXPECT_EQ(c.Check(kiln_test::With(c.iparams, {{k, 0}}), bytes), KILN_ERR_INVALID_ARGUMENT)
        << "iparam " << k;
  }
  EXPECT_EQ(c.Check(kiln_test::With(c.iparams, {{8, 2}}), bytes), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(c.Check(kiln_test::With(c.iparams, {{9, 2}}), bytes), KILN_ERR_INVALID_ARGUMENT);
  // A fixed grid whose work exceeds the limit.
  EXPECT_EQ(c.Check(kiln_test::With(c.iparams, {{7, int64_t{1} << 30}}), bytes),
            KILN_ERR_OUT_OF_RANGE);
}

TEST(OptimizerKernels, CheckersRefuseShortScalarsAndBadModes) {
  for (const char* name : {"adagrad_f32.t0", "adam_f32.t0", "momentum_f32.nesterov_t0"}) {
    Case c = Load(name);
    std::vector<uint64_t> bytes = c.binding_bytes();
    EXPECT_EQ(c.Check(c.iparams, bytes), KILN_OK) << name;
    bytes[0] = 3;  // R is one float32
    EXPECT_EQ(c.Check(c.iparams, bytes), KILN_ERR_OUT_OF_RANGE) << name;
    bytes = c.binding_bytes();
    bytes[1] = 4;  // T is one int64
    EXPECT_EQ(c.Check(c.iparams, bytes), KILN_ERR_OUT_OF_RANGE) << name;
    // More elements than the tensors hold.
    EXPECT_EQ(c.Check(kiln_test::With(c.iparams, {{0, c.iparams[0] + 1}}), c.binding_bytes()),
              KILN_ERR_OUT_OF_RANGE)
        << name;
  }
  Case m = Load("momentum_f32.standard_t0");
  EXPECT_EQ(m.Check(kiln_test::With(m.iparams, {{1, 2}}), m.binding_bytes()),
            KILN_ERR_INVALID_ARGUMENT);
}

TEST(OptimizerKernels, TheUpdateCountSwitchesBiasCorrection) {
  // Momentum's gradient coefficient is 1 at T = 0 and beta after; Adam's
  // learning rate is bias-corrected only for T > 0. Running the T = 0 case
  // with T = 1 must therefore change X_new (the references cover both).
  for (const char* name : {"momentum_f32.standard_t0", "adam_f32.t0"}) {
    Case c = Load(name);
    std::vector<Bytes> buf(c.bindings.size());
    std::vector<void*> ptrs(c.bindings.size());
    for (size_t i = 0; i < c.bindings.size(); ++i) {
      buf[i] = c.bindings[i].role == kiln_test::kOut ? Bytes(c.bindings[i].nbytes, 0)
                                                      : c.bindings[i].initial;
      ptrs[i] = buf[i].data();
    }
    const int64_t one = 1;
    std::memcpy(buf[1].data(), &one, sizeof one);
    ASSERT_EQ(kiln_test::FindKernel(c.kernel)->fn(c.iparams.data(), c.fp(), ptrs.data(), nullptr),
              KILN_OK);
    const size_t x_new = c.kernel == "adam_f32" ? 6 : 5;
    EXPECT_NE(buf[x_new], c.bindings[x_new].expected) << name;
  }
}

}  // namespace
