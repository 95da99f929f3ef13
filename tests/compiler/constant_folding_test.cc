// Constant folding: PyTorch shape chains vanish; folded values match NumPy.
#include "compiler/passes/constant_folding.h"

#include <cmath>
#include <fstream>
#include <tuple>

#include "absl/strings/str_split.h"
#include "compiler/frontend/onnx_importer.h"
#include "compiler/ir/graph_util.h"
#include "compiler/passes/op_support.h"
#include "gtest/gtest.h"
#include "kiln/kernels.h"

namespace kiln::compiler {
namespace {

std::string Model(const std::string& name) {
  return std::string(KILN_SOURCE_DIR) + "/tests/compiler/models/" + name;
}

std::vector<double> ExpectedValues(const std::string& model, const std::string& value) {
  std::ifstream in(Model("expected_values.txt"));
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> f = absl::StrSplit(line, ' ');
    if (f.size() == 3 && f[0] == model && f[1] == value) {
      std::vector<double> out;
      for (const auto& v : absl::StrSplit(f[2], ',')) out.push_back(std::stod(std::string(v)));
      return out;
    }
  }
  ADD_FAILURE() << "no expected values for " << model << " " << value;
  return {};
}

// Each op's evaluator is named by its declaration (OpDef::fold): a Where on
// constants folds to the values chosen, an op without one (BitwiseAnd) does
// not fold, and a Where missing an input its evaluator reads is refused.
TEST(ConstantFoldingTest, EvaluatesThroughTheOpDeclaration) {
  ir::Graph g;
  g.source = "fold.onnx";
  auto bools = std::make_shared<ir::ConstantData>();
  bools->dtype = ir::DType::Bool;
  bools->shape = {2};
  bools->bytes = {1, 0};
  const ir::ValueId cond = g.AddConstant("cond", bools);
  const ir::ValueId a = g.AddConstant("a", ir::MakeI64Constant({2}, {7, 8}));
  const ir::ValueId b = g.AddConstant("b", ir::MakeI64Constant({2}, {-1, -2}));
  const ir::ValueId y = g.AddValue("y");
  g.value(y).dtype = ir::DType::I64;
  g.value(y).shape = {2};
  g.value(y).has_shape = true;
  ir::Node where;
  where.name = "w";
  where.op_type = "Where";
  where.inputs = {cond, a, b};
  where.outputs = {y};
  auto folded = EvaluateNode(g, where, {});
  ASSERT_TRUE(folded.ok()) << folded.status();
  ASSERT_EQ(folded->size(), 1u);
  EXPECT_EQ((*folded)[0]->IntAt(0), 7);
  EXPECT_EQ((*folded)[0]->IntAt(1), -2);

  ir::Node bitand_node = where;
  bitand_node.op_type = "BitwiseAnd";
  bitand_node.inputs = {a, b};
  auto not_folded = EvaluateNode(g, bitand_node, {});
  ASSERT_TRUE(not_folded.ok()) << not_folded.status();
  EXPECT_TRUE(not_folded->empty());

  where.inputs = {cond, a, ir::kNoValue};
  auto refused = EvaluateNode(g, where, {});
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("input 2 is required"), std::string::npos)
      << refused.status();
}

