// What a dispatch to the VM's thread pool costs: ParallelFor over as many
// tasks as threads, each task empty, so the time is the hand-over of the
// job and the report of its end (docs/paths.md: threads). With the vCPUs
// far apart, each cache line that crosses between them costs hundreds of
// nanoseconds (BM_CoreToCoreRoundTrip).
#include "benchmark/benchmark.h"
#include "vm/thread_pool.h"

namespace {

void NoWork(void*, int64_t, int64_t) {}

void BM_ThreadPoolDispatch(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  kiln::vm::ThreadPool pool(threads);
  for (auto _ : state) pool.ParallelFor(threads, NoWork, nullptr);
}
BENCHMARK(BM_ThreadPoolDispatch)->ArgName("threads")->Arg(2)->UseRealTime();

}  // namespace
