// Would fusing an inverted-residual block's 1x1 expansion into its depthwise
// convolution pay? BM_ExpandDepthwise runs the pair as a model runs it today
// (bands 0: the expansion writes the whole expanded tensor, then the
// depthwise reads it) or band by band (bands R: the expansion of just the
// input rows R output rows need, into a buffer the depthwise reads while it
// is in cache; rows shared by two bands are expanded twice). Both call the
// kernels themselves (conv2d_packed_cl_f32, conv2d_dw_nhwc_f32), so a band's
// outputs are bit for bit the whole pass's. Layers: MobileNetV2's
// features.2-4 (ReLU6), channels last; x cycles through 8 copies so it comes
// from memory, as the previous layer's output may.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "kiln/kernels.h"
#include "vm/kernel_paths.h"
#include "vm/kernel_registry.h"

namespace {

void Fill(std::vector<float>& v, int seed) {
  for (size_t i = 0; i < v.size(); ++i) {
    v[i] = static_cast<float>((i * 7919 + seed) % 97) / 97.0f - 0.5f;
  }
}

// args: C (input channels), H (= W), E (expanded channels), stride, bands.
void BM_ExpandDepthwise(benchmark::State& state, kiln_kernel_fn pointwise,
                        kiln_kernel_fn depthwise) {
  const int64_t c = state.range(0), h = state.range(1), e = state.range(2);
  const int64_t s = state.range(3), band = state.range(4);
  const int64_t oh = (h + 2 - 3) / s + 1;
  constexpr int kCopies = 8;
  std::vector<std::vector<float>> xs(kCopies, std::vector<float>(h * h * c));
  for (int k = 0; k < kCopies; ++k) Fill(xs[k], k);
  std::vector<float> w1((e + 15) / 16 * 16 * c), b1(e), w2(9 * e), b2(e), y(oh * oh * e);
  std::vector<float> mid(band == 0 ? h * h * e : ((band - 1) * s + 3) * h * e);
  Fill(w1, 1);
  Fill(b1, 2);
  Fill(w2, 3);
  Fill(b2, 4);
  const float fp[2] = {0.0f, 6.0f};
  // One band of output rows [o0, o1) from input rows [r0, r1): the
  // depthwise's top padding is what remains above r0.
  auto run_band = [&](const float* x, int64_t o0, int64_t o1) {
    const int64_t r0 = std::max<int64_t>(0, o0 * s - 1);
    const int64_t r1 = std::min<int64_t>(h, (o1 - 1) * s - 1 + 3);
    const int64_t pw[20] = {1, c, r1 - r0, h, e, r1 - r0, h, 1, 1, 1, 1, 0, 0, 1, 1, 1,
                            KILN_ACT_CLIP, 1, 1, 1};
    void* pb[4] = {const_cast<float*>(x + r0 * h * c), w1.data(), b1.data(), mid.data()};
    benchmark::DoNotOptimize(pointwise(pw, fp, pb, nullptr));
    const int64_t dw[18] = {1, e, r1 - r0, h, e, o1 - o0, oh, 3, 3, s, s,
                            std::max<int64_t>(0, 1 - o0 * s), 1, 1, 1, e, KILN_ACT_CLIP, 1};
    void* db[4] = {mid.data(), w2.data(), b2.data(), y.data() + o0 * oh * e};
    benchmark::DoNotOptimize(depthwise(dw, fp, db, nullptr));
  };
  int k = 0;
  for (auto _ : state) {
    const float* x = xs[k].data();
    if (band == 0) {
      run_band(x, 0, oh);
    } else {
      for (int64_t o0 = 0; o0 < oh; o0 += band) run_band(x, o0, std::min(oh, o0 + band));
    }
    k = (k + 1) % kCopies;
  }
  state.counters["MAC/s"] = benchmark::Counter(
      (double(h) * h * c * e + double(oh) * oh * e * 9) * state.iterations(),
      benchmark::Counter::kIsRate);
}

void ExpandDepthwiseArgs(benchmark::internal::Benchmark* b) {
  b->ArgNames({"C", "H", "E", "s", "bands"});
  for (const auto& layer : {std::vector<int64_t>{16, 112, 96, 2},   // features.2
                            std::vector<int64_t>{24, 56, 144, 1},   // features.3
                            std::vector<int64_t>{24, 56, 144, 2},   // features.4
                            std::vector<int64_t>{32, 28, 192, 1}})  // features.5
    for (int64_t band : {0, 4, 8, 16})
      b->Args({layer[0], layer[1], layer[2], layer[3], band});
  b->Unit(benchmark::kMicrosecond);
}

int RegisterExpandDepthwise() {
  const kiln::vm::KernelInfo* pointwise = kiln::vm::FindKernel("kiln_conv2d_packed_cl_f32");
  const kiln::vm::KernelInfo* depthwise = kiln::vm::FindKernel("kiln_conv2d_dw_nhwc_f32");
  for (int p = 0; pointwise && depthwise && p < kiln::vm::kKernelPathCount; ++p) {
    const auto path = static_cast<kiln::vm::KernelPath>(p);
    if (!kiln::vm::KernelPathRunnable(path)) continue;
    const kiln_kernel_fn pw = pointwise->fn[p], dw = depthwise->fn[p];
    ExpandDepthwiseArgs(benchmark::RegisterBenchmark(
        (std::string("BM_ExpandDepthwise/") + kiln::vm::KernelPathName(path)).c_str(),
        [pw, dw](benchmark::State& state) { BM_ExpandDepthwise(state, pw, dw); }));
  }
  return 0;
}
const int kRegistered = RegisterExpandDepthwise();

}  // namespace