// Folded integer arithmetic wraps modulo 2^64 (values from NumPy), and a
// folded float->int Cast gives exactly the bits of the cast kernel.
TEST(ConstantFoldingTest, FoldingMatchesKernelSemanticsAtTheEdges) {
  auto g = ImportOnnx(Model("folding_wraps.onnx"));
  ASSERT_TRUE(g.ok()) << g.status();
  ASSERT_TRUE(FoldConstants(*g).ok());
  auto folded = [&](const std::string& name) -> const ir::ConstantData* {
    for (ir::ValueId id : g->outputs) {
      if (g->value(id).name == name) return g->value(id).constant.get();
    }
    return nullptr;
  };
  for (const char* op : {"mul", "add", "pow", "div", "neg"}) {
    const ir::ConstantData* c = folded(op);
    ASSERT_NE(c, nullptr) << op;
    std::ifstream in(Model("expected_values.txt"));
    std::string line, want;
    while (std::getline(in, line)) {
      if (line.rfind(std::string("folding_wraps.onnx ") + op + " ", 0) == 0) want = line;
    }
    std::vector<std::string> f = absl::StrSplit(want, ' ');
    ASSERT_EQ(f.size(), 3u) << op;
    std::vector<std::string> vals = absl::StrSplit(f[2], ',');
    ASSERT_EQ(c->element_count(), static_cast<int64_t>(vals.size())) << op;
    for (size_t k = 0; k < vals.size(); ++k) EXPECT_EQ(c->IntAt(k), std::stoll(vals[k])) << op << " " << k;
  }
  const float src[6] = {300.0f, -5.0f, NAN, 1e30f, -1e30f, 2.9f};
  for (const auto& [name, dtype, bytes] :
       {std::tuple<const char*, int64_t, size_t>{"u8", KILN_DTYPE_U8, 1},
        std::tuple<const char*, int64_t, size_t>{"i64", KILN_DTYPE_I64, 8}}) {
    const ir::ConstantData* c = folded(name);
    ASSERT_NE(c, nullptr) << name;
    std::vector<uint8_t> kernel_out(6 * bytes);
    const int64_t ip[3] = {KILN_DTYPE_F32, dtype, 6};
    void* const bindings[2] = {const_cast<float*>(src), kernel_out.data()};
    ASSERT_EQ(kiln_cast(ip, nullptr, bindings, nullptr), KILN_OK);
    EXPECT_EQ(c->bytes, kernel_out) << name;
  }
}

// Mod on constants folds (Swin-T's window padding from fixed sizes) with the
// sign rule of its fmod attribute, as NumPy's mod and fmod compute it.
TEST(ConstantFoldingTest, ModFoldsWithEachSignRule) {
  auto g = ImportOnnx(Model("folding_mod.onnx"));
  ASSERT_TRUE(g.ok()) << g.status();
  ASSERT_TRUE(FoldConstants(*g).ok());
  for (const char* name : {"mod", "fmod", "float_fmod"}) {
    const ir::ConstantData* c = nullptr;
    for (ir::ValueId id : g->outputs) {
      if (g->value(id).name == name) c = g->value(id).constant.get();
    }
    ASSERT_NE(c, nullptr) << name << " did not fold";
    const std::vector<double> want = ExpectedValues("folding_mod.onnx", name);
    ASSERT_EQ(c->element_count(), static_cast<int64_t>(want.size())) << name;
    const bool is_float = std::string(name) == "float_fmod";
    for (size_t k = 0; k < want.size(); ++k) {
      if (is_float) {
        EXPECT_EQ(c->FloatAt(static_cast<int64_t>(k)), want[k]) << name << " " << k;
      } else {
        // The remainders are small integers: exact as doubles.
        EXPECT_EQ(static_cast<double>(c->IntAt(static_cast<int64_t>(k))), want[k]) << name << " " << k;
      }
    }
  }
}

TEST(ConstantFoldingTest, TorchViewChainBecomesConstantShape) {
  auto g = ImportOnnx(Model("torch_view.onnx"));
  ASSERT_TRUE(g.ok()) << g.status();
  ASSERT_FALSE(CheckAllFolded(*g).ok());  // Shape/Gather present before folding
  ASSERT_TRUE(FoldConstants(*g).ok());
  EXPECT_TRUE(CheckAllFolded(*g).ok()) << CheckAllFolded(*g);
  std::vector<std::string> ops;
  for (const auto& n : g->nodes) ops.push_back(n.op_type);
  EXPECT_EQ(ops, (std::vector<std::string>{"Reshape", "Gemm"})) << g->ToString();
  const ir::Node& reshape = g->nodes[0];
  const ir::Value& shape = g->value(reshape.inputs[1]);
  ASSERT_NE(shape.constant, nullptr);
  ASSERT_EQ(shape.constant->element_count(), 2);
  // x.view(x.size(0), -1) with batch 2: [2, -1].
  EXPECT_EQ(shape.constant->IntAt(0), 2);
  EXPECT_EQ(shape.constant->IntAt(1), -1);
  for (const auto& v : g->values) {
    if (v.producer != ir::kNoNode || v.constant) {
      EXPECT_TRUE(v.has_shape) << v.name;
    }
  }
}

