// Result symbols (output lengths known only after a run) in a hand-built
// module: a copy leaves the length in the arena, the VM reports the bound
// before a run and the value after it, refuses a value beyond the bound, and
// the verifier refuses a misplaced slot or an output dim other than the bound.
// Compiled models: tests/e2e/result_shapes_test.sh.
#include <cstring>
#include <string>
#include <vector>

#include "flatbuffers/flatbuffers.h"
#include "gtest/gtest.h"
#include "kiln/module_generated.h"
#include "kiln/opcodes.h"
#include "vm/instance.h"
#include "vm/module_image.h"

namespace kiln::vm {
namespace {

struct Spec {
  int64_t length = 1;            // what the run leaves in the result slot
  uint64_t arena_offset = 0;     // the slot
  int64_t output_dim = 2;        // the output's dim (must be the bound)
  std::string name = "y.length";
  // ILOAD of this result symbol into n0 right after the first copy (-1: none).
  int64_t load = -1;
};

// Output y: int64 [2] whose dim 0 is result `name` (bound 2). The run copies
// constant c0 (the length) into the slot and constant c1 into y.
std::string Build(const Spec& spec) {
  flatbuffers::FlatBufferBuilder b;
  std::vector<int64_t> one = {1}, out_shape = {spec.output_dim}, two = {2};
  auto in = fb::CreateTensorDesc(b, b.CreateString("x"), fb::DType::F32, b.CreateVector(one));
  std::vector<std::string> dims = {spec.name};
  auto out = fb::CreateTensorDesc(b, b.CreateString("y"), fb::DType::I64, b.CreateVector(out_shape),
                                  b.CreateVectorOfStrings(dims));
  auto sig = fb::CreateSignature(b, b.CreateVector(std::vector{in}), b.CreateVector(std::vector{out}));
  std::vector<uint8_t> blob(128, 0);
  std::memcpy(blob.data(), &spec.length, 8);
  const int64_t y[2] = {7, 8};
  std::memcpy(blob.data() + 64, y, 16);
  b.ForceVectorAlignment(blob.size(), 1, 64);
  auto data = b.CreateVector(blob);
  std::vector<flatbuffers::Offset<fb::Constant>> constants = {
      fb::CreateConstant(b, b.CreateString("c0"), fb::DType::I64, b.CreateVector(one), 0, 8),
      fb::CreateConstant(b, b.CreateString("c1"), fb::DType::I64, b.CreateVector(two), 64, 16)};
  std::vector<int64_t> p8 = {8}, p16 = {16};
  std::vector<uint64_t> b8 = {8, 8}, b16 = {16, 16};
  std::vector<flatbuffers::Offset<fb::Executable>> executables = {
      fb::CreateExecutable(b, b.CreateString("kiln_copy"), b.CreateVector(p8), 0, 2, b.CreateVector(b8)),
      fb::CreateExecutable(b, b.CreateString("kiln_copy"), b.CreateVector(p16), 0, 2,
                           b.CreateVector(b16))};
  std::vector<uint32_t> code = {KILN_OP_VIEW_CONST, 0, 0, KILN_OP_VIEW_ARENA, 1, 0, 0, 8, 0,
                                KILN_OP_DISPATCH, 0, 2, 0, 1,
                                KILN_OP_VIEW_CONST, 2, 1, KILN_OP_VIEW_OUTPUT, 3, 0,
                                KILN_OP_DISPATCH, 1, 2, 2, 3, KILN_OP_RETURN};
  if (spec.load >= 0) {
    const uint32_t after_copy = 14;
    code.insert(code.begin() + after_copy,
                {KILN_OP_ILOAD, 0, static_cast<uint32_t>(spec.load)});
  }
  auto fn = fb::CreateFunction(b, b.CreateString("main"), 4, b.CreateVector(code),
                               spec.load >= 0 ? 1 : 0);
  auto plan = fb::CreateMemoryPlan(b, 64, 64);
  std::vector<flatbuffers::Offset<fb::ResultSymbol>> results = {
      fb::CreateResultSymbol(b, b.CreateString(spec.name), 2, spec.arena_offset)};
  auto module = fb::CreateModule(b, KILN_FORMAT_VERSION, b.CreateString("test"), sig,
                                 b.CreateVector(std::vector{fn}), b.CreateVector(executables),
                                 b.CreateVector(constants), data, plan, 0, 0,
                                 b.CreateVector(results));
  fb::FinishModuleBuffer(b, module);
  return std::string(reinterpret_cast<const char*>(b.GetBufferPointer()), b.GetSize());
}

absl::StatusOr<std::shared_ptr<const ModuleImage>> Load(const Spec& spec) {
  const std::string bytes = Build(spec);
  return ModuleImage::LoadBytes(bytes.data(), bytes.size(), "test.kiln");
}

absl::Status RunOnce(Instance& instance) {
  float x = 0;
  int64_t y[2] = {0, 0};
  const int64_t one = 1, two = 2;
  HostTensor in{fb::DType::F32, absl::MakeConstSpan(&one, 1), &x, 4};
  HostTensor out{fb::DType::I64, absl::MakeConstSpan(&two, 1), y, 16};
  return instance.Run({&in, 1}, {&out, 1});
}

TEST(ResultSymbols, OutputShapeIsTheBoundBeforeAndTheValueAfterARun) {
  auto image = Load({});
  ASSERT_TRUE(image.ok()) << image.status();
  auto instance = Instance::Create(*image);
  ASSERT_TRUE(instance.ok());
  EXPECT_EQ((*instance)->OutputShape(0), std::vector<int64_t>{2});
  ASSERT_TRUE(RunOnce(**instance).ok());
  EXPECT_EQ((*instance)->OutputShape(0), std::vector<int64_t>{1});
}

TEST(ResultSymbols, AValueBeyondTheBoundFailsTheRun) {
  Spec spec;
  spec.length = 3;
  auto image = Load(spec);
  ASSERT_TRUE(image.ok()) << image.status();
  auto instance = Instance::Create(*image);
  ASSERT_TRUE(instance.ok());
  absl::Status s = RunOnce(**instance);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message()).find("result 'y.length' = 3 after the run, outside 0..2"),
            std::string::npos)
      << s.message();
}

