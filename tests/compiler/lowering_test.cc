#include "compiler/emit/lowering.h"

#include "compiler/passes/dispatch_formation.h"
#include "compiler/passes/memory_planning.h"
#include "gtest/gtest.h"
#include "kiln/kernels.h"
#include "kiln/opcodes.h"
#include "tests/compiler/backend_graph_builder.h"
#include "vm/bytecode.h"

namespace kiln::compiler {
namespace {

using testing::GraphBuilder;
using I = std::vector<int64_t>;
using U = std::vector<uint64_t>;

absl::StatusOr<emit::LoweredModule> LowerGraph(const ir::Graph& g) {
  auto plan = PlanMemory(g);
  if (!plan.ok()) return plan.status();
  return emit::Lower(g, *plan);
}

// One decoded instruction of the entry bytecode.
struct Instr {
  uint32_t op;
  std::vector<uint32_t> operands;
};

// Decodes with the VM's decoder (vm/bytecode.h: the operand kinds of
// opcodes.def); every operand word is kept, counts of 'L' and 'P' included.
std::vector<Instr> Decode(const std::vector<uint32_t>& words) {
  std::vector<Instr> out;
  for (uint32_t pc = 0; pc < words.size();) {
    EXPECT_NE(kiln_opcode_operands(words[pc]), nullptr) << "bad opcode at " << pc;
    if (kiln_opcode_operands(words[pc]) == nullptr) break;
    const vm::Instruction inst = vm::DecodeVerified(words.data(), pc);
    EXPECT_LE(pc + inst.length, words.size()) << "instruction at " << pc << " runs past the end";
    if (pc + inst.length > words.size()) break;
    out.push_back({inst.opcode, {inst.operands, inst.operands + inst.length - 1}});
    pc += inst.length;
  }
  return out;
}

TEST(Lowering, ConvParamsWithoutBias) {
  GraphBuilder b;
  const ir::ValueId x = b.Input("x", {2, 4, 9, 7});
  const ir::ValueId w = b.RandomConst("w", {6, 2, 3, 2}, -1, 1, 1);
  // strides (2,1), dilations (1,2), pads top/left/bottom/right = 1,0,1,1, group 2
  // OH = (9 + 2 - 3) / 2 + 1 = 5; OW = (7 + 1 - (2-1)*2 - 1) / 1 + 1 = 6
  const ir::ValueId y = b.Tensor("y", {2, 6, 5, 6});
  const ir::NodeId n = b.Node("Conv", "conv", {x, w}, {y});
  b.Ints(n, "strides", {2, 1});
  b.Ints(n, "dilations", {1, 2});
  b.Ints(n, "pads", {1, 0, 1, 1});
  b.g.nodes[n].SetInt("group", 2);
  b.g.nodes[n].SetInt("kiln.activation", KILN_ACT_CLIP);
  b.g.nodes[n].SetFloat("kiln.act_alpha", -1.5f);
  b.g.nodes[n].SetFloat("kiln.act_beta", 2.5f);
  b.Output(y);
  auto m = LowerGraph(b.g);
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_EQ(m->executables.size(), 1u);
  const emit::ExecutableDesc& e = m->executables[0];
  EXPECT_EQ(e.kernel, "kiln_conv2d_f32");
  EXPECT_EQ(e.iparams, (I{2, 4, 9, 7, 6, 5, 6, 3, 2, 2, 1, 1, 0, 1, 2, 2, KILN_ACT_CLIP, 0}));
  EXPECT_EQ(e.fparams, (std::vector<float>{-1.5f, 2.5f}));
  EXPECT_EQ(e.binding_count, 4u);
  EXPECT_EQ(e.binding_bytes, (U{2 * 4 * 9 * 7 * 4, 6 * 2 * 3 * 2 * 4, 0, 2 * 6 * 5 * 6 * 4}));
}

// The kernel an NCHW one-group conv over 256 channels into 64 lowers to:
// 1x1 stride-1 layers run conv2d_f32's GEMM from a 28 x 28 plane on
// (kPointwiseGemmMinPlane), the packed tiles below it; a 3x3 layer stays
// packed at any plane.
std::string NchwConvKernel(int64_t side, int64_t k) {
  GraphBuilder b;
  const ir::ValueId x = b.Input("x", {1, 256, side, side});
  const ir::ValueId w = b.RandomConst("w", {64, 256, k, k}, -1, 1, 1);
  const ir::ValueId y = b.Tensor("y", {1, 64, side, side});
  const ir::NodeId n = b.Node("Conv", "conv", {x, w}, {y});
  b.Ints(n, "pads", {k / 2, k / 2, k / 2, k / 2});
  b.Output(y);
  auto m = LowerGraph(b.g);
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() && m->executables.size() == 1 ? m->executables[0].kernel : "";
}

TEST(Lowering, PointwiseConvOverALargePlaneRunsTheGemm) {
  EXPECT_EQ(NchwConvKernel(27, 1), "kiln_conv2d_packed_f32");
  EXPECT_EQ(NchwConvKernel(28, 1), "kiln_conv2d_f32");
  EXPECT_EQ(NchwConvKernel(56, 1), "kiln_conv2d_f32");
  EXPECT_EQ(NchwConvKernel(56, 3), "kiln_conv2d_packed_f32");
}

TEST(Lowering, ConvSameUpperPadsAndBias) {
  GraphBuilder b;
  const ir::ValueId x = b.Input("x", {1, 1, 5, 5});
  const ir::ValueId w = b.RandomConst("w", {2, 1, 4, 4}, -1, 1, 1);
  const ir::ValueId bias = b.RandomConst("b", {2}, -1, 1, 2);
  const ir::ValueId y = b.Tensor("y", {1, 2, 3, 3});
  const ir::NodeId n = b.Node("Conv", "conv", {x, w, bias}, {y});
  b.Ints(n, "strides", {2, 2});
  ir::Attribute pad;
  pad.kind = ir::Attribute::Kind::kString;
  pad.s = "SAME_UPPER";
  b.g.nodes[n].attributes["auto_pad"] = pad;
  b.Output(y);
  auto m = LowerGraph(b.g);
  ASSERT_TRUE(m.ok()) << m.status();
  // total pad = (3-1)*2 + 4 - 5 = 3 → begin 1 (upper gets the extra), end 2
  const I& ip = m->executables[0].iparams;
  EXPECT_EQ(ip[11], 1);
  EXPECT_EQ(ip[12], 1);
  EXPECT_EQ(ip[17], 1);
  EXPECT_EQ(m->executables[0].binding_bytes[2], 8u);
}

// A MatMul of a [2,4,5] stack by a constant [5,3] that dispatch formation
// made a Gemm: one GEMM of 8 rows with packed B and the bias row fused.
TEST(Lowering, StackedMatMulGemmFlattensRows) {
  GraphBuilder b;
  const ir::ValueId x = b.Input("x", {2, 4, 5});
  const ir::ValueId w = b.RandomConst("w", {5, 3}, -1, 1, 1);
  const ir::ValueId bias = b.RandomConst("bias", {3}, -1, 1, 2);
  const ir::ValueId mm = b.Tensor("mm", {2, 4, 3});
  const ir::ValueId y = b.Tensor("y", {2, 4, 3});
  b.Node("MatMul", "mm", {x, w}, {mm});
  b.Node("Add", "add", {mm, bias}, {y});
  b.Output(y);
  ASSERT_TRUE(FormDispatches(b.g).ok());
  auto m = LowerGraph(b.g);
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_EQ(m->executables.size(), 1u);
  const emit::ExecutableDesc& e = m->executables[0];
  EXPECT_EQ(e.kernel, "kiln_gemm_pb_f32");
  EXPECT_EQ(e.iparams, (I{8, 3, 5, 0, 0, 1, 0, 1, KILN_ACT_NONE}));
  EXPECT_EQ(e.binding_bytes, (U{160, 16 * 5 * 4, 12, 96}));
}

TEST(Lowering, GemmBiasStridesAndTranspose) {
  struct Case {
    std::vector<int64_t> c_shape;
    int64_t sm, sn;
  };
  for (const Case& c : {Case{{}, 0, 0}, Case{{3}, 0, 1}, Case{{1, 3}, 0, 1}, Case{{2, 1}, 1, 0},
                        Case{{2, 3}, 3, 1}}) {
    GraphBuilder b;
    const ir::ValueId a = b.Input("a", {5, 2});  // transA: A^T is [2,5]
    const ir::ValueId w = b.RandomConst("w", {3, 5}, -1, 1, 1);  // transB: [5,3]
    const ir::ValueId cc = b.RandomConst("c", c.c_shape, -1, 1, 2);
    const ir::ValueId y = b.Tensor("y", {2, 3});
    const ir::NodeId n = b.Node("Gemm", "gemm", {a, w, cc}, {y});
    b.g.nodes[n].SetInt("transA", 1);
    b.g.nodes[n].SetInt("transB", 1);
    b.g.nodes[n].SetFloat("alpha", 0.5f);
    b.g.nodes[n].SetFloat("beta", 2.0f);
    b.Output(y);
    auto m = LowerGraph(b.g);
    ASSERT_TRUE(m.ok()) << m.status();
    const emit::ExecutableDesc& e = m->executables[0];
    // The constant B is stored packed (one 16-column panel of K = 5 rows),
    // which also resolves transB.
    EXPECT_EQ(e.kernel, "kiln_gemm_pb_f32");
    EXPECT_EQ(e.iparams, (I{2, 3, 5, 1, 0, 1, c.sm, c.sn, KILN_ACT_NONE}));
    EXPECT_EQ(e.fparams, (std::vector<float>{0.5f, 2.0f, 0.0f, 0.0f}));
    const uint64_t c_bytes = 4 * static_cast<uint64_t>(ir::ElementCount(c.c_shape));
    EXPECT_EQ(e.binding_bytes, (U{40, 16 * 5 * 4, c_bytes, 24}));
    const emit::ConstantDesc* packed = nullptr;
    for (const emit::ConstantDesc& k : m->constants) {
      if (k.name == "w.packed") packed = &k;
    }
    ASSERT_NE(packed, nullptr);
    EXPECT_EQ(packed->layout, 1);  // PackedPanel16
    EXPECT_EQ(packed->data->shape, (I{1, 5, 16}));
    const float* src = b.g.value(w).constant->data<float>();  // w is [N=3, K=5]
    const float* dst = packed->data->data<float>();
    for (int64_t k = 0; k < 5; ++k) {
      for (int64_t j = 0; j < 16; ++j) {
        EXPECT_EQ(dst[k * 16 + j], j < 3 ? src[j * 5 + k] : 0.0f) << "k " << k << " j " << j;
      }
    }
  }
}

TEST(Lowering, BinaryBroadcastStrides) {
  GraphBuilder b;
  const ir::ValueId a = b.Input("a", {2, 3, 4});
  const ir::ValueId c = b.Input("c", {3, 1});
  const ir::ValueId y = b.Tensor("y", {2, 3, 4});
  b.Node("Sub", "sub", {a, c}, {y});
  b.Output(y);
  auto m = LowerGraph(b.g);
  ASSERT_TRUE(m.ok()) << m.status();
  const emit::ExecutableDesc& e = m->executables[0];
  EXPECT_EQ(e.kernel, "kiln_binary_f32");
  EXPECT_EQ(e.iparams, (I{KILN_BINARY_SUB, 3, 2, 3, 4, 12, 4, 1, 0, 1, 0}));
  EXPECT_TRUE(e.fparams.empty());
  EXPECT_EQ(e.binding_bytes, (U{96, 12, 96}));
}

TEST(Lowering, MatMulBroadcastAndVector) {
  GraphBuilder b;
  const ir::ValueId a = b.Input("a", {2, 1, 4, 5});
  const ir::ValueId w = b.Input("w", {3, 5, 6});
  const ir::ValueId y = b.Tensor("y", {2, 3, 4, 6});
  b.Node("MatMul", "mm", {a, w}, {y});
  const ir::ValueId v = b.Input("v", {6});
  const ir::ValueId z = b.Tensor("z", {2, 3, 4});
  b.Node("MatMul", "mv", {y, v}, {z});
  b.Output(z);
  auto m = LowerGraph(b.g);
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_EQ(m->executables.size(), 2u);
  // a's matrices are 4x5=20 floats apart; w's 5x6=30; a broadcasts over dim 1
  EXPECT_EQ(m->executables[0].iparams, (I{4, 6, 5, 2, 2, 3, 20, 0, 0, 30}));
  // the vector is a [6,1] column shared by all 6 batch matrices
  EXPECT_EQ(m->executables[1].iparams, (I{4, 1, 6, 2, 2, 3, 72, 24, 0, 0}));
}

TEST(Lowering, PoolsSoftmaxAndBatchNorm) {
  GraphBuilder b;
  const ir::ValueId x = b.Input("x", {1, 2, 6, 6});
  const ir::ValueId p = b.Tensor("p", {1, 2, 3, 3});
  const ir::NodeId pool = b.Node("AveragePool", "pool", {x}, {p});
  b.Ints(pool, "kernel_shape", {3, 3});
  b.Ints(pool, "strides", {2, 2});
  b.Ints(pool, "pads", {1, 1, 0, 0});
  b.g.nodes[pool].SetInt("count_include_pad", 1);
  const ir::ValueId g = b.Tensor("g", {1, 2, 1, 1});
  b.Node("GlobalMaxPool", "gmp", {p}, {g});
  const ir::ValueId s = b.Tensor("s", {1, 2, 1, 1});
  const ir::NodeId sm = b.Node("Softmax", "sm", {g}, {s});
  b.g.nodes[sm].SetInt("axis", 1);
  const ir::ValueId bn_out = b.Tensor("bn_out", {1, 2, 1, 1});
  b.Node("BatchNormalization", "bn",
         {s, b.Const("sc", {2}, {2, 3}), b.Const("sh", {2}, {1, -1}), b.Const("mu", {2}, {0.5f, 0}),
          b.Const("var", {2}, {3, 8})},
         {bn_out});
  b.g.nodes.back().SetFloat("epsilon", 1.0f);
  b.Output(bn_out);
  auto m = LowerGraph(b.g);
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_EQ(m->executables.size(), 4u);
  EXPECT_EQ(m->executables[0].iparams,
            (I{KILN_POOL_AVG, 1, 2, 6, 6, 3, 3, 3, 3, 2, 2, 1, 1, 0, 0, 1, 1, 1}));
  EXPECT_EQ(m->executables[1].iparams, (I{KILN_POOL_MAX, 2, 9}));
  EXPECT_EQ(m->executables[2].iparams, (I{1, 2, 1, 0}));
  EXPECT_EQ(m->executables[3].kernel, "kiln_channel_affine_f32");
  EXPECT_EQ(m->executables[3].iparams, (I{1, 2, 1, KILN_ACT_NONE}));
  // scale = sc / sqrt(var + eps) = {1, 1}; shift = sh - mu * scale = {0.5, -1}
  ASSERT_EQ(m->constants.size(), 2u);
  const float* scale = m->constants[0].data->data<float>();
  const float* shift = m->constants[1].data->data<float>();
  EXPECT_FLOAT_EQ(scale[0], 1.0f);
  EXPECT_FLOAT_EQ(scale[1], 1.0f);
  EXPECT_FLOAT_EQ(shift[0], 0.5f);
  EXPECT_FLOAT_EQ(shift[1], -1.0f);
}

TEST(Lowering, SoftmaxBeforeOpset13CoercesTo2D) {
  for (int64_t opset : {11, 13}) {
    GraphBuilder b;
    b.g.opset = opset;
    const ir::ValueId x = b.Input("x", {2, 3, 4});
    const ir::ValueId y = b.Tensor("y", {2, 3, 4});
    const ir::NodeId n = b.Node("Softmax", "sm", {x}, {y});
    b.g.nodes[n].SetInt("axis", 1);
    b.Output(y);
    auto m = LowerGraph(b.g);
    ASSERT_TRUE(m.ok()) << m.status();
    // opset 11: [2, 3*4] rows; opset 13: axis 1 alone, inner 4
    EXPECT_EQ(m->executables[0].iparams, opset == 11 ? (I{2, 12, 1, 0}) : (I{2, 3, 4, 0}));
  }
}

TEST(Lowering, ClipFromConstantInputs) {
  GraphBuilder b;
  const ir::ValueId x = b.Input("x", {3, 5});
  const ir::ValueId y = b.Tensor("y", {3, 5});
  b.Node("Clip", "clip", {x, b.Const("lo", {}, {-2}), b.Const("hi", {}, {0.5f})}, {y});
  b.Output(y);
  auto m = LowerGraph(b.g);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->executables[0].kernel, "kiln_unary_f32");
  EXPECT_EQ(m->executables[0].iparams, (I{KILN_ACT_CLIP, 15}));
  EXPECT_EQ(m->executables[0].fparams, (std::vector<float>{-2.0f, 0.5f}));
  EXPECT_TRUE(m->constants.empty());  // bounds travel as fparams, not bindings
}

TEST(Lowering, TransposeAndConcat) {
  GraphBuilder b;
  const ir::ValueId x = b.Input("x", {2, 3, 4});
  const ir::ValueId t = b.Tensor("t", {4, 2, 3});
  const ir::NodeId tr = b.Node("Transpose", "tr", {x}, {t});
  b.Ints(tr, "perm", {2, 0, 1});
  const ir::ValueId u = b.Input("u", {4, 5, 3});
  const ir::ValueId y = b.Tensor("y", {4, 7, 3});
  const ir::NodeId cat = b.Node("Concat", "cat", {t, u}, {y});
  b.g.nodes[cat].SetInt("axis", -2);
  b.Output(y);
  auto m = LowerGraph(b.g);
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_EQ(m->executables.size(), 3u);
  EXPECT_EQ(m->executables[0].iparams, (I{4, 3, 0, 0, 4, 2, 3, 1, 12, 4, 6, 3, 1}));
  // t is 4 rows of 2*3 written at column 0 of rows 7*3 long; u at column 6
  EXPECT_EQ(m->executables[1].iparams, (I{4, 2, 0, 0, 4, 6, 6, 1, 21, 1}));
  EXPECT_EQ(m->executables[2].iparams, (I{4, 2, 0, 6, 4, 15, 15, 1, 21, 1}));
  ASSERT_EQ(m->dispatches.size(), 3u);
  EXPECT_EQ(m->dispatches[2].nodes, (std::vector<std::string>{"cat"}));
}

// A channel Concat whose output is stored channels last: an NHWC input is
// copied as rows of its channels per pixel, an NCHW one transposed into
// its channels of every pixel (layout_selection.cc marks the values).
// Concat "cat" of inputs a (channels last) and n along axis into y, stored
// channels last when y_channels_last.
GraphBuilder ChannelsLastConcat(const std::vector<int64_t>& a_shape,
                                const std::vector<int64_t>& n_shape,
                                const std::vector<int64_t>& y_shape, int64_t axis,
                                bool y_channels_last) {
  GraphBuilder b;
  const ir::ValueId a = b.Input("a", a_shape);
  const ir::ValueId n = b.Input("n", n_shape);
  const ir::ValueId y = b.Tensor("y", y_shape);
  b.g.nodes[b.Node("Concat", "cat", {a, n}, {y})].SetInt("axis", axis);
  b.Output(y);
  b.g.value(a).channels_last = true;
  b.g.value(y).channels_last = y_channels_last;
  return b;
}

TEST(Lowering, ChannelsLastConcatCopiesEachInputFromItsLayout) {
  const GraphBuilder b = ChannelsLastConcat({1, 2, 2, 2}, {1, 3, 2, 2}, {1, 5, 2, 2}, 1, true);
  auto m = LowerGraph(b.g);
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_EQ(m->executables.size(), 2u);
  // a: 4 pixels x 2 channels, rows 2 apart into rows 5 apart, from channel 0.
  EXPECT_EQ(m->executables[0].iparams, (I{4, 2, 0, 0, 4, 2, 2, 1, 5, 1}));
  // n: (image, channel, pixel) from strides (12, 4, 1) to (20, 1, 5), from channel 2.
  EXPECT_EQ(m->executables[1].iparams, (I{4, 3, 0, 2, 1, 3, 4, 12, 4, 1, 20, 1, 5}));
}

TEST(Lowering, AChannelsLastInputOffTheChannelAxisIsRefused) {
  const GraphBuilder b = ChannelsLastConcat({1, 2, 2, 2}, {1, 2, 3, 2}, {1, 2, 5, 2}, 2, false);
  auto m = LowerGraph(b.g);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("channels-last input off the channel axis"),
            std::string::npos)
      << m.status();
  EXPECT_NE(m.status().message().find("cat"), std::string::npos) << m.status();
}

