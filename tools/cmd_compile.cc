#include <cstdio>
#include <iostream>

#include "compiler/compiler.h"
#include "tools/cli_args.h"
#include "tools/commands.h"

namespace kiln::tools {

namespace {
constexpr char kHelp[] =
    "usage: kiln compile MODEL.onnx -o MODULE.kiln [--print-ir] [--layout auto|nchw]\n"
    "\n"
    "Compiles an ONNX model (opsets 11-17, float32) into a .kiln module.\n"
    "  -o FILE       where to write the module (written atomically)\n"
    "  --print-ir    print the graph after the compiler's passes\n"
    "  --layout L    auto (default): the compiler stores the tensors around\n"
    "                depthwise convs channels last (NHWC), which fills the\n"
    "                vector lanes; nchw: every tensor in the ONNX layout\n";
}  // namespace

int CompileCommand(const std::vector<std::string>& argv) {
  absl::StatusOr<CliArgs> args = ParseCli(argv, {{"-o", "--layout"}, {"--print-ir"}});
  if (!args.ok()) return ReportError("compile", std::string(args.status().message()));
  if (args->help) {
    std::fputs(kHelp, stdout);
    return 0;
  }
  if (args->positional.size() != 1 || !args->Has("-o")) {
    std::fputs(kHelp, stderr);
    return 2;
  }
  compiler::BuildOptions options;
  if (args->flags.count("--print-ir")) options.print_ir = &std::cout;
  const std::string layout = args->Get("--layout", "auto");
  if (layout != "auto" && layout != "nchw") {
    return ReportError("compile", "--layout must be auto or nchw, not '" + layout + "'");
  }
  options.choose_layouts = layout == "auto";
  absl::StatusOr<std::string> module = compiler::BuildModule(args->positional[0], options);
  if (!module.ok()) return ReportError("compile", std::string(module.status().message()));
  if (absl::Status s = WriteFileAtomically(args->Get("-o"), *module); !s.ok()) {
    return ReportError("compile", std::string(s.message()));
  }
  return 0;
}

}  // namespace kiln::tools
