// Observed runs (vm/observer.h) and the tools built on them: dispatch debug
// info, NaN checks, value recording, the trace and profile text, and the
// kernel parameter table.
#include <cmath>
#include <cstring>
#include <limits>

#include "compiler/compiler.h"
#include "gtest/gtest.h"
#include "tests/vm/test_module_builder.h"
#include "vm/instance.h"
#include "vm/kernel_params.h"
#include "vm/tools/debug_info.h"
#include "vm/tools/dispatch_timer.h"
#include "vm/tools/dump.h"
#include "vm/tools/npy.h"
#include "vm/tools/profiler.h"
#include "vm/tools/trace_writer.h"

namespace kiln::vm {
namespace {

class CountingObserver : public DispatchObserver {
 public:
  explicit CountingObserver(int stop_after = -1) : stop_after_(stop_after) {}
  void BeginRun() override { ++runs; }
  void BeforeDispatch(uint32_t dispatch, void* const*) override { before.push_back(dispatch); }
  bool AfterDispatch(uint32_t dispatch, void* const*) override {
    after.push_back(dispatch);
    return static_cast<int>(after.size()) != stop_after_;
  }
  int runs = 0;
  std::vector<uint32_t> before, after;

 private:
  int stop_after_;
};

std::unique_ptr<Instance> Load(const std::string& bytes, const std::string& name) {
  auto image = ModuleImage::LoadBytes(bytes.data(), bytes.size(), name);
  EXPECT_TRUE(image.ok()) << image.status();
  auto instance = Instance::Create(*image);
  EXPECT_TRUE(instance.ok()) << instance.status();
  return std::move(*instance);
}

std::string Compile(const std::string& model) {
  auto bytes = compiler::BuildModule(std::string(KILN_SOURCE_DIR) + "/tests/models/" + model, {});
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  return bytes.ok() ? *bytes : "";
}

TEST(ObservedRun, SeesEveryDispatchInOrderAndComputesTheSame) {
  auto instance = Load(kiln::testing::BuildCopyModule({}), "copy.kiln");
  float in[4] = {1, 2, 3, 4}, out[4] = {};
  const int64_t shape[] = {4};
  CountingObserver observer;
  ASSERT_TRUE(instance->Run({HostTensor{fb::DType::F32, shape, in, 16}},
                            {HostTensor{fb::DType::F32, shape, out, 16}}, &observer)
                  .ok());
  EXPECT_EQ(observer.runs, 1);
  EXPECT_EQ(observer.before, (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(observer.after, (std::vector<uint32_t>{0, 1}));
  for (int i = 0; i < 4; ++i) EXPECT_EQ(out[i], in[i]);
}

TEST(ObservedRun, ObserverCanStopTheRun) {
  auto instance = Load(kiln::testing::BuildCopyModule({}), "copy.kiln");
  float in[4] = {1, 2, 3, 4}, out[4] = {};
  const int64_t shape[] = {4};
  CountingObserver observer(/*stop_after=*/1);
  absl::Status s = instance->Run({HostTensor{fb::DType::F32, shape, in, 16}},
                                 {HostTensor{fb::DType::F32, shape, out, 16}}, &observer);
  EXPECT_EQ(s.code(), absl::StatusCode::kAborted) << s;
  EXPECT_NE(std::string(s.message()).find("+12"), std::string::npos) << s;  // first DISPATCH
  EXPECT_EQ(observer.after.size(), 1u);
  EXPECT_EQ(out[0], 0.0f);  // the second copy never ran
}

TEST(DebugInfo, CompiledModuleNamesValuesAndAliases) {
  std::string bytes = Compile("reshape_view_chain.onnx");
  auto image = ModuleImage::LoadBytes(bytes.data(), bytes.size(), "rv.kiln");
  ASSERT_TRUE(image.ok());
  auto dispatches = DescribeDispatches(**image);
  ASSERT_TRUE(dispatches.ok()) << dispatches.status();
  ASSERT_EQ(dispatches->size(), 2u);
  const DispatchInfo& conv = (*dispatches)[0];
  EXPECT_EQ(conv.kernel, "kiln_conv2d_f32");
  ASSERT_EQ(conv.values.size(), 2u);
  EXPECT_EQ(conv.values[0].name, "/Relu_output_0");
  EXPECT_EQ(conv.values[0].shape, (std::vector<int64_t>{1, 4, 6, 6}));
  EXPECT_EQ(conv.values[0].binding, 3u);
  // The Reshape output: same bytes, its own shape.
  EXPECT_EQ(conv.values[1].shape, (std::vector<int64_t>{1, 144}));
  EXPECT_EQ(conv.values[1].binding, 3u);
  EXPECT_EQ(conv.values[1].bytes, conv.values[0].bytes);
  // conv: 2 * N*OC*OH*OW * C*KH*KW
  EXPECT_GT(conv.flops, 0);
  // The arena plan records lifetimes in dispatches.
  const fb::MemoryPlan& plan = *(*image)->module().memory();
  ASSERT_NE(plan.tensors(), nullptr);
  ASSERT_EQ(plan.tensors()->size(), 1u);
  EXPECT_EQ(plan.tensors()->Get(0)->first_dispatch(), 0u);
  EXPECT_EQ(plan.tensors()->Get(0)->last_dispatch(), 1u);
}

// Describes the dispatches of a hand-built one-copy module (4 floats in, 4
// out) whose debug info puts a value of `value_shape` in the output binding.
absl::StatusOr<std::vector<DispatchInfo>> DescribeWithDebugValue(
    std::vector<int64_t> value_shape, bool channels_last,
    std::vector<int32_t> dim_registers = {}) {
  flatbuffers::FlatBufferBuilder b;
  std::vector<int64_t> shape = {4};
  auto in = fb::CreateTensorDesc(b, b.CreateString("x"), fb::DType::F32, b.CreateVector(shape));
  auto out = fb::CreateTensorDesc(b, b.CreateString("y"), fb::DType::F32, b.CreateVector(shape));
  auto sig = fb::CreateSignature(b, b.CreateVector(std::vector{in}), b.CreateVector(std::vector{out}));
  std::vector<int64_t> iparams = {16};
  std::vector<uint64_t> binding_bytes = {16, 16};
  auto exec = fb::CreateExecutable(b, b.CreateString("kiln_copy"), b.CreateVector(iparams), 0, 2,
                                   b.CreateVector(binding_bytes));
  auto fn = fb::CreateFunction(b, b.CreateString("main"), 3,
                               b.CreateVector(kiln::testing::DefaultCopyBytecode(0, 16)));
  auto plan = fb::CreateMemoryPlan(b, 64, 64);
  auto value = fb::CreateValueDebug(b, b.CreateString("v"), fb::DType::F32,
                                    b.CreateVector(value_shape), 1, channels_last,
                                    dim_registers.empty() ? 0 : b.CreateVector(dim_registers));
  auto dbg = fb::CreateDispatchDebug(b, 12, 0, 0, 0, 0, b.CreateVector(std::vector{value}));
  auto debug = fb::CreateDebugInfo(b, b.CreateString("hand-built"), b.CreateVector(std::vector{dbg}));
  auto module = fb::CreateModule(b, KILN_FORMAT_VERSION, b.CreateString("test"), sig,
                                 b.CreateVector(std::vector{fn}), b.CreateVector(std::vector{exec}),
                                 0, 0, plan, debug);
  fb::FinishModuleBuffer(b, module);
  auto image = ModuleImage::LoadBytes(b.GetBufferPointer(), b.GetSize(), "bad_debug.kiln");
  if (!image.ok()) return image.status();
  return DescribeDispatches(**image);
}

TEST(DebugInfo, RefusesValuesOutsideTheirBinding) {
  // 8 floats claimed in a 4-float binding.
  auto dispatches = DescribeWithDebugValue({8}, false);
  ASSERT_FALSE(dispatches.ok());
  EXPECT_NE(std::string(dispatches.status().message()).find("'v' needs 32 bytes"),
            std::string::npos)
      << dispatches.status();
}

TEST(DebugInfo, RefusesChannelsLastValuesNotOfRankFour) {
  ASSERT_TRUE(DescribeWithDebugValue({1, 1, 2, 2}, true).ok());
  auto dispatches = DescribeWithDebugValue({4}, true);
  ASSERT_FALSE(dispatches.ok());
  EXPECT_NE(std::string(dispatches.status().message()).find("'v' is channels last but has rank 1"),
            std::string::npos)
      << dispatches.status();
}

// Symbolic dims (dim_registers): the hand-built module's function has no
// integer registers, so any register a debug value names is out of range.
TEST(DebugInfo, RefusesSymbolicDimsInMissingIntegerRegisters) {
  auto dispatches = DescribeWithDebugValue({-1}, false, {0});
  ASSERT_FALSE(dispatches.ok());
  EXPECT_NE(std::string(dispatches.status().message())
                .find("debug value 'v' reads dim 0 from integer register n0; its function has 0 "
                      "integer registers"),
            std::string::npos)
      << dispatches.status();
  auto negative = DescribeWithDebugValue({-1}, false, {-7});
  ASSERT_FALSE(negative.ok());
  EXPECT_NE(std::string(negative.status().message()).find("'v' reads dim 0 from integer register n-7"),
            std::string::npos)
      << negative.status();
  // One register per dim, or none.
  auto short_list = DescribeWithDebugValue({2, 2}, false, {-1});
  ASSERT_FALSE(short_list.ok());
  EXPECT_NE(std::string(short_list.status().message())
                .find("'v' has 1 dim registers for a shape of rank 2"),
            std::string::npos)
      << short_list.status();
  // All -1: a static value after all, checked as one.
  auto all_static = DescribeWithDebugValue({2, 2}, false, {-1, -1});
  ASSERT_TRUE(all_static.ok()) << all_static.status();
  EXPECT_FALSE((*all_static)[0].values[0].symbolic());
  EXPECT_EQ((*all_static)[0].values[0].bytes, 16u);
}

TEST(DebugInfo, ValueInRunReadsTheRunsSizesAndChecksTheBinding) {
  ValueInfo v;
  v.name = "h";
  v.dtype = fb::DType::F32;
  v.shape = {-1, 8, -1};
  v.dim_registers = {2, -1, 0};
  v.dim_exprs = {"N", "8", "S + T"};
  EXPECT_EQ(ValueShapeText(v), "[N,8,S + T]");
  const int64_t regs[3] = {5, 99, 3};  // S + T = 5, N = 3
  auto r = ValueInRun(v, regs, 3, 3 * 8 * 5 * 4);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->shape, (std::vector<int64_t>{3, 8, 5}));
  EXPECT_EQ(r->bytes, 3u * 8 * 5 * 4);
  EXPECT_FALSE(r->symbolic());
  // One byte short of the run's binding.
  auto small = ValueInRun(v, regs, 3, 3 * 8 * 5 * 4 - 1);
  ASSERT_FALSE(small.ok());
  EXPECT_NE(std::string(small.status().message())
                .find("debug value 'h' [N,8,S + T] is [3,8,5] in this run: 480 bytes; binding 0 "
                      "holds 479"),
            std::string::npos)
      << small.status();
  // A register the run does not have, a negative size.
  EXPECT_FALSE(ValueInRun(v, regs, 2, 1 << 20).ok());
  EXPECT_FALSE(ValueInRun(v, nullptr, 0, 1 << 20).ok());
  const int64_t negative[3] = {5, 0, -1};
  auto bad = ValueInRun(v, negative, 3, 1 << 20);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(std::string(bad.status().message()).find("bad shape [-1,8,5]"), std::string::npos)
      << bad.status();
}

TEST(DebugInfo, ChannelsLastBytesComeBackInOnnxOrder) {
  // x[n,c,h,w] = 1000n + 100c + 10h + w, shape [2,3,2,4], stored N,H,W,C.
  ValueInfo v;
  v.dtype = fb::DType::F32;
  v.shape = {2, 3, 2, 4};
  v.bytes = 2 * 3 * 2 * 4 * sizeof(float);
  v.channels_last = true;
  std::vector<float> stored;
  for (int n = 0; n < 2; ++n)
    for (int h = 0; h < 2; ++h)
      for (int w = 0; w < 4; ++w)
        for (int c = 0; c < 3; ++c) stored.push_back(1000.0f * n + 100.0f * c + 10.0f * h + w);
  const std::vector<uint8_t> bytes = ValueBytes(v, stored.data());
  ASSERT_EQ(bytes.size(), v.bytes);
  std::vector<float> onnx_order(stored.size());
  std::memcpy(onnx_order.data(), bytes.data(), bytes.size());
  size_t at = 0;
  for (int n = 0; n < 2; ++n)
    for (int c = 0; c < 3; ++c)
      for (int h = 0; h < 2; ++h)
        for (int w = 0; w < 4; ++w, ++at) {
          EXPECT_EQ(onnx_order[at], 1000.0f * n + 100.0f * c + 10.0f * h + w) << at;
          EXPECT_EQ(ValueIndexOfStored(v, ((n * 2 + h) * 4 + w) * 3 + c), at);
        }
}

struct CompiledRun {
  std::unique_ptr<Instance> instance;
  std::vector<DispatchInfo> dispatches;
  NpyArray input, output;
};

CompiledRun Prepare(const std::string& model) {
  CompiledRun r;
  r.instance = Load(Compile(model + ".onnx"), model + ".kiln");
  auto d = DescribeDispatches(r.instance->image());
  EXPECT_TRUE(d.ok());
  r.dispatches = *d;
  auto in = ReadNpy(std::string(KILN_SOURCE_DIR) + "/tests/models/" + model + ".input0.npy");
  EXPECT_TRUE(in.ok());
  r.input = *in;
  const fb::TensorDesc& out = *r.instance->signature().outputs()->Get(0);
  r.output.dtype = out.dtype();
  r.output.shape.assign(out.shape()->begin(), out.shape()->end());
  r.output.data.assign(r.output.element_count() * 4, 0);
  return r;
}

TEST(NanChecker, NamesTheFirstDispatchAndValue) {
  CompiledRun r = Prepare("small_cnn_opset13");
  r.input.floats()[5] = std::numeric_limits<float>::quiet_NaN();
  NanChecker checker(&r.dispatches);
  absl::Status s = r.instance->Run({{r.input.dtype, r.input.shape, r.input.data.data(), r.input.data.size()}},
                                   {{r.output.dtype, r.output.shape, r.output.data.data(), r.output.data.size()}},
                                   &checker);
  EXPECT_EQ(s.code(), absl::StatusCode::kAborted);
  ASSERT_TRUE(checker.found());
  EXPECT_NE(checker.message().find("dispatch 0 (+60, kiln_conv2d_f32; ONNX nodes /block1/block1.0/Conv:Conv"),
            std::string::npos)
      << checker.message();
  EXPECT_NE(checker.message().find("value '/block1/block1.2/Relu_output_0' [1,8,16,16] has "),
            std::string::npos)
      << checker.message();
}

TEST(NanChecker, PassesFiniteRuns) {
  CompiledRun r = Prepare("small_cnn_opset13");
  NanChecker checker(&r.dispatches);
  EXPECT_TRUE(r.instance->Run({{r.input.dtype, r.input.shape, r.input.data.data(), r.input.data.size()}},
                              {{r.output.dtype, r.output.shape, r.output.data.data(), r.output.data.size()}},
                              &checker).ok());
  EXPECT_FALSE(checker.found());
  EXPECT_EQ(checker.checked_values(), 8u);  // 7 dispatches, Flatten aliases the pool output
}

TEST(ValueRecorder, LastValueIsTheOutputTheCallerGets) {
  CompiledRun r = Prepare("small_cnn_opset13");
  ValueRecorder recorder(&r.dispatches);
  ASSERT_TRUE(r.instance->Run({{r.input.dtype, r.input.shape, r.input.data.data(), r.input.data.size()}},
                              {{r.output.dtype, r.output.shape, r.output.data.data(), r.output.data.size()}},
                              &recorder).ok());
  ASSERT_FALSE(recorder.values().empty());
  const RecordedValue& last = recorder.values().back();
  EXPECT_EQ(last.info->name, "output0");
  EXPECT_EQ(last.bytes, r.output.data);
  // Reference from the test data: softmax output of the same input.
  auto ref = ReadNpy(std::string(KILN_SOURCE_DIR) + "/tests/models/small_cnn_opset13.output0.npy");
  ASSERT_TRUE(ref.ok());
  for (int64_t i = 0; i < ref->element_count(); ++i) {
    EXPECT_NEAR(r.output.floats()[i], ref->floats()[i], 1e-4);
  }
}

// cnn_dynbatch (tests/models/dynamic/generate.py): Conv 3->8 3x3 pad 1 on
// 16x16, MaxPool 2, Conv 8->16 3x3 stride 2 pad 1 on 8x8, at batch N. Its
// DISPATCH_DYN FLOPs come from the run's batch: 2*N*8*16*16*3*9 and
// 2*N*16*4*4*8*9.
TEST(Timer, DynamicDispatchFlopsUseTheRunsSizes) {
  auto instance = Load(Compile("dynamic/cnn_dynbatch.onnx"), "cnn_dynbatch.kiln");
  auto dispatches = DescribeDispatches(instance->image());
  ASSERT_TRUE(dispatches.ok());
  const std::string dir = std::string(KILN_SOURCE_DIR) + "/tests/models/dynamic/";
  auto in = ReadNpy(dir + "cnn_dynbatch.5.input.npy");
  auto ref = ReadNpy(dir + "cnn_dynbatch.5.output.npy");
  ASSERT_TRUE(in.ok() && ref.ok());
  NpyArray out = *ref;
  ASSERT_TRUE(instance->Reserve({{in->dtype, in->shape, in->data.data(), in->data.size()}}).ok());
  DispatchTimer timer(static_cast<uint32_t>(dispatches->size()), 2);
  for (int k = 0; k < 2; ++k) {
    ASSERT_TRUE(instance->Run({{in->dtype, in->shape, in->data.data(), in->data.size()}},
                              {{out.dtype, out.shape, out.data.data(), out.data.size()}}, &timer)
                    .ok());
  }
  ASSERT_GE(dispatches->size(), 3u);
  EXPECT_TRUE((*dispatches)[0].dynamic);
  EXPECT_LT((*dispatches)[0].flops, 0);  // unknown until a run
  EXPECT_DOUBLE_EQ(KernelFlops((*dispatches)[0].kernel, timer.dynamic_params(0)),
                   2.0 * 5 * 8 * 16 * 16 * 3 * 9);
  EXPECT_DOUBLE_EQ(KernelFlops((*dispatches)[2].kernel, timer.dynamic_params(2)),
                   2.0 * 5 * 16 * 4 * 4 * 8 * 9);
  const std::string profile = ProfileReport(*dispatches, timer);
  const size_t conv = profile.find("\nConv ");
  ASSERT_NE(conv, std::string::npos) << profile;
  const std::string line = profile.substr(conv + 1, profile.find('\n', conv + 1) - conv - 1);
  EXPECT_NE(line.back(), '-') << line;  // a GFLOP/s figure, not "unknown"
}

// The same module at two batch sizes: every debug value has a symbolic
// batch, read from the run (cnn_dynbatch: Conv+Relu [N,8,16,16], MaxPool
// [N,8,8,8], Conv+Relu [N,16,4,4], GlobalAveragePool [N,16,1,1] and its
// Flatten [N,16], Gemm [N,10]).
TEST(ValueRecorder, SymbolicValuesHaveTheRunsShapes) {
  auto instance = Load(Compile("dynamic/cnn_dynbatch.onnx"), "cnn_dynbatch.kiln");
  auto dispatches = DescribeDispatches(instance->image());
  ASSERT_TRUE(dispatches.ok()) << dispatches.status();
  ASSERT_FALSE((*dispatches)[0].values.empty());
  const ValueInfo& relu = (*dispatches)[0].values[0];
  EXPECT_TRUE(relu.symbolic());
  EXPECT_EQ(ValueShapeText(relu), "[N,8,16,16]");
  EXPECT_EQ(relu.bytes, 0u);  // known per run
  const std::string dir = std::string(KILN_SOURCE_DIR) + "/tests/models/dynamic/";
  auto in5 = ReadNpy(dir + "cnn_dynbatch.5.input.npy");
  ASSERT_TRUE(in5.ok());
  ASSERT_TRUE(instance->Reserve({{in5->dtype, in5->shape, in5->data.data(), in5->data.size()}}).ok());
  for (int n : {2, 5}) {
    auto in = ReadNpy(dir + "cnn_dynbatch." + std::to_string(n) + ".input.npy");
    auto ref = ReadNpy(dir + "cnn_dynbatch." + std::to_string(n) + ".output.npy");
    ASSERT_TRUE(in.ok() && ref.ok());
    NpyArray out = *ref;
    ValueRecorder recorder(&*dispatches);
    ASSERT_TRUE(instance->Run({{in->dtype, in->shape, in->data.data(), in->data.size()}},
                              {{out.dtype, out.shape, out.data.data(), out.data.size()}}, &recorder)
                    .ok());
    ASSERT_TRUE(recorder.status().ok()) << recorder.status();
    ASSERT_EQ(recorder.values().size(), 6u);
    const std::vector<std::vector<int64_t>> shapes = {
        {n, 8, 16, 16}, {n, 8, 8, 8}, {n, 16, 4, 4}, {n, 16, 1, 1}, {n, 16}, {n, 10}};
    for (size_t k = 0; k < shapes.size(); ++k) {
      const RecordedValue& v = recorder.values()[k];
      EXPECT_EQ(v.shape, shapes[k]) << v.info->name;
      int64_t elements = 1;
      for (int64_t d : shapes[k]) elements *= d;
      EXPECT_EQ(v.bytes.size(), static_cast<size_t>(elements) * 4) << v.info->name;
    }
    // The last value is the output the caller got; it matches PyTorch.
    EXPECT_EQ(recorder.values().back().bytes, out.data);
    for (int64_t i = 0; i < ref->element_count(); ++i) {
      EXPECT_NEAR(out.floats()[i], ref->floats()[i], 1e-4);
    }
    NanChecker checker(&*dispatches);
    ASSERT_TRUE(instance->Run({{in->dtype, in->shape, in->data.data(), in->data.size()}},
                              {{out.dtype, out.shape, out.data.data(), out.data.size()}}, &checker)
                    .ok());
    EXPECT_FALSE(checker.found());
    EXPECT_EQ(checker.checked_values(), 6u);
  }
}

// Debug info claiming more than a DISPATCH_DYN binding holds in this run is
// refused when the value is read, not read past the binding.
TEST(ValueRecorder, RefusesSymbolicValuesLargerThanTheRunsBinding) {
  auto instance = Load(Compile("dynamic/cnn_dynbatch.onnx"), "cnn_dynbatch.kiln");
  auto dispatches = DescribeDispatches(instance->image());
  ASSERT_TRUE(dispatches.ok()) << dispatches.status();
  (*dispatches)[0].values[0].shape[1] = 9;  // [N,9,16,16] in a [N,8,16,16] binding
  const std::string dir = std::string(KILN_SOURCE_DIR) + "/tests/models/dynamic/";
  auto in = ReadNpy(dir + "cnn_dynbatch.2.input.npy");
  auto ref = ReadNpy(dir + "cnn_dynbatch.2.output.npy");
  ASSERT_TRUE(in.ok() && ref.ok());
  NpyArray out = *ref;
  ASSERT_TRUE(instance->Reserve({{in->dtype, in->shape, in->data.data(), in->data.size()}}).ok());
  ValueRecorder recorder(&*dispatches);
  absl::Status s = instance->Run({{in->dtype, in->shape, in->data.data(), in->data.size()}},
                                 {{out.dtype, out.shape, out.data.data(), out.data.size()}},
                                 &recorder);
  EXPECT_EQ(s.code(), absl::StatusCode::kAborted) << s;
  ASSERT_FALSE(recorder.status().ok());
  EXPECT_NE(std::string(recorder.status().message())
                .find("is [2,9,16,16] in this run: 18432 bytes; binding 3 holds 16384"),
            std::string::npos)
      << recorder.status();
  EXPECT_TRUE(recorder.values().empty());
}

TEST(Timer, TraceAndProfileCoverEveryDispatch) {
  CompiledRun r = Prepare("small_cnn_opset13");
  DispatchTimer timer(static_cast<uint32_t>(r.dispatches.size()), 3);
  for (int k = 0; k < 3; ++k) {
    ASSERT_TRUE(r.instance->Run({{r.input.dtype, r.input.shape, r.input.data.data(), r.input.data.size()}},
                                {{r.output.dtype, r.output.shape, r.output.data.data(), r.output.data.size()}},
                                &timer).ok());
  }
  EXPECT_EQ(timer.run_count(), 3u);
  EXPECT_EQ(timer.event_count(), 3 * r.dispatches.size());
  EXPECT_EQ(timer.dropped(), 0u);
  for (size_t k = 0; k < timer.event_count(); ++k) {
    EXPECT_LE(timer.events()[k].begin_ns, timer.events()[k].end_ns);
  }
  std::string trace = ChromeTraceJson("m.kiln", r.dispatches, timer);
  size_t events = 0;
  for (size_t p = trace.find("\"cat\":\"dispatch\""); p != std::string::npos;
       p = trace.find("\"cat\":\"dispatch\"", p + 1)) {
    ++events;
  }
  EXPECT_EQ(events, 3 * r.dispatches.size());
  std::string profile = ProfileReport(r.dispatches, timer);
  EXPECT_NE(profile.find("per op type"), std::string::npos);
  EXPECT_NE(profile.find("MaxPool"), std::string::npos);
  auto stats = CollectDispatchStats(r.dispatches.size(), timer);
  for (const DispatchStats& s : stats) EXPECT_EQ(s.calls, 3u);
}

TEST(KernelParams, NamesAndFlops) {
  const std::vector<int64_t> conv = {1, 3, 8, 8, 4, 6, 6, 3, 3, 1, 1, 0, 0, 1, 1, 1, 1, 1};
  auto named = NameIParams("kiln_conv2d_f32", conv);
  ASSERT_EQ(named.size(), conv.size());
  EXPECT_EQ(named[4].first, "OC");
  EXPECT_EQ(named[17].first, "has_bias");
  EXPECT_DOUBLE_EQ(KernelFlops("kiln_conv2d_f32", conv), 2.0 * 4 * 6 * 6 * 3 * 3 * 3);
  EXPECT_DOUBLE_EQ(KernelFlops("kiln_conv2d_packed_res_f32", conv), 2.0 * 4 * 6 * 6 * 3 * 3 * 3);
  // conv3d: N C D H W OC OD OH OW KD KH KW, strides, pads, dilations, groups=2, act, bias, residual
  const std::vector<int64_t> c3 = {1, 4, 5, 5, 5, 6, 3, 3, 3, 3, 3, 3, 1, 1, 1, 0, 0, 0,
                                   1, 1, 1, 2, 0, 1, 0};
  EXPECT_DOUBLE_EQ(KernelFlops("kiln_conv3d_f32", c3), 2.0 * 6 * 27 * (4 / 2) * 27);
  // matmul: M N K R=2 batch_dims[2] a_strides[2] b_strides[2]
  const std::vector<int64_t> mm = {2, 3, 4, 2, 5, 6, 0, 0, 0, 0};
  auto mm_named = NameIParams("matmul_f32", mm);
  EXPECT_EQ(mm_named[5].first, "batch_dims[1]");
  EXPECT_EQ(mm_named[9].first, "b_batch_strides[1]");
  EXPECT_DOUBLE_EQ(KernelFlops("kiln_matmul_f32", mm), 2.0 * 30 * 2 * 3 * 4);
  // Unknown kernels and extra parameters get positional names.
  auto unknown = NameIParams("kiln_no_such_kernel", std::vector<int64_t>{7, 8});
  EXPECT_EQ(unknown[1].first, "i1");
  EXPECT_LT(KernelFlops("kiln_unary_f32", std::vector<int64_t>{1, 10}), 0);
}

TEST(Dump, FileNamesAreSafe) {
  EXPECT_EQ(SanitizeFileName("/block1/Relu_output_0"), "_block1_Relu_output_0");
  EXPECT_EQ(SanitizeFileName("onnx::Conv_12"), "onnx__Conv_12");
  EXPECT_EQ(SanitizeFileName(".."), "_..");
  EXPECT_EQ(SanitizeFileName(""), "_");
}

}  // namespace
}  // namespace kiln::vm
