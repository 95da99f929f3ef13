// resize_rt_f32 (runtime/kernels/resize_rt.c): results against ONNX's
// reference Resize (make_reference_resize.py) for every mode, nearest_mode
// and coordinate transformation, the checker's verdicts on those cases, and
// the run-time refusal (KILN_ERR_SHAPE_MISMATCH, output untouched) of
// scales that do not give the compiled output shape. The compiled path is
// covered end to end by tests/models/rtresize_ops (VM and AOT) and the ONNX
// node tests test_resize_*_scales_*, test_upsample_nearest and
// test_resize_tf_crop_and_resize.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "kernel_case.h"
#include "kiln/kernels.h"

KILN_REFERENCE_SUITE(ResizeRtReference, "resize_rt_f32.nearest_half_pixel",
                     "resize_rt_f32.nearest_ceil_asymmetric",
                     "resize_rt_f32.nearest_floor_asymmetric_upsample",
                     "resize_rt_f32.nearest_prefer_ceil_tf_half_pixel_for_nn",
                     "resize_rt_f32.nearest_prefer_ceil_align_corners",
                     "resize_rt_f32.linear_half_pixel_3d", "resize_rt_f32.linear_align_corners",
                     "resize_rt_f32.linear_pytorch_half_pixel_to_one", "resize_rt_f32.linear_1d",
                     "resize_rt_f32.cubic_half_pixel", "resize_rt_f32.cubic_exclude_outside",
                     "resize_rt_f32.cubic_asymmetric", "resize_rt_f32.cubic_align_corners",
                     "resize_rt_f32.tf_crop_linear_f32_roi",
                     "resize_rt_f32.tf_crop_nearest_f64_roi_sizes",
                     "resize_rt_f32.tf_crop_cubic_sizes", "resize_rt_f32.linear_sizes_half_pixel",
                     "resize_rt_f32.nearest_rank5", "resize_rt_f32.downsample_to_empty",
                     "resize_rt_f32.nearest_prefer_floor_ties",
                     "resize_rt_f32.nearest_prefer_ceil_ties");

