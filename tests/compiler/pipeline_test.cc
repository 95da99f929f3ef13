#include <map>
#include <set>
#include <sstream>
#include <string>

#include "compiler/compiler.h"
#include "flatbuffers/flatbuffers.h"
#include "gtest/gtest.h"
#include "kiln/kernels.h"
#include "kiln/module_generated.h"
#include "kiln/opcodes.h"

namespace kiln::compiler {
namespace {

const std::string kModel =
    std::string(KILN_SOURCE_DIR) + "/tests/compiler/models_backend/small_cnn.onnx";

std::string Str(const flatbuffers::String* s) { return s ? s->str() : std::string(); }

class PipelineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto bytes = BuildModule(kModel, BuildOptions{});
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    bytes_ = std::move(*bytes);
    buf_ = reinterpret_cast<const uint8_t*>(bytes_.data());
    flatbuffers::Verifier verifier(buf_, bytes_.size());
    ASSERT_TRUE(fb::VerifyModuleBuffer(verifier));
    module_ = fb::GetModule(buf_);
  }
  std::string bytes_;
  const uint8_t* buf_ = nullptr;
  const fb::Module* module_ = nullptr;
};

TEST_F(PipelineTest, HeaderAndSignature) {
  EXPECT_TRUE(fb::ModuleBufferHasIdentifier(buf_));
  EXPECT_EQ(module_->format_version(), KILN_FORMAT_VERSION);
  EXPECT_EQ(Str(module_->producer()), "kiln 0.1");
  const fb::Signature* sig = module_->signature();
  ASSERT_EQ(sig->inputs()->size(), 1u);
  EXPECT_EQ(Str(sig->inputs()->Get(0)->name()), "input");
  EXPECT_EQ(sig->inputs()->Get(0)->dtype(), fb::DType::F32);
  ASSERT_EQ(sig->outputs()->size(), 2u);
  EXPECT_EQ(Str(sig->outputs()->Get(0)->name()), "probs");
  const auto* shape = sig->outputs()->Get(1)->shape();
  ASSERT_EQ(shape->size(), 4u);
  EXPECT_EQ(shape->Get(1), 8);
  EXPECT_EQ(module_->memory()->arena_alignment(), 64u);
}

TEST_F(PipelineTest, ConstantsAreAligned) {
  const auto* data = module_->constant_data();
  ASSERT_NE(data, nullptr);
  EXPECT_EQ((data->data() - buf_) % 64, 0);
  ASSERT_GT(module_->constants()->size(), 0u);
  for (const fb::Constant* c : *module_->constants()) {
    EXPECT_EQ(c->offset() % 64, 0u) << Str(c->name());
    EXPECT_LE(c->offset() + c->size(), data->size());
  }
}

TEST_F(PipelineTest, DispatchesAndDebugInfo) {
  const fb::DebugInfo* debug = module_->debug();
  ASSERT_NE(debug, nullptr);
  EXPECT_EQ(Str(debug->source()), kModel);
  const auto* code = module_->functions()->Get(0)->bytecode();
  std::set<std::string> kernels;
  std::map<std::string, std::string> op_of_node;
  for (const fb::DispatchDebug* d : *debug->dispatches()) {
    ASSERT_LT(d->bytecode_offset(), code->size());
    EXPECT_EQ(code->Get(d->bytecode_offset()), static_cast<uint32_t>(KILN_OP_DISPATCH));
    EXPECT_EQ(code->Get(d->bytecode_offset() + 1), d->executable());
    kernels.insert(Str(module_->executables()->Get(d->executable())->kernel()));
    ASSERT_EQ(d->nodes()->size(), d->op_types()->size());
    for (size_t k = 0; k < d->nodes()->size(); ++k) {
      op_of_node[Str(d->nodes()->Get(k))] = Str(d->op_types()->Get(k));
    }
  }
  // Conv+BN+Relu → one conv; MatMul+Add → one gemm (constant B pre-packed);
  // Concat → two copies.
  EXPECT_EQ(kernels, (std::set<std::string>{"kiln_conv2d_f32", "kiln_pool2d_f32", "kiln_gemm_pb_f32",
                                            "kiln_softmax_f32", "kiln_strided_copy"}));
  EXPECT_EQ(debug->dispatches()->size(), 7u);
  EXPECT_EQ(op_of_node["conv1"], "Conv");
  EXPECT_EQ(op_of_node["bn1"], "BatchNormalization");
  EXPECT_EQ(op_of_node["relu1"], "Relu");
  EXPECT_EQ(op_of_node["fc_matmul"], "MatMul");
  EXPECT_EQ(op_of_node["fc_add"], "Add");
  EXPECT_EQ(op_of_node.count("flatten1"), 0u);  // an alias: no dispatch
  const fb::DispatchDebug* first = debug->dispatches()->Get(0);
  ASSERT_EQ(first->nodes()->size(), 3u);
  EXPECT_EQ(Str(first->nodes()->Get(0)), "conv1");
  EXPECT_EQ(Str(first->outputs()->Get(0)), "relu_out");
  EXPECT_EQ(code->Get(code->size() - 1), static_cast<uint32_t>(KILN_OP_RETURN));
}

