// Hand-made modules for LOOP_DYN and the dynamic opcodes in called
// functions, written by tests/malformed/make_callee_module_corpus.py: the
// endless loop is refused at load; the others load and their runs end
// (normally or with their own error) in bounded time and memory.
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <utility>

#include "gtest/gtest.h"
#include "tests/vm/zero_input_run.h"
#include "vm/disassembler.h"
#include "vm/module_image.h"
#include "vm/observer.h"

namespace kiln {
namespace {

const std::string kModules = std::string(KILN_SOURCE_DIR) + "/tests/malformed/modules/";

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

absl::StatusOr<std::shared_ptr<const vm::ModuleImage>> Load(const std::string& file) {
  const std::string bytes = ReadFile(kModules + file);
  EXPECT_FALSE(bytes.empty()) << file;
  auto image = vm::ModuleImage::LoadBytes(bytes.data(), bytes.size(), file);
  if (!image.ok()) return image.status();
  return std::shared_ptr<const vm::ModuleImage>(std::move(*image));
}

// Symbol N = 1: the input x is float32[1].
constexpr int64_t kN = 1;
constexpr uint64_t kMaxBytes = uint64_t{1} << 20;

TEST(CalleeModules, AConstantNoLimitTripWithoutAConditionIsRefused) {
  // Hung the VM before (2^63 - 1 calls of an empty body).
  auto image = Load("loop_dyn_unbounded.kiln");
  ASSERT_FALSE(image.ok());
  const std::string message(image.status().message());
  EXPECT_NE(message.find("function 'main' +28: the loop's trip count is the constant INT64_MAX"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("nor an expected count ends it: it never ends"), std::string::npos) << message;
}

// Counts the calls of LOOP/LOOP_DYN/IF bodies: the interpreter reports each
// entry into a called function and each return from it.
class BodyCallCounter : public vm::DispatchObserver {
 public:
  void FunctionIntRegisters(const int64_t*, uint32_t) override { ++transitions; }
  void BeforeDispatch(uint32_t, void* const*) override {}
  bool AfterDispatch(uint32_t, void* const*) override { return true; }
  int transitions = 0;
};

TEST(CalleeModules, ANegativeTripCountRunsNoIteration) {
  auto image = Load("loop_dyn_negative_trip.kiln");
  ASSERT_TRUE(image.ok()) << image.status();
  BodyCallCounter bodies;
  EXPECT_TRUE(testing::RunOnZeroInputs(*image, kN, kMaxBytes, {}, &bodies).ok());
  EXPECT_EQ(bodies.transitions, 0) << "the loop body was entered";
}

TEST(CalleeModules, AnExpectedCountTheTripNeverReachesFailsTheRun) {
  auto image = Load("loop_dyn_expected_huge.kiln");
  ASSERT_TRUE(image.ok()) << image.status();
  // The same loop with trip N = 1: the counter sees its one body call (the
  // check above can fail), then the expected count fails the run.
  BodyCallCounter bodies;
  const absl::Status s = testing::RunOnZeroInputs(*image, kN, kMaxBytes, {}, &bodies);
  EXPECT_EQ(bodies.transitions, 2) << "one entry into the body and one return";
  ASSERT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message()).find("the iteration count differs"), std::string::npos) << s;
  EXPECT_NE(std::string(s.message()).find("(4611686018427387904)"), std::string::npos) << s;
}

// Found by the module fuzzer: an Einsum whose summed letter is empty at run
// time (nothing is read) and whose operand strides are near 2^62; the kernel
// formed the operands' offsets anyway and overflowed int64 (UBSan stopped at
// the Einsum, +121). It now writes the zero output and forms none, and the
// run goes on to the module's other corrupted dispatches, which refuse their
// parameters with an error naming them.
TEST(CalleeModules, AnEmptyEinsumSumFormsNoOperandOffset) {
  auto image = Load("einsum_empty_sum_stride_overflow.kiln");
  ASSERT_TRUE(image.ok()) << image.status();
  for (auto [n, where] : {std::pair<int64_t, const char*>{1, "+159: DISPATCH_DYN failed"},
                          std::pair<int64_t, const char*>{3, "+142: DISPATCH_DYN failed"}}) {
    const absl::Status s = testing::RunOnZeroInputs(*image, n, kMaxBytes);
    ASSERT_FALSE(s.ok()) << "symbols = " << n;
    EXPECT_NE(std::string(s.message()).find(where), std::string::npos)
        << "symbols = " << n << ": " << s;
  }
}

// Found by the module fuzzer (30-minute run, libFuzzer timeout): a Scan
// body's iteration_slice_write of empty slices (0 inner bytes) over 2^50
// outer rows: every binding is tiny, so its checker passed and the copy loop
// spun for hours. The checker now bounds the rows (kiln_check_work) and the
// dispatch fails at once with "a size is out of range".
TEST(CalleeModules, EmptySliceCopiesCannotSpin) {
  auto image = Load("iteration_slice_empty_rows_spin.kiln");
  ASSERT_TRUE(image.ok()) << image.status();
  for (int64_t n : {1, 3}) {
    const absl::Status s = testing::RunOnZeroInputs(*image, n, kMaxBytes);
    ASSERT_FALSE(s.ok()) << "symbols = " << n;
    EXPECT_NE(std::string(s.message()).find("+155: DISPATCH_DYN failed with code 2"),
              std::string::npos)
        << "symbols = " << n << ": " << s;
  }
}

// Found by the module fuzzer (30-minute run, libFuzzer timeout): an Einsum
// whose operand strides were zeroed summed 2^30-odd terms of one element,
// within the work limit but minutes long. Its checker now allows a bounded
// number of passes over what the operands hold, and the dispatch fails.
TEST(CalleeModules, AZeroStrideEinsumCannotSpin) {
  auto image = Load("einsum_zero_stride_spin.kiln");
  ASSERT_TRUE(image.ok()) << image.status();
  for (int64_t n : {1, 3}) {
    const absl::Status s = testing::RunOnZeroInputs(*image, n, kMaxBytes);
    ASSERT_FALSE(s.ok()) << "symbols = " << n;
    EXPECT_NE(std::string(s.message()).find("+121: DISPATCH_DYN failed with code 2"),
              std::string::npos)
        << "symbols = " << n << ": " << s;
  }
}

// A register whose expression text doubles 60 times: the requirement's
// message and kiln inspect took gigabytes before; long expressions now
// read as the register's name.
void ExpectBoundedRequirement(const std::string& file, const std::string& where) {
  auto image = Load(file);
  ASSERT_TRUE(image.ok()) << image.status();
  const absl::Status s = testing::RunOnZeroInputs(*image, kN, kMaxBytes);
  ASSERT_FALSE(s.ok());
  const std::string message(s.message());
  EXPECT_NE(message.find(where), std::string::npos) << message;
  EXPECT_NE(message.find("the model's requirement"), std::string::npos) << message;
  EXPECT_LT(message.size(), 2000u) << message;
  EXPECT_LT(vm::DescribeModule(**image).size(), 100000u);
}

TEST(CalleeModules, ARequirementOnADoublingExpressionHasAShortMessage) {
  // n60 = N * 2^60 (fits for N = 1), required to equal N.
  ExpectBoundedRequirement("iassert_expression_blowup.kiln", "+257:");
}

TEST(CalleeModules, ACalleesRequirementOnADoublingExpressionHasAShortMessage) {
  // In the function an IF calls: max(N, N) 60 times, required to be 0.
  ExpectBoundedRequirement("callee_iassert_expression_blowup.kiln", "function 1 +247:");
}

}  // namespace
}  // namespace kiln
