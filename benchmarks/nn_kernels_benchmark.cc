// The non-convolution kernels of the sequence models, per SIMD path:
// elementwise activations (vec_math.h), softmax, layer norm and the
// recurrent cells, on the shapes of the BERT, transformer, GRU and LSTM
// benchmark models (benchmarks/models). Rates in elements/s or GFLOP/s.
#include <vector>

#include "benchmark/benchmark.h"
#include "kiln/kernels.h"
#include "path_benchmark.h"

namespace {

void Fill(std::vector<float>& v, float scale) {
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = scale * (static_cast<float>((i * 7919) % 97) / 97.0f - 0.5f);
}

void SetElementRate(benchmark::State& state, double per_iteration) {
  state.counters["Gelem/s"] =
      benchmark::Counter(per_iteration * 1e-9 * state.iterations(), benchmark::Counter::kIsRate);
}

// args: activation, count (BERT's GELU: 64 x 512 values of Erf; SiLU: what
// EfficientNet's convolutions end in, which AVX2 and the vector paths run as
// this same pass over each finished tile)
void BM_Unary(benchmark::State& state, kiln_kernel_fn kernel) {
  const int64_t act = state.range(0), n = state.range(1);
  std::vector<float> x(n), y(n);
  Fill(x, 8.0f);
  const int64_t ip[2] = {act, n};
  const float fp[2] = {0.0f, 0.0f};
  void* bindings[2] = {x.data(), y.data()};
  for (auto _ : state) benchmark::DoNotOptimize(kernel(ip, fp, bindings, nullptr));
  SetElementRate(state, static_cast<double>(n));
}
void BM_UnaryArgs(benchmark::internal::Benchmark* b) {
  b->ArgNames({"act", "n"});
  for (int64_t act : {KILN_ACT_SIGMOID, KILN_ACT_TANH, KILN_ACT_EXP, KILN_ACT_ERF, KILN_ACT_SILU})
    b->Args({act, 64 * 512});
  b->Unit(benchmark::kMicrosecond);
}
KILN_PATH_BENCHMARK(BM_Unary, "kiln_unary_f32", BM_UnaryArgs);

// args: outer, axis, inner (BERT attention: 4 heads x 64 rows of 64)
void BM_Softmax(benchmark::State& state, kiln_kernel_fn kernel) {
  const int64_t outer = state.range(0), n = state.range(1), inner = state.range(2);
  std::vector<float> x(outer * n * inner), y(x.size());
  Fill(x, 10.0f);
  const int64_t ip[4] = {outer, n, inner, 0};
  void* bindings[2] = {x.data(), y.data()};
  for (auto _ : state) benchmark::DoNotOptimize(kernel(ip, nullptr, bindings, nullptr));
  SetElementRate(state, static_cast<double>(x.size()));
}
void BM_SoftmaxArgs(benchmark::internal::Benchmark* b) {
  b->ArgNames({"outer", "axis", "inner"})
      ->Args({256, 64, 1})   // BERT attention rows
      ->Args({128, 32, 1})   // transformer attention rows
      ->Args({1, 1000, 1})   // a classifier
      ->Args({8, 64, 49})    // over channels of a 7x7 map
      ->Unit(benchmark::kMicrosecond);
}
KILN_PATH_BENCHMARK(BM_Softmax, "kiln_softmax_f32", BM_SoftmaxArgs);

// args: rows, width (BERT: 64 tokens x 128)
void BM_LayerNorm(benchmark::State& state, kiln_kernel_fn kernel) {
  const int64_t rows = state.range(0), n = state.range(1);
  std::vector<float> x(rows * n), y(x.size()), scale(n), bias(n), mean(rows), inv(rows);
  Fill(x, 3.0f);
  Fill(scale, 1.0f);
  Fill(bias, 1.0f);
  const int64_t ip[4] = {rows, n, 1, 0};
  const float fp[1] = {1e-12f};
  void* bindings[6] = {x.data(), scale.data(), bias.data(), y.data(), mean.data(), inv.data()};
  for (auto _ : state) benchmark::DoNotOptimize(kernel(ip, fp, bindings, nullptr));
  SetElementRate(state, static_cast<double>(x.size()));
}
void BM_LayerNormArgs(benchmark::internal::Benchmark* b) {
  b->ArgNames({"rows", "n"})->Args({64, 128})->Args({32, 128})->Args({128, 768});
  b->Unit(benchmark::kMicrosecond);
}
KILN_PATH_BENCHMARK(BM_LayerNorm, "kiln_layer_norm_f32", BM_LayerNormArgs);

// The recurrent layers of the GRU and LSTM models, with W and R packed as
// recurrent_pb_f32 reads them (kernels.h).
std::vector<float> PackGates(const std::vector<float>& m, int64_t D, int64_t G, int64_t H,
                             int64_t K) {
  const int64_t panels = (H + 15) / 16;
  std::vector<float> out(D * G * panels * K * 16, 0.0f);
  for (int64_t d = 0; d < D; ++d)
    for (int64_t g = 0; g < G; ++g)
      for (int64_t j = 0; j < H; ++j)
        for (int64_t k = 0; k < K; ++k)
          out[(((d * G + g) * panels + j / 16) * K + k) * 16 + j % 16] =
              m[((d * G + g) * H + j) * K + k];
  return out;
}

// args: cell (1 GRU, 2 LSTM), seq, input, hidden, directions, packed
void RecurrentBody(benchmark::State& state, kiln_kernel_fn kernel, int packed) {
  const int64_t cell = state.range(0), S = state.range(1), I = state.range(2),
                H = state.range(3), D = state.range(4), G = cell == 2 ? 4 : 3;
  std::vector<float> x(S * I), w(D * G * H * I), r(D * G * H * H), bias(D * 2 * G * H);
  std::vector<float> y(S * D * H), yh(D * H), yc(D * H);
  Fill(x, 2.0f);
  Fill(w, 0.2f);
  Fill(r, 0.2f);
  Fill(bias, 0.2f);
  if (packed) w = PackGates(w, D, G, H, I), r = PackGates(r, D, G, H, H);
  std::vector<float> scratch(kiln_recurrent_scratch_floats(cell, S, I, H, D, packed));
  std::vector<int64_t> ip = {cell, S, 1, I, H, D, D == 2 ? 2 : 0, 0, 1, 0, 0, 0, 1, 1,
                             cell == 2, 0, 0, 0, 0};
  for (int k = 0; k < 6; ++k) ip.push_back(k % 3 == 0 ? 0 : 1);  // f Sigmoid, g and h Tanh
  ip.push_back(S);
  const std::vector<float> fp(13, 0.0f);
  void* bindings[12] = {x.data(), w.data(), r.data(), bias.data(), nullptr, nullptr, nullptr,
                        y.data(), yh.data(), cell == 2 ? yc.data() : nullptr, scratch.data(),
                        nullptr};
  for (auto _ : state) benchmark::DoNotOptimize(kernel(ip.data(), fp.data(), bindings, nullptr));
  const double flops = 2.0 * D * S * G * H * (I + H);
  state.counters["GFLOP/s"] =
      benchmark::Counter(flops * 1e-9 * state.iterations(), benchmark::Counter::kIsRate);
}
void BM_RecurrentPacked(benchmark::State& state, kiln_kernel_fn kernel) {
  RecurrentBody(state, kernel, 1);
}
void BM_Recurrent(benchmark::State& state, kiln_kernel_fn kernel) {
  RecurrentBody(state, kernel, 0);
}
void BM_RecurrentArgs(benchmark::internal::Benchmark* b) {
  b->ArgNames({"cell", "seq", "input", "hidden", "dirs"})
      ->Args({2, 32, 40, 128, 1})    // LSTM model, layer 1
      ->Args({2, 32, 128, 128, 1})   // LSTM model, layer 2
      ->Args({1, 32, 40, 128, 2})    // GRU model, layer 1
      ->Args({1, 32, 256, 128, 2})   // GRU model, layer 2
      ->Unit(benchmark::kMicrosecond);
}
KILN_PATH_BENCHMARK(BM_RecurrentPacked, "kiln_recurrent_pb_f32", BM_RecurrentArgs);
KILN_PATH_BENCHMARK(BM_Recurrent, "kiln_recurrent_f32", BM_RecurrentArgs);

}  // namespace