namespace {

using kiln_test::Case;
using Ints = std::vector<int64_t>;

enum { kScales = 2, kOutput = 3 };
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

Case Load(const std::string& name) {
  Case c;
  std::string error;
  EXPECT_TRUE(kiln_test::LoadCase(name, &c, &error)) << error;
  return c;
}

// Runs case `c` with iparams `ip` and its scales binding replaced by
// `scales`; returns the kernel's code and leaves the output bytes (0xAB
// where unwritten) in *out.
int RunKernel(const Case& c, const std::vector<int64_t>& ip, const std::vector<float>& scales,
              std::vector<unsigned char>* out) {
  std::vector<std::vector<unsigned char>> buf(c.bindings.size());
  std::vector<void*> ptrs(c.bindings.size(), nullptr);
  for (size_t i = 0; i < c.bindings.size(); ++i) {
    buf[i] = i == kOutput ? std::vector<unsigned char>(c.bindings[i].nbytes, 0xAB)
                          : c.bindings[i].initial;
    if (!buf[i].empty()) ptrs[i] = buf[i].data();
  }
  EXPECT_EQ(buf[kScales].size(), scales.size() * sizeof(float));
  std::memcpy(buf[kScales].data(), scales.data(), buf[kScales].size());
  const int code = kiln_test::FindKernel(c.kernel)->fn(ip.data(), c.fp(), ptrs.data(), nullptr);
  *out = std::move(buf[kOutput]);
  return code;
}

// Runs case `name` with its scales replaced by `scales` (same count, so the
// checker still accepts the module); returns the kernel's code and whether
// the output kept its sentinel bytes.
int RunWithScales(const std::string& name, const std::vector<float>& scales, bool* untouched) {
  const Case c = Load(name);
  EXPECT_EQ(c.Check(c.iparams, c.binding_bytes()), KILN_OK) << name;
  std::vector<unsigned char> out;
  const int code = RunKernel(c, c.iparams, scales, &out);
  *untouched = true;
  for (unsigned char b : out) *untouched = *untouched && b == 0xAB;
  return code;
}

void ExpectRefused(const std::string& name, const std::vector<float>& scales) {
  bool untouched = false;
  EXPECT_EQ(RunWithScales(name, scales, &untouched), KILN_ERR_SHAPE_MISMATCH)
      << name << " scales " << ::testing::PrintToString(scales);
  EXPECT_TRUE(untouched) << name << ": the output was written";
}

void ExpectAccepted(const std::string& name, const std::vector<float>& scales) {
  bool untouched = true;
  EXPECT_EQ(RunWithScales(name, scales, &untouched), KILN_OK)
      << name << " scales " << ::testing::PrintToString(scales);
  EXPECT_FALSE(untouched) << name << ": nothing was written";
}

// x [1,2,4,5] resized by [1,1,0.6,1.7] to [1,2,2,8] (floor(2.4), floor(8.5)).
TEST(ResizeRtKernel, RefusesScalesThatGiveAnotherShape) {
  const std::string n = "resize_rt_f32.nearest_half_pixel";
  ExpectRefused(n, {1, 1, 0.8f, 1.7f});   // 3 rows, not 2
  ExpectRefused(n, {1, 1, 0.6f, 2.0f});   // 10 columns, not 8
  ExpectRefused(n, {2, 1, 0.6f, 1.7f});   // the batch doubles
  ExpectRefused(n, {1, 1, 0.6f, 0});      // zero
  ExpectRefused(n, {1, 1, -0.6f, 1.7f});  // negative
  ExpectRefused(n, {1, 1, kNaN, 1.7f});
  ExpectRefused(n, {1, 1, 0.6f, kInf});
  // Other scales that floor to the same shape resample differently but are valid.
  ExpectAccepted(n, {1, 1, 0.74f, 1.61f});
  ExpectAccepted(n, {1.5f, 1.4f, 0.5f, 1.6f});
  ExpectAccepted(n, {1, 1, 0.6f, 1.8f});  // float32 1.8 * 5 floors to 8
}

TEST(ResizeRtKernel, EmptyOutputStillChecksItsScales) {
  const std::string n = "resize_rt_f32.downsample_to_empty";  // [2,4] by [1,0.2] -> [2,0]
  bool untouched = false;
  EXPECT_EQ(RunWithScales(n, {1, 0.1f}, &untouched), KILN_OK);
  EXPECT_EQ(RunWithScales(n, {1, 0.25f}, &untouched), KILN_ERR_SHAPE_MISMATCH);
}

// With run-time sizes (check_scales 0) shape_check verifies the sizes; the
// scales binding holds out/in from the compiler and is not compared.
TEST(ResizeRtKernel, SizesFormDoesNotCheckScales) {
  bool untouched = true;
  EXPECT_EQ(RunWithScales("resize_rt_f32.linear_sizes_half_pixel", {1.5f, 0.5f}, &untouched),
            KILN_OK);
  EXPECT_FALSE(untouched);
}

std::vector<unsigned char> RunCase(const Case& c, const std::vector<int64_t>& ip,
                                   const std::vector<float>& scales) {
  std::vector<unsigned char> out;
  EXPECT_EQ(RunKernel(c, ip, scales, &out), KILN_OK);
  return out;
}

// Sizes known only during the run (KILN_RESIZE_SCALES_FROM_SIZES): the
// kernel derives out/in itself, ignoring the scales binding (NaN here), and
// samples exactly as with out/in bound by the compiler (the sizes form,
// checked against ONNX's reference Resize by the suite above).
TEST(ResizeRtKernel, ScalesFromSizesMatchBoundOutOverIn) {
  for (const std::string name : {"resize_rt_f32.linear_sizes_half_pixel",
                                 "resize_rt_f32.cubic_half_pixel", "resize_rt_f32.nearest_rank5"}) {
    const Case c = Load(name);
    const size_t R = static_cast<size_t>(c.iparams[0]);
    std::vector<float> out_over_in(R), poison(R, kNaN);
    for (size_t d = 0; d < R; ++d) {
      const int64_t in = c.iparams[7 + d], out = c.iparams[7 + R + d];
      out_over_in[d] = in > 0 ? static_cast<float>(out) / static_cast<float>(in) : 1.0f;
    }
    std::vector<int64_t> given = c.iparams, from_sizes = c.iparams;
    given[5] = KILN_RESIZE_SCALES_GIVEN;
    from_sizes[5] = KILN_RESIZE_SCALES_FROM_SIZES;
    EXPECT_EQ(RunCase(c, from_sizes, poison), RunCase(c, given, out_over_in)) << name;
  }
}

// Parameters a corrupt module could carry.
TEST(ResizeRtKernel, CheckerRefusesBadParameters) {
  const Case c = Load("resize_rt_f32.tf_crop_linear_f32_roi");  // R 4, in [1,1,4,4], out [1,1,3,3]
  const std::vector<uint64_t> bytes = c.binding_bytes();
  using kiln_test::With;
  EXPECT_EQ(c.Check(c.iparams, bytes), KILN_OK);
  EXPECT_EQ(c.Check(With(c.iparams, {{1, 3}}), bytes), KILN_ERR_INVALID_ARGUMENT);  // mode
  EXPECT_EQ(c.Check(With(c.iparams, {{2, 4}}), bytes), KILN_ERR_INVALID_ARGUMENT);  // nearest
  EXPECT_EQ(c.Check(With(c.iparams, {{3, 7}}), bytes),  // one past half_pixel_symmetric
            KILN_ERR_INVALID_ARGUMENT);  // ctm
  EXPECT_EQ(c.Check(With(c.iparams, {{4, 2}}), bytes), KILN_ERR_INVALID_ARGUMENT);  // exclude
  EXPECT_EQ(c.Check(With(c.iparams, {{5, KILN_RESIZE_SCALES_FROM_SIZES}}), bytes), KILN_OK);
  EXPECT_EQ(c.Check(With(c.iparams, {{5, KILN_RESIZE_SCALES_FROM_SIZES + 1}}), bytes),
            KILN_ERR_INVALID_ARGUMENT);  // check
  EXPECT_EQ(c.Check(With(c.iparams, {{6, KILN_DTYPE_I64}}), bytes), KILN_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(c.Check(With(c.iparams, {{0, KILN_MAX_RANK + 1}}), bytes),
            KILN_ERR_INVALID_ARGUMENT);
  // float64 roi needs twice the bytes.
  EXPECT_EQ(c.Check(With(c.iparams, {{6, KILN_DTYPE_F64}}), bytes), KILN_ERR_OUT_OF_RANGE);
  // An empty input axis with a non-empty output: no element to sample.
  std::vector<uint64_t> empty_x = bytes;
  empty_x[0] = 0;
  EXPECT_EQ(c.Check(With(c.iparams, {{7 + 2, 0}}), empty_x), KILN_ERR_INVALID_ARGUMENT);
  // An output too large to walk (every element visits its tap combinations).
  const int64_t big = int64_t{1} << 40;
  std::vector<uint64_t> huge = bytes;
  huge[kOutput] = std::numeric_limits<uint64_t>::max();
  EXPECT_EQ(c.Check(With(c.iparams, {{7 + 4 + 2, big}, {7 + 4 + 3, big}}), huge),
            KILN_ERR_OUT_OF_RANGE);
}

}  // namespace
