#include <cstdio>
#include <iostream>

#include "compiler/compiler.h"
#include "tools/cli_args.h"
#include "tools/commands.h"

namespace kiln::tools {

namespace {
constexpr char kHelp[] =
    "usage: kiln compile MODEL.onnx -o MODULE.kiln [--print-ir] [--layout auto|nchw]\n"
    "                    [--conv-algo auto|direct]\n"
    "\n"
    "Compiles an ONNX model (opsets 11-17, float32) into a .kiln module.\n"
    "  -o FILE       where to write the module (written atomically)\n"
    "  --print-ir    print the graph after the compiler's passes\n"
    "  --layout L    auto (default): the compiler stores the tensors around\n"
    "                depthwise convs channels last (NHWC), which fills the\n"
    "                vector lanes; nchw: every tensor in the ONNX layout\n"
    "  --conv-algo A auto (default): 3x3 stride-1 convolutions with enough\n"
    "                channels and outputs run by Winograd's F(4x4, 3x3)\n"
    "                (conv2d_winograd_f32: fewer multiplies, rounding within\n"
    "                a few 1e-6 of the sum of |products|); direct: every\n"
    "                convolution by the direct kernels\n";
}  // namespace

int CompileCommand(const std::vector<std::string>& argv) {
  absl::StatusOr<CliArgs> args = ParseCli(argv, {{"-o", "--layout", "--conv-algo"}, {"--print-ir"}});
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
  const std::string conv_algo = args->Get("--conv-algo", "auto");
  if (conv_algo != "auto" && conv_algo != "direct") {
    return ReportError("compile", "--conv-algo must be auto or direct, not '" + conv_algo + "'");
  }
  options.choose_conv_algorithms = conv_algo == "auto";
  absl::StatusOr<std::string> module = compiler::BuildModule(args->positional[0], options);
  if (!module.ok()) return ReportError("compile", std::string(module.status().message()));
  if (absl::Status s = WriteFileAtomically(args->Get("-o"), *module); !s.ok()) {
    return ReportError("compile", std::string(s.message()));
  }
  return 0;
}

}  // namespace kiln::tools
