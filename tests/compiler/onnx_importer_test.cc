// ONNX import: constants, signature, and every refusal names file and culprit.
#include "compiler/frontend/onnx_importer.h"

#include <string>

#include "gtest/gtest.h"

namespace kiln::compiler {
namespace {

std::string Model(const std::string& name) {
  return std::string(KILN_SOURCE_DIR) + "/tests/compiler/models/" + name;
}

void ExpectError(const std::string& name, absl::StatusCode code,
                 const std::vector<std::string>& fragments) {
  auto g = ImportOnnx(Model(name));
  ASSERT_FALSE(g.ok()) << name;
  EXPECT_EQ(g.status().code(), code) << g.status();
  const std::string msg(g.status().message());
  EXPECT_NE(msg.find(name), std::string::npos) << msg;  // names the file
  for (const auto& f : fragments) EXPECT_NE(msg.find(f), std::string::npos) << f << " in: " << msg;
}

TEST(OnnxImporterTest, MissingFile) {
  ExpectError("no_such_model.onnx", absl::StatusCode::kNotFound, {});
}

TEST(OnnxImporterTest, GarbageAndTruncatedFiles) {
  ExpectError("garbage.onnx", absl::StatusCode::kInvalidArgument, {"not a valid ONNX model"});
  ExpectError("truncated.onnx", absl::StatusCode::kInvalidArgument, {"not a valid ONNX model"});
}

// The importer only imports: ops it has no kernel for are the pipeline's
// check (op_support_test.cc).
TEST(OnnxImporterTest, UnsupportedOpsImport) {
  auto g = ImportOnnx(Model("unsupported_ops.onnx"));
  ASSERT_TRUE(g.ok()) << g.status();
  size_t found = 0;
  for (const ir::Node& n : g->nodes) found += n.op_type == "RandomNormalLike" || n.op_type == "Multinomial";
  EXPECT_EQ(found, 2u);
}

TEST(OnnxImporterTest, ExternalDataNamesTensor) {
  ExpectError("external_data.onnx", absl::StatusCode::kUnimplemented,
              {"'big_weight'", "external"});
}

TEST(OnnxImporterTest, NonTopologicalNamesNode) {
  ExpectError("non_topological.onnx", absl::StatusCode::kInvalidArgument,
              {"'relu_b' (Relu)", "'h'", "topologically"});
}

// The IR's getters would answer these with the attribute's default.
TEST(OnnxImporterTest, AttributeOfAnotherKindThanTheSchemaIsRefused) {
  ExpectError("attr_wrong_kind.onnx", absl::StatusCode::kInvalidArgument,
              {"node 'float_strides' (Conv)", "attribute 'strides' has type FLOAT",
               "takes INTS"});
  ExpectError("attr_int_for_ints.onnx", absl::StatusCode::kInvalidArgument,
              {"node 'int_perm' (Transpose)", "attribute 'perm' has type INT", "takes INTS"});
  ExpectError("attr_untyped.onnx", absl::StatusCode::kInvalidArgument,
              {"node 'untyped_axis' (Softmax)", "attribute 'axis' has type UNDEFINED",
               "takes INT"});
}

TEST(OnnxImporterTest, SymbolicDimensionBecomesASymbol) {
  auto g = ImportOnnx(Model("symbolic_dim.onnx"));
  ASSERT_TRUE(g.ok()) << g.status();
  ASSERT_EQ(g->dims.symbols(), std::vector<std::string>{"N"});
  const ir::Value& x = g->value(g->inputs[0]);
  ASSERT_EQ(x.shape.size(), 2u);
  EXPECT_TRUE(ir::IsSymbolic(x.shape[0]));
  EXPECT_EQ(g->dims.ToString(x.shape[0]), "N");
  EXPECT_EQ(x.shape[1], 3);
}

TEST(OnnxImporterTest, OpsetOutOfRange) {
  // Opsets below 11 are upgraded on import (legacy_opset_test.cc).
  ExpectError("opset22.onnx", absl::StatusCode::kUnimplemented, {"opset 22", "1", "21"});
}

TEST(OnnxImporterTest, InitializersAndConstants) {
  auto g = ImportOnnx(Model("initializers.onnx"));
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->opset, 17);
  // f_typed is listed as a graph input too but is an initializer: not in the signature.
  ASSERT_EQ(g->inputs.size(), 1u);
  EXPECT_EQ(g->value(g->inputs[0]).name, "x");
  EXPECT_EQ(g->value(g->inputs[0]).shape, (std::vector<int64_t>{2}));

