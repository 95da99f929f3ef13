// DFT, STFT and MelWeightMatrix in the compiler (compiler/ops/spectral.cc):
// output shapes (declared, constant or reported during the run), the kernel
// parameters, the twiddle table, and refusals naming the node. Sizes follow the ONNX node
// conformance tests test_dft* / test_stft* (which run in VM and AOT).
#include <string>
#include <vector>

#include "compiler/emit/lowering.h"
#include "compiler/ir/graph_util.h"
#include "compiler/passes/memory_planning.h"
#include "compiler/passes/shape_inference.h"
#include "gtest/gtest.h"
#include "kiln/kernels.h"
#include "tests/compiler/backend_graph_builder.h"
#include "tests/compiler/lower_graph.h"

namespace kiln::compiler {
namespace {

using Dims = std::vector<int64_t>;

struct Model {
  testing::GraphBuilder b;
  ir::NodeId node = 0;
  ir::ValueId out = 0;

  Model() { b.g.opset = 17; }
  ir::ValueId I64(const std::string& name, int64_t v) {
    return b.g.AddConstant(name, ir::MakeI64Constant({}, {v}));
  }
  ir::ValueId I64Input(const std::string& name) { return b.Input(name, {}, ir::DType::I64); }
  void Make(const std::string& op, const std::string& name, std::vector<ir::ValueId> in) {
    out = b.g.AddValue("y");
    b.Output(out);
    node = b.Node(op, name, std::move(in), {out});
  }
  void Int(const std::string& key, int64_t v) {
    ir::Attribute a;
    a.i = v;
    b.g.nodes[node].attributes[key] = a;
  }
  void Declare(const Dims& d) {
    b.g.value(out).declared_shape = d;
    b.g.value(out).has_declared_shape = true;
  }
  absl::StatusOr<emit::LoweredModule> Lower() { return testing::InferPlanLower(b.g); }
};

void ExpectRefused(Model& m, const std::string& name, const std::string& phrase) {
  auto lowered = m.Lower();
  ASSERT_FALSE(lowered.ok());
  EXPECT_NE(lowered.status().message().find(name), std::string::npos) << lowered.status();
  EXPECT_NE(lowered.status().message().find(phrase), std::string::npos) << lowered.status();
}

const emit::ExecutableDesc* Find(const emit::LoweredModule& m, const std::string& kernel) {
  for (const auto& e : m.executables) {
    if (e.kernel.find(kernel) != std::string::npos) return &e;
  }
  return nullptr;
}

TEST(Dft, OnesidedPaddedShapeAndParameters) {
  Model m;
  m.Make("DFT", "dft1", {m.b.Input("x", {2, 6, 3, 1}), m.I64("len", 8)});
  m.Int("onesided", 1);
  auto lowered = m.Lower();
  ASSERT_TRUE(lowered.ok()) << lowered.status();
  EXPECT_EQ(m.b.g.value(m.out).shape, (Dims{2, 5, 3, 2}));
  const emit::ExecutableDesc* e = Find(*lowered, "dft_f32");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->iparams, (Dims{2, 6, 3, 1, 8, 5, 0}));
}

TEST(Dft, NegativeAxisAndInverse) {
  Model m;
  m.Make("DFT", "dft1", {m.b.Input("x", {2, 6, 3, 2})});
  m.Int("axis", -2);
  m.Int("inverse", 1);
  auto lowered = m.Lower();
  ASSERT_TRUE(lowered.ok()) << lowered.status();
  EXPECT_EQ(m.b.g.value(m.out).shape, (Dims{2, 6, 3, 2}));
  const emit::ExecutableDesc* e = Find(*lowered, "dft_f32");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->iparams, (Dims{12, 3, 1, 2, 3, 3, 1}));
}

