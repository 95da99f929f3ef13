// The size report of `kiln aot`: the model's code and data as the target's
// binutils measure them on the built object (NAME_model.o, which holds only
// what the entry points reach), not as estimated from the module.
#ifndef KILN_AOT_SIZE_REPORT_H_
#define KILN_AOT_SIZE_REPORT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "aot/target.h"

namespace kiln::aot {

// Section bytes summed by kind from `size -A` output (.text.*, .rodata.*, ...).
struct SectionSizes {
  uint64_t text = 0;
  uint64_t rodata = 0;
  uint64_t data = 0;
  uint64_t bss = 0;
};
SectionSizes ParseSizeSections(const std::string& size_a_output);

struct SizeReport {
  Target target = Target::kHost;
  std::string compiler;  // "cc -O3"
  SectionSizes sections;
  uint64_t workspace = 0;                  // the caller's arena, NAME_WORKSPACE_SIZE
  uint64_t external_weights = 0;           // bytes the caller supplies, when external
  std::vector<std::string> libc_calls;     // undefined symbols: memcpy, expf, ...
  std::vector<std::string> support_calls;  // compiler runtime (__aeabi_*, __divdi3, ...)
};

// Builds NAME_model.o in the bundle `dir` with its Makefile (the target's
// compiler, the Makefile's CFLAGS unless the environment sets them) and
// measures it. The caller removes the objects afterwards (`make mostlyclean`).
absl::StatusOr<SizeReport> MeasureBundle(const std::string& dir, const std::string& name,
                                         Target target, uint64_t workspace,
                                         uint64_t external_weights);

// One line scripts can read: "size target=T text=N rodata=N data=N bss=N
// workspace=N" (plus "weights=N" for external weights).
std::string SizeLine(const SizeReport& report);
// The README section.
std::string SizeMarkdown(const SizeReport& report);

}  // namespace kiln::aot

#endif  // KILN_AOT_SIZE_REPORT_H_
