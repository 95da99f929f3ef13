// unique_bounded and non_max_suppression_bounded (outputs shaped after the
// run): results written compactly from the start of bound-sized buffers
// and their length reported, checked against references:
//  - Unique: from /usr/bin/python3, np.unique([2,-1,2,0,-1,5], return_index,
//    return_inverse, return_counts) = ([-1,0,2,5], [1,3,0,5], [2,0,2,1,0,3],
//    [2,1,2,1]); unsorted (first occurrence order) the same groups as
//    [2,-1,0,5], [0,1,3,5], [0,1,0,2,1,3], [2,2,1,1]; along axis 1,
//    np.unique([[1,2,1],[3,4,3]], axis=1) = [[1,2],[3,4]].
//  - NonMaxSuppression: the ONNX test data test_nonmaxsuppression_two_classes
//    (max 2 per class, IoU 0.5, score 0.0) selects (0,0,3) (0,0,0) (0,1,3)
//    (0,1,0).
// Plus the refusals: a capacity below the real count, a short count slot.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kiln/kernels.h"

namespace {

using I64s = std::vector<int64_t>;
constexpr int64_t kF32 = KILN_DTYPE_F32;

struct UniqueRun {
  std::vector<float> y = std::vector<float>(6, -7);
  I64s indices = I64s(6, -7), inverse = I64s(6, -7), counts = I64s(6, -7), scratch = I64s(12);
  int64_t n = -1;
  int Run(const float* x, const int64_t* ip) {
    void* b[] = {const_cast<float*>(x), y.data(), indices.data(), inverse.data(), counts.data(),
                 scratch.data(), &n};
    const uint64_t bytes[] = {24, 24, 48, 48, 48, 96, 8};
    const int rc = kiln_unique_bounded_check(ip, 9, nullptr, 0, bytes);
    return rc != KILN_OK ? rc : kiln_unique_bounded(ip, nullptr, b, nullptr);
  }
};

const float kX[6] = {2, -1, 2, 0, -1, 5};

TEST(UniqueBounded, SortedWritesTheDistinctElementsCompactly) {
  const int64_t ip[] = {kF32, 1, 6, 1, 6, 1, 1, 1, 1};  // capacity 6 = elements
  UniqueRun r;
  ASSERT_EQ(r.Run(kX, ip), KILN_OK);
  EXPECT_EQ(r.n, 4);
  EXPECT_EQ(r.y, (std::vector<float>{-1, 0, 2, 5, -7, -7}));  // nothing past the 4
  EXPECT_EQ(r.indices, (I64s{1, 3, 0, 5, -7, -7}));
  EXPECT_EQ(r.inverse, (I64s{2, 0, 2, 1, 0, 3}));
  EXPECT_EQ(r.counts, (I64s{2, 1, 2, 1, -7, -7}));
}

TEST(UniqueBounded, UnsortedKeepsFirstOccurrenceOrder) {
  const int64_t ip[] = {kF32, 1, 6, 1, 6, 0, 1, 1, 1};
  UniqueRun r;
  ASSERT_EQ(r.Run(kX, ip), KILN_OK);
  EXPECT_EQ(r.n, 4);
  EXPECT_EQ(std::vector<float>(r.y.begin(), r.y.begin() + 4), (std::vector<float>{2, -1, 0, 5}));
  EXPECT_EQ(I64s(r.indices.begin(), r.indices.begin() + 4), (I64s{0, 1, 3, 5}));
  EXPECT_EQ(r.inverse, (I64s{0, 1, 0, 2, 1, 3}));
  EXPECT_EQ(I64s(r.counts.begin(), r.counts.begin() + 4), (I64s{2, 2, 1, 1}));
}

TEST(UniqueBounded, AlongAnAxisYIsCompactOuterByCount) {
  const float x[6] = {1, 2, 1, 3, 4, 3};              // [2, 3], axis 1
  const int64_t ip[] = {kF32, 2, 3, 1, 3, 1, 1, 1, 1};  // outer 2, len 3, capacity 3
  UniqueRun r;
  ASSERT_EQ(r.Run(x, ip), KILN_OK);
  EXPECT_EQ(r.n, 2);
  EXPECT_EQ(std::vector<float>(r.y.begin(), r.y.begin() + 5),
            (std::vector<float>{1, 2, 3, 4, -7}));  // [[1,2],[3,4]] from the start
}

TEST(UniqueBounded, RefusesASmallCapacityOrCountSlot) {
  const int64_t small[] = {kF32, 1, 6, 1, 3, 1, 1, 1, 1};  // 4 distinct > capacity 3
  UniqueRun r;
  EXPECT_EQ(r.Run(kX, small), KILN_ERR_SHAPE_MISMATCH);
  EXPECT_EQ(r.n, -1);
  EXPECT_EQ(r.y[0], -7);  // nothing written
  const int64_t ip[] = {kF32, 1, 6, 1, 6, 1, 1, 1, 1};
  const uint64_t short_count[] = {24, 24, 48, 48, 48, 96, 4};
  EXPECT_EQ(kiln_unique_bounded_check(ip, 9, nullptr, 0, short_count), KILN_ERR_OUT_OF_RANGE);
}

// test_nonmaxsuppression_two_classes: boxes [1, 6, 4], scores [1, 2, 6].
const float kBoxes[24] = {0, 0,    1, 1,   0, 0.1f,  1, 1.1f, 0, -0.1f, 1, 0.9f,
                          0, 10,   1, 11,  0, 10.1f, 1, 11.1f, 0, 100, 1, 101};
const float kScores[12] = {0.9f, 0.75f, 0.6f, 0.95f, 0.5f, 0.3f,
                           0.9f, 0.75f, 0.6f, 0.95f, 0.5f, 0.3f};

int RunNms(int64_t capacity, I64s* y, int64_t* n) {
  const int64_t max_out = 2;
  const float iou = 0.5f, score = 0.0f;
  I64s scratch(18);
  const int64_t ip[] = {1, 6, 2, 0, capacity, KILN_DTYPE_I64, kF32, kF32};
  void* b[] = {const_cast<float*>(kBoxes), const_cast<float*>(kScores),
               const_cast<int64_t*>(&max_out), const_cast<float*>(&iou),
               const_cast<float*>(&score), y->data(), scratch.data(), n};
  const uint64_t bytes[] = {96, 48, 8, 4, 4, y->size() * 8, 144, 8};
  const int rc = kiln_non_max_suppression_bounded_check(ip, 8, nullptr, 0, bytes);
  return rc != KILN_OK ? rc : kiln_non_max_suppression_bounded(ip, nullptr, b, nullptr);
}

TEST(NonMaxSuppressionBounded, WritesTheSelectedRowsAndReportsTheCount) {
  I64s y(36, -7);  // capacity 12 rows: every box of both classes
  int64_t n = -1;
  ASSERT_EQ(RunNms(12, &y, &n), KILN_OK);
  EXPECT_EQ(n, 4);
  EXPECT_EQ(I64s(y.begin(), y.begin() + 13), (I64s{0, 0, 3, 0, 0, 0, 0, 1, 3, 0, 1, 0, -7}));
}

// Boxes counted by a length found during the run are planned at its bound:
// the capacity may exceed every box of every class (12 here); the plain
// kernel, whose count is exact, still refuses that.
TEST(NonMaxSuppressionBounded, TakesACapacityBeyondEveryBox) {
  I64s y(60, -7);
  int64_t n = -1;
  ASSERT_EQ(RunNms(20, &y, &n), KILN_OK);
  EXPECT_EQ(n, 4);
  const int64_t ip[] = {1, 6, 2, 0, 20, KILN_DTYPE_I64, kF32, kF32};
  const uint64_t bytes[] = {96, 48, 8, 4, 4, 480, 144};
  EXPECT_EQ(kiln_non_max_suppression_check(ip, 8, nullptr, 0, bytes), KILN_ERR_INVALID_ARGUMENT);
}

TEST(NonMaxSuppressionBounded, RefusesASmallCapacityOrCountSlot) {
  I64s y(9, -7);
  int64_t n = -1;
  EXPECT_EQ(RunNms(3, &y, &n), KILN_ERR_SHAPE_MISMATCH);  // 4 selected > 3
  EXPECT_EQ(n, -1);
  const int64_t ip[] = {1, 6, 2, 0, 12, KILN_DTYPE_I64, kF32, kF32};
  const uint64_t short_count[] = {96, 48, 8, 4, 4, 288, 144, 7};
  EXPECT_EQ(kiln_non_max_suppression_bounded_check(ip, 8, nullptr, 0, short_count),
            KILN_ERR_OUT_OF_RANGE);
}

}  // namespace