// A PyTorch export (BN already folded by the exporter): Relu/ReLU6 fuse into
// their convs, the residual Add and the Relu after it into the last conv, and
// Sigmoid into the Linear's Gemm (its constant weight pre-packed).
TEST(Pipeline, TorchExportedResidualBlock) {
  const std::string path =
      std::string(KILN_SOURCE_DIR) + "/tests/compiler/models_backend/tiny_resnet.onnx";
  auto bytes = BuildModule(path, BuildOptions{});
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  const auto* buf = reinterpret_cast<const uint8_t*>(bytes->data());
  flatbuffers::Verifier verifier(buf, bytes->size());
  ASSERT_TRUE(fb::VerifyModuleBuffer(verifier));
  const fb::Module* m = fb::GetModule(buf);
  std::vector<std::string> kernels;
  std::vector<int64_t> conv_acts;
  for (const fb::Executable* e : *m->executables()) {
    kernels.push_back(Str(e->kernel()));
    EXPECT_EQ(e->binding_bytes()->size(), e->binding_count());
    if (kernels.back() == "kiln_conv2d_f32" || kernels.back() == "kiln_conv2d_res_f32") {
      conv_acts.push_back(e->iparams()->Get(16));
    }
    if (kernels.back() == "kiln_gemm_pb_f32") {
      EXPECT_EQ(e->iparams()->Get(4), 0);  // transB resolved by packing
      EXPECT_EQ(e->iparams()->Get(8), KILN_ACT_SIGMOID);
    }
  }
  EXPECT_EQ(kernels, (std::vector<std::string>{"kiln_conv2d_f32", "kiln_conv2d_f32",
                                               "kiln_conv2d_res_f32", "kiln_global_pool_f32",
                                               "kiln_gemm_pb_f32"}));
  EXPECT_EQ(conv_acts, (std::vector<int64_t>{KILN_ACT_RELU, KILN_ACT_CLIP, KILN_ACT_RELU}));
  // Stem output [2,8,8,8] must stay live across the body: at least 2 such
  // tensors at once, and the planner should need no more than 3.
  const uint64_t t = 2 * 8 * 8 * 8 * 4;
  EXPECT_GE(m->memory()->arena_size(), 2 * t);
  EXPECT_LE(m->memory()->arena_size(), 3 * t);
}

TEST(Pipeline, PrintsIr) {
  std::ostringstream ir;
  BuildOptions options;
  options.print_ir = &ir;
  ASSERT_TRUE(BuildModule(kModel, options).ok());
  EXPECT_NE(ir.str().find("conv1"), std::string::npos);
}

TEST(Pipeline, MissingFileIsNamed) {
  auto bytes = BuildModule("/nonexistent/model.onnx", BuildOptions{});
  ASSERT_FALSE(bytes.ok());
  EXPECT_NE(bytes.status().message().find("/nonexistent/model.onnx"), std::string::npos);
}

}  // namespace
}  // namespace kiln::compiler

namespace kiln::compiler {
namespace {

// Fuzzer reproducer: a 3 KB model whose Resize writes an empty [1,2,16056575,0]
// output once built 385 MB of tap tables. Nodes that write nothing get no
// dispatch, so the module stays small.
TEST(PipelineLimits, EmptyOutputsGetNoDispatch) {
  const std::string path =
      std::string(KILN_SOURCE_DIR) + "/tests/malformed/resize_empty_output_tables.onnx";
  auto bytes = BuildModule(path, BuildOptions{});
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_LT(bytes->size(), size_t{1} << 20);
}

}  // namespace
}  // namespace kiln::compiler
