// Throughput of the runtime kernels on layer shapes from the benchmark models,
// in GFLOP/s (2 FLOPs per multiply-add). Baselines (OpenBLAS, PyTorch) and
// tuned kernels are the speed issue's work; these numbers are the starting point.
#include <vector>

#include "benchmark/benchmark.h"
#include "kiln/kernels.h"
#include "path_benchmark.h"
#include "vm/thread_pool.h"

namespace {

void Fill(std::vector<float>& v) {
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>((i * 7919) % 97) / 97.0f - 0.5f;
}

// args: C, H(=W), OC, K, stride, groups
void BM_Conv2d(benchmark::State& state, kiln_kernel_fn kernel) {
  const int64_t c = state.range(0), h = state.range(1), oc = state.range(2), k = state.range(3),
                s = state.range(4), g = state.range(5);
  const int64_t pad = k / 2, oh = (h + 2 * pad - k) / s + 1;
  std::vector<float> x(c * h * h), w(oc * (c / g) * k * k), b(oc), y(oc * oh * oh);
  Fill(x);
  Fill(w);
  Fill(b);
  const int64_t ip[18] = {1, c, h, h, oc, oh, oh, k, k, s, s, pad, pad, 1, 1, g, KILN_ACT_RELU, 1};
  const float fp[2] = {0, 0};
  void* bindings[4] = {x.data(), w.data(), b.data(), y.data()};
  for (auto _ : state) {
    benchmark::DoNotOptimize(kernel(ip, fp, bindings, nullptr));
  }
  const double flops = 2.0 * oc * oh * oh * (c / g) * k * k;
  state.counters["GFLOP/s"] = benchmark::Counter(flops * 1e-9 * state.iterations(),
                                                 benchmark::Counter::kIsRate);
}
void BM_Conv2dArgs(benchmark::internal::Benchmark* b) {
  b->ArgNames({"C", "H", "OC", "K", "stride", "groups"})
      ->Args({3, 224, 64, 7, 2, 1})     // ResNet-18 stem
      ->Args({3, 224, 32, 3, 2, 1})     // MobileNetV2 stem
      ->Args({64, 56, 64, 3, 1, 1})     // ResNet-18 layer1
      ->Args({64, 56, 128, 3, 2, 1})    // ResNet-18 layer2.0.conv1
      ->Args({128, 28, 128, 3, 1, 1})   // ResNet-18 layer2
      ->Args({256, 14, 256, 3, 1, 1})   // ResNet-18 layer3
      ->Args({256, 14, 512, 3, 2, 1})   // ResNet-18 layer4.0.conv1
      ->Args({512, 7, 512, 3, 1, 1})    // ResNet-18 layer4
      ->Args({960, 7, 160, 1, 1, 1})    // MobileNetV2 7x7 projection
      ->Args({32, 112, 32, 3, 1, 32})   // MobileNetV2 depthwise
      ->Args({96, 56, 24, 1, 1, 1})     // MobileNetV2 pointwise
      ->Args({64, 56, 128, 1, 2, 1})    // ResNet-18 layer2.0.downsample
      ->Args({128, 28, 256, 1, 2, 1})   // ResNet-18 layer3.0.downsample
      ->Args({256, 56, 128, 1, 1, 1})   // ResNeXt-50 layer1 1x1 (NCHW between grouped layers)
      ->Args({512, 28, 128, 1, 1, 1})   // ResNeXt-50 layer2 1x1
      ->Args({256, 28, 512, 1, 1, 1})   // ResNeXt-50 layer2 1x1 expansion
      ->Args({1024, 14, 256, 1, 1, 1})  // a 14x14 1x1
      ->Args({256, 56, 128, 3, 1, 32})  // ResNeXt-50 layer1 grouped 3x3 (4 per group)
      ->Args({128, 28, 128, 3, 1, 8})   // groups of 16 (RegNet)
      ->Unit(benchmark::kMillisecond);
}
KILN_PATH_BENCHMARK(BM_Conv2d, "kiln_conv2d_f32", BM_Conv2dArgs);

// conv2d_packed_f32 (output channels in the lanes, weights packed as
// kernels.h documents) on the layers where conv2d_f32 wastes lanes.
// args: C, H(=W), OC, K, stride
// conv2d_packed_cl_f32 reads the layouts after the 18 shared parameters:
// x NCHW (0) or NHWC (1), then y's; conv2d_packed_f32 reads neither.
// threads: the VM's pool (1 runs the kernel without a host).
void RunConv2dPacked(benchmark::State& state, kiln_kernel_fn kernel, int64_t x_cl, int64_t y_cl,
                     int threads) {
  kiln::vm::ThreadPool pool(threads);
  const kiln_host* host = threads > 1 ? pool.host() : nullptr;
  const int64_t c = state.range(0), h = state.range(1), oc = state.range(2), k = state.range(3),
                s = state.range(4);
  const int64_t pad = k / 2, oh = (h + 2 * pad - k) / s + 1, taps = k * k, kk = taps * c;
  std::vector<float> x(c * h * h), w(oc * c * taps), b(oc), y(oc * oh * oh);
  Fill(x);
  Fill(w);
  Fill(b);
  std::vector<float> packed((oc + 15) / 16 * 16 * kk, 0.0f);
  for (int64_t o = 0; o < oc; ++o)
    for (int64_t ic = 0; ic < c; ++ic)
      for (int64_t t = 0; t < taps; ++t)
        packed[(o / 16) * kk * 16 + (t * c + ic) * 16 + o % 16] = w[(o * c + ic) * taps + t];
  const int64_t ip[20] = {1,  c,  h, h, oc, oh, oh, k, k, s, s, pad, pad, 1, 1, 1, KILN_ACT_RELU,
                          1, x_cl, y_cl};
  const float fp[2] = {0, 0};
  void* bindings[4] = {x.data(), packed.data(), b.data(), y.data()};
  for (auto _ : state) {
    benchmark::DoNotOptimize(kernel(ip, fp, bindings, host));
  }
  const double flops = 2.0 * oc * oh * oh * c * taps;
  state.counters["GFLOP/s"] = benchmark::Counter(flops * 1e-9 * state.iterations(),
                                                 benchmark::Counter::kIsRate);
}
// The same layers as conv2d_packed_cl_f32 runs them: NCHW stems into NHWC,
// the rest NHWC in and out.
void BM_Conv2dPackedClArgs(benchmark::internal::Benchmark* b) {
  b->ArgNames({"C", "H", "OC", "K", "stride", "x_cl", "y_cl", "threads"})
      ->Args({3, 224, 64, 7, 2, 0, 1, 1})     // ResNet-18 stem into NHWC
      ->Args({3, 224, 64, 7, 2, 0, 1, 2})     //   on 2 threads
      ->Args({3, 224, 32, 3, 2, 0, 1, 1})     // MobileNetV2 / EfficientNet-B0 stem into NHWC
      ->Args({3, 224, 32, 3, 2, 0, 0, 1})     // the same stem into NCHW (no transposition)
      ->Args({64, 56, 128, 3, 2, 1, 1, 1})    // ResNet-18 layer2.0.conv1
      ->Args({64, 56, 128, 3, 2, 1, 1, 2})    //   on 2 threads
      ->Args({256, 14, 512, 3, 2, 1, 1, 1})   // ResNet-18 layer4.0.conv1
      ->Args({512, 7, 512, 3, 1, 1, 1, 1})    // ResNet-18 layer4
      ->Args({512, 7, 512, 3, 1, 1, 1, 2})    //   on 2 threads
      ->Args({64, 56, 128, 1, 2, 1, 1, 1})    // ResNet-18 layer2.0.downsample
      ->Args({64, 56, 128, 1, 2, 1, 1, 2})    //   on 2 threads
      ->Args({128, 28, 256, 1, 2, 1, 1, 1})   // ResNet-18 layer3.0.downsample
      ->Args({128, 28, 256, 1, 2, 1, 1, 2})   //   on 2 threads
      ->UseRealTime()  // the pool's threads work while the caller waits
      ->Unit(benchmark::kMillisecond);
}

void BM_Conv2dPackedArgs(benchmark::internal::Benchmark* b) {
  b->ArgNames({"C", "H", "OC", "K", "stride"})
      ->Args({3, 224, 64, 7, 2})     // ResNet-18 stem
      ->Args({3, 224, 32, 3, 2})     // MobileNetV2 stem
      ->Args({64, 56, 64, 3, 1})     // ResNet-18 layer1
      ->Args({64, 56, 128, 3, 2})    // ResNet-18 layer2.0.conv1
      ->Args({128, 28, 128, 3, 1})   // ResNet-18 layer2
      ->Args({256, 14, 256, 3, 1})   // ResNet-18 layer3
      ->Args({256, 14, 512, 3, 2})   // ResNet-18 layer4.0.conv1
      ->Args({512, 7, 512, 3, 1})    // ResNet-18 layer4
      ->Args({960, 7, 160, 1, 1})    // MobileNetV2 7x7 projection
      ->Args({96, 56, 24, 1, 1})     // MobileNetV2 pointwise
      ->Args({64, 25, 64, 1, 1})     // DS-CNN-like pointwise (25 x 25 plane)
      ->Args({64, 56, 128, 1, 2})    // ResNet-18 layer2.0.downsample
      ->Args({128, 28, 256, 1, 2})   // ResNet-18 layer3.0.downsample
      ->Args({256, 56, 128, 1, 1})   // ResNeXt-50 layer1 1x1 (NCHW between grouped layers)
      ->Args({512, 28, 128, 1, 1})   // ResNeXt-50 layer2 1x1
      ->Args({256, 28, 512, 1, 1})   // ResNeXt-50 layer2 1x1 expansion
      ->Args({1024, 14, 256, 1, 1})  // a 14x14 1x1
      ->Unit(benchmark::kMillisecond);
}
void BM_Conv2dPacked(benchmark::State& state, kiln_kernel_fn kernel) {
  RunConv2dPacked(state, kernel, 0, 0, 1);
}
void BM_Conv2dPackedCl(benchmark::State& state, kiln_kernel_fn kernel) {
  RunConv2dPacked(state, kernel, state.range(5), state.range(6),
                  static_cast<int>(state.range(7)));
}
KILN_PATH_BENCHMARK(BM_Conv2dPacked, "kiln_conv2d_packed_f32", BM_Conv2dPackedArgs);
KILN_PATH_BENCHMARK(BM_Conv2dPackedCl, "kiln_conv2d_packed_cl_f32", BM_Conv2dPackedClArgs);

// args: C, H(=W), K, stride, pad, ceil_mode. Reported in input GB/s read.
void BM_MaxPool(benchmark::State& state, kiln_kernel_fn kernel) {
  const int64_t c = state.range(0), h = state.range(1), k = state.range(2), s = state.range(3),
                pad = state.range(4), ceil_mode = state.range(5);
  const int64_t oh = (h + 2 * pad - k + (ceil_mode ? s - 1 : 0)) / s + 1;
  std::vector<float> x(c * h * h), y(c * oh * oh);
  Fill(x);
  const int64_t ip[18] = {KILN_POOL_MAX, 1, c, h, h, oh, oh, k, k, s, s, pad, pad, pad, pad, 1, 1, 0};
  void* bindings[2] = {x.data(), y.data()};
  for (auto _ : state) {
    benchmark::DoNotOptimize(kernel(ip, nullptr, bindings, nullptr));
  }
  state.counters["GB/s"] = benchmark::Counter(4.0 * x.size() * 1e-9 * state.iterations(),
                                              benchmark::Counter::kIsRate);
}
void BM_MaxPoolArgs(benchmark::internal::Benchmark* b) {
  b->ArgNames({"C", "H", "K", "stride", "pad", "ceil"})
      ->Args({64, 112, 3, 2, 1, 0})   // ResNet-18 stem pool
      ->Args({256, 28, 3, 1, 1, 0})   // GoogLeNet inception3b branch4
      ->Args({480, 14, 3, 1, 1, 0})   // GoogLeNet inception4a branch4
      ->Args({832, 7, 3, 1, 1, 0})    // GoogLeNet inception5a branch4
      ->Args({480, 28, 3, 2, 0, 1})   // GoogLeNet maxpool3
      ->Args({832, 14, 3, 2, 0, 1})   // GoogLeNet maxpool4
      ->Unit(benchmark::kMicrosecond);
}
KILN_PATH_BENCHMARK(BM_MaxPool, "kiln_pool2d_f32", BM_MaxPoolArgs);
// The same windows over channels-last input (pool2d_nhwc_f32 takes the same parameters).
void BM_MaxPoolNhwc(benchmark::State& state, kiln_kernel_fn kernel) { BM_MaxPool(state, kernel); }
KILN_PATH_BENCHMARK(BM_MaxPoolNhwc, "kiln_pool2d_nhwc_f32", BM_MaxPoolArgs);

void BM_Gemm(benchmark::State& state, kiln_kernel_fn kernel) {
  const int64_t n = state.range(0);
  std::vector<float> a(n * n), b(n * n), y(n * n);
  Fill(a);
  Fill(b);
  const int64_t ip[9] = {n, n, n, 0, 0, 0, 0, 0, KILN_ACT_NONE};
  const float fp[4] = {1, 0, 0, 0};
  void* bindings[4] = {a.data(), b.data(), y.data(), y.data()};
  for (auto _ : state) {
    benchmark::DoNotOptimize(kernel(ip, fp, bindings, nullptr));
  }
  state.counters["GFLOP/s"] = benchmark::Counter(2.0 * n * n * n * 1e-9 * state.iterations(),
                                                 benchmark::Counter::kIsRate);
}
void BM_GemmArgs(benchmark::internal::Benchmark* b) {
  b->Arg(256)->Arg(512)->Unit(benchmark::kMillisecond);
}
KILN_PATH_BENCHMARK(BM_Gemm, "kiln_gemm_f32", BM_GemmArgs);

}  // namespace
