// The cost of interpretation: one VM dispatch of a kernel that does almost no
// work (a 4-byte copy: the verifier insists every output is written, which a
// zero-byte copy would not do), over a straight-line function of 256 of them.
#include <vector>

#include "benchmark/benchmark.h"
#include "tests/vm/test_module_builder.h"
#include "vm/instance.h"

namespace {

constexpr int kDispatches = 256;

void BM_VmEmptyDispatch(benchmark::State& state) {
  kiln::testing::CopyModuleSpec spec;
  spec.copy_bytes = 4;
  spec.bytecode = {KILN_OP_VIEW_INPUT, 0, 0, KILN_OP_VIEW_OUTPUT, 1, 0};
  for (int i = 0; i < kDispatches; ++i) {
    spec.bytecode.insert(spec.bytecode.end(), {KILN_OP_DISPATCH, 0, 2, 0, 1});
  }
  spec.bytecode.push_back(KILN_OP_RETURN);
  spec.register_count = 2;
  std::string bytes = kiln::testing::BuildCopyModule(spec);
  auto image = kiln::vm::ModuleImage::LoadBytes(bytes.data(), bytes.size(), "bench.kiln");
  if (!image.ok()) {
    state.SkipWithError(std::string(image.status().message()).c_str());
    return;
  }
  auto instance = kiln::vm::Instance::Create(*image);
  float in[4] = {}, out[4] = {};
  const void* inputs[] = {in};
  void* outputs[] = {out};
  for (auto _ : state) {
    benchmark::DoNotOptimize((*instance)->RunUnchecked(inputs, outputs));
  }
  state.counters["ns_per_dispatch"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * kDispatches,
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_VmEmptyDispatch);

}  // namespace
