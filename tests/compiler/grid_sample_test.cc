// GridSample in the compiler (compiler/ops/grid_sample.cc): the output shape, the kernel parameters each
// attribute becomes, and the refusals (shapes, attributes, dtypes) with
// messages naming the node. The numbers are the ONNX node conformance
// tests' (VM and AOT) and tests/runtime/grid_sample_test.cc's.
#include <string>
#include <vector>

#include "compiler/emit/lowering.h"
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

  Model(const Dims& x, const Dims& grid, ir::DType xt = ir::DType::F32,
        ir::DType gt = ir::DType::F32) {
    b.g.opset = 16;
    const ir::ValueId vx = b.Input("x", x, xt);
    const ir::ValueId vg = b.Input("grid", grid, gt);
    out = b.g.AddValue("y");
    b.Output(out);
    node = b.Node("GridSample", "gs1", {vx, vg}, {out});
  }
  void Str(const std::string& key, const std::string& v) {
    ir::Attribute a;
    a.kind = ir::Attribute::Kind::kString;
    a.s = v;
    b.g.nodes[node].attributes[key] = a;
  }
  void Int(const std::string& key, int64_t v) {
    ir::Attribute a;
    a.i = v;
    b.g.nodes[node].attributes[key] = a;
  }
  absl::StatusOr<emit::LoweredModule> Lower() { return testing::InferPlanLower(b.g); }
};

void ExpectRefused(Model& m, absl::StatusCode code, const std::string& phrase) {
  auto lowered = m.Lower();
  ASSERT_FALSE(lowered.ok());
  EXPECT_EQ(lowered.status().code(), code) << lowered.status();
  EXPECT_NE(lowered.status().message().find("gs1"), std::string::npos) << lowered.status();
  EXPECT_NE(lowered.status().message().find(phrase), std::string::npos) << lowered.status();
}

TEST(GridSample, ShapeAndKernelParameters) {
  struct Case {
    const char* mode;
    const char* padding;
    int64_t align, want_mode, want_padding;
  };
  for (const Case& c : std::vector<Case>{
           {nullptr, nullptr, -1, KILN_GRID_SAMPLE_BILINEAR, KILN_GRID_SAMPLE_ZEROS},
           {"nearest", "border", 1, KILN_GRID_SAMPLE_NEAREST, KILN_GRID_SAMPLE_BORDER},
           {"bicubic", "reflection", 0, KILN_GRID_SAMPLE_BICUBIC, KILN_GRID_SAMPLE_REFLECTION},
           {"linear", "zeros", 1, KILN_GRID_SAMPLE_BILINEAR, KILN_GRID_SAMPLE_ZEROS},  // opset 20
           {"cubic", "border", 0, KILN_GRID_SAMPLE_BICUBIC, KILN_GRID_SAMPLE_BORDER}}) {
    Model m({2, 3, 5, 4}, {2, 6, 7, 2});
    if (c.mode) m.Str("mode", c.mode);
    if (c.padding) m.Str("padding_mode", c.padding);
    if (c.align >= 0) m.Int("align_corners", c.align);
    auto lowered = m.Lower();
    ASSERT_TRUE(lowered.ok()) << lowered.status();
    EXPECT_EQ(m.b.g.value(m.out).shape, (Dims{2, 3, 6, 7}));
    ASSERT_EQ(lowered->executables.size(), 1u);
    const emit::ExecutableDesc& e = lowered->executables[0];
    EXPECT_NE(e.kernel.find("grid_sample_f32"), std::string::npos) << e.kernel;
    EXPECT_EQ(e.iparams, (Dims{2, 3, 5, 4, 6, 7, c.want_mode, c.want_padding,
                               c.align > 0 ? 1 : 0}));
  }
}

TEST(GridSample, RefusesGridsThatDoNotFit) {
  for (const Dims& grid : {Dims{2, 6, 7, 3}, Dims{1, 6, 7, 2}, Dims{2, 6, 2}}) {
    Model m({2, 3, 5, 4}, grid);
    ExpectRefused(m, absl::StatusCode::kInvalidArgument, "grid");
  }
}

TEST(GridSample, RefusesOtherRanksAsUnimplemented) {
  Model m({2, 3, 4, 5, 4}, {2, 6, 7, 8, 3});  // volumetric: opset 20 allows it
  ExpectRefused(m, absl::StatusCode::kUnimplemented, "only 4-D");
}

TEST(GridSample, RefusesUnknownAttributes) {
  {
    Model m({1, 1, 3, 3}, {1, 2, 2, 2});
    m.Str("mode", "area");
    ExpectRefused(m, absl::StatusCode::kInvalidArgument, "'area'");
  }
  {
    Model m({1, 1, 3, 3}, {1, 2, 2, 2});
    m.Str("padding_mode", "wrap");
    ExpectRefused(m, absl::StatusCode::kInvalidArgument, "'wrap'");
  }
  {
    Model m({1, 1, 3, 3}, {1, 2, 2, 2});
    m.Int("align_corners", 2);
    ExpectRefused(m, absl::StatusCode::kInvalidArgument, "align_corners");
  }
}

TEST(GridSample, RefusesNonFloat32) {
  {
    Model m({1, 1, 3, 3}, {1, 2, 2, 2}, ir::DType::F64, ir::DType::F64);
    ExpectRefused(m, absl::StatusCode::kUnimplemented, "float64");
  }
  {
    Model m({1, 1, 3, 3}, {1, 2, 2, 2}, ir::DType::I32, ir::DType::F32);
    ExpectRefused(m, absl::StatusCode::kUnimplemented, "only float32");
  }
  {
    Model m({1, 1, 3, 3}, {1, 2, 2, 2}, ir::DType::F32, ir::DType::I64);
    ExpectRefused(m, absl::StatusCode::kInvalidArgument, "grid must be a float tensor");
  }
}

}  // namespace
}  // namespace kiln::compiler