namespace {

// The linear layers of the sequence models, as gemm_f32 (B read and packed
// at run time, what a 3-D MatMul gets) and gemm_pb_f32 (B packed by the
// compiler). args: M, N, K
void GemmBody(benchmark::State& state, kiln_kernel_fn kernel, bool packed) {
  const int64_t m = state.range(0), n = state.range(1), k = state.range(2);
  std::vector<float> a(m * k), b(k * n), y(m * n), bias(n);
  Fill(a, 1.0f);
  Fill(b, 0.2f);
  Fill(bias, 1.0f);
  if (packed) {
    std::vector<float> p((n + 15) / 16 * 16 * k, 0.0f);
    for (int64_t kk = 0; kk < k; ++kk)
      for (int64_t j = 0; j < n; ++j) p[(j / 16) * k * 16 + kk * 16 + j % 16] = b[kk * n + j];
    b = p;
  }
  const int64_t ip[9] = {m, n, k, 0, 0, 1, 0, 1, KILN_ACT_NONE};
  const float fp[4] = {1, 1, 0, 0};
  void* bindings[4] = {a.data(), b.data(), bias.data(), y.data()};
  for (auto _ : state) benchmark::DoNotOptimize(kernel(ip, fp, bindings, nullptr));
  state.counters["GFLOP/s"] = benchmark::Counter(2.0 * m * n * k * 1e-9 * state.iterations(),
                                                 benchmark::Counter::kIsRate);
}
void BM_LinearGemm(benchmark::State& state, kiln_kernel_fn kernel) {
  GemmBody(state, kernel, false);
}
void BM_LinearGemmPacked(benchmark::State& state, kiln_kernel_fn kernel) {
  GemmBody(state, kernel, true);
}
void BM_LinearArgs(benchmark::internal::Benchmark* b) {
  b->ArgNames({"M", "N", "K"})
      ->Args({64, 128, 128})   // BERT q, k, v, out
      ->Args({64, 512, 128})   // BERT ff1
      ->Args({64, 128, 512})   // BERT ff2
      ->Args({32, 384, 128})   // transformer qkv
      ->Args({32, 256, 128})   // transformer ff1
      ->Args({1, 512, 784})    // MLP layer 1
      ->Unit(benchmark::kMicrosecond);
}
KILN_PATH_BENCHMARK(BM_LinearGemm, "kiln_gemm_f32", BM_LinearArgs);
KILN_PATH_BENCHMARK(BM_LinearGemmPacked, "kiln_gemm_pb_f32", BM_LinearArgs);

// Attention's batched products: scores = Q K^T and context = P V per head.
// args: heads, M, N, K
void BM_AttentionMatmul(benchmark::State& state, kiln_kernel_fn kernel) {
  const int64_t h = state.range(0), m = state.range(1), n = state.range(2), k = state.range(3);
  std::vector<float> a(h * m * k), b(h * k * n), y(h * m * n);
  Fill(a, 1.0f);
  Fill(b, 1.0f);
  const int64_t ip[7] = {m, n, k, 1, h, m * k, k * n};
  void* bindings[3] = {a.data(), b.data(), y.data()};
  for (auto _ : state) benchmark::DoNotOptimize(kernel(ip, nullptr, bindings, nullptr));
  state.counters["GFLOP/s"] = benchmark::Counter(
      2.0 * h * m * n * k * 1e-9 * state.iterations(), benchmark::Counter::kIsRate);
}
void BM_AttentionArgs(benchmark::internal::Benchmark* b) {
  b->ArgNames({"heads", "M", "N", "K"})
      ->Args({4, 64, 64, 32})   // BERT scores
      ->Args({4, 64, 32, 64})   // BERT context
      ->Args({4, 32, 32, 32})   // transformer scores
      ->Args({4, 1, 64, 32})    // one decoding step: M = 1
      ->Unit(benchmark::kMicrosecond);
}
KILN_PATH_BENCHMARK(BM_AttentionMatmul, "kiln_matmul_f32", BM_AttentionArgs);

}  // namespace
