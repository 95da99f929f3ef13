// slice_rt_bounded and reduce_rt_f32_bounded (models that declare no output
// shape): each NumPy reference case of slice_rt / reduce_rt_f32
// (make_reference_rt_params.py) run through the bounded twin, whose output
// capacity is the bound the compiler plans (the input's dims; without
// keepdims, the largest input dim for each kept one); the dims it reports
// must be the reference's shape and Y must hold the reference densely at
// its start, nothing written past it. The same for topk_bounded with the
// topk cases. Then the checkers' refusals.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "kernel_case.h"
#include "kiln/kernels.h"

namespace {

using kiln_test::Case;
using Ints = std::vector<int64_t>;

Case Load(const std::string& name) {
  Case c;
  std::string error;
  EXPECT_TRUE(kiln_test::LoadCase(name, &c, &error)) << error;
  return c;
}

// Runs `kernel` on case c's inputs with iparams `ip`, Y (binding y) of
// `capacity` bytes and a dims binding of `rank` int64; compares Y's first
// bytes and the dims with the case's expected output of shape `want`.
void RunBounded(const Case& c, const std::string& kernel, const Ints& ip, size_t y,
                uint64_t capacity, const Ints& want, bool float_data) {
  const kiln_test::KernelEntry* k = kiln_test::FindKernel(kernel);
  ASSERT_NE(k, nullptr);
  std::vector<uint64_t> bytes = c.binding_bytes();
  bytes[y] = capacity;
  const size_t rank = std::max<size_t>(want.size(), 1);
  bytes.push_back(rank * 8);
  ASSERT_EQ(k->check(ip.data(), static_cast<uint32_t>(ip.size()), nullptr, 0, bytes.data()),
            KILN_OK)
      << c.name;
  std::vector<std::vector<unsigned char>> buf(bytes.size());
  std::vector<void*> ptrs(bytes.size(), nullptr);
  for (size_t i = 0; i < c.bindings.size(); ++i) buf[i] = c.bindings[i].initial;
  buf[y].assign(capacity, 0xAB);
  buf.back().assign(rank * 8, 0xAB);
  for (size_t i = 0; i < buf.size(); ++i) {
    if (!buf[i].empty()) ptrs[i] = buf[i].data();
  }
  ASSERT_EQ(k->fn(ip.data(), nullptr, ptrs.data(), nullptr), KILN_OK) << c.name;
  Ints dims(want.size());
  if (!dims.empty()) std::memcpy(dims.data(), buf.back().data(), dims.size() * 8);
  EXPECT_EQ(dims, want) << c.name;
  const std::vector<unsigned char>& expected = c.bindings[y].expected;
  ASSERT_LE(expected.size(), capacity);
  if (float_data) {
    for (size_t i = 0; i < expected.size() / 4; ++i) {
      float g, w;
      std::memcpy(&g, buf[y].data() + 4 * i, 4);
      std::memcpy(&w, expected.data() + 4 * i, 4);
      EXPECT_LE(std::fabs(g - w), kiln_test::kAtol + kiln_test::kRtol * std::fabs(w))
          << c.name << " element " << i;
    }
  } else {
    EXPECT_TRUE(std::equal(expected.begin(), expected.end(), buf[y].begin())) << c.name;
  }
  for (size_t i = expected.size(); i < capacity; ++i) {
    ASSERT_EQ(buf[y][i], 0xAB) << c.name << ": byte " << i << " past the result was written";
  }
}

// slice_rt iparams: eb R n 4 dtypes, in_dims[R], out_dims[R].
TEST(SliceRtBounded, ReportsTheDimsOfEveryReferenceSlice) {
  for (const char* name : {"slice_rt.two_axes", "slice_rt.neg_steps",
                           "slice_rt.int32_params_clamped", "slice_rt.int64_extremes",
                           "slice_rt.huge_steps", "slice_rt.empty_result"}) {
    const Case c = Load(name);
    Ints ip = c.iparams;
    const int64_t R = ip[1];
    const Ints in(ip.begin() + 7, ip.begin() + 7 + R);
    const Ints want(ip.begin() + 7 + R, ip.end());
    std::copy(in.begin(), in.end(), ip.begin() + 7 + R);  // capacity = the input
    int64_t count = 1;
    for (int64_t d : in) count *= d;
    RunBounded(c, "slice_rt_bounded", ip, 5, static_cast<uint64_t>(count * ip[0]), want, false);
  }
}

// reduce_rt_f32 iparams: kind keepdims noop dtype n R RO, in_dims[R],
// out_dims[RO].
TEST(ReduceRtBounded, ReportsTheDimsOfEveryReferenceReduction) {
  for (const char* name : {"reduce_rt_f32.sum_keepdims", "reduce_rt_f32.sum_two_axes",
                           "reduce_rt_f32.max_middle", "reduce_rt_f32.logsumexp"}) {
    const Case c = Load(name);
    const Ints& ref = c.iparams;
    const int64_t R = ref[5], RO = ref[6];
    const Ints in(ref.begin() + 7, ref.begin() + 7 + R);
    const Ints want(ref.begin() + 7 + R, ref.end());
    Ints ip(ref.begin(), ref.begin() + 7 + R);
    const int64_t largest = *std::max_element(in.begin(), in.end());
    int64_t count = 1;
    for (int64_t d = 0; d < RO; ++d) {
      const int64_t cap = ref[1] ? in[static_cast<size_t>(d)] : largest;
      ip.push_back(cap);
      count *= cap;
    }
    RunBounded(c, "reduce_rt_f32_bounded", ip, 2, static_cast<uint64_t>(count * 4), want, true);
  }
}

// topk_bounded: each NumPy reference case of topk (make_reference_ops.py)
// with K = the axis length as capacity and the case's k read at run time;
// values and indices must be the reference's, densely, and k reported.
TEST(TopKBounded, ReportsKAndWritesEveryReferenceResultDensely) {
  for (const char* name : {"topk.f32_mid_axis", "topk.i32_smallest_ties", "topk.i64_runtime_k",
                           "topk.u8_all"}) {
    const Case c = Load(name);
    Ints ip = c.iparams;  // dtype outer len inner K largest k_dtype
    const int64_t k = ip[4], eb = static_cast<int64_t>(c.bindings[2].nbytes) /
                                  std::max<int64_t>(ip[1] * k * ip[3], 1);
    ip[4] = ip[2];
    ip[6] = KILN_DTYPE_I64;
    const int64_t cap = ip[1] * ip[2] * ip[3];
    std::vector<uint64_t> bytes = {c.bindings[0].nbytes, 8, static_cast<uint64_t>(cap * eb),
                                   static_cast<uint64_t>(cap * 8), 8};
    ASSERT_EQ(kiln_topk_bounded_check(ip.data(), 7, nullptr, 0, bytes.data()), KILN_OK) << name;
    std::vector<unsigned char> x = c.bindings[0].initial, v(bytes[2], 0xAB), ix(bytes[3], 0xAB);
    int64_t k_in = k, k_out = -1;
    void* b[] = {x.data(), &k_in, v.data(), ix.data(), &k_out};
    ASSERT_EQ(kiln_topk_bounded(ip.data(), nullptr, b, nullptr), KILN_OK) << name;
    EXPECT_EQ(k_out, k) << name;
    const std::vector<unsigned char>& want_v = c.bindings[2].expected;
    const std::vector<unsigned char>& want_i = c.bindings[3].expected;
    EXPECT_TRUE(std::equal(want_v.begin(), want_v.end(), v.begin())) << name;
    EXPECT_TRUE(std::equal(want_i.begin(), want_i.end(), ix.begin())) << name;
    for (size_t i = want_i.size(); i < ix.size(); ++i) ASSERT_EQ(ix[i], 0xAB) << name;
    k_in = ip[2] + 1;  // beyond the axis
    EXPECT_EQ(kiln_topk_bounded(ip.data(), nullptr, b, nullptr), KILN_ERR_SHAPE_MISMATCH);
    k_in = -1;
    EXPECT_EQ(kiln_topk_bounded(ip.data(), nullptr, b, nullptr), KILN_ERR_SHAPE_MISMATCH);
  }
}

TEST(SliceRtBounded, CheckerRefusesCapacitiesBelowTheInputOrAShortDimsBinding) {
  const Case c = Load("slice_rt.two_axes");  // x [20,10,5]
  Ints ip = c.iparams;
  std::copy(ip.begin() + 7, ip.begin() + 10, ip.begin() + 10);
  std::vector<uint64_t> bytes = c.binding_bytes();
  bytes[5] = 20 * 10 * 5 * 4;
  bytes.push_back(3 * 8);
  EXPECT_EQ(kiln_slice_rt_bounded_check(ip.data(), static_cast<uint32_t>(ip.size()), nullptr, 0,
                                        bytes.data()),
            KILN_OK);
  Ints small = ip;
  small[10] = 3;  // a capacity of 3 rows: the run may find up to 20
  EXPECT_EQ(kiln_slice_rt_bounded_check(small.data(), static_cast<uint32_t>(small.size()),
                                        nullptr, 0, bytes.data()),
            KILN_ERR_INVALID_ARGUMENT);
  bytes.back() = 2 * 8;
  EXPECT_EQ(kiln_slice_rt_bounded_check(ip.data(), static_cast<uint32_t>(ip.size()), nullptr, 0,
                                        bytes.data()),
            KILN_ERR_OUT_OF_RANGE);
}

TEST(ReduceRtBounded, CheckerRefusesCapacitiesThatCannotHoldEveryResult) {
  // [3,4,5] without keepdims over 2 axes: one kept dim, at least 5 long.
  const Ints ip = {0, 0, 0, KILN_DTYPE_I64, 2, 3, 1, 3, 4, 5, 5};
  std::vector<uint64_t> bytes = {3 * 4 * 5 * 4, 2 * 8, 5 * 4, 8};
  EXPECT_EQ(kiln_reduce_rt_f32_bounded_check(ip.data(), 11, nullptr, 0, bytes.data()), KILN_OK);
  Ints short_cap = ip;
  short_cap[10] = 4;  // reducing axes 0 and 2 keeps the 4, axes 0 and 1 the 5
  EXPECT_EQ(kiln_reduce_rt_f32_bounded_check(short_cap.data(), 11, nullptr, 0, bytes.data()),
            KILN_ERR_INVALID_ARGUMENT);
  Ints keep = {0, 1, 0, KILN_DTYPE_I64, 1, 2, 2, 3, 4, 1, 4};  // keepdims: capacity [3,4]
  bytes = {12 * 4, 8, 12 * 4, 16};
  EXPECT_EQ(kiln_reduce_rt_f32_bounded_check(keep.data(), 11, nullptr, 0, bytes.data()),
            KILN_ERR_INVALID_ARGUMENT);
  keep[9] = 3;
  EXPECT_EQ(kiln_reduce_rt_f32_bounded_check(keep.data(), 11, nullptr, 0, bytes.data()), KILN_OK);
  bytes[3] = 8;  // room for one dim of two
  EXPECT_EQ(kiln_reduce_rt_f32_bounded_check(keep.data(), 11, nullptr, 0, bytes.data()),
            KILN_ERR_OUT_OF_RANGE);
}

TEST(ReduceRtBounded, RefusesARepeatedAxisAtRunTime) {
  const Ints ip = {0, 1, 0, KILN_DTYPE_I64, 2, 2, 2, 3, 4, 3, 4};
  float x[12] = {};
  const int64_t axes[2] = {1, -1};  // the same axis twice
  float y[12];
  int64_t dims[2] = {-1, -1};
  void* b[] = {x, const_cast<int64_t*>(axes), y, dims};
  EXPECT_EQ(kiln_reduce_rt_f32_bounded(ip.data(), nullptr, b, nullptr), KILN_ERR_SHAPE_MISMATCH);
  EXPECT_EQ(dims[0], -1);
}

}  // namespace