TEST(Dft, Refusals) {
  {
    Model m;
    m.Make("DFT", "dft1", {m.b.Input("x", {1, 10, 1}), m.I64Input("n")});
    ExpectRefused(m, "dft1", "dft_length must be a compile-time constant");
  }
  {
    Model m;
    m.Make("DFT", "dft1", {m.b.Input("x", {1, 10, 1})});
    m.Int("axis", 2);
    ExpectRefused(m, "dft1", "axis");
  }
  {
    Model m;
    m.Make("DFT", "dft1", {m.b.Input("x", {1, 10, 3})});
    ExpectRefused(m, "dft1", "1 (real) or 2 (complex)");
  }
  {
    Model m;
    m.Make("DFT", "dft1", {m.b.Input("x", {1, 10, 2})});
    m.Int("onesided", 1);
    ExpectRefused(m, "dft1", "onesided");
  }
  {
    Model m;
    m.Make("DFT", "dft1", {m.b.Input("x", {1, 10, 1}, ir::DType::F64)});
    ExpectRefused(m, "dft1", "float32");
  }
}

TEST(Stft, WindowGivesFrameLength) {
  Model m;
  m.Make("STFT", "stft1",
         {m.b.Input("s", {1, 128, 1}), m.I64("step", 8), m.b.Input("w", {16})});
  auto lowered = m.Lower();
  ASSERT_TRUE(lowered.ok()) << lowered.status();
  EXPECT_EQ(m.b.g.value(m.out).shape, (Dims{1, 15, 9, 2}));
  const emit::ExecutableDesc* e = Find(*lowered, "stft_f32");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->iparams, (Dims{1, 128, 1, 15, 9, 1, 16, 0, 16, KILN_DTYPE_I64, 0}));
}

TEST(Stft, RunTimeScalarsTakeTheDeclaredShape) {
  Model m;
  m.Make("STFT", "stft1",
         {m.b.Input("s", {1, 128, 1}), m.I64Input("step"), ir::kNoValue, m.I64Input("fl")});
  m.Declare({1, 15, 9, 2});
  auto lowered = m.Lower();
  ASSERT_TRUE(lowered.ok()) << lowered.status();
  EXPECT_EQ(m.b.g.value(m.out).shape, (Dims{1, 15, 9, 2}));
  const emit::ExecutableDesc* e = Find(*lowered, "stft_f32");
  ASSERT_NE(e, nullptr);
  // No static frame length: no table, fl read at run time.
  EXPECT_EQ(e->iparams,
            (Dims{1, 128, 1, 15, 9, 1, 0, 1, 0, KILN_DTYPE_I64, KILN_DTYPE_I64}));
}

TEST(Stft, RunTimeStepWithoutADeclarationReportsTheFrameCount) {
  Model m;  // the window fixes the bins; stft_dims reports the frames
  m.Make("STFT", "stft1", {m.b.Input("s", {1, 128, 1}), m.I64Input("step"), m.b.Input("w", {16})});
  auto lowered = m.Lower();
  ASSERT_TRUE(lowered.ok()) << lowered.status();
  const Dims y = m.b.g.value(m.out).shape;
  ASSERT_EQ(y.size(), 4u);
  EXPECT_EQ(y[0], 1);
  EXPECT_TRUE(ir::IsSymbolic(y[1]));
  EXPECT_EQ(y[2], 9);
  EXPECT_EQ(y[3], 2);
  const emit::ExecutableDesc* d = Find(*lowered, "stft_dims");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->iparams, (Dims{128, 1, 16, 0, KILN_DTYPE_I64, 0}));
  EXPECT_NE(Find(*lowered, "stft_f32"), nullptr);
}

TEST(Stft, RunTimeFrameLengthWithoutADeclarationReportsBothCounts) {
  Model m;
  m.Make("STFT", "stft1",
         {m.b.Input("s", {1, 128, 1}), m.I64("step", 8), ir::kNoValue, m.I64Input("fl")});
  m.Int("onesided", 0);
  auto lowered = m.Lower();
  ASSERT_TRUE(lowered.ok()) << lowered.status();
  const Dims y = m.b.g.value(m.out).shape;
  ASSERT_EQ(y.size(), 4u);
  EXPECT_TRUE(ir::IsSymbolic(y[1]));
  EXPECT_TRUE(ir::IsSymbolic(y[2]));
  const emit::ExecutableDesc* d = Find(*lowered, "stft_dims");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->iparams, (Dims{128, 0, 0, 1, KILN_DTYPE_I64, KILN_DTYPE_I64}));
}

