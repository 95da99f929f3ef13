#include <cstdio>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "aot/bundle_writer.h"
#include "aot/c_emitter.h"
#include "aot/shell.h"
#include "aot/size_report.h"
#include "tools/cli_args.h"
#include "tools/commands.h"
#include "vm/module_image.h"

namespace kiln::tools {

namespace {
constexpr char kHelp[] =
    "usage: kiln aot MODULE.kiln -o DIR [--name NAME] [--target T] [--emit KIND]\n"
    "                [--weights=embedded|external] [--no-size-report]\n"
    "\n"
    "Transpiles a module into a self-contained C bundle in DIR:\n"
    "  NAME.h          entry points, workspace size, tensor shapes and dtypes as macros\n"
    "  NAME.c          scheduling code, one C statement per bytecode instruction\n"
    "  NAME_weights.c  the constants (NAME_weights.bin with --weights=external)\n"
    "  NAME_main.c     a runner with the flags of `kiln run`\n"
    "  runtime/        the kernel sources the model uses\n"
    "  Makefile        `make -C DIR` builds the runner (or the firmware); honours CC, CFLAGS\n"
    "  README.md       how to call the model, and its measured size\n"
    "  --name NAME     C identifier prefixing every global symbol (default: model)\n"
    "  --target T      host (default), cortex-m4 (QEMU mps2-an386) or cortex-m7\n"
    "                  (mps2-an500): a firmware Makefile with `make qemu INPUT=in.npy\n"
    "                  OUTPUT=out.npy`, built with arm-none-eabi-gcc\n"
    "  --emit KIND     bundle (default: the sources), static (also builds libNAME.a)\n"
    "                  or shared (also builds libNAME.so exporting NAME_run,\n"
    "                  NAME_run_with_host and NAME_metadata only, plus\n"
    "                  NAME_workspace_size for a module with symbolic dimensions)\n"
    "  --weights=external  the caller passes the weights (NAME_weights.bin) to NAME_run\n"
    "  --no-size-report    skip building the model to measure it\n"
    "\n"
    "Unless --no-size-report, the model is compiled for the target and measured:\n"
    "  size target=T text=N rodata=N data=N bss=N workspace=N\n";

absl::StatusOr<aot::EmitKind> ParseEmit(const std::string& kind) {
  if (kind == "bundle") return aot::EmitKind::kBundle;
  if (kind == "static") return aot::EmitKind::kStatic;
  if (kind == "shared") return aot::EmitKind::kShared;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown --emit '", kind, "' (expected bundle, static or shared)"));
}

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

int AotCommand(const std::vector<std::string>& argv) {
  absl::StatusOr<CliArgs> args =
      ParseCli(argv, {{"-o", "--name", "--target", "--emit", "--weights"}, {"--no-size-report"}});
  if (!args.ok()) return ReportError("aot", std::string(args.status().message()));
  if (args->help) {
    std::fputs(kHelp, stdout);
    return 0;
  }
  if (args->positional.size() != 1 || !args->Has("-o")) {
    std::fputs(kHelp, stderr);
    return 2;
  }
  aot::AotOptions options;
  options.name = args->Get("--name", "model");
  auto target = aot::ParseTarget(args->Get("--target", "host"));
  if (!target.ok()) return ReportError("aot", std::string(target.status().message()));
  options.target = *target;
  auto emit = ParseEmit(args->Get("--emit", "bundle"));
  if (!emit.ok()) return ReportError("aot", std::string(emit.status().message()));
  options.emit = *emit;
  const std::string weights = args->Get("--weights", "embedded");
  if (weights != "embedded" && weights != "external") {
    return ReportError("aot",
                       "unknown --weights '" + weights + "' (expected embedded or external)");
  }
  options.external_weights = weights == "external";

  auto image = vm::ModuleImage::LoadFile(args->positional[0]);
  if (!image.ok()) return ReportError("aot", std::string(image.status().message()));
  auto files = aot::EmitBundle(**image, options);
  if (!files.ok()) return ReportError("aot", std::string(files.status().message()));
  const fb::Module& m = (*image)->module();
  Finalizer finalize(options, !args->flags.count("--no-size-report"), m.memory()->arena_size(),
                     m.constant_data() ? m.constant_data()->size() : 0);
  if (absl::Status s = aot::WriteBundle(args->Get("-o"), *files, std::ref(finalize)); !s.ok()) {
    return ReportError("aot", std::string(s.message()));
  }
  if (!finalize.warning().empty()) {
    std::fprintf(stderr, "kiln aot: warning: no size report: %s\n", finalize.warning().c_str());
  }
  if (!finalize.line().empty()) std::printf("%s\n", finalize.line().c_str());
  return 0;
}

}  // namespace kiln::tools