TEST(Lowering, BytecodeLayoutAndDebug) {
  GraphBuilder b;
  const ir::ValueId x = b.Input("x", {16});
  const ir::ValueId t = b.Tensor("t", {16});
  const ir::ValueId r = b.Tensor("r", {4, 4});
  const ir::ValueId y = b.Tensor("y", {4, 4});
  const ir::ValueId bias = b.Const("bias", {4}, {1, 2, 3, 4});
  b.Node("Relu", "relu", {x}, {t});
  b.Node("Reshape", "reshape", {t, b.Const("shape", {2}, {4, 4})}, {r});
  b.Node("Add", "add", {r, bias}, {y});
  b.g.nodes.back().fused.push_back({"ghost", "Mul"});
  b.Output(y);
  b.Output(x);  // a copy
  auto m = LowerGraph(b.g);
  ASSERT_TRUE(m.ok()) << m.status();
  const std::vector<Instr> code = Decode(m->bytecode);
  // in, out, out, const (bias only: the shape is never bound), arena t,
  // 3 dispatches (relu, add, copy), return
  ASSERT_EQ(code.size(), 9u);
  EXPECT_EQ(code[0].op, KILN_OP_VIEW_INPUT);
  EXPECT_EQ(code[1].op, KILN_OP_VIEW_OUTPUT);
  EXPECT_EQ(code[2].op, KILN_OP_VIEW_OUTPUT);
  EXPECT_EQ(code[3].op, KILN_OP_VIEW_CONST);
  EXPECT_EQ(code[4].op, KILN_OP_VIEW_ARENA);
  EXPECT_EQ(code[4].operands, (std::vector<uint32_t>{4, 0, 0, 64, 0}));
  EXPECT_EQ(code[8].op, KILN_OP_RETURN);
  EXPECT_EQ(m->register_count, 5u);
  ASSERT_EQ(m->constants.size(), 1u);
  EXPECT_EQ(m->constants[0].name, "bias");
  // relu: x (r0) → t (r4); add: r (= t, r4) + bias (r3) → y (r1); copy x → out 1 (r2)
  EXPECT_EQ(code[5].operands, (std::vector<uint32_t>{0, 2, 0, 4}));
  EXPECT_EQ(code[6].operands, (std::vector<uint32_t>{1, 3, 4, 3, 1}));
  EXPECT_EQ(code[7].operands, (std::vector<uint32_t>{2, 2, 0, 2}));
  EXPECT_EQ(m->executables[2].kernel, "kiln_copy");
  EXPECT_EQ(m->executables[2].iparams, (I{64}));
  ASSERT_EQ(m->dispatches.size(), 3u);
  EXPECT_EQ(m->dispatches[1].nodes, (std::vector<std::string>{"add", "ghost"}));
  EXPECT_EQ(m->dispatches[1].op_types, (std::vector<std::string>{"Add", "Mul"}));
  EXPECT_EQ(m->dispatches[1].outputs, (std::vector<std::string>{"y"}));
  EXPECT_EQ(m->dispatches[2].outputs, (std::vector<std::string>{"x"}));
  // bytecode_offset points at the DISPATCH word itself
  for (const emit::DispatchDebugDesc& d : m->dispatches) {
    EXPECT_EQ(m->bytecode[d.bytecode_offset], static_cast<uint32_t>(KILN_OP_DISPATCH));
  }
  EXPECT_EQ(m->inputs[0].name, "x");
  EXPECT_EQ(m->outputs[1].name, "x");
}

TEST(Lowering, NonFloatComputeIsUnimplemented) {
  GraphBuilder b;
  const ir::ValueId x = b.Input("x", {4}, ir::DType::I32);
  const ir::ValueId y = b.Tensor("y", {4}, ir::DType::I32);
  b.Node("Relu", "int_relu", {x}, {y});
  b.Output(y);
  auto m = LowerGraph(b.g);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(m.status().message().find("int_relu"), std::string::npos) << m.status();
  EXPECT_NE(m.status().message().find("test.onnx"), std::string::npos) << m.status();
}

TEST(Lowering, UnknownOpIsUnimplemented) {
  GraphBuilder b;
  const ir::ValueId x = b.Input("x", {4});
  const ir::ValueId y = b.Tensor("y", {4});
  b.Node("StringNormalizer", "strnorm1", {x}, {y});  // string op: never lowered
  b.Output(y);
  auto m = LowerGraph(b.g);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(m.status().message().find("strnorm1"), std::string::npos);
}

}  // namespace
}  // namespace kiln::compiler
