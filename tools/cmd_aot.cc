#include <cstdio>

#include "absl/strings/str_cat.h"
#include "aot/bundle_writer.h"
#include "aot/c_emitter.h"
#include "tools/cli_args.h"
#include "tools/commands.h"
#include "vm/module_image.h"

namespace kiln::tools {

namespace {
constexpr char kHelp[] =
    "usage: kiln aot MODULE.kiln -o DIR [--name NAME]\n"
    "\n"
    "Transpiles a module into a self-contained C bundle in DIR:\n"
    "  NAME.h          run function, workspace size and tensor shapes as macros\n"
    "  NAME.c          scheduling code, one C statement per bytecode instruction\n"
    "  NAME_weights.c  the constants\n"
    "  NAME_main.c     a runner with the flags of `kiln run`\n"
    "  runtime/        the kernel sources the model uses\n"
    "  Makefile        `make -C DIR` builds DIR/NAME_run (honours CC and CFLAGS)\n"
    "  --name NAME     C identifier prefixing every symbol (default: model)\n";
}  // namespace

int AotCommand(const std::vector<std::string>& argv) {
  absl::StatusOr<CliArgs> args = ParseCli(argv, {{"-o", "--name"}, {}});
  if (!args.ok()) return ReportError("aot", std::string(args.status().message()));
  if (args->help) {
    std::fputs(kHelp, stdout);
    return 0;
  }
  if (args->positional.size() != 1 || !args->Has("-o")) {
    std::fputs(kHelp, stderr);
    return 2;
  }
  auto image = vm::ModuleImage::LoadFile(args->positional[0]);
  if (!image.ok()) return ReportError("aot", std::string(image.status().message()));
  aot::AotOptions options;
  options.name = args->Get("--name", "model");
  auto files = aot::EmitBundle(**image, options);
  if (!files.ok()) return ReportError("aot", std::string(files.status().message()));
  if (absl::Status s = aot::WriteBundle(args->Get("-o"), *files); !s.ok()) {
    return ReportError("aot", std::string(s.message()));
  }
  return 0;
}

}  // namespace kiln::tools
