// kiln: compile ONNX models to modules, run them in the VM, transpile them to C.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "tools/commands.h"

namespace {

constexpr char kUsage[] =
    "usage: kiln COMMAND [ARGS]\n"
    "\n"
    "commands:\n"
    "  compile MODEL.onnx -o MODULE.kiln [--print-ir]\n"
    "                        compile an ONNX model into a module\n"
    "  run MODULE.kiln --input FILE.npy [...] --output FILE.npy [...] [--repeat N]\n"
    "      [--trace FILE.json] [--profile] [--dump DIR] [--check-nan]\n"
    "                        run a module in the VM (trace, profile, dump, NaN check)\n"
    "  aot MODULE.kiln -o DIR [--name NAME]\n"
    "                        transpile a module into a C bundle (make -C DIR)\n"
    "  inspect MODULE.kiln [--json]\n"
    "                        print signature, memory plan, executables, constants, bytecode\n"
    "  compare A.kiln B.kiln [--input FILE.npy ...]\n"
    "                        run two modules and report the first ONNX value that differs\n"
    "  bench MODEL.onnx|MODULE.kiln [--plot FILE.svg] [--per-dispatch] [--baseline-cmd CMD]\n"
    "                        VM vs AOT (vs a baseline) latency, sizes; Markdown/JSON/SVG\n"
    "  ops [--markdown]      the ONNX ops Kiln compiles (from the compiler's op registry)\n"
    "\n"
    "kiln COMMAND --help shows the options of one command.\n";

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0) {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  const std::string command = argv[1];
  const std::vector<std::string> args(argv + 2, argv + argc);
  if (command == "compile") return kiln::tools::CompileCommand(args);
  if (command == "run") return kiln::tools::RunCommand(args);
  if (command == "aot") return kiln::tools::AotCommand(args);
  if (command == "inspect") return kiln::tools::InspectCommand(args);
  if (command == "compare") return kiln::tools::CompareCommand(args);
  if (command == "bench") return kiln::tools::BenchCommand(args);
  if (command == "ops") return kiln::tools::OpsCommand(args);
  std::fprintf(stderr, "kiln: error: unknown command '%s'\n\n%s", command.c_str(), kUsage);
  return 2;
}
