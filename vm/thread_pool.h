// The VM's parallel-for: a fixed set of worker threads created once (with
// the Instance) and handed to kernels as a kiln_host. A call splits [0, n)
// into one contiguous chunk per thread, the calling thread taking the first,
// and returns when all are done. Kernels partition work so each output is
// computed by exactly one chunk, so results do not depend on the count.
// Run-path calls allocate nothing.
#ifndef KILN_VM_THREAD_POOL_H_
#define KILN_VM_THREAD_POOL_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "kiln/kernel_abi.h"

namespace kiln::vm {

class ThreadPool {
 public:
  // `threads` counts the caller: threads - 1 workers are started.
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int threads() const { return static_cast<int>(workers_.size()) + 1; }
  // Hooks for kernels; valid while the pool lives.
  const kiln_host* host() const { return &host_; }

  // Not reentrant: one caller at a time.
  void ParallelFor(int64_t n, void (*body)(void*, int64_t, int64_t), void* ctx);

 private:
  void WorkerLoop(int index);
  void RunChunk(int index);
  // Wakes the threads asleep on cv (after the condition they wait for changed).
  void Wake(std::condition_variable& cv);

  kiln_host host_;
  std::vector<std::thread> workers_;
  // Handing a job over and waiting for it take no lock while the threads
  // spin: the job is published by generation_ (release), its end by
  // pending_. The mutex and condition variables serve only threads that
  // stopped spinning and sleep, which sleepers_ and caller_sleeps_ announce
  // (each side writes its flag, then reads the other's: sequentially
  // consistent, so one of them sees the other and no wake-up is lost).
  std::mutex mu_;
  std::condition_variable work_cv_, done_cv_;
  // One cache line holds what a dispatch touches: a job handed over and
  // its end reported move it between the cores about once each way.
  alignas(64) std::atomic<uint64_t> generation_{0};
  std::atomic<int> pending_{0};
  std::atomic<int> sleepers_{0};
  std::atomic<bool> caller_sleeps_{false};
  std::atomic<bool> stop_{false};
  // The current job, written before generation_ is bumped.
  int64_t n_ = 0;
  void (*body_)(void*, int64_t, int64_t) = nullptr;
  void* ctx_ = nullptr;
};

}  // namespace kiln::vm

#endif  // KILN_VM_THREAD_POOL_H_
