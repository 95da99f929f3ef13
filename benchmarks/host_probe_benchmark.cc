// What the machine charges for data that crosses cores: how long a cache
// line takes to travel to another core and back, and how fast one thread
// reads a buffer that another thread has just written, against one it wrote
// itself. Kernels split over threads pay this wherever a layer reads what
// the previous layer's other thread wrote (docs/paths.md, threads).
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "benchmark/benchmark.h"

namespace {

bool TwoCpus(benchmark::State& state) {
  if (std::thread::hardware_concurrency() >= 2) return true;
  state.SkipWithError("needs two CPUs");
  return false;
}

// One line bounced between the benchmark's thread and a second one.
void BM_CoreToCoreRoundTrip(benchmark::State& state) {
  if (!TwoCpus(state)) return;
  alignas(64) std::atomic<int64_t> turn{0};
  std::atomic<bool> stop{false};
  std::thread other([&] {
    int64_t seen = 0;
    while (!stop.load(std::memory_order_relaxed)) {
      const int64_t t = turn.load(std::memory_order_acquire);
      if (t != seen && t % 2 == 1) {
        seen = t + 1;
        turn.store(seen, std::memory_order_release);
      }
    }
  });
  int64_t t = 0;
  for (auto _ : state) {
    turn.store(++t, std::memory_order_release);
    while (turn.load(std::memory_order_acquire) != t + 1) {
    }
    ++t;
  }
  stop.store(true);
  other.join();
  state.counters["ns_per_round_trip"] = benchmark::Counter(
      static_cast<double>(state.iterations()),
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_CoreToCoreRoundTrip)->UseRealTime();

// arg 0: KiB read; arg 1: 1 = the buffer was written by the other thread,
// 0 = by the reading thread itself. Only the read is timed.
void BM_ReadAfterWrite(benchmark::State& state) {
  if (!TwoCpus(state)) return;
  const size_t floats = static_cast<size_t>(state.range(0)) * 1024 / sizeof(float);
  const bool remote = state.range(1) != 0;
  std::vector<float> buf(floats);
  std::atomic<int64_t> request{0}, done{0};
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    int64_t seen = 0;
    while (!stop.load(std::memory_order_relaxed)) {
      const int64_t r = request.load(std::memory_order_acquire);
      if (r == seen) continue;
      for (size_t i = 0; i < floats; ++i) buf[i] = static_cast<float>(i + r);
      seen = r;
      done.store(r, std::memory_order_release);
    }
  });
  int64_t round = 0;
  float sum = 0.0f;
  for (auto _ : state) {
    ++round;
    if (remote) {
      request.store(round, std::memory_order_release);
      while (done.load(std::memory_order_acquire) != round) {
      }
    } else {
      for (size_t i = 0; i < floats; ++i) buf[i] = static_cast<float>(i + round);
    }
    const auto start = std::chrono::steady_clock::now();
    for (size_t i = 0; i < floats; i += 16) sum += buf[i];  // one float per line
    state.SetIterationTime(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  stop.store(true);
  writer.join();
  benchmark::DoNotOptimize(sum);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * floats * sizeof(float)));
}
BENCHMARK(BM_ReadAfterWrite)
    ->ArgNames({"KiB", "other_core"})
    ->Args({256, 0})
    ->Args({256, 1})
    ->Args({2048, 0})
    ->Args({2048, 1})
    ->UseManualTime();

}  // namespace