// ILOAD brings the length into integer arithmetic during the run: a value
// beyond the bound stops the run there, naming the length.
TEST(ResultSymbols, LoadingALengthBeyondTheBoundFailsAtTheLoad) {
  Spec within;
  within.load = 0;
  auto ok = Load(within);
  ASSERT_TRUE(ok.ok()) << ok.status();
  auto fine = Instance::Create(*ok);
  ASSERT_TRUE(fine.ok());
  ASSERT_TRUE(RunOnce(**fine).ok());
  EXPECT_EQ((*fine)->OutputShape(0), std::vector<int64_t>{1});

  Spec beyond = within;
  beyond.length = 3;
  auto image = Load(beyond);
  ASSERT_TRUE(image.ok()) << image.status();
  auto instance = Instance::Create(*image);
  ASSERT_TRUE(instance.ok());
  absl::Status s = RunOnce(**instance);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message()).find("+14: the length 'y.length' a kernel reported is "
                                          "outside 0..2"),
            std::string::npos)
      << s.message();
  beyond.length = -1;
  auto negative = Instance::Create(*Load(beyond));
  ASSERT_TRUE(negative.ok());
  EXPECT_FALSE(RunOnce(**negative).ok());
}

void ExpectRefused(const Spec& spec, const std::string& fragment) {
  auto image = Load(spec);
  ASSERT_FALSE(image.ok()) << "expected: " << fragment;
  EXPECT_NE(std::string(image.status().message()).find(fragment), std::string::npos)
      << image.status().message();
}

TEST(ResultSymbols, VerifierRefusesAMisplacedSlotOrAnotherDim) {
  Spec misaligned;
  misaligned.arena_offset = 4;
  ExpectRefused(misaligned, "not an aligned int64 inside the 64-byte arena");
  Spec outside;
  outside.arena_offset = 64;
  ExpectRefused(outside, "not an aligned int64 inside the 64-byte arena");
  Spec other_dim;
  other_dim.output_dim = 3;
  ExpectRefused(other_dim, "names result 'y.length' but is not its bound 2");
  Spec unnamed;
  unnamed.name = "";
  ExpectRefused(unnamed, "result symbol 0 is unnamed");
  Spec no_such_result;
  no_such_result.load = 1;
  ExpectRefused(no_such_result, "+14: result symbol 1 out of range");
}

}  // namespace
}  // namespace kiln::vm
