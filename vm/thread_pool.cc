#include "vm/thread_pool.h"

#include <chrono>

namespace kiln::vm {
namespace {

// How long a thread polls for the next job (a worker) or for the others to
// finish (the caller) before it sleeps on a condition variable. Waking a
// sleeping thread costs tens to hundreds of microseconds on a virtual
// machine, more than many kernels take, so threads stay awake for a while
// between dispatches, as OpenMP runtimes do.
constexpr auto kSpinTime = std::chrono::milliseconds(2);

// Polls `done` until it returns true or kSpinTime has passed.
template <typename Done>
bool SpinUntil(Done done) {
  const auto deadline = std::chrono::steady_clock::now() + kSpinTime;
  for (;;) {
    for (int i = 0; i < 256; ++i) {
      if (done()) return true;
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    }
    if (std::chrono::steady_clock::now() >= deadline) return false;
  }
}

void HostParallelFor(void* user, int64_t n, void (*body)(void*, int64_t, int64_t), void* ctx) {
  static_cast<ThreadPool*>(user)->ParallelFor(n, body, ctx);
}

}  // namespace

ThreadPool::ThreadPool(int threads) {
  host_.parallel_for = HostParallelFor;
  host_.user = this;
  // The interpreter checks the run budget itself (vm/run_budget.h).
  host_.should_stop = nullptr;
  host_.stop_user = nullptr;
  for (int i = 1; i < threads; ++i) workers_.emplace_back([this, i] { WorkerLoop(i); });
}

ThreadPool::~ThreadPool() {
  stop_.store(true);
  generation_.fetch_add(1);
  Wake(work_cv_);
  for (std::thread& t : workers_) t.join();
}

void ThreadPool::Wake(std::condition_variable& cv) {
  // Taking the lock first: a thread between its last check of the condition
  // and its wait holds it, so the notification cannot fall in that gap.
  { std::lock_guard<std::mutex> lock(mu_); }
  cv.notify_all();
}

void ThreadPool::RunChunk(int index) {
  const int64_t t = threads();
  const int64_t begin = n_ * index / t, end = n_ * (index + 1) / t;
  if (begin < end) body_(ctx_, begin, end);
}

void ThreadPool::ParallelFor(int64_t n, void (*body)(void*, int64_t, int64_t), void* ctx) {
  if (workers_.empty() || n <= 1) {
    if (n > 0) body(ctx, 0, n);
    return;
  }
  // The workers are done with the last job (pending_ reached 0), so the job
  // can be written without a lock; bumping generation_ publishes it.
  n_ = n, body_ = body, ctx_ = ctx;
  pending_.store(static_cast<int>(workers_.size()), std::memory_order_relaxed);
  generation_.fetch_add(1);
  if (sleepers_.load() > 0) Wake(work_cv_);
  RunChunk(0);
  const auto all_done = [this] { return pending_.load(std::memory_order_acquire) == 0; };
  if (SpinUntil(all_done)) return;
  std::unique_lock<std::mutex> lock(mu_);
  caller_sleeps_.store(true);
  done_cv_.wait(lock, [this] { return pending_.load() == 0; });
  caller_sleeps_.store(false, std::memory_order_relaxed);
}

void ThreadPool::WorkerLoop(int index) {
  uint64_t seen = 0;
  const auto new_job = [&] { return generation_.load(std::memory_order_acquire) != seen; };
  for (;;) {
    if (!SpinUntil(new_job)) {
      std::unique_lock<std::mutex> lock(mu_);
      sleepers_.fetch_add(1);
      work_cv_.wait(lock, [&] { return generation_.load() != seen; });
      sleepers_.fetch_sub(1, std::memory_order_relaxed);
    }
    seen = generation_.load(std::memory_order_acquire);
    if (stop_.load(std::memory_order_relaxed)) return;
    RunChunk(index);
    if (pending_.fetch_sub(1) == 1 && caller_sleeps_.load()) Wake(done_cv_);
  }
}

}  // namespace kiln::vm
