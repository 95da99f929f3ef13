// conv2d_winograd_f32 (Winograd's F(4x4, 3x3)) against conv2d_packed_f32 (the
// direct kernel the compiler would choose otherwise) on the 3x3 stride-1
// layers of ResNet-18 and GoogLeNet, per SIMD path, in direct-convolution
// GFLOP/s (2 * OC*OH*OW * C*9 per run, whatever the algorithm does):
// passes/conv_algorithm's WinogradWins is read off these numbers.
#include <vector>

#include "benchmark/benchmark.h"
#include "kiln/conv_winograd.h"
#include "kiln/kernels.h"
#include "path_benchmark.h"
#include "vm/thread_pool.h"

namespace {

void Fill(std::vector<float>& v) {
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>((i * 7919) % 97) / 97.0f - 0.5f;
}

// args: C, H(=W), OC, channels_last (x and y NHWC), threads (the VM's pool:
// 1 runs the kernel without a host), u (Winograd: 1 weights transformed by
// the compiler, 0 plain weights transformed in the kernel, as the compiler
// chooses for few tiles). Pad 1, bias, ReLU.
void RunConv3x3(benchmark::State& state, kiln_kernel_fn kernel, bool winograd) {
  const int64_t c = state.range(0), h = state.range(1), oc = state.range(2), cl = state.range(3);
  const int threads = static_cast<int>(state.range(4));
  const int64_t transformed = winograd ? state.range(5) : 0;
  kiln::vm::ThreadPool pool(threads);
  const kiln_host* host = threads > 1 ? pool.host() : nullptr;
  const int64_t panels = (oc + 15) / 16;
  // Only the speed is measured: the weights' values need not be a transform's.
  std::vector<float> x(c * h * h), w(panels * 16 * (transformed ? 36 : 9) * c), b(oc);
  std::vector<float> y(oc * h * h);
  std::vector<float> scratch(
      winograd ? kiln_winograd_scratch_floats(1, c, oc, h, h, static_cast<int>(transformed)) : 0);
  Fill(x);
  Fill(w);
  Fill(b);
  // conv2d_packed_cl_f32's 20 parameters; Winograd reads a 21st.
  const int64_t ip[21] = {1, c, h, h, oc, h, h, 3, 3, 1, 1, 1, 1, 1, 1, 1, KILN_ACT_RELU, 1, cl, cl,
                          transformed};
  const float fp[2] = {0, 0};
  void* bindings[5] = {x.data(), w.data(), b.data(), y.data(), scratch.data()};
  for (auto _ : state) {
    benchmark::DoNotOptimize(kernel(ip, fp, bindings, host));
  }
  const double flops = 2.0 * oc * h * h * c * 9;
  state.counters["GFLOP/s"] = benchmark::Counter(flops * 1e-9 * state.iterations(),
                                                 benchmark::Counter::kIsRate);
}

void BM_ConvWinograd(benchmark::State& state, kiln_kernel_fn kernel) {
  RunConv3x3(state, kernel, true);
}
void BM_ConvPacked3x3(benchmark::State& state, kiln_kernel_fn kernel) {
  RunConv3x3(state, kernel, false);
}

void Conv3x3Args(benchmark::internal::Benchmark* b) {
  b->ArgNames({"C", "H", "OC", "nhwc", "threads", "u"})
      ->Args({64, 56, 64, 0, 1, 1})     // ResNet-18 layer1
      ->Args({128, 28, 128, 0, 1, 1})   // ResNet-18 layer2
      ->Args({256, 14, 256, 0, 1, 1})   // ResNet-18 layer3
      ->Args({512, 7, 512, 0, 1, 1})    // ResNet-18 layer4
      ->Args({64, 56, 192, 0, 1, 1})    // GoogLeNet conv2 3x3
      ->Args({96, 28, 128, 0, 1, 1})    // GoogLeNet inception 3a 3x3
      ->Args({128, 28, 192, 0, 1, 1})   // GoogLeNet inception 3b 3x3
      ->Args({112, 14, 224, 0, 1, 1})   // GoogLeNet inception 4c 3x3
      ->Args({160, 7, 320, 0, 1, 1})    // GoogLeNet inception 5a 3x3
      ->Args({32, 28, 32, 0, 1, 1})     // a narrow layer
      ->Args({16, 16, 16, 0, 1, 1})     // a small one
      ->Args({64, 56, 64, 1, 1, 1})     // ResNet-18 layer1, channels last
      ->Args({256, 14, 256, 1, 1, 1})   // ResNet-18 layer3, channels last
      ->Args({512, 7, 512, 1, 1, 1})    // ResNet-18 layer4, channels last
      ->Args({64, 56, 64, 0, 2, 1})     // from here: the same layers on the VM's
      ->Args({256, 14, 256, 0, 2, 1})   //   pool of 2 threads
      ->Args({64, 56, 64, 1, 2, 1})
      ->Args({128, 28, 128, 0, 2, 1})
      ->Args({256, 14, 256, 1, 2, 1})
      ->Args({64, 56, 192, 0, 2, 1})
      ->Args({128, 28, 192, 0, 2, 1})
      ->Args({256, 14, 256, 0, 1, 0})  // ResNet-18 layer3 as the compiler
      ->Args({256, 14, 256, 0, 2, 0})  //   runs it: 16 tiles, plain weights
      ->Args({128, 28, 128, 1, 1, 1})  // ResNet-18's layer2 and layer3 as the
      ->Args({128, 28, 128, 1, 2, 1})  //   model runs them (channels last), on
      ->Args({256, 14, 256, 1, 1, 0})  //   1 and 2 threads
      ->Args({256, 14, 256, 1, 2, 0})
      ->Args({512, 7, 512, 1, 1, 0})  // ResNet-18's layer4 (4 tiles) with plain
      ->Args({512, 7, 512, 1, 2, 0})  //   weights, against the packed kernel
      ->UseRealTime()  // the pool's threads work while the caller waits
      ->Unit(benchmark::kMillisecond);
}
KILN_PATH_BENCHMARK(BM_ConvWinograd, "kiln_conv2d_winograd_f32", Conv3x3Args);
KILN_PATH_BENCHMARK(BM_ConvPacked3x3, "kiln_conv2d_packed_cl_f32", Conv3x3Args);

}  // namespace
