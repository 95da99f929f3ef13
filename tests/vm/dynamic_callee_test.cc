// Called functions with integer registers of their own (IF/LOOP bodies that
// size their tensors from the symbols) and LOOP_DYN, whose trip and expected
// counts are integer registers, in a hand-built module
// (tests/vm/dynamic_callee_builder.h): the VM's results against plain C++
// arithmetic over the inputs at several S, LOOP_DYN's counting rules, and
// the verifier's refusals of broken integer code in called functions.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/vm/dynamic_callee_builder.h"
#include "vm/disassembler.h"
#include "vm/instance.h"
#include "vm/module_image.h"

namespace kiln::vm {
namespace {

using testing::BuildDynamicCalleeModule;
using testing::DynamicCalleeFunctions;
using testing::DynamicCalleeSpec;
using testing::IntSource;

absl::StatusOr<std::shared_ptr<const ModuleImage>> Load(const DynamicCalleeSpec& spec) {
  const std::string bytes = BuildDynamicCalleeModule(spec);
  return ModuleImage::LoadBytes(bytes.data(), bytes.size(), "callee.kiln");
}

void ExpectRefused(const DynamicCalleeSpec& spec, const std::string& fragment) {
  auto image = Load(spec);
  ASSERT_FALSE(image.ok()) << "expected an error containing: " << fragment;
  EXPECT_NE(std::string(image.status().message()).find(fragment), std::string::npos)
      << image.status().message();
}

struct Result {
  absl::Status status;
  std::vector<float> y, z, w;
};

// x[i] = 0.5 * i - 3 (exact in float), so sums and doublings are exact too.
std::vector<float> Input(int64_t s) {
  std::vector<float> x(static_cast<size_t>(s * 4));
  for (size_t i = 0; i < x.size(); ++i) x[i] = 0.5f * static_cast<float>(i) - 3.0f;
  return x;
}

// Runs the module twice on one instance, at S = `s` and then again, so a
// called function's integer registers are recomputed, not left over.
Result RunCallee(const DynamicCalleeSpec& spec, int64_t s, bool cond, int runs = 1) {
  Result out;
  auto image = Load(spec);
  if (!image.ok()) return {image.status(), {}, {}, {}};
  auto instance = Instance::Create(*image);
  if (!instance.ok()) return {instance.status(), {}, {}, {}};
  std::vector<float> x = Input(s);
  uint8_t c = cond ? 1 : 0;
  const int64_t x_shape[2] = {s, 4}, c_shape[1] = {1}, w_shape[1] = {4};
  out.y.assign(x.size(), -100.0f);
  out.z.assign(x.size(), -100.0f);
  out.w.assign(4, -100.0f);
  std::vector<HostTensor> inputs = {
      {fb::DType::F32, absl::MakeConstSpan(x_shape, 2), x.data(), x.size() * 4},
      {fb::DType::Bool, absl::MakeConstSpan(c_shape, 1), &c, 1}};
  std::vector<HostTensor> outputs = {
      {fb::DType::F32, absl::MakeConstSpan(x_shape, 2), out.y.data(), out.y.size() * 4},
      {fb::DType::F32, absl::MakeConstSpan(x_shape, 2), out.z.data(), out.z.size() * 4}};
  if (spec.static_output) {
    outputs.push_back({fb::DType::F32, absl::MakeConstSpan(w_shape, 1), out.w.data(), 16});
  }
  out.status = (*instance)->Reserve(inputs);
  for (int k = 0; k < runs && out.status.ok(); ++k) out.status = (*instance)->Run(inputs, outputs);
  return out;
}

// y = cond ? 2x : x; z = (1 + iterations) * x.
void ExpectOutputs(const Result& r, int64_t s, bool cond, int64_t iterations) {
  ASSERT_TRUE(r.status.ok()) << r.status;
  const std::vector<float> x = Input(s);
  for (size_t i = 0; i < x.size(); ++i) {
    ASSERT_EQ(r.y[i], cond ? x[i] + x[i] : x[i]) << "y[" << i << "] at S = " << s;
    ASSERT_EQ(r.z[i], x[i] * static_cast<float>(1 + iterations)) << "z[" << i << "] at S = " << s;
  }
}

TEST(DynamicCallee, IfAndLoopDynOverTheSymbolComputeSizesInTheCallees) {
  for (int64_t s : {1, 3, 8, 37}) {
    for (bool cond : {true, false}) {
      // LOOP_DYN's trip count is S: z = (1 + S) * x.
      ExpectOutputs(RunCallee({}, s, cond, /*runs=*/2), s, cond, s);
    }
  }
}

TEST(DynamicCallee, LoopDynRunsItsTripCount) {
  DynamicCalleeSpec spec;
  spec.trip = IntSource{false, 3};
  ExpectOutputs(RunCallee(spec, 5, true), 5, true, 3);
  // Zero iterations for a trip count of 0 or less.
  for (int64_t trip : {int64_t{0}, int64_t{-2}, std::numeric_limits<int64_t>::min()}) {
    spec.trip = IntSource{false, trip};
    ExpectOutputs(RunCallee(spec, 4, false), 4, false, 0);
  }
}

TEST(DynamicCallee, LoopDynChecksTheExpectedCount) {
  DynamicCalleeSpec spec;
  // Expected S with trip S: fine.
  spec.expected = IntSource{true, 0};
  ExpectOutputs(RunCallee(spec, 6, true), 6, true, 6);
  // Expected 3: trip 3 passes, 2 and 5 fail naming the loop and the count.
  spec.expected = IntSource{false, 3};
  spec.trip = IntSource{false, 3};
  ExpectOutputs(RunCallee(spec, 2, true), 2, true, 3);
  for (int64_t trip : {2, 5}) {
    spec.trip = IntSource{false, trip};
    const Result r = RunCallee(spec, 2, true);
    ASSERT_FALSE(r.status.ok()) << "trip " << trip;
    EXPECT_NE(std::string(r.status.message()).find("LOOP_DYN of 'body': the iteration count differs"),
              std::string::npos)
        << r.status.message();
    EXPECT_NE(std::string(r.status.message()).find("(3)"), std::string::npos) << r.status.message();
  }
  // No limit (INT64_MAX) but S expected: it stops with a failure at S.
  spec.trip = IntSource{false, std::numeric_limits<int64_t>::max()};
  spec.expected = IntSource{true, 0};
  const Result r = RunCallee(spec, 4, false);
  ASSERT_FALSE(r.status.ok());
  EXPECT_NE(std::string(r.status.message()).find("(4)"), std::string::npos) << r.status.message();
  // Any count when the expected count is negative.
  spec.trip = IntSource{false, 7};
  spec.expected = IntSource{false, -5};
  ExpectOutputs(RunCallee(spec, 2, false), 2, false, 7);
}

TEST(DynamicCallee, LoopDynConditionStopsIt) {
  DynamicCalleeSpec spec;
  spec.loop_condition = true;  // the IF's condition, read before the first call
  ExpectOutputs(RunCallee(spec, 3, true), 3, true, 3);
  ExpectOutputs(RunCallee(spec, 3, false), 3, false, 0);
}

TEST(DynamicCallee, AFailingCalleeRequirementNamesItsFunction) {
  DynamicCalleeSpec spec;
  std::vector<std::vector<uint32_t>> code = DynamicCalleeFunctions(spec);
  // else: require S == 4 (n0 against a constant 4 in n5).
  const std::vector<uint32_t> require = {KILN_OP_ICONST, 5, 4, 0, KILN_OP_IASSERT_EQ, 0, 5};
  code[2].insert(code[2].end() - 1, require.begin(), require.end());
  spec.functions = code;
  ExpectOutputs(RunCallee(spec, 4, false), 4, false, 4);
  const Result r = RunCallee(spec, 3, false);
  ASSERT_FALSE(r.status.ok());
  const std::string message(r.status.message());
  EXPECT_NE(message.find("function 2 +"), std::string::npos) << message;
  EXPECT_NE(message.find("requirement S == 4 (3 != 4)"), std::string::npos) << message;
}

TEST(DynamicCallee, ACalleeViewPastTheWorkspaceFails) {
  DynamicCalleeSpec spec;
  std::vector<std::vector<uint32_t>> code = DynamicCalleeFunctions(spec);
  code[1][17] = 32;  // then: the arena view starts at 32, ending 16 bytes past the workspace
  spec.functions = code;
  const Result r = RunCallee(spec, 2, true);
  ASSERT_FALSE(r.status.ok());
  const std::string message(r.status.message());
  EXPECT_NE(message.find("function 1 +"), std::string::npos) << message;
  EXPECT_NE(message.find("VIEW_ARENA_DYN failed"), std::string::npos) << message;
}

TEST(DynamicCallee, AStaticOutputCountsWrittenOnlyByALoopThatMustRun) {
  DynamicCalleeSpec spec;
  spec.static_output = true;
  spec.expected = IntSource{true, 0};  // S >= 1: the body surely runs
  const Result r = RunCallee(spec, 3, true);
  ExpectOutputs(r, 3, true, 3);
  const std::vector<float> x = Input(3);
  for (int k = 0; k < 4; ++k) EXPECT_EQ(r.w[static_cast<size_t>(k)], x[static_cast<size_t>(k)]);
  spec.expected = IntSource{false, 2};
  EXPECT_TRUE(Load(spec).ok());
  spec.expected = IntSource{false, -1};
  ExpectRefused(spec, "function 'main' never writes output 2");
  spec.expected = IntSource{false, 0};
  ExpectRefused(spec, "function 'main' never writes output 2");
}

TEST(DynamicCallee, ILoadInACalledFunctionReadsAResultSymbolOfTheModule) {
  // A length a kernel of the body found (a NonZero inside a Loop body).
  DynamicCalleeSpec spec;
  spec.result_symbol = true;
  std::vector<std::vector<uint32_t>> code = DynamicCalleeFunctions(spec);
  code[3].insert(code[3].begin(), {KILN_OP_ILOAD, 7, 0});
  spec.functions = code;
  EXPECT_TRUE(Load(spec).ok()) << Load(spec).status();
  spec.functions[3][2] = 3;
  ExpectRefused(spec, "function 'body' +0: result symbol 3 out of range");
  spec.result_symbol = false;
  spec.functions[3][2] = 0;
  ExpectRefused(spec, "function 'body' +0: result symbol 0 out of range");
}

TEST(DynamicCallee, RefusesBrokenIntegerRegistersInACallee) {
  DynamicCalleeSpec spec;
  const std::vector<std::vector<uint32_t>> good = DynamicCalleeFunctions(spec);
  ASSERT_TRUE(Load(spec).ok()) << Load(spec).status();
  // else +7: IMUL n2 n0 n1 reading n6, never written.
  spec.functions = good;
  spec.functions[2][10] = 6;
  ExpectRefused(spec, "function 'else' +7: integer register n6 is read before it is set");
  // Read before written in bytecode order: the IMUL moved before the ICONST.
  spec.functions = good;
  spec.functions[2] = {KILN_OP_ISYM, 0, 0, KILN_OP_IMUL, 2, 0, 1, KILN_OP_ICONST, 1, 16, 0,
                       KILN_OP_RETURN};
  ExpectRefused(spec, "function 'else' +3: integer register n1 is read before it is set");
  // Out of range (8 integer registers).
  spec.functions = good;
  spec.functions[1][8] = 8;
  ExpectRefused(spec, "function 'then' +7: integer register n8 out of range");
  // Written twice.
  spec.functions = good;
  spec.functions[2][8] = 0;
  ExpectRefused(spec, "function 'else' +7: integer register n0 is written a second time");
  // A view or patch reading an unset register.
  spec.functions = good;
  spec.functions[3][22] = 7;
  ExpectRefused(spec, "function 'body' +19: integer register n7 is read before it is set");
  spec.functions = good;
  spec.functions[1][47] = 7;
  ExpectRefused(spec, "function 'then' +39: patch 0 reads integer register n7");
  // A symbol out of range.
  spec.functions = good;
  spec.functions[3][2] = 1;
  ExpectRefused(spec, "function 'body' +0: symbol 1 out of range");
  // Each function's own count: the body with none.
  spec.functions = good;
  spec.int_register_count = 0;
  ExpectRefused(spec, "function 'body' +0: integer register n0 out of range");
}

TEST(DynamicCallee, RefusesDynamicOpcodesInACalleeOfAModuleWithoutSymbolsOrResults) {
  // Neither symbols nor result symbols: a called function has nothing to
  // compute sizes from. (With a result symbol it may: it loads the lengths
  // its kernels find, tests/e2e/result_shapes_test.sh, generate_bodies.py.)
  DynamicCalleeSpec spec;
  spec.no_symbols = true;
  spec.functions = {{KILN_OP_VIEW_INPUT, 0, 1, KILN_OP_IF, 0, 1, 2, KILN_OP_RETURN},
                    {KILN_OP_ICONST, 0, 16, 0, KILN_OP_RETURN},
                    {KILN_OP_RETURN}};
  ExpectRefused(spec, "function 'then' +0: ICONST in a module without symbols");
}

TEST(DynamicCallee, RefusesBadLoopDynOperands) {
  DynamicCalleeSpec spec;
  const std::vector<std::vector<uint32_t>> good = DynamicCalleeFunctions(spec);
  // main's LOOP_DYN: opcode at +51, operands f n R r R n after it.
  const size_t at = 51;
  ASSERT_EQ(good[0][at], static_cast<uint32_t>(KILN_OP_LOOP_DYN));
  auto refused = [&](size_t operand, uint32_t value, const std::string& fragment) {
    spec.functions = good;
    spec.functions[0][at + 1 + operand] = value;
    ExpectRefused(spec, fragment);
  };
  refused(1, 9, "function 'main' +51: integer register n9 out of range");
  refused(1, 6, "function 'main' +51: integer register n6 is read before it is set");
  refused(5, 30, "function 'main' +51: integer register n30 out of range");
  refused(5, 7, "function 'main' +51: integer register n7 is read before it is set");
  refused(2, 2, "(condition) views a run-time size");
  refused(3, 3, "register r3 (iteration number) views a run-time size");
  refused(3, 9, "register r9 out of range");
  refused(0, 0, "calls function 0");
  refused(0, 4, "calls function 4");
  // A LOOP_DYN in a called function reads that function's registers.
  spec.functions = good;
  spec.functions[2].insert(spec.functions[2].end() - 1,
                           {KILN_OP_VIEW_ARENA, 2, 0, 0, 8, 0, KILN_OP_LOOP_DYN, 3, 0,
                            KILN_NO_REGISTER, 2, KILN_NO_REGISTER, 5});
  ExpectRefused(spec, "function 'else' +33: integer register n5 is read before it is set");
  spec.functions[2][spec.functions[2].size() - 2] = 0;  // expected S: fine
  EXPECT_TRUE(Load(spec).ok()) << Load(spec).status();
}

// The iteration slot as a dynamic arena view (as the compiler places a
// callee's scalars after a symbolic arena): accepted when its size is a
// constant of at least 8 bytes, refused otherwise.
TEST(DynamicCallee, ADynamicIterationSlotNeedsAConstantSize) {
  auto with_slot = [](std::vector<uint32_t> size) {
    DynamicCalleeSpec spec;
    spec.functions = DynamicCalleeFunctions(spec);
    std::vector<uint32_t>& main = spec.functions[0];
    const std::vector<uint32_t> static_slot = {KILN_OP_VIEW_ARENA, 1, 0, 0, 8, 0};
    auto at = std::search(main.begin(), main.end(), static_slot.begin(), static_slot.end());
    EXPECT_NE(at, main.end());
    at = main.erase(at, at + 6);
    std::vector<uint32_t> slot = {KILN_OP_ICONST, 6, 0, 0};  // offset 0
    slot.insert(slot.end(), size.begin(), size.end());      // n7 = the size
    slot.insert(slot.end(), {KILN_OP_VIEW_ARENA_DYN, 1, 6, 7});
    main.insert(at, slot.begin(), slot.end());
    return spec;
  };
  DynamicCalleeSpec eight = with_slot({KILN_OP_ICONST, 7, 8, 0});
  ExpectOutputs(RunCallee(eight, 3, true), 3, true, 3);
  // 2*4 = 8, folded: accepted too.
  DynamicCalleeSpec product = with_slot(
      {KILN_OP_ICONST, 8, 2, 0, KILN_OP_ICONST, 9, 4, 0, KILN_OP_IMUL, 7, 8, 9});
  product.int_register_count = 10;
  ExpectOutputs(RunCallee(product, 2, false), 2, false, 2);
  ExpectRefused(with_slot({KILN_OP_ICONST, 7, 4, 0}),
                "register r1 (iteration number) views a run-time size; it needs 8");
  ExpectRefused(with_slot({KILN_OP_IMUL, 7, 0, 1}),
                "register r1 (iteration number) views a run-time size; it needs 8");
}

TEST(DynamicCallee, ANestedLoopDynInACalleeRunsWithItsCounts) {
  // else also runs the body S more times (its own n0 = S, iteration slot in
  // the static arena): z = (1 + S + S) * x on the else path.
  DynamicCalleeSpec spec;
  spec.functions = DynamicCalleeFunctions(spec);
  spec.functions[2].insert(spec.functions[2].end() - 1,
                           {KILN_OP_VIEW_ARENA, 2, 0, 0, 8, 0, KILN_OP_LOOP_DYN, 3, 0,
                            KILN_NO_REGISTER, 2, KILN_NO_REGISTER, 0});
  ExpectOutputs(RunCallee(spec, 3, false), 3, false, 6);
  ExpectOutputs(RunCallee(spec, 3, true), 3, true, 3);
}

TEST(DynamicCallee, InspectShowsLoopDynAndCalleeRequirements) {
  DynamicCalleeSpec spec;
  spec.functions = DynamicCalleeFunctions(spec);
  const std::vector<uint32_t> require = {KILN_OP_ICONST, 5, 4, 0, KILN_OP_IASSERT_EQ, 0, 5};
  spec.functions[2].insert(spec.functions[2].end() - 1, require.begin(), require.end());
  auto image = Load(spec);
  ASSERT_TRUE(image.ok()) << image.status();
  const std::string text = DescribeModule(**image);
  EXPECT_NE(text.find("LOOP_DYN     function[3] n4 none r1 none n5"), std::string::npos) << text;
  EXPECT_NE(text.find("requires S == 4  (function 2)"), std::string::npos) << text;
  EXPECT_NE(text.find("function 3 body (5 registers, 8 integer registers,"), std::string::npos) << text;
}

}  // namespace
}  // namespace kiln::vm
