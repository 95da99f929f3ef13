// The tfidf kernel (tfidf.c): TF, IDF and TFIDF outputs for 1- to 3-grams
// with skips over int64 and int32 tokens, against values computed
// independently by tests/runtime/make_reference_tfidf.py (a Counter over every
// enumerated n-gram; exact small integers and sums of binary fractions, so
// compared exactly); and the checker's refusal of every table entry or size
// that would take the kernel outside its bindings.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "kiln/kernels.h"

namespace {

// The case of make_reference_tfidf.py: pool 1-grams {4, -3, 9}, 2-grams
// {(4,7), (7,9)}, 3-grams {(4,7,9), (9,-3,7)}, ngram_indexes
// [5 0 3 1 4 2 6], max_skip_count 1.
const std::vector<std::vector<int64_t>> kRows = {{4, 7, 9, 4, 7, 7, 9},
                                                 {9, -3, 4, 9, 9, -3, 7}};
const std::vector<int64_t> kPool = {4, -3, 9, 4, 7, 7, 9, 4, 7, 9, 9, -3, 7};
// (len, off, index) per pool n-gram, as compiler/ops/tfidf.cc builds them.
const std::vector<int64_t> kEntries = {1, 0, 5, 1, 1, 0, 1, 2, 3, 2, 3, 1,
                                       2, 5, 4, 3, 7, 2, 3, 10, 6};
const std::vector<float> kWeights = {0.5f, 1.5f, 2.0f, 0.25f, 3.0f, 1.25f, 0.75f};
constexpr int64_t kOut = 7;

std::vector<int64_t> Params(int64_t dtype, int64_t rows, int64_t cols, int64_t mode,
                            int64_t skips = 1) {
  std::vector<int64_t> ip = {dtype, rows, cols, skips, 7, 13, kOut, mode};
  ip.insert(ip.end(), kEntries.begin(), kEntries.end());
  return ip;
}

int Check(const std::vector<int64_t>& ip, const std::vector<float>& fp,
          const std::vector<uint64_t>& bytes) {
  return kiln_tfidf_check(ip.data(), static_cast<uint32_t>(ip.size()), fp.data(),
                          static_cast<uint32_t>(fp.size()), bytes.data());
}

// Runs both rows as int64 (or int32) tokens; Y starts as a sentinel.
std::vector<float> RunTfIdf(int64_t mode, bool int32) {
  std::vector<int64_t> x64;
  std::vector<int32_t> x32;
  for (const auto& row : kRows) {
    for (int64_t v : row) {
      x64.push_back(v);
      x32.push_back(static_cast<int32_t>(v));
    }
  }
  const int64_t dtype = int32 ? KILN_DTYPE_I32 : KILN_DTYPE_I64;
  const std::vector<int64_t> ip = Params(dtype, 2, 7, mode);
  std::vector<float> y(2 * kOut, -9.0f);
  const uint64_t xbytes = int32 ? x32.size() * 4 : x64.size() * 8;
  EXPECT_EQ(Check(ip, kWeights, {xbytes, kPool.size() * 8, y.size() * 4}), KILN_OK);
  void* x = int32 ? static_cast<void*>(x32.data()) : static_cast<void*>(x64.data());
  void* b[3] = {x, const_cast<int64_t*>(kPool.data()), y.data()};
  EXPECT_EQ(kiln_tfidf(ip.data(), kWeights.data(), b, nullptr), KILN_OK);
  return y;
}

TEST(TfIdfKernel, TermFrequency) {
  const std::vector<float> want = {0, 3, 1, 2, 3, 2, 0, 2, 0, 0, 3, 0, 1, 1};
  EXPECT_EQ(RunTfIdf(KILN_TFIDF_TF, false), want);
  EXPECT_EQ(RunTfIdf(KILN_TFIDF_TF, true), want);
}

TEST(TfIdfKernel, InverseDocumentFrequency) {
  const std::vector<float> want = {0, 0.25f, 1.25f, 2, 3, 0.5f, 0,
                                   1.5f, 0, 0, 2, 0, 0.5f, 0.75f};
  EXPECT_EQ(RunTfIdf(KILN_TFIDF_IDF, false), want);
}

TEST(TfIdfKernel, WeightedCounts) {
  const std::vector<float> want = {0, 0.75f, 1.25f, 4, 9, 1, 0, 3, 0, 0, 6, 0, 0.5f, 0.75f};
  EXPECT_EQ(RunTfIdf(KILN_TFIDF_TFIDF, false), want);
  EXPECT_EQ(RunTfIdf(KILN_TFIDF_TFIDF, true), want);
}

// Rows shorter than an n-gram's span count nothing for it; Y is still zeroed.
TEST(TfIdfKernel, ShortRowsCountOnlyWhatFits) {
  const std::vector<int64_t> x = {4, 7};  // one row, C = 2
  const std::vector<int64_t> ip = Params(KILN_DTYPE_I64, 1, 2, KILN_TFIDF_TF, 5);
  std::vector<float> y(kOut, -9.0f);
  ASSERT_EQ(Check(ip, kWeights, {16, kPool.size() * 8, y.size() * 4}), KILN_OK);
  void* b[3] = {const_cast<int64_t*>(x.data()), const_cast<int64_t*>(kPool.data()), y.data()};
  ASSERT_EQ(kiln_tfidf(ip.data(), kWeights.data(), b, nullptr), KILN_OK);
  // 1-gram 4 (index 5) once, 2-gram (4,7) (index 1) once; nothing else.
  EXPECT_EQ(y, (std::vector<float>{0, 1, 0, 0, 0, 1, 0}));
}

class TfIdfCheck : public ::testing::Test {
 protected:
  std::vector<int64_t> ip = Params(KILN_DTYPE_I64, 2, 7, KILN_TFIDF_TFIDF);
  std::vector<float> fp = kWeights;
  std::vector<uint64_t> bytes = {2 * 7 * 8, 13 * 8, 2 * kOut * 4};
  // iparam k of entry e.
  int64_t& Entry(int e, int k) { return ip[8 + 3 * e + k]; }
};

TEST_F(TfIdfCheck, AcceptsTheValidCase) { EXPECT_EQ(Check(ip, fp, bytes), KILN_OK); }

TEST_F(TfIdfCheck, RefusesWrongCounts) {
  std::vector<int64_t> short_ip(ip.begin(), ip.end() - 1);
  EXPECT_NE(Check(short_ip, fp, bytes), KILN_OK);
  fp.pop_back();
  EXPECT_NE(Check(ip, fp, bytes), KILN_OK);
  EXPECT_NE(kiln_tfidf_check(ip.data(), 5, nullptr, 0, bytes.data()), KILN_OK);
}

TEST_F(TfIdfCheck, RefusesBadDtypeAndMode) {
  ip[0] = KILN_DTYPE_F32;
  EXPECT_NE(Check(ip, fp, bytes), KILN_OK);
  ip[0] = KILN_DTYPE_I64;
  ip[7] = 3;
  EXPECT_NE(Check(ip, fp, bytes), KILN_OK);
}

TEST_F(TfIdfCheck, RefusesEntriesOutsideThePoolOrRow) {
  Entry(6, 1) = 11;  // the last 3-gram would read pool[11..14), past 13 values
  EXPECT_EQ(Check(ip, fp, bytes), KILN_ERR_OUT_OF_RANGE);
  Entry(6, 1) = std::numeric_limits<int64_t>::max();  // off + len overflows
  EXPECT_NE(Check(ip, fp, bytes), KILN_OK);
  Entry(6, 1) = -1;
  EXPECT_NE(Check(ip, fp, bytes), KILN_OK);
  Entry(6, 1) = 10;
  Entry(3, 2) = kOut;  // output index past the row
  EXPECT_NE(Check(ip, fp, bytes), KILN_OK);
  Entry(3, 2) = -1;
  EXPECT_NE(Check(ip, fp, bytes), KILN_OK);
  Entry(3, 2) = 1;
  Entry(0, 0) = 0;  // an empty n-gram
  EXPECT_NE(Check(ip, fp, bytes), KILN_OK);
  Entry(0, 0) = 1;
  EXPECT_EQ(Check(ip, fp, bytes), KILN_OK);
}

TEST_F(TfIdfCheck, RefusesBindingsTooSmall) {
  for (size_t k = 0; k < 3; ++k) {
    std::vector<uint64_t> b = bytes;
    b[k] -= 1;
    EXPECT_EQ(Check(ip, fp, b), KILN_ERR_OUT_OF_RANGE) << "binding " << k;
  }
  ip[5] = 14;  // a pool longer than its binding
  EXPECT_EQ(Check(ip, fp, bytes), KILN_ERR_OUT_OF_RANGE);
}

TEST_F(TfIdfCheck, RefusesOverflowAndRunawayWork) {
  ip[3] = std::numeric_limits<int64_t>::max();  // skips + 1 overflows
  EXPECT_NE(Check(ip, fp, bytes), KILN_OK);
  ip[3] = int64_t{1} << 40;  // fits int64, but far too many scans
  EXPECT_EQ(Check(ip, fp, bytes), KILN_ERR_OUT_OF_RANGE);
  ip[3] = 1;
  ip[1] = -1;
  EXPECT_NE(Check(ip, fp, bytes), KILN_OK);
  // An empty X with a huge row count: no buffer bounds the zero fill's loop.
  ip[1] = int64_t{1} << 40;
  ip[2] = 0;
  EXPECT_NE(Check(ip, fp, {0, 13 * 8, std::numeric_limits<uint64_t>::max()}), KILN_OK);
}

}  // namespace
