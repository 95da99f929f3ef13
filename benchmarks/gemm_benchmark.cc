// SGEMM throughput, Kiln's blocked GEMM against OpenBLAS cblas_sgemm in the
// same binary, single thread, row-major C = A[M,K] * B[K,N]. Shapes: square
// 256/512/1024 and the GEMMs of ResNet-18's and MobileNetV2's layers (a conv
// is M = out channels, N = output pixels, K = in channels * taps; the
// classifier is M = 1). Counter GFLOP/s counts 2*M*N*K per run.
#include <vector>

#include "benchmark/benchmark.h"
#include "kiln/kernels.h"
#include "path_benchmark.h"

#ifdef KILN_HAVE_OPENBLAS
#include <cblas.h>
extern "C" void openblas_set_num_threads(int);
#endif

namespace {

void Fill(std::vector<float>& v) {
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>((i * 7919) % 97) / 97.0f - 0.5f;
}

void SetFlops(benchmark::State& state, int64_t m, int64_t n, int64_t k) {
  state.counters["GFLOP/s"] = benchmark::Counter(2.0 * m * n * k * 1e-9 * state.iterations(),
                                                 benchmark::Counter::kIsRate);
}

void BM_KilnSgemm(benchmark::State& state, kiln_kernel_fn kernel) {
  const int64_t m = state.range(0), n = state.range(1), k = state.range(2);
  std::vector<float> a(m * k), b(k * n), y(m * n);
  Fill(a);
  Fill(b);
  const int64_t ip[9] = {m, n, k, 0, 0, 0, 0, 0, KILN_ACT_NONE};
  const float fp[4] = {1, 0, 0, 0};
  void* bindings[4] = {a.data(), b.data(), y.data(), y.data()};
  for (auto _ : state) benchmark::DoNotOptimize(kernel(ip, fp, bindings, nullptr));
  SetFlops(state, m, n, k);
}

// B pre-packed into 16-wide panels, as the compiler stores constant weights.
void BM_KilnSgemmPackedB(benchmark::State& state, kiln_kernel_fn kernel) {
  const int64_t m = state.range(0), n = state.range(1), k = state.range(2);
  const int64_t panels = (n + 15) / 16;
  std::vector<float> a(m * k), b(k * n), packed(panels * 16 * k, 0.0f), y(m * n);
  Fill(a);
  Fill(b);
  for (int64_t kk = 0; kk < k; ++kk)
    for (int64_t j = 0; j < n; ++j) packed[(j / 16) * k * 16 + kk * 16 + j % 16] = b[kk * n + j];
  const int64_t ip[9] = {m, n, k, 0, 0, 0, 0, 0, KILN_ACT_NONE};
  const float fp[4] = {1, 0, 0, 0};
  void* bindings[4] = {a.data(), packed.data(), y.data(), y.data()};
  for (auto _ : state) benchmark::DoNotOptimize(kernel(ip, fp, bindings, nullptr));
  SetFlops(state, m, n, k);
}

#ifdef KILN_HAVE_OPENBLAS
void BM_OpenblasSgemm(benchmark::State& state) {
  openblas_set_num_threads(1);
  const int64_t m = state.range(0), n = state.range(1), k = state.range(2);
  std::vector<float> a(m * k), b(k * n), y(m * n);
  Fill(a);
  Fill(b);
  for (auto _ : state) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(m),
                static_cast<int>(n), static_cast<int>(k), 1.0f, a.data(), static_cast<int>(k),
                b.data(), static_cast<int>(n), 0.0f, y.data(), static_cast<int>(n));
    benchmark::ClobberMemory();
  }
  SetFlops(state, m, n, k);
}
#endif

void Shapes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"M", "N", "K"});
  for (int64_t s : {256, 512, 1024}) b->Args({s, s, s});
  // ResNet-18: 3x3 convs of layers 1-4, the 7x7 stem, a 1x1 downsample, the classifier.
  b->Args({64, 3136, 576})->Args({128, 784, 1152})->Args({256, 196, 2304})->Args({512, 49, 4608});
  b->Args({64, 12544, 147})->Args({128, 784, 64})->Args({1, 1000, 512});
  // MobileNetV2: pointwise expand/project at 56x56, 14x14, 7x7, the last 1x1, the classifier.
  b->Args({144, 3136, 24})->Args({24, 3136, 144})->Args({384, 196, 64})->Args({64, 196, 384});
  b->Args({960, 49, 160})->Args({160, 49, 960})->Args({1280, 49, 320})->Args({1, 1000, 1280});
  // EfficientNet-B0's last squeeze-and-excitation FCs as conv2d_f32 runs them (one column).
  b->Args({48, 1, 1152})->Args({1152, 1, 48});
  b->Unit(benchmark::kMicrosecond);
}

KILN_PATH_BENCHMARK(BM_KilnSgemm, "kiln_gemm_f32", Shapes);
KILN_PATH_BENCHMARK(BM_KilnSgemmPackedB, "kiln_gemm_pb_f32", Shapes);
#ifdef KILN_HAVE_OPENBLAS
BENCHMARK(BM_OpenblasSgemm)->Apply(Shapes);
#endif

}  // namespace
