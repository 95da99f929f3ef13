// Checker verdicts on iteration space: every checker must bound the loops its
// kernel runs, not only the bytes it touches. Each case pairs a module the
// fuzzer could write (an empty extent, or zero strides, that keeps every
// binding tiny while another extent makes the loops run for hours) with a
// small legitimate case of the same shape that must still be accepted; the
// accepted one is also run, to show the kernel really finishes on it.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "kernel_case.h"

namespace {

constexpr int64_t k2(int n) { return int64_t{1} << n; }

struct WorkCase {
  const char* kernel;
  const char* why;  // the loop the rejected parameters would spin
  uint32_t fparams;
  std::vector<int64_t> reject_ip;
  std::vector<uint64_t> reject_bytes;
  std::vector<int64_t> accept_ip;
  std::vector<uint64_t> accept_bytes;
};

int Verdict(const kiln_test::KernelEntry& k, const std::vector<int64_t>& ip, uint32_t nf,
            const std::vector<uint64_t>& bytes) {
  const std::vector<float> fp(nf + 1, 0.0f);
  return k.check(ip.data(), static_cast<uint32_t>(ip.size()), fp.data(), nf, bytes.data());
}

// Runs the kernel over zeroed buffers of the declared sizes.
int RunKernel(const kiln_test::KernelEntry& k, const std::vector<int64_t>& ip, uint32_t nf,
        const std::vector<uint64_t>& bytes) {
  const std::vector<float> fp(nf + 1, 0.0f);
  std::vector<std::vector<unsigned char>> bufs;
  std::vector<void*> ptrs;
  for (uint64_t b : bytes) bufs.emplace_back(b + 16, 0);
  for (auto& b : bufs) ptrs.push_back(b.data());
  return k.fn(ip.data(), fp.data(), ptrs.data(), nullptr);
}

std::vector<int64_t> Concat(std::vector<int64_t> a, const std::vector<int64_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// recurrent_f32: plain RNN, one direction, no optional inputs, one batch row.
std::vector<int64_t> RnnParams(int64_t seq, int64_t input, int64_t hidden) {
  std::vector<int64_t> ip(25, 0);
  ip[1] = seq, ip[2] = 1, ip[3] = input, ip[4] = hidden, ip[5] = 1;
  ip[19] = 1;        // tanh
  ip.push_back(0);   // lens[0]
  return ip;
}

// resize_f32 with every axis taking `taps` taps of input 0 per output.
std::vector<int64_t> ResizeParams(const std::vector<int64_t>& in, const std::vector<int64_t>& out,
                                  const std::vector<int64_t>& taps, int64_t* table) {
  std::vector<int64_t> ip = {static_cast<int64_t>(in.size())};
  ip = Concat(Concat(Concat(ip, in), out), taps);
  *table = 0;
  for (size_t d = 0; d < out.size(); ++d) *table += out[d] * taps[d];
  ip.resize(ip.size() + static_cast<size_t>(*table), 0);
  return ip;
}

std::vector<int64_t> PoolNdParams(int64_t in, int64_t k) {
  // MaxPool f32, S = 3, NC = 1, stride and dilation 1, no pads.
  std::vector<int64_t> ip = {KILN_POOL_MAX, KILN_DTYPE_F32, 3, 0, 1};
  for (int64_t v : {in, in, in, in - k + 1, in - k + 1, in - k + 1, k, k, k,
                    int64_t{1}, int64_t{1}, int64_t{1}, int64_t{1}, int64_t{1}, int64_t{1},
                    int64_t{0}, int64_t{0}, int64_t{0}, int64_t{0}, int64_t{0}, int64_t{0}})
    ip.push_back(v);
  return ip;
}

std::vector<WorkCase> Cases() {
  const int64_t U8 = KILN_DTYPE_U8, F64 = KILN_DTYPE_F64;
  std::vector<WorkCase> c = {
      // The fuzzer's reproducer (tests/malformed/modules/lp_norm_empty_axis_spin.kiln).
      {"lp_norm_f32", "outer x inner around an empty axis", 0,
       {k2(58), 0, 1, 2}, {0, 0}, {3, 0, 4, 2}, {0, 0}},
      {"hardmax_f32", "outer around an empty inner", 0,
       {k2(58), 3, 0}, {0, 0}, {2, 3, 0}, {0, 0}},
      {"lrn_f32", "N x C around empty planes", 3,
       {k2(40), 1, 0, 3}, {0, 0}, {2, 3, 0, 3}, {0, 0}},
      {"channel_affine_f32", "N x C around empty planes", 2,
       {k2(50), 1, 0, KILN_ACT_NONE}, {0, 4, 4, 0}, {2, 3, 0, KILN_ACT_NONE}, {0, 12, 12, 0}},
      {"arg_reduce_f32", "outer around an empty inner", 0,
       {k2(50), 2, 0, 0, 0}, {0, 0}, {2, 2, 0, 0, 0}, {0, 0}},
      {"cumsum", "rows around an empty axis", 0,
       {1, 0, 0, 0, 1, 2, k2(40), 0}, {0, 0, 0}, {1, 0, 0, 0, 1, 2, 5, 0}, {0, 0, 0}},
      {"trilu", "batch x rows around empty rows", 0,
       {4, k2(30), k2(20), 0, 0, 1, 0}, {0, 0, 0}, {4, 2, 3, 0, 0, 1, 0}, {0, 0, 0}},
      {"one_hot", "outer around an empty inner", 0,
       {4, 4, k2(50), 3, 0}, {0, 8, 0}, {4, 4, 2, 3, 0}, {0, 8, 0}},
      {"gather", "index x outer copies of empty rows", 0,
       {4, 8, k2(50), 1, 0, 1}, {0, 8, 0}, {4, 8, 2, 1, 0, 1}, {0, 8, 0}},
      {"gather_nd", "batch x count blocks of nothing", 0,
       {4, 8, 0, 0, k2(40), 1, 0, 0}, {0, 0, 0}, {4, 8, 0, 0, 2, 3, 0, 0}, {0, 0, 0}},
      {"scatter_nd", "batch x count blocks of nothing", 0,
       {4, 8, 0, 0, k2(40), 1, 0, 0}, {0, 0, 0, 0}, {4, 8, 0, 0, 2, 3, 0, 0}, {0, 0, 0, 0}},
      {"reverse_sequence", "B x T copies of empty rows", 0,
       {4, 0, k2(50), 1, 0}, {0, 8, 0}, {4, 0, 3, 2, 0}, {0, 16, 0}},
      {"nll_loss_f32", "N around an empty D", 0,
       {k2(50), 3, 0, 1, -100, 0, 8, 0, 0}, {0, 0, 0, 4, 0},
       {2, 3, 0, 1, -100, 0, 8, 0, 0}, {0, 0, 0, 4, 0}},
      {"quantize_linear", "outer x axis around an empty inner", 0,
       {k2(50), 1, 0, U8, 0, 0}, {0, 4, 0, 0}, {2, 3, 0, U8, 0, 0}, {0, 4, 0, 0}},
      {"dequantize_linear", "outer x axis around an empty inner", 0,
       {k2(50), 1, 0, U8, 0, 0}, {0, 4, 0, 0}, {2, 3, 0, U8, 0, 0}, {0, 4, 0, 0}},
      {"recurrent_f32", "2^40 steps of an empty cell", 13,
       RnnParams(k2(40), 0, 0), std::vector<uint64_t>(12, 0),
       RnnParams(5, 0, 0), std::vector<uint64_t>(12, 0)},
      // conv: the group loop runs even when C = OC = 0 (any G divides them).
      {"conv2d_f32", "2^60 empty groups", 2,
       {1, 0, 1, 1, 0, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1, k2(60), KILN_ACT_NONE, 0}, {0, 0, 0, 0},
       {1, 0, 1, 1, 0, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, KILN_ACT_NONE, 0}, {0, 0, 0, 0}},
      {"conv_transpose_f32", "2^60 empty groups", 0,
       {1, 0, 1, 1, 0, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1, k2(60), 0}, {0, 0, 0, 0},
       {1, 0, 1, 1, 0, 1, 1, 1, 1, 1, 1, 0, 0, 1, 1, 1, 0}, {0, 0, 0, 0}},
      {"conv_transpose_f32", "bias fill over 2^40 channels of empty planes", 0,
       {1, 0, 1, 1, k2(40), 0, 1, 1, 1, 1, 1, 0, 0, 1, 1, k2(40), 0}, {0, 0, 0, 0},
       {1, 0, 1, 1, 4, 0, 1, 1, 1, 1, 1, 0, 0, 1, 1, 4, 0}, {0, 0, 0, 0}},
      {"matmul_f32", "2^40 batch entries of an empty matrix", 0,
       {0, 1, 1, 1, k2(40), 0, 0}, {0, 4, 0}, {0, 1, 1, 1, 4, 0, 0}, {0, 4, 0}},
      // Zero strides: non-empty, every view one element or row, work unbounded.
      {"matmul_f32", "2^30 broadcast batches of a 2^16-long dot", 0,
       {1, 1, k2(16), 1, k2(30), 0, 0}, {1 << 18, 1 << 18, uint64_t{1} << 32},
       {1, 1, 16, 1, 4, 0, 0}, {64, 64, 16}},
      {"reduce_f32", "a 2^60-element reduction of one element", 0,
       {KILN_REDUCE_SUM, 1, 2, 1, 0, k2(30), k2(30), 0, 0}, {4, 4},
       {KILN_REDUCE_SUM, 1, 1, 3, 1, 0, 1}, {0, 12}},
      // Under the 2^40 limit but re-reading one element 2^30 times (fuzzer find).
      {"reduce_f32", "2^30 passes over one element", 0,
       {KILN_REDUCE_SUM, 1, 1, 1, 0, k2(30), 0}, {4, 4},
       {KILN_REDUCE_SUM, 1, 1, 1, 0, 4096, 0}, {4, 4}},
      {"reduce_typed", "2^30 passes over one element", 0,
       {KILN_REDUCE_SUM, F64, 1, 1, 1, 0, k2(30), 0}, {8, 8},
       {KILN_REDUCE_SUM, F64, 1, 1, 1, 0, 4096, 0}, {8, 8}},
      {"reduce_typed", "a 2^60-element reduction of one element", 0,
       {KILN_REDUCE_SUM, F64, 1, 2, 1, 0, k2(30), k2(30), 0, 0}, {8, 8},
       {KILN_REDUCE_SUM, F64, 1, 1, 3, 1, 0, 1}, {0, 24}},
      {"einsum", "2^60 summed terms of one element", 0,
       {3, 1, 0, 0, 1, k2(30), k2(30), 0, 0, 0, 0, 0, 0}, {4, 0, 4},
       {2, 1, 0, 0, 3, 0, 0, 1, 0, 0}, {0, 0, 12}},
      // Under the 2^40 limit, re-reading one element 2^30 times (module fuzzer find).
      {"einsum", "2^30 summed terms of one element", 0,
       {1, 0, 0, 0, k2(30), 0, 0}, {4, 0, 4}, {1, 0, 0, 0, 4096, 0, 0}, {4, 0, 4}},
      {"strided_copy", "2^60 copies of one element", 0,
       {4, 2, 0, 0, k2(30), k2(30), 0, 0, 0, 0}, {4, 4},
       {4, 2, 0, 0, 0, k2(40), 1, 1, 1, 1}, {0, 0}},
      {"gemm_f32", "a 2^42 multiply-add product of bounded operands", 4,
       {k2(14), k2(14), k2(14), 0, 0, 0, 0, 0, KILN_ACT_NONE},
       {uint64_t{1} << 30, uint64_t{1} << 30, 0, uint64_t{1} << 30},
       // M = 0: nothing runs however large B is.
       {0, 4096, 4096, 0, 0, 0, 0, 0, KILN_ACT_NONE}, {0, uint64_t{1} << 26, 0, 0}},
      // The fuzzer's reproducer (tests/malformed/modules/iteration_slice_empty_rows_spin.kiln).
      {"iteration_slice_write", "2^50 outer rows of empty slices", 0,
       {k2(50), 3, 0, 0}, {8, 0, 0}, {2, 3, 0, 0}, {8, 0, 0}},
      {"iteration_slice_read", "2^50 outer rows of empty slices", 0,
       {k2(50), 3, 0, 0}, {8, 0, 0}, {2, 3, 0, 0}, {8, 0, 0}},
      {"pool_nd", "a 2^60-tap window over one element", 0,
       PoolNdParams(1, 0), {4, 4}, PoolNdParams(2, 2), {32, 4}},
  };
  // pool_nd's rejected window: k = 2^20 per axis over a 1-element input
  // (every tap but the first is outside it, skipped rather than read).
  for (int i = 0; i < 3; ++i) {
    c.back().reject_ip[5 + 3 + i] = 1;      // out
    c.back().reject_ip[5 + 6 + i] = k2(20); // k
  }
  return c;
}

TEST(CheckerWork, EmptyExtentsAndZeroStridesCannotHideUnboundedLoops) {
  for (const WorkCase& c : Cases()) {
    const kiln_test::KernelEntry* k = kiln_test::FindKernel(c.kernel);
    ASSERT_NE(k, nullptr) << c.kernel;
    EXPECT_EQ(Verdict(*k, c.reject_ip, c.fparams, c.reject_bytes), KILN_ERR_OUT_OF_RANGE)
        << c.kernel << ": " << c.why;
    EXPECT_EQ(Verdict(*k, c.accept_ip, c.fparams, c.accept_bytes), KILN_OK)
        << c.kernel << " (small case next to: " << c.why << ")";
    EXPECT_EQ(RunKernel(*k, c.accept_ip, c.fparams, c.accept_bytes), KILN_OK) << c.kernel;
  }
}

TEST(CheckerWork, ResizeBoundsTheTapProduct) {
  const kiln_test::KernelEntry* k = kiln_test::FindKernel("resize_f32");
  ASSERT_NE(k, nullptr);
  int64_t table;
  // Eight axes of one output with 64 taps each: 2^48 taps for one element.
  std::vector<int64_t> ip = ResizeParams(std::vector<int64_t>(8, 1), std::vector<int64_t>(8, 1),
                                         std::vector<int64_t>(8, 64), &table);
  EXPECT_EQ(Verdict(*k, ip, static_cast<uint32_t>(table + 1), {4, 4}), KILN_ERR_OUT_OF_RANGE);
  // Two axes of 64 taps (4096 per element) are fine...
  ip = ResizeParams({1, 1}, {1, 1}, {64, 64}, &table);
  EXPECT_EQ(Verdict(*k, ip, static_cast<uint32_t>(table + 1), {4, 4}), KILN_OK);
  EXPECT_EQ(RunKernel(*k, ip, static_cast<uint32_t>(table + 1), {4, 4}), KILN_OK);
  // ...and an empty output runs nothing whatever its other extents.
  ip = ResizeParams({2, 2}, {0, 3}, {1, 64}, &table);
  EXPECT_EQ(Verdict(*k, ip, static_cast<uint32_t>(table + 1), {16, 0}), KILN_OK);
  EXPECT_EQ(RunKernel(*k, ip, static_cast<uint32_t>(table + 1), {16, 0}), KILN_OK);
}

// The limits themselves: 2^40 loop iterations, 2^24 around an empty loop.
TEST(CheckerWork, LimitEdges) {
  const kiln_test::KernelEntry* k = kiln_test::FindKernel("hardmax_f32");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(Verdict(*k, {k2(24), 1, 0}, 0, {0, 0}), KILN_OK);
  EXPECT_EQ(Verdict(*k, {k2(24) + 1, 1, 0}, 0, {0, 0}), KILN_ERR_OUT_OF_RANGE);
  const kiln_test::KernelEntry* s = kiln_test::FindKernel("strided_copy");
  ASSERT_NE(s, nullptr);
  // 2^38 elements of 4 bytes broadcast from one (a zero source stride) into
  // distinct destinations: exactly 2^40 bytes moved (the checker only
  // compares the 2^40-byte destination size; nothing is allocated).
  const uint64_t dst = static_cast<uint64_t>(k2(40)) + 4;
  EXPECT_EQ(Verdict(*s, {4, 1, 0, 0, k2(38), 0, 1}, 0, {4, dst}), KILN_OK);
  EXPECT_EQ(Verdict(*s, {4, 1, 0, 0, k2(38) + 1, 0, 1}, 0, {4, dst}), KILN_ERR_OUT_OF_RANGE);
}

}  // namespace