TEST(ConstantFoldingTest, FoldedOutputValuesMatchNumpy) {
  auto g = ImportOnnx(Model("folding_values.onnx"));
  ASSERT_TRUE(g.ok()) << g.status();
  ASSERT_TRUE(FoldConstants(*g).ok());
  // Only the MatMul on the run-time input stays.
  ASSERT_EQ(g->nodes.size(), 1u) << g->ToString();
  EXPECT_EQ(g->nodes[0].op_type, "MatMul");
  // The folded graph output keeps its name and position.
  ASSERT_EQ(g->outputs.size(), 2u);
  const ir::Value& folded = g->value(g->outputs[0]);
  EXPECT_EQ(folded.name, "folded");
  ASSERT_NE(folded.constant, nullptr);
  const auto want = ExpectedValues("folding_values.onnx", "folded");
  ASSERT_EQ(folded.constant->element_count(), static_cast<int64_t>(want.size()));
  for (size_t k = 0; k < want.size(); ++k) {
    EXPECT_DOUBLE_EQ(folded.constant->FloatAt(k), want[k]) << k;  // exact small integers
  }
  const ir::Value& wt = g->value(g->nodes[0].inputs[1]);
  ASSERT_NE(wt.constant, nullptr);
  EXPECT_EQ(wt.shape, (std::vector<int64_t>{3, 2}));
  const auto want_wt = ExpectedValues("folding_values.onnx", "wt");
  ASSERT_EQ(wt.constant->element_count(), static_cast<int64_t>(want_wt.size()));
  for (size_t k = 0; k < want_wt.size(); ++k) EXPECT_DOUBLE_EQ(wt.constant->FloatAt(k), want_wt[k]);
}

// Ceil/Round/Abs/Reciprocal, Min/Max, orderings and Reduce* on constants
// (the arithmetic of detection transforms) fold to NumPy's values.
TEST(ConstantFoldingTest, ShapeMathFoldsToNumpyValues) {
  auto g = ImportOnnx(Model("folding_shape_math.onnx"));
  ASSERT_TRUE(g.ok()) << g.status();
  ASSERT_TRUE(FoldConstants(*g).ok());
  EXPECT_TRUE(g->nodes.empty()) << g->ToString();
  ASSERT_EQ(g->outputs.size(), 12u);
  for (ir::ValueId id : g->outputs) {
    const ir::Value& v = g->value(id);
    ASSERT_NE(v.constant, nullptr) << v.name;
    const auto want = ExpectedValues("folding_shape_math.onnx", v.name);
    ASSERT_EQ(v.constant->element_count(), static_cast<int64_t>(want.size())) << v.name;
    for (size_t k = 0; k < want.size(); ++k) {
      // float32 results compared as float32: NumPy computed them in float32.
      EXPECT_EQ(static_cast<float>(v.constant->FloatAt(k)), static_cast<float>(want[k]))
          << v.name << " " << k;
    }
  }
}

TEST(ConstantFoldingTest, ShapeZooFoldsShapeOps) {
  auto g = ImportOnnx(Model("shape_zoo.onnx"));
  ASSERT_TRUE(g.ok()) << g.status();
  ASSERT_TRUE(FoldConstants(*g).ok());
  // Shape of a static input and ConstantOfShape on it are compile-time values.
  const ir::Value& shp = g->value(g->FindValue("shp"));
  ASSERT_NE(shp.constant, nullptr);
  EXPECT_EQ(shp.constant->IntAt(0), 2);
  EXPECT_EQ(shp.constant->IntAt(2), 4);
  const ir::Value& cos = g->value(g->FindValue("cos"));
  ASSERT_NE(cos.constant, nullptr);
  EXPECT_EQ(cos.constant->element_count(), 24);
  EXPECT_EQ(cos.constant->IntAt(23), 7);
  // Expand of a constant by a folded shape: ones broadcast.
  const ir::Value& expd = g->value(g->FindValue("expd"));
  ASSERT_NE(expd.constant, nullptr);
  EXPECT_EQ(expd.shape, (std::vector<int64_t>{2, 3, 4}));
  // Gather/Slice/etc. on the run-time input 'a' cannot fold; they have
  // kernels now, so they stay in the graph and nothing is left fold-only.
  EXPECT_TRUE(CheckAllFolded(*g).ok()) << CheckAllFolded(*g);
  bool gather_left = false;
  for (const ir::Node& n : g->nodes) gather_left |= n.name == "gather";
  EXPECT_TRUE(gather_left) << g->ToString();
}

}  // namespace
}  // namespace kiln::compiler
