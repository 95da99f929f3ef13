#include "tests/conformance/results.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace kiln::conformance {

absl::StatusOr<std::map<std::string, Expectation>> ReadExpectations(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open"));
  std::map<std::string, Expectation> out;
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    absl::string_view s = absl::StripAsciiWhitespace(line);
    if (s.empty() || s[0] == '#') continue;
    // key, which, then the rest of the line as the reason.
    auto token = [&s]() {
      s = absl::StripLeadingAsciiWhitespace(s);
      const size_t end = s.find_first_of(" \t");
      absl::string_view t = s.substr(0, end);
      s = end == absl::string_view::npos ? absl::string_view() : s.substr(end);
      return std::string(t);
    };
    Expectation e;
    e.key = token();
    e.which = token();
    e.reason = std::string(absl::StripAsciiWhitespace(s));
    if (e.key.find('/') == std::string::npos || (e.which != "vm" && e.which != "aot" &&
                                                  e.which != "both")) {
      return absl::InvalidArgumentError(absl::StrCat(
          path, ":", line_no, ": expected 'suite/test  vm|aot|both  reason'"));
    }
    if (!out.emplace(e.key, e).second) {
      return absl::InvalidArgumentError(absl::StrCat(path, ":", line_no, ": ", e.key,
                                                     " is listed twice"));
    }
  }
  return out;
}

std::string ReasonKind(const std::string& reason) {
  return std::string(absl::StripAsciiWhitespace(reason.substr(0, reason.find(':'))));
}

std::vector<std::string> CheckExpectations(const std::vector<TestResult>& results,
                                           const std::map<std::string, Expectation>& expected,
                                           bool vm_checked, bool aot_checked,
                                           bool every_test) {
  std::vector<std::string> problems;
  std::set<std::string> suites, seen;
  for (const TestResult& r : results) {
    suites.insert(r.suite);
    seen.insert(r.Key());
    auto it = expected.find(r.Key());
    const bool xvm = it != expected.end() && it->second.vm();
    const bool xaot = it != expected.end() && it->second.aot();
    if (vm_checked && !r.vm_pass && !xvm) {
      problems.push_back(absl::StrCat("unexpected VM failure: ", r.Key(), ": ", r.vm_reason));
    }
    if (vm_checked && r.vm_pass && xvm) {
      problems.push_back(absl::StrCat("unexpected VM pass (remove it from the expectations): ",
                                      r.Key()));
    }
    if (aot_checked && !r.aot_pass && !xaot) {
      problems.push_back(absl::StrCat("unexpected AOT failure: ", r.Key(), ": ", r.aot_reason));
    }
    // A listed test that now fails for another reason is news too (the
    // reason recorded is the VM's, or the AOT's when only AOT fails).
    if (vm_checked && !r.vm_pass && xvm && ReasonKind(r.vm_reason) != ReasonKind(it->second.reason)) {
      problems.push_back(absl::StrCat("VM failure of another kind than listed: ", r.Key(),
                                      ": listed '", it->second.reason, "', got '", r.vm_reason,
                                      "'"));
    }
    if (aot_checked && !r.aot_pass && xaot && !it->second.vm() &&
        ReasonKind(r.aot_reason) != ReasonKind(it->second.reason)) {
      problems.push_back(absl::StrCat("AOT failure of another kind than listed: ", r.Key(),
                                      ": listed '", it->second.reason, "', got '", r.aot_reason,
                                      "'"));
    }
    if (aot_checked && r.aot_pass && xaot) {
      problems.push_back(absl::StrCat("unexpected AOT pass (remove it from the expectations): ",
                                      r.Key()));
    }
  }
  for (const auto& [key, e] : expected) {
    const std::string suite = key.substr(0, key.find('/'));
    if (every_test && suites.count(suite) && !seen.count(key)) {
      problems.push_back(absl::StrCat("listed test not found in the data: ", key));
    }
  }
  return problems;
}

