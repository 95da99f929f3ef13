#include <cstdio>

#include "aot/c_emitter.h"
#include "tools/aot_bundle.h"
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
  auto external = ParseExternalWeights(args->Get("--weights", "embedded"));
  if (!external.ok()) return ReportError("aot", std::string(external.status().message()));
  options.external_weights = *external;

  auto image = vm::ModuleImage::LoadFile(args->positional[0]);
  if (!image.ok()) return ReportError("aot", std::string(image.status().message()));
  auto result = WriteAotBundle(**image, options, args->Get("-o"),
                               !args->flags.count("--no-size-report"));
  if (!result.ok()) return ReportError("aot", std::string(result.status().message()));
  if (!result->warning.empty()) {
    std::fprintf(stderr, "kiln aot: warning: no size report: %s\n", result->warning.c_str());
  }
  if (!result->size_line.empty()) std::printf("%s\n", result->size_line.c_str());
  return 0;
}

}  // namespace kiln::tools