  auto c = [&](const std::string& name) -> const ir::ConstantData& {
    ir::ValueId id = g->FindValue(name);
    EXPECT_NE(id, ir::kNoValue) << name;
    EXPECT_NE(g->value(id).constant, nullptr) << name;
    return *g->value(id).constant;
  };
  // Expected values are those written by make_models.py.
  EXPECT_DOUBLE_EQ(c("f_typed").FloatAt(1), -2.0);
  EXPECT_EQ(c("f_raw").dtype, ir::DType::F32);
  EXPECT_DOUBLE_EQ(c("f_raw").FloatAt(0), 3.25);
  EXPECT_EQ(c("i64_typed").IntAt(0), -1);
  EXPECT_EQ(c("i64_typed").IntAt(2), 7);
  EXPECT_EQ(c("i32_typed").dtype, ir::DType::I32);
  EXPECT_EQ(c("i32_typed").IntAt(0), -5);
  EXPECT_EQ(c("i32_typed").bytes.size(), 8u);
  EXPECT_DOUBLE_EQ(c("d_typed").FloatAt(0), 0.125);
  EXPECT_EQ(c("b_typed").bytes, (std::vector<uint8_t>{1, 0, 1}));
  EXPECT_EQ(c("u8_raw").IntAt(0), 200);
  EXPECT_EQ(c("i8_typed").IntAt(0), -7);
  EXPECT_EQ(c("i8_typed").bytes.size(), 2u);
  EXPECT_EQ(c("h_typed").dtype, ir::DType::F16);
  EXPECT_DOUBLE_EQ(c("h_typed").FloatAt(0), 1.5);
  EXPECT_DOUBLE_EQ(c("h_typed").FloatAt(1), -2.0);
  // Constant nodes become constants, not nodes.
  EXPECT_DOUBLE_EQ(c("c_float").FloatAt(0), 2.5);
  EXPECT_TRUE(c("c_float").shape.empty());
  EXPECT_EQ(c("c_ints").shape, (std::vector<int64_t>{3}));
  EXPECT_EQ(c("c_ints").IntAt(2), 6);
  EXPECT_EQ(c("c_tensor").shape, (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(c("c_tensor").IntAt(1), 9);
  ASSERT_EQ(g->nodes.size(), 2u);
  EXPECT_EQ(g->nodes[0].op_type, "Add");
  EXPECT_EQ(g->nodes[1].name, "add1");
  ASSERT_EQ(g->outputs.size(), 1u);
  EXPECT_EQ(g->value(g->outputs[0]).name, "z");
}

TEST(OnnxImporterTest, AttributesCopied) {
  auto g = ImportOnnx(Model("conv_pads_dil_group.onnx"));
  ASSERT_TRUE(g.ok()) << g.status();
  ASSERT_EQ(g->nodes.size(), 1u);
  const ir::Node& conv = g->nodes[0];
  EXPECT_EQ(conv.name, "conv0");
  EXPECT_EQ(conv.GetInt("group", 1), 2);
  EXPECT_EQ(conv.GetInts("pads", {}), (std::vector<int64_t>{1, 2, 0, 1}));
  EXPECT_EQ(conv.GetInts("dilations", {}), (std::vector<int64_t>{2, 1}));
  ASSERT_EQ(conv.inputs.size(), 3u);
  EXPECT_EQ(g->value(conv.inputs[1]).shape, (std::vector<int64_t>{6, 2, 3, 3}));
}

}  // namespace
}  // namespace kiln::compiler
