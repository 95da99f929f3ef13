// kiln compare A.kiln B.kiln: runs two modules of the same model (e.g. two
// compiler settings, or before/after a change) on the same inputs and reports
// the first ONNX value, in A's dispatch order, whose contents differ.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tools/cli_args.h"
#include "tools/commands.h"
#include "tools/module_inputs.h"
#include "vm/debug_info.h"
#include "vm/dump.h"

namespace kiln::tools {
namespace {

constexpr char kHelp[] =
    "usage: kiln compare A.kiln B.kiln [--input FILE.npy ...] [--atol X] [--rtol X]\n"
    "\n"
    "Runs both modules in the VM on the same inputs (fixed-seed random inputs\n"
    "when none are given), records every ONNX value each module keeps, and\n"
    "compares the values both have, in A's dispatch order. A value differs when\n"
    "|a - b| > atol + rtol * |a| for some element (defaults: atol 1e-5, rtol 1e-4).\n"
    "Prints the first differing value with its dispatch and ONNX nodes; exits 1\n"
    "if any value differs, 0 otherwise.\n";

struct Recorded {
  std::vector<vm::DispatchInfo> dispatches;
  std::unique_ptr<vm::ValueRecorder> recorder;
};

absl::StatusOr<Recorded> RunAndRecord(const std::string& path,
                                      const std::vector<std::string>& input_files,
                                      std::vector<vm::NpyArray>* inputs) {
  auto image = vm::ModuleImage::LoadFile(path);
  if (!image.ok()) return image.status();
  auto instance = vm::Instance::Create(*image);
  if (!instance.ok()) return instance.status();
  const fb::Signature& sig = (*instance)->signature();
  if (inputs->empty()) {
    if ((*instance)->has_symbols() && input_files.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "'", path, "' has symbolic dimensions; give --input FILE.npy files (random inputs "
          "need static shapes)"));
    }
    auto loaded = input_files.empty() ? RandomInputs(sig, 1234) : LoadInputs(sig, input_files);
    if (!loaded.ok()) return loaded.status();
    *inputs = std::move(*loaded);
  }
  Recorded r;
  auto dispatches = vm::DescribeDispatches(**image);
  if (!dispatches.ok()) return dispatches.status();
  r.dispatches = std::move(*dispatches);
  r.recorder = std::make_unique<vm::ValueRecorder>(&r.dispatches);
  if (absl::Status s = ReserveFor(**instance, *inputs); !s.ok()) {
    return absl::Status(s.code(), absl::StrCat("'", path, "': ", s.message()));
  }
  std::vector<vm::NpyArray> outputs = OutputBuffers(**instance);
  std::vector<vm::HostTensor> in = Views(*inputs), out = Views(outputs);
  absl::Status s = (*instance)->Run(in, out, r.recorder.get());
  if (!r.recorder->status().ok()) s = r.recorder->status();
  if (!s.ok()) return absl::Status(s.code(), absl::StrCat("'", path, "': ", s.message()));
  return r;
}

double Element(const vm::RecordedValue& v, uint64_t i) {
  if (v.info->dtype == fb::DType::F32) {
    float f;
    std::memcpy(&f, v.bytes.data() + i * 4, 4);
    return f;
  }
  double d;
  std::memcpy(&d, v.bytes.data() + i * 8, 8);
  return d;
}

}  // namespace

