// IF and LOOP (schemas/kiln/opcodes.def) in hand-built modules: the VM
// takes the right branch and counts iterations as the opcodes say, and the
// verifier refuses every broken call (a cycle, a bad target, an unset or
// too-small operand, a non-arena iteration slot, a loop that cannot end,
// nesting past the limit, an output only one branch writes). Compiled models are checked end to end by
// tests/e2e (models_test.cc, control_flow_test.sh) and the ONNX suite.
#include <cstring>
#include <string>
#include <vector>

#include "flatbuffers/flatbuffers.h"
#include "gtest/gtest.h"
#include "kiln/control_ops.h"
#include "kiln/module_generated.h"
#include "kiln/opcodes.h"
#include "vm/instance.h"
#include "vm/module_image.h"

namespace kiln::vm {
namespace {

using Code = std::vector<uint32_t>;

uint32_t Lo(uint64_t v) { return static_cast<uint32_t>(v); }
uint32_t Hi(uint64_t v) { return static_cast<uint32_t>(v >> 32); }

struct ModuleSpec {
  fb::DType input_dtype = fb::DType::Bool;
  std::vector<Code> functions;
  uint64_t arena_size = 64;
};

// Input 0: one element of input_dtype; output 0: float32 [4]. Constants:
// c0 = {1,2,3,4}, c1 = {5,6,7,8}, c2 = {9} (one float). Executables: e0 copies
// 16 bytes; e1 writes one float as row i of a [4] output (iteration_slice_write).
std::string BuildModule(const ModuleSpec& spec) {
  flatbuffers::FlatBufferBuilder b;
  std::vector<int64_t> one = {1}, four = {4};
  auto in = fb::CreateTensorDesc(b, b.CreateString("x"), spec.input_dtype, b.CreateVector(one));
  auto out = fb::CreateTensorDesc(b, b.CreateString("y"), fb::DType::F32, b.CreateVector(four));
  auto sig = fb::CreateSignature(b, b.CreateVector(std::vector{in}), b.CreateVector(std::vector{out}));
  const float values[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  std::vector<uint8_t> blob(192, 0);
  std::memcpy(blob.data(), values, 16);
  std::memcpy(blob.data() + 64, values + 4, 16);
  std::memcpy(blob.data() + 128, values + 8, 4);
  b.ForceVectorAlignment(blob.size(), 1, 64);
  auto data = b.CreateVector(blob);
  std::vector<flatbuffers::Offset<fb::Constant>> constants = {
      fb::CreateConstant(b, b.CreateString("c0"), fb::DType::F32, b.CreateVector(four), 0, 16),
      fb::CreateConstant(b, b.CreateString("c1"), fb::DType::F32, b.CreateVector(four), 64, 16),
      fb::CreateConstant(b, b.CreateString("c2"), fb::DType::F32, b.CreateVector(one), 128, 4)};
  std::vector<int64_t> copy_params = {16}, slice_params = {1, 4, 4, 0};
  std::vector<uint64_t> copy_bytes = {16, 16}, slice_bytes = {8, 4, 16};
  std::vector<flatbuffers::Offset<fb::Executable>> executables = {
      fb::CreateExecutable(b, b.CreateString("kiln_copy"), b.CreateVector(copy_params), 0, 2,
                           b.CreateVector(copy_bytes)),
      fb::CreateExecutable(b, b.CreateString("kiln_iteration_slice_write"),
                           b.CreateVector(slice_params), 0, 3, b.CreateVector(slice_bytes))};
  std::vector<flatbuffers::Offset<fb::Function>> functions;
  for (size_t f = 0; f < spec.functions.size(); ++f) {
    functions.push_back(fb::CreateFunction(b, b.CreateString(f == 0 ? "main" : "callee"), 8,
                                           b.CreateVector(spec.functions[f])));
  }
  auto plan = fb::CreateMemoryPlan(b, spec.arena_size, 64);
  auto module = fb::CreateModule(b, KILN_FORMAT_VERSION, b.CreateString("test"), sig,
                                 b.CreateVector(functions), b.CreateVector(executables),
                                 b.CreateVector(constants), data, plan);
  fb::FinishModuleBuffer(b, module);
  return std::string(reinterpret_cast<const char*>(b.GetBufferPointer()), b.GetSize());
}

// Writes constant `c` (0 or 1) to the output.
Code CopyConstToOutput(uint32_t c) {
  return {KILN_OP_VIEW_CONST, 0, c, KILN_OP_VIEW_OUTPUT, 1, 0,
          KILN_OP_DISPATCH, 0, 2, 0, 1, KILN_OP_RETURN};
}

ModuleSpec IfModule() {
  ModuleSpec spec;
  spec.functions = {{KILN_OP_VIEW_INPUT, 0, 0, KILN_OP_IF, 0, 1, 2, KILN_OP_RETURN},
                    CopyConstToOutput(0), CopyConstToOutput(1)};
  return spec;
}

// main: the output zeroed (c... via the loop), then LOOP body over trip
// count input 0, iteration slot at arena 0; the body writes 9 as row i.
ModuleSpec LoopModule(uint64_t expected) {
  ModuleSpec spec;
  spec.input_dtype = fb::DType::I64;
  spec.functions = {
      {KILN_OP_VIEW_INPUT, 0, 0, KILN_OP_VIEW_ARENA, 1, 0, 0, 8, 0,
       KILN_OP_VIEW_CONST, 2, 0, KILN_OP_VIEW_OUTPUT, 3, 0,
       KILN_OP_DISPATCH, 0, 2, 2, 3,  // y = {1,2,3,4}
       KILN_OP_LOOP, 1, 0, KILN_NO_REGISTER, 1, KILN_NO_REGISTER, Lo(expected), Hi(expected),
       KILN_OP_RETURN},
      {KILN_OP_VIEW_ARENA, 0, 0, 0, 8, 0, KILN_OP_VIEW_CONST, 1, 2, KILN_OP_VIEW_OUTPUT, 2, 0,
       KILN_OP_DISPATCH, 1, 3, 0, 1, 2, KILN_OP_RETURN}};
  return spec;
}

absl::StatusOr<std::shared_ptr<const ModuleImage>> Load(const std::string& bytes) {
  return ModuleImage::LoadBytes(bytes.data(), bytes.size(), "test.kiln");
}

void ExpectRefused(const ModuleSpec& spec, const std::string& fragment) {
  auto image = Load(BuildModule(spec));
  ASSERT_FALSE(image.ok()) << "expected an error containing: " << fragment;
  EXPECT_NE(std::string(image.status().message()).find(fragment), std::string::npos)
      << image.status().message();
}

// Runs with input bytes `x` (one element) and returns the status and output.
absl::Status RunModule(const ModuleSpec& spec, const void* x, size_t x_bytes, float y[4]) {
  auto image = Load(BuildModule(spec));
  if (!image.ok()) return image.status();
  auto instance = Instance::Create(*image);
  if (!instance.ok()) return instance.status();
  const int64_t one = 1, four = 4;
  HostTensor in{spec.input_dtype, absl::MakeConstSpan(&one, 1), const_cast<void*>(x), x_bytes};
  HostTensor out{fb::DType::F32, absl::MakeConstSpan(&four, 1), y, 16};
  return (*instance)->Run({&in, 1}, {&out, 1});
}

TEST(ControlFlow, IfTakesTheBranchTheConditionNames) {
  for (uint8_t cond : {uint8_t{1}, uint8_t{0}}) {
    float y[4] = {0, 0, 0, 0};
    ASSERT_TRUE(RunModule(IfModule(), &cond, 1, y).ok());
    const float first = cond ? 1.0f : 5.0f;
    for (int k = 0; k < 4; ++k) EXPECT_EQ(y[k], first + k) << "condition " << int{cond};
  }
}

TEST(ControlFlow, LoopRunsTheTripCountAndWritesEachIteration) {
  // Trip 2 with any count allowed: rows 0 and 1 become 9, the rest stay.
  const int64_t trip = 2;
  float y[4] = {0, 0, 0, 0};
  ASSERT_TRUE(RunModule(LoopModule(KILN_ANY_ITERATION_COUNT), &trip, 8, y).ok());
  EXPECT_EQ(y[0], 9.0f);
  EXPECT_EQ(y[1], 9.0f);
  EXPECT_EQ(y[2], 3.0f);
  EXPECT_EQ(y[3], 4.0f);
  // A negative trip count runs no iteration.
  const int64_t none = -3;
  ASSERT_TRUE(RunModule(LoopModule(KILN_ANY_ITERATION_COUNT), &none, 8, y).ok());
  EXPECT_EQ(y[0], 1.0f);
}

TEST(ControlFlow, LoopRefusesAnotherCountThanExpected) {
  float y[4];
  const int64_t four = 4, three = 3, five = 5;
  EXPECT_TRUE(RunModule(LoopModule(4), &four, 8, y).ok());
  for (const int64_t* trip : {&three, &five}) {
    absl::Status s = RunModule(LoopModule(4), trip, 8, y);
    ASSERT_FALSE(s.ok()) << "trip " << *trip;
    EXPECT_NE(std::string(s.message()).find("iteration count differs"), std::string::npos)
        << s.message();
  }
  // Without an expected count, a slice past the output is the kernel's
  // refusal (KILN_ERR_SHAPE_MISMATCH), reported in the body (function 1).
  absl::Status s = RunModule(LoopModule(KILN_ANY_ITERATION_COUNT), &five, 8, y);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s.message();
  EXPECT_NE(std::string(s.message()).find("function 1 +"), std::string::npos) << s.message();
  EXPECT_NE(std::string(s.message()).find("does not give the output shape the model declares"),
            std::string::npos)
      << s.message();
}

TEST(ControlFlow, RefusesCallsBackwardOrOutOfRange) {
  ModuleSpec self = IfModule();
  self.functions[0][5] = 0;  // then: main itself
  ExpectRefused(self, "calls function 0");
  ModuleSpec back = IfModule();
  back.functions[1] = {KILN_OP_VIEW_INPUT, 0, 0, KILN_OP_IF, 0, 1, 2, KILN_OP_RETURN};
  ExpectRefused(back, "calls function 1");
  ModuleSpec past = IfModule();
  past.functions[0][6] = 3;
  ExpectRefused(past, "calls function 3");
}

TEST(ControlFlow, RefusesUnsetOrSmallOperands) {
  ModuleSpec unset = IfModule();
  unset.functions[0] = {KILN_OP_IF, 0, 1, 2, KILN_OP_RETURN};
  ExpectRefused(unset, "(condition) is read before it is set");
  // A LOOP whose trip count register views the 1-byte bool input.
  ModuleSpec small = LoopModule(KILN_ANY_ITERATION_COUNT);
  small.input_dtype = fb::DType::Bool;
  ExpectRefused(small, "(trip count) views 1 bytes; it needs 8");
  ModuleSpec bad_register = LoopModule(KILN_ANY_ITERATION_COUNT);
  bad_register.functions[0][23] = 40;  // the condition operand
  ExpectRefused(bad_register, "register r40 out of range");
}

TEST(ControlFlow, RefusesALoopThatCannotEnd) {
  ModuleSpec spec = LoopModule(KILN_ANY_ITERATION_COUNT);
  spec.functions[0][22] = KILN_NO_REGISTER;  // no trip count, and no condition after
  ExpectRefused(spec, "it never ends");
}

TEST(ControlFlow, RefusesAnIterationSlotOutsideTheArena) {
  ModuleSpec spec = LoopModule(KILN_ANY_ITERATION_COUNT);
  spec.functions[0][24] = 0;  // iteration number -> r0, the caller's input
  ExpectRefused(spec, "iteration number must be written to an arena view");
}

TEST(ControlFlow, RefusesAnOutputOnlyOneBranchWrites) {
  ModuleSpec spec = IfModule();
  spec.functions[2] = {KILN_OP_RETURN};
  ExpectRefused(spec, "never writes output 0");
}

TEST(ControlFlow, RefusesNestingPastTheLimit) {
  ModuleSpec spec;
  const uint32_t depth = 40;
  for (uint32_t f = 0; f < depth; ++f) {
    spec.functions.push_back({KILN_OP_VIEW_INPUT, 0, 0, KILN_OP_IF, 0, f + 1, f + 1, KILN_OP_RETURN});
  }
  spec.functions.push_back(CopyConstToOutput(0));
  ExpectRefused(spec, "deep; the limit is 32");
}

}  // namespace
}  // namespace kiln::vm
