#include <cstdio>
#include <iostream>
#include <map>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

#include "compiler/compiler.h"
#include "tools/cli_args.h"
#include "tools/commands.h"

namespace kiln::tools {

namespace {
constexpr char kHelp[] =
    "usage: kiln compile MODEL.onnx -o MODULE.kiln [--print-ir] [--layout auto|nchw]\n"
    "                    [--input-shape NAME=D0,D1,... ...] [--dim NAME=VALUE ...]\n"
    "                    [--input-value NAME=V0,V1,... ...] [--conv-algo auto|direct]\n"
    "\n"
    "Compiles an ONNX model (opsets 1-21) into a .kiln module.\n"
    "  -o FILE       where to write the module (written atomically)\n"
    "  --print-ir    print the graph after the compiler's passes\n"
    "  --layout L    auto (default): the compiler stores the tensors around\n"
    "                depthwise convs channels last (NHWC), which fills the\n"
    "                vector lanes; nchw: every tensor in the ONNX layout\n"
    "  --input-shape NAME=D0,D1,...\n"
    "                fix input NAME's dims (e.g. a symbolic batch) at compile\n"
    "                time; the rank must be the declared one (repeatable)\n"
    "  --dim NAME=VALUE\n"
    "                fix every input dim named NAME (a symbolic dim such as\n"
    "                batch or height) to VALUE >= 1 (repeatable)\n"
    "  --input-value NAME=V0,V1,...\n"
    "                fix input NAME (configuration: a sample rate, a flag) to\n"
    "                these values in its dtype and static shape; it folds like\n"
    "                a weight and leaves the signature; kiln run refuses\n"
    "                another value for it (repeatable)\n"
    "  --conv-algo A auto (default): 3x3 stride-1 convolutions with enough\n"
    "                channels and outputs run by Winograd's F(4x4, 3x3)\n"
    "                (conv2d_winograd_f32: fewer multiplies, rounding within\n"
    "                a few 1e-6 of the sum of |products|); direct: every\n"
    "                convolution by the direct kernels\n";

// NAME=D0,D1,... -> (NAME, dims); dims are whole numbers >= 1.
absl::Status AddInputShape(const std::string& spec,
                           std::map<std::string, std::vector<int64_t>>* shapes) {
  const size_t eq = spec.rfind('=');
  const std::string name = eq == std::string::npos ? "" : spec.substr(0, eq);
  std::vector<int64_t> dims;
  bool ok = !name.empty();
  if (ok && eq + 1 < spec.size()) {
    for (absl::string_view part : absl::StrSplit(spec.substr(eq + 1), ',')) {
      int64_t d = 0;
      ok &= absl::SimpleAtoi(part, &d) && d >= 1;
      dims.push_back(d);
    }
  }
  if (!ok) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--input-shape '", spec, "': expected NAME=D0,D1,... with whole numbers >= 1 "
        "(NAME=  for a scalar)"));
  }
  if (!shapes->emplace(name, std::move(dims)).second) {
    return absl::InvalidArgumentError(
        absl::StrCat("--input-shape gives input '", name, "' twice"));
  }
  return absl::OkStatus();
}
// NAME=VALUE -> (NAME, VALUE), VALUE a whole number >= 1.
absl::Status AddDim(const std::string& spec, std::map<std::string, int64_t>* dims) {
  const size_t eq = spec.rfind('=');
  int64_t value = 0;
  if (eq == std::string::npos || eq == 0 || !absl::SimpleAtoi(spec.substr(eq + 1), &value) ||
      value < 1 || value > (int64_t{1} << 40)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--dim '", spec, "': expected NAME=VALUE with a whole number in 1..2^40"));
  }
  if (!dims->emplace(spec.substr(0, eq), value).second) {
    return absl::InvalidArgumentError(absl::StrCat("--dim gives '", spec.substr(0, eq), "' twice"));
  }
  return absl::OkStatus();
}

// NAME=V0,V1,... -> (NAME, "V0,V1,..."); the importer parses the values in
// the input's dtype.
absl::Status AddInputValue(const std::string& spec, std::map<std::string, std::string>* values) {
  const size_t eq = spec.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--input-value '", spec, "': expected NAME=V0,V1,..."));
  }
  if (!values->emplace(spec.substr(0, eq), spec.substr(eq + 1)).second) {
    return absl::InvalidArgumentError(
        absl::StrCat("--input-value gives input '", spec.substr(0, eq), "' twice"));
  }
  return absl::OkStatus();
}
}  // namespace

int CompileCommand(const std::vector<std::string>& argv) {
  absl::StatusOr<CliArgs> args = ParseCli(
      argv, {{"-o", "--layout", "--input-shape", "--dim", "--input-value", "--conv-algo"},
             {"--print-ir"}});
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
  for (const std::string& spec : args->All("--input-shape")) {
    if (absl::Status s = AddInputShape(spec, &options.input_shapes); !s.ok()) {
      return ReportError("compile", std::string(s.message()));
    }
  }
  for (const std::string& spec : args->All("--dim")) {
    if (absl::Status s = AddDim(spec, &options.dims); !s.ok()) {
      return ReportError("compile", std::string(s.message()));
    }
  }
  for (const std::string& spec : args->All("--input-value")) {
    if (absl::Status s = AddInputValue(spec, &options.input_values); !s.ok()) {
      return ReportError("compile", std::string(s.message()));
    }
  }
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
