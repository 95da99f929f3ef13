// One conformance test's outcome, the expectations file that lists every test
// that does not pass, and the Markdown report.
#ifndef KILN_TESTS_CONFORMANCE_RESULTS_H_
#define KILN_TESTS_CONFORMANCE_RESULTS_H_

#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace kiln::conformance {

struct TestResult {
  std::string suite, name;       // key: suite/name
  std::vector<std::string> ops;  // op types of the model's main graph
  bool vm_pass = false;
  std::string vm_reason;
  bool aot_pass = false;
  std::string aot_reason;
  std::string Key() const { return suite + "/" + name; }
};

struct Expectation {
  std::string key;    // suite/name
  std::string which;  // "vm", "aot" or "both"
  std::string reason;
  bool vm() const { return which == "vm" || which == "both"; }
  bool aot() const { return which == "aot" || which == "both"; }
};

// Lines `suite/name  which  reason`; '#' starts a comment line.
absl::StatusOr<std::map<std::string, Expectation>> ReadExpectations(const std::string& path);

// A reason's kind: the text before its first ':' ("unsupported op",
// "numerics", "control flow", ...), which stays while the details change.
std::string ReasonKind(const std::string& reason);

// Problems between results and expectations: unexpected failures and passes
// (so the list only shrinks), and listed failures whose reason changed kind. `vm_checked` / `aot_checked` false ignores that
// column; `every_test` says the results hold every test of their suites, so a
// listed test missing from them is missing from the data.
std::vector<std::string> CheckExpectations(const std::vector<TestResult>& results,
                                           const std::map<std::string, Expectation>& expected,
                                           bool vm_checked, bool aot_checked, bool every_test);

// Rewrites `path`: the failing tests among `results`, plus the existing lines
// of suites not in `results` (so one suite can be regenerated alone).
absl::Status WriteExpectations(const std::string& path, const std::vector<TestResult>& results,
                               const std::map<std::string, Expectation>& previous);

// docs/conformance.md: pass counts per suite and per op type, VM and AOT.
absl::Status WriteReport(const std::string& path, const std::vector<TestResult>& results,
                         double seconds);

}  // namespace kiln::conformance

#endif  // KILN_TESTS_CONFORMANCE_RESULTS_H_