int CompareCommand(const std::vector<std::string>& argv) {
  absl::StatusOr<CliArgs> args = ParseCli(argv, {{"--input", "--atol", "--rtol"}, {}});
  if (!args.ok()) return ReportError("compare", std::string(args.status().message()));
  if (args->help) {
    std::fputs(kHelp, stdout);
    return 0;
  }
  if (args->positional.size() != 2) {
    std::fputs(kHelp, stderr);
    return 2;
  }
  double atol = 1e-5, rtol = 1e-4;
  if ((args->Has("--atol") && (!absl::SimpleAtod(args->Get("--atol"), &atol) || atol < 0)) ||
      (args->Has("--rtol") && (!absl::SimpleAtod(args->Get("--rtol"), &rtol) || rtol < 0))) {
    return ReportError("compare", "--atol and --rtol must be non-negative numbers");
  }
  std::vector<vm::NpyArray> inputs;
  auto a = RunAndRecord(args->positional[0], args->All("--input"), &inputs);
  if (!a.ok()) return ReportError("compare", std::string(a.status().message()));
  auto b = RunAndRecord(args->positional[1], args->All("--input"), &inputs);
  if (!b.ok()) return ReportError("compare", std::string(b.status().message()));

  // A value recorded several times (in a Loop or Scan body, once per
  // iteration) pairs its k-th recording in A with its k-th in B, as --dump
  // names them NAME, NAME__2, ...
  auto keyed = [](const std::vector<vm::RecordedValue>& values) {
    std::map<std::pair<std::string, size_t>, const vm::RecordedValue*> out;
    std::map<std::string, size_t> seen;
    for (const vm::RecordedValue& v : values) out[{v.info->name, ++seen[v.info->name]}] = &v;
    return out;
  };
  const auto in_a = keyed(a->recorder->values());
  const auto in_b = keyed(b->recorder->values());
  size_t compared = 0, only_a = 0, skipped = 0, differing = 0;
  std::string first;
  std::map<std::string, size_t> seen;
  for (const vm::RecordedValue& va : a->recorder->values()) {  // in run order
    const std::pair<std::string, size_t> key = {va.info->name, ++seen[va.info->name]};
    auto it = in_b.find(key);
    if (it == in_b.end()) {
      ++only_a;
      continue;
    }
    const vm::RecordedValue& vb = *it->second;
    const bool floating = va.info->dtype == fb::DType::F32 || va.info->dtype == fb::DType::F64;
    if (va.info->dtype != vb.info->dtype || va.shape != vb.shape || !floating) {
      if (va.bytes != vb.bytes && !floating) ++differing;
      ++skipped;
      continue;
    }
    ++compared;
    const uint64_t n = va.bytes.size() / (va.info->dtype == fb::DType::F32 ? 4 : 8);
    double worst = 0, worst_excess = 0;
    uint64_t worst_at = 0, bad = 0;
    for (uint64_t i = 0; i < n; ++i) {
      const double x = Element(va, i), y = Element(vb, i);
      const double diff = std::fabs(x - y);
      const bool both_nan = std::isnan(x) && std::isnan(y);
      const double excess = both_nan ? 0 : (std::isnan(diff) ? INFINITY : diff - (atol + rtol * std::fabs(x)));
      if (!both_nan && (std::isnan(diff) || diff > worst)) worst = diff;
      if (excess > 0) {
        if (bad == 0 || excess > worst_excess) {
          worst_excess = excess;
          worst_at = i;
        }
        ++bad;
      }
    }
    if (bad > 0) {
      ++differing;
      if (first.empty()) {
        first = absl::StrFormat(
            "first difference: value '%s%s' %s\n  max_abs_diff=%.6g, %llu of %llu elements outside "
            "atol=%g rtol=%g (worst at flat index %llu: A=%.9g B=%.9g)\n  A: %s\n  B: %s\n",
            va.info->name, key.second > 1 ? absl::StrCat("__", key.second) : "",
            vm::ShapeText(va.shape), worst,
            static_cast<unsigned long long>(bad), static_cast<unsigned long long>(n), atol, rtol,
            static_cast<unsigned long long>(worst_at), Element(va, worst_at),
            Element(vb, worst_at), vm::DescribeDispatch(a->dispatches[va.dispatch]),
            vm::DescribeDispatch(b->dispatches[vb.dispatch]));
      }
    }
  }
  size_t only_b = 0;
  for (const auto& [key, v] : in_b) only_b += in_a.count(key) ? 0 : 1;
  std::printf("compared %zu values (%zu only in A, %zu only in B, %zu skipped for dtype/shape)\n",
              compared, only_a, only_b, skipped);
  if (differing == 0) {
    std::printf("no value differs beyond atol=%g rtol=%g\n", atol, rtol);
    return 0;
  }
  std::printf("%zu values differ\n%s", differing, first.c_str());
  return 1;
}

}  // namespace kiln::tools
