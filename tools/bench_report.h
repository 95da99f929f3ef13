// The results of `kiln bench` and their renderings: a text table, Markdown,
// JSON, and an SVG bar chart (written by hand, no plotting library).
#ifndef KILN_TOOLS_BENCH_REPORT_H_
#define KILN_TOOLS_BENCH_REPORT_H_

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::tools {

struct RunnerResult {
  std::string name;      // "kiln vm", "kiln aot", "baseline"
  bool ok = false;
  std::string note;      // why it failed, or how it was timed
  double median_ms = 0, min_ms = 0, max_ms = 0;
  int runs = 0;
  double max_abs_diff_vs_vm = -1;  // -1: not compared
};

struct DispatchComparison {
  uint32_t index = 0;
  std::string label, op, kernel;
  double vm_us = 0, aot_us = 0;  // mean per call
};

struct BenchReport {
  std::string model;     // what the user gave
  std::string module;    // the .kiln used
  uint64_t module_bytes = 0;
  uint64_t arena_bytes = 0;
  uint64_t aot_code_bytes = 0;  // text of the AOT executable (without the runner's libc)
  uint64_t aot_data_bytes = 0;  // rodata + data + bss (weights included)
  uint32_t dispatches = 0;
  std::vector<RunnerResult> runners;  // [0] vm, [1] aot, then the baseline
  std::vector<DispatchComparison> per_dispatch;

  std::string Table() const;
  std::string Markdown() const;
  std::string Json() const;
  std::string Svg() const;
};

}  // namespace kiln::tools

#endif  // KILN_TOOLS_BENCH_REPORT_H_
