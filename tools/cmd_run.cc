#include <algorithm>
#include <chrono>
#include <cstdio>
#include <limits>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "tools/cli_args.h"
#include "tools/commands.h"
#include "tools/module_inputs.h"
#include "tools/run_debug.h"
#include "tools/run_limits.h"
#include "vm/dtype.h"
#include "vm/instance.h"
#include "vm/module_verifier.h"
#include "vm/tools/npy.h"

namespace kiln::tools {

namespace {
constexpr char kHelp[] =
    "usage: kiln run MODULE.kiln --input FILE.npy [...] --output FILE.npy [...]\n"
    "                [--repeat N] [--threads N] [--trace FILE.json] [--profile] [--dump DIR]\n"
    "                [--check-nan] [--isa auto|portable|avx2|avx512|neon]\n"
    "                [--timeout SECONDS] [--max-iterations N]\n"
    "\n"
    "Runs a module in the VM. Inputs and outputs are NumPy .npy files given in\n"
    "signature order, or as NAME=FILE.npy.\n"
    "  --threads N   split kernels over N threads (default 1); results do not\n"
    "                depend on N\n"
    "  --repeat N    run N times and print\n"
    "                latency_ms median=... min=... max=... runs=N\n"
    "  --trace FILE  write a Chrome trace (chrome://tracing, Perfetto): one event\n"
    "                per dispatch, named by its ONNX nodes and kernel\n"
    "  --profile     print time per dispatch and per op type (with GFLOP/s)\n"
    "  --dump DIR    write every intermediate value as DIR/<onnx value>.npy\n"
    "                (index: DIR/values.json)\n"
    "  --check-nan   stop at the first dispatch producing NaN/Inf and name it\n"
    "  --isa PATH    run the kernels compiled for PATH (default auto: the KILN_ISA\n"
    "                environment variable, else the widest this CPU runs); a\n"
    "                path the CPU lacks is refused\n"
    "  --timeout SECONDS     stop a run that takes longer (checked before each\n"
    "                        kernel call and loop iteration)\n"
    "  --max-iterations N    stop a run before its loops start iteration N + 1\n";

// Places each FILE or NAME=FILE argument at its signature position.
absl::StatusOr<std::vector<std::string>> AssignFiles(
    const std::vector<std::string>& given,
    const flatbuffers::Vector<flatbuffers::Offset<fb::TensorDesc>>& sig, const char* kind) {
  std::vector<std::string> files(sig.size());
  size_t next = 0;
  for (const std::string& arg : given) {
    size_t eq = arg.find('=');
    bool named = false;
    if (eq != std::string::npos) {
      for (uint32_t i = 0; i < sig.size(); ++i) {
        if (sig.Get(i)->name() && sig.Get(i)->name()->str() == arg.substr(0, eq)) {
          files[i] = arg.substr(eq + 1);
          named = true;
        }
      }
    }
    if (named) continue;
    while (next < files.size() && !files[next].empty()) ++next;
    if (next >= files.size()) {
      return absl::InvalidArgumentError(absl::StrCat("too many --", kind, " files: the module has ",
                                                     sig.size(), " ", kind, "s"));
    }
    files[next++] = arg;
  }
  return files;
}

}  // namespace

int RunCommand(const std::vector<std::string>& argv) {
  CliSpec spec{{"--input", "--output", "--repeat", "--threads", "--isa"}, {}};
  spec.valued.insert(std::begin(kRunDebugValued), std::end(kRunDebugValued));
  spec.flags.insert(std::begin(kRunDebugFlags), std::end(kRunDebugFlags));
  spec.valued.insert(std::begin(kRunLimitsValued), std::end(kRunLimitsValued));
  absl::StatusOr<CliArgs> args = ParseCli(argv, spec);
  if (!args.ok()) return ReportError("run", std::string(args.status().message()));
  if (args->help) {
    std::fputs(kHelp, stdout);
    return 0;
  }
  if (args->positional.size() != 1) {
    std::fputs(kHelp, stderr);
    return 2;
  }
  int repeat = 1;
  if (args->Has("--repeat") &&
      (!absl::SimpleAtoi(args->Get("--repeat"), &repeat) || repeat < 1 || repeat > 1000000)) {
    return ReportError("run", "--repeat must be a whole number in 1..1000000");
  }
  auto limits = ParseRunLimits(*args);
  if (!limits.ok()) return ReportError("run", std::string(limits.status().message()));
  auto image = vm::ModuleImage::LoadFile(args->positional[0]);
  if (!image.ok()) return ReportError("run", std::string(image.status().message()));
  int threads = 1;
  if (args->Has("--threads") &&
      (!absl::SimpleAtoi(args->Get("--threads"), &threads) || threads < 1 || threads > 256)) {
    return ReportError("run", "--threads must be a whole number in 1..256");
  }
  auto instance = vm::Instance::Create(*image, threads, args->Get("--isa"));
  if (!instance.ok()) return ReportError("run", std::string(instance.status().message()));
  const fb::Signature& sig = (*instance)->signature();
  auto debug = RunDebugSession::Create(*args, **instance, repeat);
  if (!debug.ok()) return ReportError("run", std::string(debug.status().message()));

  auto input_files = PlaceInputFiles(sig, args->All("--input"));
  if (!input_files.ok()) return ReportError("run", std::string(input_files.status().message()));
  auto output_files = AssignFiles(args->All("--output"), *sig.outputs(), "output");
  if (!output_files.ok()) return ReportError("run", std::string(output_files.status().message()));

  std::vector<vm::NpyArray> inputs(sig.inputs()->size());
  std::vector<vm::HostTensor> input_views;
  for (uint32_t i = 0; i < inputs.size(); ++i) {
    auto array = vm::ReadNpy((*input_files)[i]);
    if (!array.ok()) return ReportError("run", std::string(array.status().message()));
    inputs[i] = std::move(*array);
    input_views.push_back({inputs[i].dtype, inputs[i].shape, inputs[i].data.data(),
                           inputs[i].data.size()});
  }
  // Symbolic dims take their values from the inputs; the workspace is sized
  // for them here, before the timed runs.
  if (absl::Status s = (*instance)->Reserve(input_views); !s.ok()) {
    std::string message(s.message());
    for (uint32_t i = 0; i < input_views.size(); ++i) {
      if (message.rfind(absl::StrCat("input ", i, " "), 0) == 0) {
        message = absl::StrCat("'", (*input_files)[i], "': ", message);
      }
    }
    return ReportError("run", message);
  }
  std::vector<vm::NpyArray> outputs = OutputBuffers(**instance);
  std::vector<vm::HostTensor> output_views = Views(outputs);
  // Sizes found during the run without a bound: one untimed run finds how
  // much workspace and output each needs.
  if ((*instance)->has_unbounded_sizes()) {
    if (absl::Status s = RunGrowingOutputs(**instance, input_views, &outputs, &output_views);
        !s.ok()) {
      return ReportError("run", std::string(s.message()));
    }
  }

  std::vector<double> times_ms;
  times_ms.reserve(static_cast<size_t>(repeat));
  for (int k = 0; k < repeat; ++k) {
    auto start = std::chrono::steady_clock::now();
    absl::Status status =
        (*instance)->Run(input_views, output_views, (*debug)->timed_observer(), *limits);
    auto end = std::chrono::steady_clock::now();
    if (!status.ok()) {
      // Argument errors name the offending file, which the VM cannot know.
      std::string message(status.message());
      for (uint32_t i = 0; i < input_views.size(); ++i) {
        if (message.rfind(absl::StrCat("input ", i, " "), 0) == 0) {
          message = absl::StrCat("'", (*input_files)[i], "': ", message);
        }
      }
      return ReportError("run", message);
    }
    times_ms.push_back(std::chrono::duration<double, std::milli>(end - start).count());
  }
  if (absl::Status s = (*debug)->DebugRun(**instance, input_views, output_views, *limits);
      !s.ok()) {
    return ReportError("run", std::string(s.message()));
  }
  if (absl::Status s = (*debug)->Finish(args->positional[0], **instance); !s.ok()) {
    return ReportError("run", std::string(s.message()));
  }
  if (repeat > 1) {
    std::sort(times_ms.begin(), times_ms.end());
    std::printf("latency_ms median=%.4f min=%.4f max=%.4f runs=%d\n", times_ms[times_ms.size() / 2],
                times_ms.front(), times_ms.back(), repeat);
  }
  for (uint32_t i = 0; i < outputs.size(); ++i) {
    if ((*output_files)[i].empty()) continue;
    ShapeAfterRun(**instance, i, &outputs[i]);
    if (absl::Status s = vm::WriteNpy((*output_files)[i], outputs[i]); !s.ok()) {
      return ReportError("run", std::string(s.message()));
    }
  }
  return 0;
}

}  // namespace kiln::tools
