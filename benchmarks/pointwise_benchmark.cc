// conv2d_packed_cl_f32 on 1x1 convolutions with x and y channels-last, the
// layout MobileNetV2 and EfficientNet run their expansion and projection
// layers in (layout selection), per SIMD path, in GFLOP/s (2 * OC*H*W * C
// per run). The narrow projections (16 or 24 output channels over a large
// plane) and the 7x7 layers are where Kiln trailed ONNX Runtime's per-node
// times on MobileNetV2 (docs/benchmarks.md).
//
// Run in the model (kiln run --profile) the same layers take up to twice
// these warm-cache times: compare with sets 16 before reading a kernel
// change off the warm numbers.
#include <vector>

#include "benchmark/benchmark.h"
#include "kiln/kernels.h"
#include "path_benchmark.h"

namespace {

void Fill(std::vector<float>& v) {
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>((i * 7919) % 97) / 97.0f - 0.5f;
}

// args: C, H(=W), OC, act (KILN_ACT_*: ReLU6 is CLIP), sets: how many x/y/w
// triples the runs cycle through (1: warm caches; 16 of the 112x112 layer's
// 2.4 MB pass the 32 MB L3 of the machines we run on, so x and y come from
// memory as they may inside a model; in the 7x7 layers the weights are what
// comes from memory, as a model reads each layer's once per inference). Bias always; BM_PointwiseRes adds a
// y-shaped residual r.
void RunPointwise(benchmark::State& state, kiln_kernel_fn kernel, bool residual) {
  const int64_t c = state.range(0), h = state.range(1), oc = state.range(2);
  const int64_t act = state.range(3), sets = state.range(4);
  const int64_t panels = (oc + 15) / 16;
  std::vector<std::vector<float>> xs(sets, std::vector<float>(c * h * h));
  std::vector<std::vector<float>> ys(sets, std::vector<float>(oc * h * h));
  std::vector<std::vector<float>> ws(sets, std::vector<float>(panels * 16 * c));
  std::vector<float> b(oc), r(oc * h * h);
  for (auto& x : xs) Fill(x);
  for (auto& w : ws) Fill(w);
  Fill(b);
  Fill(r);
  const int64_t ip[20] = {1, c, h, h, oc, h, h, 1, 1, 1, 1, 0, 0, 1, 1, 1, act, 1, 1, 1};
  const float fp[2] = {0.0f, 6.0f};
  int64_t k = 0;
  for (auto _ : state) {
    void* plain[4] = {xs[k].data(), ws[k].data(), b.data(), ys[k].data()};
    void* with_res[5] = {xs[k].data(), ws[k].data(), b.data(), r.data(), ys[k].data()};
    benchmark::DoNotOptimize(kernel(ip, fp, residual ? with_res : plain, nullptr));
    k = (k + 1) % sets;
  }
  const double flops = 2.0 * oc * h * h * c;
  state.counters["GFLOP/s"] = benchmark::Counter(flops * 1e-9 * state.iterations(),
                                                 benchmark::Counter::kIsRate);
}

void BM_Pointwise(benchmark::State& state, kiln_kernel_fn kernel) {
  RunPointwise(state, kernel, false);
}
void BM_PointwiseRes(benchmark::State& state, kiln_kernel_fn kernel) {
  RunPointwise(state, kernel, true);
}

// MobileNetV2's 1x1 layers (C, H, OC, act) at 224x224, and one of EfficientNet-B0.
void PointwiseArgs(benchmark::internal::Benchmark* b) {
  b->ArgNames({"C", "H", "OC", "act", "sets"})
      ->Args({32, 112, 16, KILN_ACT_NONE, 1})    // features.1 projection
      ->Args({32, 112, 16, KILN_ACT_NONE, 16})   //   the same with cold caches
      ->Args({16, 112, 96, KILN_ACT_CLIP, 1})    // features.2 expansion
      ->Args({96, 56, 24, KILN_ACT_NONE, 1})     // features.2 projection
      ->Args({24, 56, 144, KILN_ACT_CLIP, 1})    // features.3 expansion
      ->Args({192, 28, 32, KILN_ACT_NONE, 1})    // features.4 projection
      ->Args({384, 14, 64, KILN_ACT_NONE, 1})    // features.7-10 projection
      ->Args({96, 14, 576, KILN_ACT_CLIP, 1})    // features.12 expansion
      ->Args({576, 14, 96, KILN_ACT_NONE, 1})    // features.12 projection
      ->Args({160, 7, 960, KILN_ACT_CLIP, 1})    // features.15 expansion
      ->Args({160, 7, 960, KILN_ACT_CLIP, 24})   //   weights from memory
      ->Args({960, 7, 320, KILN_ACT_NONE, 1})    // features.17 projection
      ->Args({960, 7, 320, KILN_ACT_NONE, 24})   //   weights from memory
      ->Args({320, 7, 1280, KILN_ACT_CLIP, 1})   // features.18
      ->Args({320, 7, 1280, KILN_ACT_CLIP, 24})  //   weights from memory
      // EfficientNet-B0's features.2.0 expansion: SiLU, which the AVX-512
      // micro-kernel applies in its registers and the other paths in a pass
      // over the finished rows; 4.8 MB of y, cold caches
      ->Args({16, 112, 96, KILN_ACT_SILU, 16})
      ->Args({16, 112, 96, KILN_ACT_NONE, 16})   //   the same without it
      // The 16 -> 96 expansion on a 28x28 plane, whose y (300 KB) stays in
      // L2: what a tile's own work costs, its epilogue a good part with K 16
      ->Args({16, 28, 96, KILN_ACT_CLIP, 1})
      ->Unit(benchmark::kMicrosecond);
}
// The residual projections (features.3, 5, 6, 8-10, 12, 13, 15, 16).
void PointwiseResArgs(benchmark::internal::Benchmark* b) {
  b->ArgNames({"C", "H", "OC", "act", "sets"})
      ->Args({144, 56, 24, KILN_ACT_NONE, 1})
      ->Args({192, 28, 32, KILN_ACT_NONE, 1})
      ->Args({960, 7, 160, KILN_ACT_NONE, 1})
      ->Unit(benchmark::kMicrosecond);
}
KILN_PATH_BENCHMARK(BM_Pointwise, "kiln_conv2d_packed_cl_f32", PointwiseArgs);
KILN_PATH_BENCHMARK(BM_PointwiseRes, "kiln_conv2d_packed_cl_res_f32", PointwiseResArgs);

}  // namespace
