// ThreadPool hands kernels their tasks: every index of [0, n) runs exactly
// once, in one contiguous chunk per thread (the caller's first), the
// chunks' writes are visible when the call returns, and neither a worker
// nor the caller misses a wake-up after it fell asleep (a missed one would
// hang: a watchdog aborts the test binary instead, naming the test).
#include "vm/thread_pool.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace kiln::vm {
namespace {

// Aborts the process if the scope it guards outlives `seconds`: a lost
// wake-up fails the test run at once instead of at ctest's timeout.
class Watchdog {
 public:
  explicit Watchdog(const char* what, int seconds = 20)
      : thread_([this, what, seconds] {
          std::unique_lock<std::mutex> lock(mu_);
          if (!cv_.wait_for(lock, std::chrono::seconds(seconds), [this] { return done_; })) {
            std::fprintf(stderr, "ThreadPool test '%s' did not finish in %d s: a lost wake-up\n",
                         what, seconds);
            std::abort();
          }
        }) {}
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      done_ = true;
    }
    cv_.notify_one();
    thread_.join();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

// Counts each index and records the chunks' bounds.
struct Coverage {
  std::vector<std::atomic<int>> hits;
  std::atomic<int> chunks{0};
  std::vector<int64_t> begins;  // per chunk, by its first index
  explicit Coverage(int64_t n) : hits(n), begins(n, -1) {}
};

void CountChunk(void* ctx, int64_t begin, int64_t end) {
  auto* c = static_cast<Coverage*>(ctx);
  c->chunks.fetch_add(1);
  c->begins[begin] = end;
  for (int64_t i = begin; i < end; ++i) c->hits[i].fetch_add(1);
}

TEST(ThreadPool, EveryIndexOnceInOneContiguousChunkPerThread) {
  Watchdog watchdog("EveryIndexOnceInOneContiguousChunkPerThread");
  for (int threads : {1, 2, 3, 4}) {
    ThreadPool pool(threads);
    ASSERT_EQ(pool.threads(), threads);
    for (int64_t n : {0, 1, 2, 3, 5, 7, 64, 1001}) {
      Coverage c(n);
      pool.ParallelFor(n, CountChunk, &c);
      for (int64_t i = 0; i < n; ++i) ASSERT_EQ(c.hits[i].load(), 1) << threads << " " << n << " " << i;
      // Chunk t is [n*t/T, n*(t+1)/T): the bounds follow one another.
      const int64_t expected_chunks = n <= 1 || threads == 1 ? (n > 0 ? 1 : 0)
                                                             : (n < threads ? n : threads);
      EXPECT_EQ(c.chunks.load(), expected_chunks) << threads << " " << n;
      for (int64_t at = 0; at < n;) {
        ASSERT_GT(c.begins[at], at) << "no chunk starts at " << at;
        at = c.begins[at];
      }
    }
  }
}

// Plain (non-atomic) writes by every chunk are seen by the caller.
void WriteSquares(void* ctx, int64_t begin, int64_t end) {
  auto* out = static_cast<std::vector<int64_t>*>(ctx);
  for (int64_t i = begin; i < end; ++i) (*out)[i] = i * i;
}

TEST(ThreadPool, ManyDispatchesInARowSeeEachOthersWrites) {
  Watchdog watchdog("ManyDispatchesInARowSeeEachOthersWrites");
  ThreadPool pool(2);
  std::vector<int64_t> out(16);
  for (int round = 0; round < 100000; ++round) {
    std::fill(out.begin(), out.end(), -1);
    pool.ParallelFor(static_cast<int64_t>(out.size()), WriteSquares, &out);
    for (int64_t i = 0; i < 16; ++i) ASSERT_EQ(out[i], i * i) << "round " << round;
  }
}

// Past the spin time (2 ms) idle workers sleep; a dispatch must wake them.
TEST(ThreadPool, WakesWorkersThatFellAsleep) {
  Watchdog watchdog("WakesWorkersThatFellAsleep");
  ThreadPool pool(3);
  for (int round = 0; round < 20; ++round) {
    std::this_thread::sleep_for(std::chrono::milliseconds(round % 2 ? 5 : 1));
    Coverage c(30);
    pool.ParallelFor(30, CountChunk, &c);
    for (int64_t i = 0; i < 30; ++i) ASSERT_EQ(c.hits[i].load(), 1) << round;
  }
}

// A worker chunk outlasting the spin time puts the caller to sleep; the last
// worker to finish must wake it.
void SlowWorkerChunks(void* ctx, int64_t begin, int64_t end) {
  if (begin > 0) std::this_thread::sleep_for(std::chrono::milliseconds(4));
  CountChunk(ctx, begin, end);
}

TEST(ThreadPool, WakesACallerThatFellAsleep) {
  Watchdog watchdog("WakesACallerThatFellAsleep");
  ThreadPool pool(2);
  for (int round = 0; round < 20; ++round) {
    Coverage c(4);
    pool.ParallelFor(4, SlowWorkerChunks, &c);
    for (int64_t i = 0; i < 4; ++i) ASSERT_EQ(c.hits[i].load(), 1) << round;
  }
}

TEST(ThreadPool, StopsWithWorkersSpinningOrAsleep) {
  Watchdog watchdog("StopsWithWorkersSpinningOrAsleep");
  for (int wait_ms : {0, 1, 5}) {
    ThreadPool pool(4);
    Coverage c(8);
    pool.ParallelFor(8, CountChunk, &c);
    std::this_thread::sleep_for(std::chrono::milliseconds(wait_ms));
  }  // the destructor joins every worker
}

TEST(ThreadPool, HostHandsKernelsTheSameSplit) {
  Watchdog watchdog("HostHandsKernelsTheSameSplit");
  ThreadPool pool(2);
  const kiln_host* host = pool.host();
  ASSERT_NE(host->parallel_for, nullptr);
  Coverage c(10);
  host->parallel_for(host->user, 10, CountChunk, &c);
  for (int64_t i = 0; i < 10; ++i) EXPECT_EQ(c.hits[i].load(), 1);
  EXPECT_EQ(c.begins[0], 5);
  EXPECT_EQ(c.begins[5], 10);
}

}  // namespace
}  // namespace kiln::vm
