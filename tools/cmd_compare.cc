// kiln compare A.kiln B.kiln: runs two modules of the same model (e.g. two
// compiler settings, or before/after a change) on the same inputs and reports
// the first ONNX value, in A's dispatch order, whose contents differ.
// kiln compare A.kiln MODEL.onnx --reference ort: the same against ONNX
// Runtime running the ONNX model with every intermediate value exposed.
#include <cstdio>

#include "absl/strings/numbers.h"
#include "tools/cli_args.h"
#include "tools/commands.h"
#include "tools/module_compare.h"
#include "tools/ort_reference.h"

namespace kiln::tools {
namespace {

constexpr char kHelp[] =
    "usage: kiln compare A.kiln B.kiln [--input FILE.npy ...] [--atol X] [--rtol X]\n"
    "       kiln compare A.kiln MODEL.onnx --reference ort [--ort-cmd CMD] [--input ...]\n"
    "\n"
    "Runs both modules in the VM on the same inputs (fixed-seed random inputs\n"
    "when none are given), records every ONNX value each module keeps, and\n"
    "compares the values both have, in A's dispatch order. A value differs when\n"
    "|a - b| > atol + rtol * |a| for some element (defaults: atol 1e-5, rtol 1e-4).\n"
    "Prints the first differing value with its dispatch and ONNX nodes; exits 1\n"
    "if any value differs, 0 otherwise.\n"
    "\n"
    "--reference ort: B is the ONNX model, run in ONNX Runtime with every value\n"
    "its main graph computes exposed as an output (inputs bound at compile time\n"
    "are given their bound values). CMD runs benchmarks/models/ort/ort_run.js\n"
    "(default: $KILN_ORT_CMD, else the one of Kiln's source tree when\n"
    "benchmarks/models/ort/install.sh has installed ONNX Runtime there). Two\n"
    "implementations sum in different orders, so the defaults are wider:\n"
    "atol 1e-4, rtol 1e-3.\n";

}  // namespace

int CompareCommand(const std::vector<std::string>& argv) {
  absl::StatusOr<CliArgs> args =
      ParseCli(argv, {{"--input", "--atol", "--rtol", "--reference", "--ort-cmd"}, {}});
  if (!args.ok()) return ReportError("compare", std::string(args.status().message()));
  if (args->help) {
    std::fputs(kHelp, stdout);
    return 0;
  }
  if (args->positional.size() != 2) {
    std::fputs(kHelp, stderr);
    return 2;
  }
  const std::string reference = args->Has("--reference") ? args->Get("--reference") : "kiln";
  if (reference != "kiln" && reference != "ort") {
    return ReportError("compare", "--reference must be kiln (B is a module) or ort (B is the "
                                  "ONNX model, run in ONNX Runtime)");
  }
  const bool against_ort = reference == "ort";
  double atol = against_ort ? 1e-4 : 1e-5, rtol = against_ort ? 1e-3 : 1e-4;
  if ((args->Has("--atol") && (!absl::SimpleAtod(args->Get("--atol"), &atol) || atol < 0)) ||
      (args->Has("--rtol") && (!absl::SimpleAtod(args->Get("--rtol"), &rtol) || rtol < 0))) {
    return ReportError("compare", "--atol and --rtol must be non-negative numbers");
  }
  std::vector<vm::NpyArray> inputs;
  auto image_a = vm::ModuleImage::LoadFile(args->positional[0]);
  if (!image_a.ok()) return ReportError("compare", std::string(image_a.status().message()));
  auto a = RunAndRecord(*image_a, args->All("--input"), &inputs);
  if (!a.ok()) return ReportError("compare", std::string(a.status().message()));
  if (against_ort) {
    auto command = OrtCommand(args->Has("--ort-cmd") ? args->Get("--ort-cmd") : "");
    if (!command.ok()) return ReportError("compare", std::string(command.status().message()));
    OrtValues ort;
    if (absl::Status s = RunOrtReference(args->positional[1], *command,
                                         *(*image_a)->module().signature(), inputs, &ort);
        !s.ok()) {
      return ReportError("compare", std::string(s.message()));
    }
    ModuleComparison comparison = CompareValues(ValuesOf(*a), ort.values, atol, rtol);
    comparison.label_a = "Kiln";
    comparison.label_b = "ORT";
    std::fputs(comparison.Report().c_str(), stdout);
    return comparison.differing == 0 ? 0 : 1;
  }
  auto image_b = vm::ModuleImage::LoadFile(args->positional[1]);
  if (!image_b.ok()) return ReportError("compare", std::string(image_b.status().message()));
  auto b = RunAndRecord(*image_b, args->All("--input"), &inputs);
  if (!b.ok()) return ReportError("compare", std::string(b.status().message()));

  const ModuleComparison comparison = CompareRecordedRuns(*a, *b, atol, rtol);
  std::fputs(comparison.Report().c_str(), stdout);
  return comparison.differing == 0 ? 0 : 1;
}

}  // namespace kiln::tools
