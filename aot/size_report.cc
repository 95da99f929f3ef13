#include "aot/size_report.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "aot/shell.h"

namespace kiln::aot {
namespace {

bool IsSection(absl::string_view name, absl::string_view kind) {
  return name == kind || absl::StartsWith(name, absl::StrCat(kind, "."));
}

// Library calls the object needs from the C library vs from the compiler's
// own support library (soft-float and 64-bit division helpers on Cortex-M).
bool IsCompilerSupport(absl::string_view symbol) {
  return absl::StartsWith(symbol, "__aeabi_") || absl::StartsWith(symbol, "__gnu_") ||
         (absl::StartsWith(symbol, "__") &&
          (absl::EndsWith(symbol, "di3") || absl::EndsWith(symbol, "sf2") ||
           absl::EndsWith(symbol, "df2")));
}

}  // namespace

SectionSizes ParseSizeSections(const std::string& output) {
  SectionSizes s;
  for (absl::string_view line : absl::StrSplit(output, '\n')) {
    std::vector<absl::string_view> f = absl::StrSplit(line, ' ', absl::SkipWhitespace());
    uint64_t bytes = 0;
    if (f.size() < 2 || !absl::SimpleAtoi(f[1], &bytes)) continue;
    if (IsSection(f[0], ".text")) s.text += bytes;
    // Constants holding pointers land in .data.rel.ro when the compiler
    // builds position-independent code: read-only after relocation.
    if (IsSection(f[0], ".rodata") || IsSection(f[0], ".data.rel.ro")) {
      s.rodata += bytes;
    } else if (IsSection(f[0], ".data")) {
      s.data += bytes;
    }
    if (IsSection(f[0], ".bss") || f[0] == "COMMON") s.bss += bytes;
  }
  return s;
}

absl::StatusOr<SizeReport> MeasureBundle(const std::string& dir, const std::string& name,
                                         Target target, uint64_t workspace,
                                         uint64_t external_weights) {
  const Toolchain tools = ToolchainFor(target);
  const std::string object = ShellQuote(dir + "/" + name + "_model.o");
  std::string log;
  if (RunShell(absl::StrCat("make -s -C ", ShellQuote(dir), " -j2 ", name, "_model.o 2>&1"),
               &log) != 0) {
    std::vector<std::string> lines = absl::StrSplit(log, '\n', absl::SkipEmpty());
    if (lines.size() > 12) lines.erase(lines.begin(), lines.end() - 12);
    return absl::FailedPreconditionError(
        absl::StrCat("building ", name, "_model.o for ", TargetName(target), " with ", tools.cc,
                     " failed:\n  ", absl::StrJoin(lines, "\n  ")));
  }
  SizeReport r;
  r.target = target;
  r.workspace = workspace;
  r.external_weights = external_weights;
  std::string flags;
  RunShell(absl::StrCat("make -s -C ", ShellQuote(dir), " flags 2>/dev/null"), &flags);
  r.compiler = std::string(absl::StripAsciiWhitespace(flags));
  std::string size_out;
  if (RunShell(absl::StrCat(tools.size, " -A ", object, " 2>&1"), &size_out) != 0) {
    return absl::FailedPreconditionError(absl::StrCat(tools.size, " failed: ", size_out));
  }
  r.sections = ParseSizeSections(size_out);
  std::string undefined;
  if (RunShell(absl::StrCat(tools.nm, " -u ", object, " 2>&1"), &undefined) != 0) {
    return absl::FailedPreconditionError(absl::StrCat(tools.nm, " failed: ", undefined));
  }
  for (absl::string_view line : absl::StrSplit(undefined, '\n', absl::SkipEmpty())) {
    std::vector<absl::string_view> f = absl::StrSplit(line, ' ', absl::SkipWhitespace());
    if (f.empty()) continue;
    std::string symbol(f.back());
    (IsCompilerSupport(symbol) ? r.support_calls : r.libc_calls).push_back(symbol);
  }
  std::sort(r.libc_calls.begin(), r.libc_calls.end());
  std::sort(r.support_calls.begin(), r.support_calls.end());
  return r;
}

std::string SizeLine(const SizeReport& r) {
  std::string line = absl::StrCat("size target=", TargetName(r.target), " text=", r.sections.text,
                                  " rodata=", r.sections.rodata, " data=", r.sections.data,
                                  " bss=", r.sections.bss, " workspace=", r.workspace);
  if (r.external_weights) absl::StrAppend(&line, " weights=", r.external_weights);
  return line;
}

std::string SizeMarkdown(const SizeReport& r) {
  std::string md = absl::StrCat(
      "Measured by `kiln aot` with `size -A` on `NAME_model.o` (the model linked with\n"
      "`-r --gc-sections`: only what the entry points reach), built for `",
      TargetName(r.target), "` with `", r.compiler, "`:\n\n",
      "| text | rodata | data | bss | workspace (caller's) |",
      r.external_weights ? " weights (caller's) |" : "", "\n|---|---|---|---|---|",
      r.external_weights ? "---|" : "", "\n| ", r.sections.text, " | ", r.sections.rodata, " | ",
      r.sections.data, " | ", r.sections.bss, " | ", r.workspace, " |");
  if (r.external_weights) absl::StrAppend(&md, " ", r.external_weights, " |");
  absl::StrAppend(
      &md, "\n\nC library calls: ",
      r.libc_calls.empty() ? "none" : absl::StrCat("`", absl::StrJoin(r.libc_calls, "`, `"), "`"),
      ".\n");
  if (!r.support_calls.empty()) {
    absl::StrAppend(&md, "Compiler support calls (libgcc): `",
                    absl::StrJoin(r.support_calls, "`, `"), "`.\n");
  }
  return md;
}

}  // namespace kiln::aot
