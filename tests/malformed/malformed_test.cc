// The malformed-input corpus: every broken ONNX file, module and tensor gets
// its own specific error (never a crash), and NaN/Inf data flows through.
#include <cmath>
#include <fstream>
#include <sstream>
#include <vector>

#include "compiler/compiler.h"
#include "gtest/gtest.h"
#include "tests/vm/zero_input_run.h"
#include "tests/vm/test_module_builder.h"
#include "vm/instance.h"
#include "vm/module_verifier.h"
#include "vm/tools/npy.h"

namespace kiln {
namespace {

const std::string kDir = std::string(KILN_SOURCE_DIR) + "/tests/malformed/";

struct OnnxCase {
  const char* file;
  const char* error;  // a fragment the message must contain
};

class MalformedOnnx : public ::testing::TestWithParam<OnnxCase> {};

TEST_P(MalformedOnnx, GetsItsSpecificError) {
  const OnnxCase& c = GetParam();
  auto module = compiler::BuildModule(kDir + c.file, {});
  ASSERT_FALSE(module.ok()) << c.file << " compiled";
  const std::string message(module.status().message());
  EXPECT_NE(message.find(c.error), std::string::npos) << message;
  EXPECT_NE(message.find(c.file), std::string::npos) << "message does not name the file: " << message;
}

INSTANTIATE_TEST_SUITE_P(
    Corpus, MalformedOnnx,
    ::testing::Values(
        OnnxCase{"cyclic.onnx", "node 'add_a' (Add) reads 'b'"},
        OnnxCase{"unsorted.onnx", "node 'second' (Relu) reads 't'"},
        OnnxCase{"missing_initializer.onnx", "node 'uses_w' (MatMul) reads 'w'"},
        OnnxCase{"shape_mismatch.onnx", "'bad_add' (Add): shapes [1,4] and [3,5] cannot be broadcast"},
        OnnxCase{"conv_channels.onnx", "'bad_conv' (Conv): input [1,3,8,8] has 3 channels"},
        OnnxCase{"huge_dims.onnx", "exceeds the limits"},
        OnnxCase{"symbolic_dim.onnx",
                 "input 'x' has symbolic shape [N,4]; Hardmax does not support symbolic"},
        OnnxCase{"opset_too_new.onnx", "opset 22"},
        OnnxCase{"external_data.onnx", "tensor 'w_ext'"},
        OnnxCase{"undefined_output.onnx", "graph output 'y' is never defined"},
        OnnxCase{"empty.onnx", "not a valid ONNX model"},
        // Fuzzer reproducer: an Upsample to a huge size once hung the compiler.
        OnnxCase{"huge_upsample.onnx", "output extents sum past"},
        // Fuzzer reproducer: a Pow with one input once reached constant folding.
        OnnxCase{"fold_missing_input.onnx", "node 'pow' (Pow): input 1 is required"},
        // Fuzzer reproducer: a Resize scale of ~1e28 once overflowed the dim's conversion.
        OnnxCase{"resize_huge_scale.onnx", "too large"},
        // Fuzzer reproducer: a Reshape target whose product overflows int64.
        OnnxCase{"reshape_overflow.onnx", "more elements than int64 holds"},
        // Fuzzer reproducer: Tile repeats whose product with the dim overflows.
        OnnxCase{"tile_overflow.onnx", "the tiled size is out of range"},
        // Fuzzer reproducer: a node with no outputs once reached lowering.
        OnnxCase{"node_without_outputs.onnx", "node 'ReduceSum_1' (ReduceSum) has no outputs"},
        // Fuzzer reproducer: folded int64 Mul overflowing into a ConstantOfShape.
        OnnxCase{"fold_mul_overflow.onnx", "(ConstantOfShape): computed an invalid output shape"},
        // Fuzzer reproducer: a float Range with an infinite element count.
        OnnxCase{"range_infinite.onnx", "(Range): start, limit and delta give no finite element count"},
        // Fuzzer reproducer: a Slice step of INT64_MAX once overflowed the length;
        // the model is refused later, at a Pad whose pads do not fit.
        OnnxCase{"slice_huge_step.onnx", "(Pad): pads [0,0] should have 8 entries"},
        // Fuzzer reproducer: float Slice bounds holding NaN once reached an undefined
        // float->int conversion; the model is refused later.
        OnnxCase{"slice_nan_starts.onnx", "(GatherElements): data and indices ranks must match"},
        OnnxCase{"conv_huge_stride.onnx", "node 'strided' (Conv): strides must be in 1..2^20"},
        OnnxCase{"pool_huge_pads.onnx", "node 'padded' (MaxPool): kernel and pads must be within 2^40"},
        OnnxCase{"no_such_file.onnx", "does not exist"}),
    [](const ::testing::TestParamInfo<OnnxCase>& info) {
      std::string name = info.param.file;
      return name.substr(0, name.find('.'));
    });

absl::Status LoadModule(const std::string& bytes) {
  return vm::ModuleImage::LoadBytes(bytes.data(), bytes.size(), "corpus.kiln").status();
}

TEST(MalformedModule, WrongIdentifier) {
  std::string bytes = testing::BuildCopyModule({});
  bytes.replace(4, 4, "XXXX");
  absl::Status s = LoadModule(bytes);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message()).find("not a Kiln module"), std::string::npos) << s.message();
}

