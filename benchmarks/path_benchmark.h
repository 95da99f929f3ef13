// Kernel benchmarks run once per SIMD path this machine runs (the VM's
// copies of the kernels, vm/kernel_paths.h), registered as NAME/<path>, so
// every path is measured by the same binary in the same run.
#ifndef KILN_BENCHMARKS_PATH_BENCHMARK_H_
#define KILN_BENCHMARKS_PATH_BENCHMARK_H_

#include <string>

#include "benchmark/benchmark.h"
#include "kiln/kernel_abi.h"
#include "vm/kernel_paths.h"
#include "vm/kernel_registry.h"

namespace kiln_bench {

using KernelBody = void (*)(benchmark::State&, kiln_kernel_fn);
using ApplyArgs = void (*)(benchmark::internal::Benchmark*);

inline int RegisterPerPath(const char* name, const char* symbol, KernelBody body,
                           ApplyArgs apply) {
  const kiln::vm::KernelInfo* kernel = kiln::vm::FindKernel(symbol);
  for (int p = 0; kernel != nullptr && p < kiln::vm::kKernelPathCount; ++p) {
    const auto path = static_cast<kiln::vm::KernelPath>(p);
    if (!kiln::vm::KernelPathRunnable(path)) continue;
    const kiln_kernel_fn fn = kernel->fn[p];
    apply(benchmark::RegisterBenchmark(
        (std::string(name) + "/" + kiln::vm::KernelPathName(path)).c_str(),
        [body, fn](benchmark::State& state) { body(state, fn); }));
  }
  return 0;
}

}  // namespace kiln_bench

// Registers BODY (void BODY(benchmark::State&, kiln_kernel_fn)) on kernel
// SYMBOL for every runnable path, with APPLY adding its arguments.
#define KILN_PATH_BENCHMARK(BODY, SYMBOL, APPLY) \
  const int BODY##_registered = kiln_bench::RegisterPerPath(#BODY, SYMBOL, BODY, APPLY)

#endif  // KILN_BENCHMARKS_PATH_BENCHMARK_H_