TEST(Stft, Refusals) {
  {
    Model m;
    m.Make("STFT", "stft1", {m.b.Input("s", {1, 128, 1}), m.I64("step", 8)});
    ExpectRefused(m, "stft1", "window or a frame_length");
  }
  {
    Model m;
    m.Make("STFT", "stft1", {m.b.Input("s", {1, 128, 1}), m.I64("step", 8),
                             m.b.Input("w", {16}), m.I64("fl", 12)});
    ExpectRefused(m, "stft1", "differs from the window");
  }
  {
    Model m;
    m.Make("STFT", "stft1", {m.b.Input("s", {1, 8, 1}), m.I64("step", 8), m.b.Input("w", {16})});
    ExpectRefused(m, "stft1", "frame length 16 must be in 1..8");
  }
  {
    Model m;
    m.Make("STFT", "stft1", {m.b.Input("s", {1, 128, 1}), m.I64("step", 0), m.b.Input("w", {16})});
    ExpectRefused(m, "stft1", "frame_step must be >= 1");
  }
  {
    Model m;  // a signal of symbolic length (the kernel needs L)
    m.Make("STFT", "stft1", {m.b.Input("s", {1, m.b.g.dims.Symbol("n"), 1}), m.I64("step", 8),
                             m.b.Input("w", {16})});
    ExpectRefused(m, "stft1", "signal");
  }
}

TEST(MelWeightMatrix, ConstantSizesGiveAStaticShape) {
  Model m;
  m.Make("MelWeightMatrix", "mel1",
         {m.I64("bins", 8), m.I64("dft", 16), m.I64("rate", 8192),
          m.b.Input("lo", {}, ir::DType::F32), m.b.Input("hi", {}, ir::DType::F32)});
  auto lowered = m.Lower();
  ASSERT_TRUE(lowered.ok()) << lowered.status();
  EXPECT_EQ(m.b.g.value(m.out).shape, (Dims{9, 8}));
  EXPECT_EQ(Find(*lowered, "mel_weight_matrix_dims"), nullptr);
}

TEST(MelWeightMatrix, RunTimeDftLengthWithoutADeclarationIsReported) {
  Model m;  // num_mel_bins constant: only the spectrum's rows are reported
  m.Make("MelWeightMatrix", "mel1",
         {m.I64("bins", 8), m.I64Input("dft"), m.I64("rate", 8192),
          m.b.Input("lo", {}, ir::DType::F32), m.b.Input("hi", {}, ir::DType::F32)});
  auto lowered = m.Lower();
  ASSERT_TRUE(lowered.ok()) << lowered.status();
  const Dims y = m.b.g.value(m.out).shape;
  ASSERT_EQ(y.size(), 2u);
  EXPECT_TRUE(ir::IsSymbolic(y[0]));
  EXPECT_EQ(y[1], 8);
  const emit::ExecutableDesc* d = Find(*lowered, "mel_weight_matrix_dims");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->iparams, (Dims{KILN_DTYPE_I64}));
}

TEST(MelWeightMatrix, RunTimeSizesTakeTheDeclaredShape) {
  Model m;
  m.Make("MelWeightMatrix", "mel1",
         {m.I64Input("bins"), m.I64Input("dft"), m.I64("rate", 8192),
          m.b.Input("lo", {}, ir::DType::F32), m.b.Input("hi", {}, ir::DType::F32)});
  m.Declare({9, 8});
  auto lowered = m.Lower();
  ASSERT_TRUE(lowered.ok()) << lowered.status();
  EXPECT_EQ(m.b.g.value(m.out).shape, (Dims{9, 8}));
  EXPECT_EQ(Find(*lowered, "mel_weight_matrix_dims"), nullptr);
}

}  // namespace
}  // namespace kiln::compiler