TEST(MalformedModule, HugeArena) {
  testing::CopyModuleSpec spec;
  spec.arena_size = uint64_t{1} << 62;
  absl::Status s = LoadModule(testing::BuildCopyModule(spec));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message()).find("arena size 4611686018427387904 exceeds the limit"),
            std::string::npos)
      << s.message();
}

TEST(MalformedModule, HugeTensor) {
  testing::CopyModuleSpec spec;
  spec.elements = int64_t{1} << 40;
  absl::Status s = LoadModule(testing::BuildCopyModule(spec));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message()).find("signature input 0 is larger than"), std::string::npos)
      << s.message();
}

// Flips every `step`-th byte of `good` (xor `mask`): each corrupted module is
// either refused with an error or, if it still verifies, runs on zero inputs
// at every symbol value without any memory error (the ASan preset turns a bad
// access into a failure).
void ExpectEveryFlipRefusedOrSafe(const std::string& good, size_t step, char mask,
                                  std::initializer_list<int64_t> symbol_values, const char* what) {
  int refused = 0, accepted = 0, failed_runs = 0;
  for (size_t i = 0; i < good.size(); i += step) {
    std::string bytes = good;
    bytes[i] = static_cast<char>(bytes[i] ^ mask);
    auto image = vm::ModuleImage::LoadBytes(bytes.data(), bytes.size(), "flip.kiln");
    if (!image.ok()) {
      EXPECT_FALSE(image.status().message().empty());
      ++refused;
      continue;
    }
    ++accepted;
    for (int64_t n : symbol_values) {
      if (!testing::RunOnZeroInputs(*image, n, uint64_t{64} << 20).ok()) ++failed_runs;
    }
  }
  EXPECT_GT(refused, 0);
  std::printf("%s byte flips: %d refused, %d still valid (weights or names), %d runs refused\n",
              what, refused, accepted, failed_runs);
}

TEST(MalformedModule, EveryByteFlipIsRefusedOrSafe) {
  auto good = compiler::BuildModule(std::string(KILN_SOURCE_DIR) + "/tests/models/tiny_mlp.onnx", {});
  ASSERT_TRUE(good.ok()) << good.status();
  ExpectEveryFlipRefusedOrSafe(*good, 3, 0x5a, {1}, "static");
}

// A module with a symbolic batch dimension, run at N = 1 and N = 4, so the
// integer bytecode, the dynamic views and DISPATCH_DYN's run-time checks see
// every corruption.
TEST(MalformedModule, EveryByteFlipOfADynamicModuleIsRefusedOrSafe) {
  auto good = compiler::BuildModule(
      std::string(KILN_SOURCE_DIR) + "/tests/models/dynamic/cnn_dynbatch.onnx", {});
  ASSERT_TRUE(good.ok()) << good.status();
  ExpectEveryFlipRefusedOrSafe(*good, 2, 0x33, {1, 4}, "dynamic");
}

