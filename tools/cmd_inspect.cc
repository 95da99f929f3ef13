#include <cstdio>

#include "tools/cli_args.h"
#include "tools/commands.h"
#include "vm/disassembler.h"
#include "vm/module_image.h"
#include "vm/tools/module_json.h"

namespace kiln::tools {

namespace {
constexpr char kHelp[] =
    "usage: kiln inspect MODULE.kiln [--json]\n"
    "\n"
    "Verifies a module and prints its signature, memory plan (arena bytes and\n"
    "a table of arena tensors with offsets and lifetimes), executables with\n"
    "their parameters by name, constants, and the bytecode listing with the\n"
    "ONNX nodes and values behind each dispatch.\n"
    "  --json   the same as one JSON document, for tools\n";
}  // namespace

int InspectCommand(const std::vector<std::string>& argv) {
  absl::StatusOr<CliArgs> args = ParseCli(argv, {{}, {"--json"}});
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
  if (args->flags.count("--json")) {
    auto json = vm::DescribeModuleJson(**image);
    if (!json.ok()) return ReportError("inspect", std::string(json.status().message()));
    std::fputs(json->c_str(), stdout);
    return 0;
  }
  std::fputs(vm::DescribeModule(**image).c_str(), stdout);
  return 0;
}

}  // namespace kiln::tools
