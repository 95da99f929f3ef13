#include <cstdio>

#include "tools/cli_args.h"
#include "tools/commands.h"
#include "vm/disassembler.h"
#include "vm/module_image.h"

namespace kiln::tools {

namespace {
constexpr char kHelp[] =
    "usage: kiln inspect MODULE.kiln\n"
    "\n"
    "Verifies a module and prints its signature, memory plan (arena bytes),\n"
    "executables with their static parameters, constants, and the bytecode\n"
    "listing with the ONNX nodes behind each dispatch.\n";
}  // namespace

int InspectCommand(const std::vector<std::string>& argv) {
  absl::StatusOr<CliArgs> args = ParseCli(argv, {});
  if (!args.ok()) return ReportError("inspect", std::string(args.status().message()));
  if (args->help) {
    std::fputs(kHelp, stdout);
    return 0;
  }
  if (args->positional.size() != 1) {
    std::fputs(kHelp, stderr);
    return 2;
  }
  auto image = vm::ModuleImage::LoadFile(args->positional[0]);
  if (!image.ok()) return ReportError("inspect", std::string(image.status().message()));
  std::fputs(vm::DescribeModule(**image).c_str(), stdout);
  return 0;
}

}  // namespace kiln::tools
