#include "tools/aot_bundle.h"

#include <fstream>
#include <functional>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "aot/bundle_writer.h"
#include "aot/shell.h"
#include "aot/size_report.h"

namespace kiln::tools {
namespace {

absl::Status ReplaceSizeSection(const std::string& readme_path, const std::string& section) {
  std::ifstream in(readme_path);
  std::stringstream text;
  text << in.rdbuf();
  std::ofstream out(readme_path, std::ios::trunc);
  out << absl::StrReplaceAll(text.str(), {{aot::kSizeReportMarker, section}});
  out.close();
  if (!out) return absl::DataLossError(absl::StrCat("cannot write '", readme_path, "'"));
  return absl::OkStatus();
}

// Builds the libraries --emit asks for, measures the model and records the
// size in README.md, then removes the objects so a later `make` with other
// CFLAGS starts clean.
class Finalizer {
 public:
  Finalizer(const aot::AotOptions& options, bool size_report, uint64_t workspace, uint64_t weights)
      : options_(options), size_report_(size_report), workspace_(workspace), weights_(weights) {}

  absl::Status operator()(const std::string& dir) {
    const std::string readme = dir + "/README.md";
    const bool library = options_.emit != aot::EmitKind::kBundle;
    if (!size_report_ && !library) {
      return ReplaceSizeSection(
          readme, "Not measured (`kiln aot --no-size-report`); `make size` shows it.");
    }
    auto report = aot::MeasureBundle(dir, options_.name, options_.target, workspace_,
                                     options_.external_weights ? weights_ : 0);
    if (!report.ok()) {
      if (library) return report.status();
      warning_ = std::string(report.status().message());
      return ReplaceSizeSection(readme, absl::StrCat("Not measured: ", warning_));
    }
    line_ = aot::SizeLine(*report);
    if (absl::Status s = ReplaceSizeSection(readme, aot::SizeMarkdown(*report)); !s.ok()) return s;
    std::string log;
    if (library) {
      const char* goal = options_.emit == aot::EmitKind::kStatic ? "lib" : "shared";
      if (aot::RunShell(absl::StrCat("make -s -C ", aot::ShellQuote(dir), " -j2 ", goal, " 2>&1"),
                        &log) != 0) {
        return absl::FailedPreconditionError(
            absl::StrCat("building the ", goal, " library failed:\n", log));
      }
    }
    aot::RunShell(absl::StrCat("make -s -C ", aot::ShellQuote(dir), " mostlyclean 2>&1"), &log);
    return absl::OkStatus();
  }

  const std::string& line() const { return line_; }
  const std::string& warning() const { return warning_; }

 private:
  aot::AotOptions options_;
  bool size_report_;
  uint64_t workspace_, weights_;
  std::string line_, warning_;
};

}  // namespace

absl::StatusOr<aot::EmitKind> ParseEmit(const std::string& kind) {
  if (kind == "bundle") return aot::EmitKind::kBundle;
  if (kind == "static") return aot::EmitKind::kStatic;
  if (kind == "shared") return aot::EmitKind::kShared;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown --emit '", kind, "' (expected bundle, static or shared)"));
}

absl::StatusOr<bool> ParseExternalWeights(const std::string& weights) {
  if (weights == "embedded" || weights == "external") return weights == "external";
  return absl::InvalidArgumentError(
      absl::StrCat("unknown --weights '", weights, "' (expected embedded or external)"));
}

absl::StatusOr<AotBundleResult> WriteAotBundle(const vm::ModuleImage& image,
                                               const aot::AotOptions& options,
                                               const std::string& dir, bool size_report) {
  auto files = aot::EmitBundle(image, options);
  if (!files.ok()) return files.status();
  const fb::Module& m = image.module();
  Finalizer finalize(options, size_report, m.memory()->arena_size(),
                     m.constant_data() ? m.constant_data()->size() : 0);
  if (absl::Status s = aot::WriteBundle(dir, *files, std::ref(finalize)); !s.ok()) return s;
  return AotBundleResult{finalize.line(), finalize.warning()};
}

}  // namespace kiln::tools
