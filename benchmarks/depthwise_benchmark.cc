// Depthwise and small-plane convolutions on rectangular planes, in GFLOP/s
// (2 FLOPs per multiply-add, taps that fall in the padding included): the
// DS-CNN keyword-spotting layers (25 x 5 planes) and MobileNetV2's depthwise
// layers from 112 x 112 down to 7 x 7. One thread (no host), ReLU fused.
// BM_ConvRect runs conv2d_f32 (NCHW), BM_DepthwiseNhwc the NHWC kernel.
#include <cstdint>
#include <vector>

#include "benchmark/benchmark.h"
#include "kiln/kernels.h"
#include "path_benchmark.h"

namespace {

void Fill(std::vector<float>& v) {
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>((i * 7919) % 97) / 97.0f - 0.5f;
}

// args: C, H, W, OC, KH, KW, stride, pad_h, pad_w, groups
void BM_ConvRect(benchmark::State& state, kiln_kernel_fn kernel) {
  const int64_t c = state.range(0), h = state.range(1), w = state.range(2), oc = state.range(3);
  const int64_t kh = state.range(4), kw = state.range(5), s = state.range(6);
  const int64_t ph = state.range(7), pw = state.range(8), g = state.range(9);
  const int64_t oh = (h + 2 * ph - kh) / s + 1, ow = (w + 2 * pw - kw) / s + 1;
  std::vector<float> x(c * h * w), wt(oc * (c / g) * kh * kw), b(oc), y(oc * oh * ow);
  Fill(x);
  Fill(wt);
  Fill(b);
  const int64_t ip[18] = {1, c,  h,  w,  oc, oh, ow, kh, kw, s, s, ph, pw, 1, 1, g,
                          KILN_ACT_RELU, 1};
  const float fp[2] = {0, 0};
  void* bindings[4] = {x.data(), wt.data(), b.data(), y.data()};
  for (auto _ : state) {
    benchmark::DoNotOptimize(kernel(ip, fp, bindings, nullptr));
  }
  const double flops = 2.0 * oc * oh * ow * (c / g) * kh * kw;
  state.counters["GFLOP/s"] = benchmark::Counter(flops * 1e-9 * state.iterations(),
                                                 benchmark::Counter::kIsRate);
}
void BM_ConvRectArgs(benchmark::internal::Benchmark* b) {
  b->ArgNames({"C", "H", "W", "OC", "KH", "KW", "s", "ph", "pw", "g"})
      ->Args({64, 25, 5, 64, 3, 3, 1, 1, 1, 64})     // DS-CNN depthwise
      ->Args({1, 49, 10, 64, 10, 4, 2, 5, 1, 1})     // DS-CNN stem
      ->Args({64, 25, 5, 64, 1, 1, 1, 0, 0, 1})      // DS-CNN pointwise
      ->Args({32, 112, 112, 32, 3, 3, 1, 1, 1, 32})  // MobileNetV2 depthwise, stride 1
      ->Args({96, 112, 112, 96, 3, 3, 2, 1, 1, 96})  // MobileNetV2 depthwise, stride 2
      ->Args({144, 56, 56, 144, 3, 3, 1, 1, 1, 144})
      ->Args({192, 28, 28, 192, 3, 3, 1, 1, 1, 192})
      ->Args({576, 14, 14, 576, 3, 3, 1, 1, 1, 576})
      ->Args({576, 14, 14, 576, 3, 3, 2, 1, 1, 576})
      ->Args({960, 7, 7, 960, 3, 3, 1, 1, 1, 960})
      ->Args({384, 14, 14, 384, 3, 3, 1, 1, 1, 384})
      ->Unit(benchmark::kMicrosecond);
}
KILN_PATH_BENCHMARK(BM_ConvRect, "kiln_conv2d_f32", BM_ConvRectArgs);

// A filled buffer of n floats starting on a 64-byte boundary, as the VM's
// arena and constants are: channels-last vector loads then never straddle a
// cache line (a malloc'd vector would time that instead).
float* Aligned64(std::vector<float>& storage, size_t n) {
  storage.assign(n + 16, 0.0f);
  float* p = storage.data();
  while (reinterpret_cast<uintptr_t>(p) % 64 != 0) ++p;
  for (size_t i = 0; i < n; ++i) p[i] = static_cast<float>((i * 7919) % 97) / 97.0f - 0.5f;
  return p;
}

// conv2d_dw_nhwc_f32 (channels last, channels in the lanes) on BM_ConvRect's
// depthwise rows, so the two layouts compare shape by shape.
// args: C, H, W, KH, KW, stride, pad_h, pad_w, sets: how many x/y pairs the
// runs cycle through (1: warm caches; 16 of a 112x112 layer pass the 32 MB L3,
// so x comes from memory, as a model's expansion leaves it in L3 or beyond)
void BM_DepthwiseNhwc(benchmark::State& state, kiln_kernel_fn kernel) {
  const int64_t c = state.range(0), h = state.range(1), w = state.range(2);
  const int64_t kh = state.range(3), kw = state.range(4), s = state.range(5);
  const int64_t ph = state.range(6), pw = state.range(7), sets = state.range(8);
  const int64_t oh = (h + 2 * ph - kh) / s + 1, ow = (w + 2 * pw - kw) / s + 1;
  std::vector<std::vector<float>> xs(sets), ys(sets);
  std::vector<float*> x(sets), y(sets);
  for (int64_t i = 0; i < sets; ++i) {
    x[i] = Aligned64(xs[i], h * w * c);
    y[i] = Aligned64(ys[i], oh * ow * c);
  }
  std::vector<float> ws, bs;
  float* wt = Aligned64(ws, kh * kw * c);
  float* b = Aligned64(bs, c);
  const int64_t ip[18] = {1, c,  h,  w,  c, oh, ow, kh, kw, s, s, ph, pw, 1, 1, c,
                          KILN_ACT_RELU, 1};
  const float fp[2] = {0, 0};
  int64_t k = 0;
  for (auto _ : state) {
    void* bindings[4] = {x[k], wt, b, y[k]};
    benchmark::DoNotOptimize(kernel(ip, fp, bindings, nullptr));
    k = (k + 1) % sets;
  }
  const double flops = 2.0 * c * oh * ow * kh * kw;
  state.counters["GFLOP/s"] = benchmark::Counter(flops * 1e-9 * state.iterations(),
                                                 benchmark::Counter::kIsRate);
}
void BM_DepthwiseNhwcArgs(benchmark::internal::Benchmark* b) {
  b->ArgNames({"C", "H", "W", "KH", "KW", "s", "ph", "pw", "sets"})
      ->Args({64, 25, 5, 3, 3, 1, 1, 1, 1})     // DS-CNN depthwise
      ->Args({32, 112, 112, 3, 3, 1, 1, 1, 1})  // MobileNetV2 depthwise, stride 1
      ->Args({32, 112, 112, 3, 3, 1, 1, 1, 16}) //   x from memory
      ->Args({96, 112, 112, 3, 3, 2, 1, 1, 1})  // MobileNetV2 depthwise, stride 2
      ->Args({96, 112, 112, 3, 3, 2, 1, 1, 16}) //   x from memory
      ->Args({144, 56, 56, 3, 3, 1, 1, 1, 1})
      ->Args({144, 56, 56, 3, 3, 1, 1, 1, 16})
      ->Args({144, 56, 56, 3, 3, 2, 1, 1, 1})   // MobileNetV2's other stride-2 layers
      ->Args({192, 28, 28, 3, 3, 2, 1, 1, 1})
      ->Args({144, 56, 56, 5, 5, 2, 2, 2, 1})   // EfficientNet-B0's 5x5 stride-2 layers
      ->Args({672, 14, 14, 5, 5, 2, 2, 2, 1})
      ->Args({192, 28, 28, 3, 3, 1, 1, 1, 1})
      ->Args({576, 14, 14, 3, 3, 1, 1, 1, 1})
      ->Args({576, 14, 14, 3, 3, 2, 1, 1, 1})
      ->Args({960, 7, 7, 3, 3, 1, 1, 1, 1})
      ->Args({384, 14, 14, 3, 3, 1, 1, 1, 1})
      ->Unit(benchmark::kMicrosecond);
}
KILN_PATH_BENCHMARK(BM_DepthwiseNhwc, "kiln_conv2d_dw_nhwc_f32", BM_DepthwiseNhwcArgs);

}  // namespace
