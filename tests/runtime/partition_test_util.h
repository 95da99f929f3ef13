// Helpers for kernel tests that check results do not depend on how the host
// partitions work: deterministic inputs and parallel_fors that run uneven
// chunks in reverse order, or at once on threads.
#ifndef KILN_TESTS_RUNTIME_PARTITION_TEST_UTIL_H_
#define KILN_TESTS_RUNTIME_PARTITION_TEST_UTIL_H_

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "kiln/kernel_abi.h"

namespace kiln::testing {

// n values in [-0.5, 0.5) from a linear congruential generator.
inline std::vector<float> Random(size_t n, uint32_t seed) {
  std::vector<float> v(n);
  for (float& x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = static_cast<float>(seed >> 8) / static_cast<float>(1 << 24) - 0.5f;
  }
  return v;
}

// The three uneven chunks both hosts below cut [0, n) into: chunk i is
// [cuts[i], cuts[i + 1]), some of them empty when n is small.
struct UnevenCuts {
  explicit UnevenCuts(int64_t n) : at{0, n / 3, n / 3 + (n > 2 ? 1 : 0), n} {}
  int64_t at[4];
};

// parallel_for that runs uneven chunks in reverse order: any dependence of
// results on the partition or on chunk order shows up as a difference.
inline void ReverseChunks(void*, int64_t n, void (*body)(void*, int64_t, int64_t), void* ctx) {
  const UnevenCuts split(n);
  const int64_t* cuts = split.at;
  for (int i = 2; i >= 0; --i) {
    if (cuts[i] < cuts[i + 1]) body(ctx, cuts[i], cuts[i + 1]);
  }
}
inline const kiln_host kReverseHost = {ReverseChunks, nullptr, nullptr, nullptr};

// parallel_for that runs the same uneven chunks at once, each on a thread of
// its own released together: chunks that share scratch memory or write
// each other's bytes show up as differences (ReverseChunks runs them one
// after another, where such sharing goes unseen).
inline void ConcurrentChunks(void*, int64_t n, void (*body)(void*, int64_t, int64_t), void* ctx) {
  const UnevenCuts split(n);
  const int64_t* cuts = split.at;
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int i = 0; i < 3; ++i) {
    if (cuts[i] < cuts[i + 1]) {
      threads.emplace_back([&, i] {
        while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
        body(ctx, cuts[i], cuts[i + 1]);
      });
    }
  }
  go.store(true, std::memory_order_release);
  for (std::thread& t : threads) t.join();
}
inline const kiln_host kConcurrentHost = {ConcurrentChunks, nullptr, nullptr, nullptr};

}  // namespace kiln::testing

#endif  // KILN_TESTS_RUNTIME_PARTITION_TEST_UTIL_H_