// Reproducers the fuzzers found (scripts/fuzz.sh), each refused with the
// check that now catches it.
TEST(MalformedModule, FuzzerReproducers) {
  struct Case {
    const char* file;
    const char* error;
  };
  for (const Case& c : {Case{"misaligned_int64_vector.kiln", "misaligned"},
                        // KW = 0 with a huge KH: in bounds, but hours of empty loops.
                        Case{"conv_transpose_empty_window_spin.kiln", "kernel rejects"},
                        // W = 0 with a huge H: the empty input bounds nothing.
                        Case{"conv_transpose_empty_width_spin.kiln", "kernel rejects"},
                        // KH * KW overflowing int64 inside the checker itself.
                        Case{"conv_window_product_overflow.kiln", "kernel rejects"},
                        // lp_norm with n = 0 and outer = 2^58: an empty axis, endless rows.
                        Case{"lp_norm_empty_axis_spin.kiln", "kernel rejects"},
                        // A 2^30-element reduction (under the 2^40 work limit) re-reading
                        // one element through a zero stride: half a minute under ASan.
                        Case{"reduce_zero_stride_spin.kiln", "kernel rejects"},
                        // An NHWC depthwise conv whose column stride times its 16
                        // channels overflowed int64 (UBSan), in bounds per axis.
                        Case{"depthwise_nhwc_stride_times_channels_overflow.kiln",
                             "executable 1 (kiln_conv2d_dw_nhwc_f32) has static parameters the "
                             "kernel rejects"},
                        // gather of nothing whose row size inner * eb overflows int64.
                        Case{"gather_empty_row_overflow.kiln", "kernel rejects"},
                        // A dynamic module writing integer register n0 twice: the VM
                        // ran it, the AOT tool (which runs the shape arithmetic once)
                        // refused it, so the aot fuzzer trapped on a verified module.
                        Case{"int_register_written_twice.kiln",
                             "+14: integer register n0 is written a second time"},
                        // unique of 2^62 slices: counting the merge passes overflowed
                        // int64 inside the checker itself.
                        Case{"unique_sort_passes_overflow.kiln", "kernel rejects"}}) {
    std::ifstream in(kDir + "modules/" + c.file, std::ios::binary);
    ASSERT_TRUE(in) << c.file;
    std::stringstream bytes;
    bytes << in.rdbuf();
    absl::Status s = LoadModule(bytes.str());
    ASSERT_FALSE(s.ok()) << c.file;
    EXPECT_NE(std::string(s.message()).find(c.error), std::string::npos) << s.message();
  }
}

// A reproducer of tests/malformed/modules loaded as the VM loads modules
// (an empty file fails to load).
absl::StatusOr<std::shared_ptr<const vm::ModuleImage>> LoadReproducer(const std::string& file) {
  std::ifstream in(kDir + "modules/" + file, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  const std::string data = bytes.str();
  return vm::ModuleImage::LoadBytes(data.data(), data.size(), file);
}

// The module fuzzer's 30-minute run (issue 22) found a dynamic MaxPool whose
// patched window (2 x 2 x 2^20 taps, dilation 65281, end pad 2^21) over an
// input of a few hundred elements passed the 2^40 work limit and spun for
// minutes inside one kernel call, where no run budget reaches. Window pools
// may now re-read each element at most KILN_MAX_REUSE times: the dispatch's
// check refuses these sizes before the kernel runs.
TEST(MalformedModule, DynamicPoolWindowSpinIsRefusedByItsDispatchCheck) {
  auto image = LoadReproducer("pool_nd_huge_window_spin.kiln");
  ASSERT_TRUE(image.ok()) << image.status();  // its static parameters are fine
  const absl::Status s = testing::RunOnZeroInputs(*image, 3, uint64_t{64} << 20);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message()).find("DISPATCH_DYN failed with code"), std::string::npos)
      << s;
  EXPECT_NE(std::string(s.message()).find("out of range"), std::string::npos) << s;
}

// Its second find: a pad of 4.7e18 put a tap's flattened offset, formed even
// for taps outside the input, past int64 (UBSan). Such a tap now has no
// offset; the run ends normally, which the asan preset checks for UB.
TEST(MalformedModule, DynamicPoolHugePadRunsWithoutOverflow) {
  auto image = LoadReproducer("pool_nd_outside_offset_overflow.kiln");
  ASSERT_TRUE(image.ok()) << image.status();
  for (int64_t d : {3, 5}) {
    const absl::Status s = testing::RunOnZeroInputs(*image, d, uint64_t{64} << 20);
    EXPECT_TRUE(s.ok()) << "D = " << d << ": " << s;
  }
}