absl::Status WriteExpectations(const std::string& path, const std::vector<TestResult>& results,
                               const std::map<std::string, Expectation>& previous) {
  std::map<std::string, Expectation> out;
  std::set<std::string> suites;
  for (const TestResult& r : results) suites.insert(r.suite);
  for (const auto& [key, e] : previous) {
    if (!suites.count(key.substr(0, key.find('/')))) out[key] = e;
  }
  for (const TestResult& r : results) {
    if (r.vm_pass && r.aot_pass) continue;
    Expectation e;
    e.key = r.Key();
    e.which = !r.vm_pass && !r.aot_pass ? "both" : (!r.vm_pass ? "vm" : "aot");
    e.reason = !r.vm_pass ? r.vm_reason : r.aot_reason;
    out[e.key] = e;
  }
  std::ofstream f(path);
  if (!f) return absl::NotFoundError(absl::StrCat(path, ": cannot write"));
  f << "# ONNX backend tests (Debian libonnx-testdata) that do not pass, with the reason.\n"
       "# suite/test  vm|aot|both  reason. Generated by\n"
       "#   conformance_runner --update-expectations (scripts/conformance.sh --update);\n"
       "# the conformance ctest fails when a listed test passes or an unlisted one fails.\n";
  for (const auto& [key, e] : out) {
    f << absl::StrFormat("%-64s %-4s %s\n", key, e.which, e.reason);
  }
  return f.good() ? absl::OkStatus() : absl::InternalError(absl::StrCat(path, ": write failed"));
}

absl::Status WriteReport(const std::string& path, const std::vector<TestResult>& results,
                         double seconds) {
  struct Count {
    int tests = 0, vm = 0, aot = 0;
  };
  std::map<std::string, Count> by_suite, by_op;
  std::map<std::string, int> reasons;
  for (const TestResult& r : results) {
    for (Count* c : {&by_suite[r.suite], &by_suite["total"]}) {
      c->tests++;
      c->vm += r.vm_pass;
      c->aot += r.aot_pass;
    }
    if (r.suite == "node") {
      std::set<std::string> ops(r.ops.begin(), r.ops.end());
      for (const std::string& op : ops) {
        Count& c = by_op[op];
        c.tests++;
        c.vm += r.vm_pass;
        c.aot += r.aot_pass;
      }
    }
    if (!r.vm_pass || !r.aot_pass) {
      std::string reason = !r.vm_pass ? r.vm_reason : r.aot_reason;
      // Group by the reason's kind: the text before the first ':'.
      reasons[reason.substr(0, reason.find(':'))]++;
    }
  }
  std::ostringstream md;
  md << "# ONNX backend conformance\n\n"
        "Generated by `scripts/conformance.sh` (tests/conformance/runner.cc) from Debian's\n"
        "`libonnx-testdata`: each test's model compiled by Kiln, every test data set run in the\n"
        "VM and as an AOT C bundle, compared with the reference outputs (rtol 1e-3, atol 1e-7;\n"
        "integers and bools exact). Every test that does not pass is listed with its reason in\n"
        "`tests/conformance/expectations.txt`. The ops Kiln compiles, from the compiler's op\n"
        "registry: [supported-ops.md](supported-ops.md).\n\n";
  md << absl::StrFormat("Whole run (all suites, VM and AOT, 2 cores): %.0f s.\n\n", seconds);
  md << "| suite | tests | VM pass | AOT pass |\n|---|---:|---:|---:|\n";
  for (const char* s : {"node", "simple", "pytorch-converted", "pytorch-operator", "total"}) {
    auto it = by_suite.find(s);
    if (it == by_suite.end()) continue;
    md << "| " << s << " | " << it->second.tests << " | " << it->second.vm << " | "
       << it->second.aot << " |\n";
  }
  md << "\n## Failures by kind\n\n| kind | tests |\n|---|---:|\n";
  std::vector<std::pair<int, std::string>> sorted;
  for (const auto& [k, n] : reasons) sorted.push_back({-n, k});
  std::sort(sorted.begin(), sorted.end());
  for (const auto& [n, k] : sorted) md << "| " << k << " | " << -n << " |\n";
  md << "\n## Node tests per op type\n\nA test counts for every op type in its model "
        "(expanded tests count for the ops of their expansion).\n\n"
        "| op type | tests | VM pass | AOT pass |\n|---|---:|---:|---:|\n";
  for (const auto& [op, c] : by_op) {
    md << "| " << op << " | " << c.tests << " | " << c.vm << " | " << c.aot << " |\n";
  }
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  std::ofstream f(path);
  if (!f) return absl::NotFoundError(absl::StrCat(path, ": cannot write"));
  f << md.str();
  return f.good() ? absl::OkStatus() : absl::InternalError(absl::StrCat(path, ": write failed"));
}

}  // namespace kiln::conformance
