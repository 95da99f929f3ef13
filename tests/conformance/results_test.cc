// The expectations check of the conformance runner: what it reports when a
// listed test passes, an unlisted one fails, or a listed one fails for a
// reason of another kind.
#include "tests/conformance/results.h"

#include <gtest/gtest.h>

namespace kiln::conformance {
namespace {

TestResult Failing(const std::string& name, const std::string& vm_reason,
                   const std::string& aot_reason) {
  TestResult r;
  r.suite = "node";
  r.name = name;
  r.vm_pass = vm_reason.empty();
  r.vm_reason = vm_reason;
  r.aot_pass = aot_reason.empty();
  r.aot_reason = aot_reason;
  return r;
}

std::map<std::string, Expectation> Listed(const std::string& name, const std::string& which,
                                          const std::string& reason) {
  return {{"node/" + name, Expectation{"node/" + name, which, reason}}};
}

TEST(ConformanceResults, ReasonKindIsTheTextBeforeTheFirstColon) {
  EXPECT_EQ(ReasonKind("unsupported op: Bernoulli"), "unsupported op");
  EXPECT_EQ(ReasonKind("training-only: compile: model: node 'x'"), "training-only");
  EXPECT_EQ(ReasonKind("sequence/optional inputs unsupported"),
            "sequence/optional inputs unsupported");
}

TEST(ConformanceResults, AListedFailureOfTheListedKindIsNoProblem) {
  const auto problems = CheckExpectations(
      {Failing("test_x", "unsupported op: Foo, Bar", "unsupported op: Foo, Bar")},
      Listed("test_x", "both", "unsupported op: Foo"), true, true, true);
  EXPECT_TRUE(problems.empty()) << problems.front();
}

TEST(ConformanceResults, AListedFailureOfAnotherKindIsReported) {
  const auto problems = CheckExpectations(
      {Failing("test_if_seq", "unsupported op: SequenceConstruct",
               "unsupported op: SequenceConstruct")},
      Listed("test_if_seq", "both", "control flow: If"), true, true, true);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("VM failure of another kind than listed: node/test_if_seq"),
            std::string::npos)
      << problems[0];
}

TEST(ConformanceResults, AnAotOnlyEntryIsCheckedAgainstTheAotReason) {
  const auto problems =
      CheckExpectations({Failing("test_y", "", "aot run: exit 1")},
                        Listed("test_y", "aot", "numerics: 1 of 4 elements"), true, true, true);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("AOT failure of another kind than listed: node/test_y"),
            std::string::npos)
      << problems[0];
}

TEST(ConformanceResults, UnexpectedFailuresAndPassesAreReported) {
  auto problems = CheckExpectations({Failing("test_z", "numerics: 1 of 1", "")}, {}, true, true,
                                    true);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("unexpected VM failure: node/test_z"), std::string::npos);
  problems = CheckExpectations({Failing("test_z", "", "")},
                               Listed("test_z", "both", "numerics: 1 of 1"), true, true, true);
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_NE(problems[0].find("unexpected VM pass"), std::string::npos) << problems[0];
  EXPECT_NE(problems[1].find("unexpected AOT pass"), std::string::npos) << problems[1];
}

}  // namespace
}  // namespace kiln::conformance