// Reproducers that still verify (they are valid, if odd, modules): they must
// run without any memory error or undefined behaviour (the asan preset checks).
TEST(MalformedModule, FuzzerReproducersRunClean) {
  // Each loads (the verifier has no reason to refuse it) and its run ends
  // with the status below; under ASan/UBSan the kernels' pointer arithmetic
  // is checked as well.
  struct Reproducer {
    const char* file;
    absl::StatusCode run;
  };
  for (const Reproducer& r : {
           // a huge pad offset the conv's row pointers past int64.
           Reproducer{"conv_huge_pad_pointer_overflow.kiln", absl::StatusCode::kOk},
           // a 2^60 dilation put an empty tap's row pointer 2^63 bytes away
           // (formed, never read).
           Reproducer{"depthwise_huge_dilation_pointer.kiln", absl::StatusCode::kOk},
           // a one-channel conv sent to the im2col GEMM (a huge dilation)
           // offset the GEMM's unused NULL A pointer.
           Reproducer{"conv_one_channel_null_a.kiln", absl::StatusCode::kOk},
           // a 2^56 stride: the tile's offsets of rows far outside the image
           // overflowed int64 (never read).
           Reproducer{"conv_packed_huge_stride_offset.kiln", absl::StatusCode::kOk}}) {
    std::ifstream in(kDir + "modules/" + r.file, std::ios::binary);
    ASSERT_TRUE(in) << r.file;
    std::stringstream bytes;
    bytes << in.rdbuf();
    const std::string data = bytes.str();
    auto image = vm::ModuleImage::LoadBytes(data.data(), data.size(), r.file);
    ASSERT_TRUE(image.ok()) << r.file << ": " << image.status();
    auto instance = vm::Instance::Create(*image);
    ASSERT_TRUE(instance.ok()) << r.file << ": " << instance.status();
    std::vector<std::vector<uint8_t>> bufs;
    std::vector<const void*> ins;
    std::vector<void*> outs;
    for (const auto* t : *(*image)->module().signature()->inputs()) {
      bufs.emplace_back(vm::TensorDescBytes(*t) + 1, 0);
      ins.push_back(bufs.back().data());
    }
    for (const auto* t : *(*image)->module().signature()->outputs()) {
      bufs.emplace_back(vm::TensorDescBytes(*t) + 1, 0);
      outs.push_back(bufs.back().data());
    }
    const absl::Status run = (*instance)->RunUnchecked(ins.data(), outs.data());
    EXPECT_EQ(run.code(), r.run) << r.file << ": " << run;
  }
}

TEST(MalformedTensor, NanAndInfFlowThrough) {
  auto module = compiler::BuildModule(kDir + "relu.onnx", {});
  ASSERT_TRUE(module.ok()) << module.status();
  auto image = vm::ModuleImage::LoadBytes(module->data(), module->size(), "relu.kiln");
  ASSERT_TRUE(image.ok());
  auto instance = vm::Instance::Create(*image);
  ASSERT_TRUE(instance.ok());
  auto x = vm::ReadNpy(kDir + "nan_inf.npy");
  ASSERT_TRUE(x.ok()) << x.status();
  float y[4] = {};
  const int64_t shape[] = {1, 4};
  ASSERT_TRUE((*instance)
                  ->Run({vm::HostTensor{fb::DType::F32, shape, x->data.data(), x->data.size()}},
                        {vm::HostTensor{fb::DType::F32, shape, y, sizeof y}})
                  .ok());
  // Relu per IEEE: NaN stays NaN (numpy.maximum), +inf stays, -inf becomes 0.
  EXPECT_TRUE(std::isnan(y[0]));
  EXPECT_TRUE(std::isinf(y[1]) && y[1] > 0);
  EXPECT_EQ(y[2], 0.0f);
  EXPECT_EQ(y[3], 1.0f);
}

// ONNX reproducers the fuzzers found that are valid models: they must
// compile (under the fuzz/asan presets, without undefined behaviour) and
// compute the right values. reduce_symbolic_strides: ReduceMean over axis 2
// of [?, ?, 5] once multiplied encoded symbolic dims as plain int64.
TEST(MalformedOnnxValid, ReduceOverSymbolicDimsMatchesTheMean) {
  auto module = compiler::BuildModule(kDir + "reduce_symbolic_strides.onnx", {});
  ASSERT_TRUE(module.ok()) << module.status();
  auto image = vm::ModuleImage::LoadBytes(module->data(), module->size(), "reduce.kiln");
  ASSERT_TRUE(image.ok()) << image.status();
  auto instance = vm::Instance::Create(*image);
  ASSERT_TRUE(instance.ok());
  for (int64_t a : {1, 2, 4}) {
    for (int64_t b : {1, 3}) {
      std::vector<float> x(static_cast<size_t>(a * b * 5));
      for (size_t k = 0; k < x.size(); ++k) x[k] = static_cast<float>((k * 7) % 11) - 5.0f;
      std::vector<float> y(static_cast<size_t>(a * b), -1.0f);
      const int64_t xs[] = {a, b, 5}, ys[] = {a, b, 1};
      const vm::HostTensor in{fb::DType::F32, xs, x.data(), x.size() * sizeof(float)};
      ASSERT_TRUE((*instance)->Reserve({in}).ok());
      ASSERT_TRUE((*instance)
                      ->Run({in}, {vm::HostTensor{fb::DType::F32, ys, y.data(),
                                                  y.size() * sizeof(float)}})
                      .ok())
          << a << "x" << b;
      for (size_t r = 0; r < y.size(); ++r) {
        float sum = 0;  // small integers: the mean is exact up to one rounding
        for (size_t k = 0; k < 5; ++k) sum += x[r * 5 + k];
        EXPECT_NEAR(y[r], sum / 5.0f, 1e-6f) << a << "x" << b << " row " << r;
      }
    }
  }
}

}  // namespace
}  // namespace kiln
