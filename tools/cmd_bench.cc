// kiln bench MODEL.onnx|MODULE.kiln: one command that compiles (if needed),
// runs the VM in process, builds and runs the AOT bundle on the same input,
// optionally a baseline command, and reports latency, agreement and sizes.
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "aot/bundle_writer.h"
#include "aot/c_emitter.h"
#include "aot/shell.h"
#include "aot/size_report.h"
#include "compiler/compiler.h"
#include "tools/bench_report.h"
#include "tools/cli_args.h"
#include "tools/commands.h"
#include "tools/module_inputs.h"
#include "vm/dtype.h"
#include "vm/kernel_paths.h"
#include "vm/tools/debug_info.h"
#include "vm/tools/dispatch_timer.h"
#include "vm/tools/profiler.h"

namespace kiln::tools {
namespace {

namespace fs = std::filesystem;

constexpr char kHelp[] =
    "usage: kiln bench MODEL.onnx|MODULE.kiln [--input FILE.npy ...] [--repeat N]\n"
    "                  [--warmup N] [--out DIR] [--baseline-cmd 'CMD'] [--plot FILE.svg]\n"
    "                  [--per-dispatch] [--no-aot] [--aot-cflags 'FLAGS']\n"
    "                  [--isa auto|portable|avx2|avx512|neon]\n"
    "\n"
    "Compiles the model (for .onnx), runs it in the VM, builds the AOT bundle with\n"
    "make and runs it on the same input (fixed-seed random input of the\n"
    "signature's shapes when no --input is given), and prints median latency,\n"
    "min-max, the VM/AOT ratio, output agreement, arena and module size and the\n"
    "AOT code and data size. Writes DIR/bench.md and DIR/bench.json (DIR defaults\n"
    "to ./kiln-bench-NAME). A module with symbolic dimensions needs --input files:\n"
    "their shapes set the symbols' values for every runner.\n"
    "  --repeat N          timed runs per runner (default 20); --warmup N untimed VM runs (2)\n"
    "  --baseline-cmd CMD  also run CMD --input F... --output F... --repeat N; its\n"
    "                      'latency_ms median=... min=... max=...' line is read, else\n"
    "                      the wall time of the whole call is reported\n"
    "  --plot FILE.svg     draw the latencies as a bar chart\n"
    "  --per-dispatch      build a second bundle with -DKILN_TIMING and compare VM\n"
    "                      and AOT time dispatch by dispatch\n"
    "  --aot-cflags FLAGS  CFLAGS for the bundle (default '-O3 -march=native': the VM\n"
    "                      picks SIMD kernels from this CPU at run time, the bundle\n"
    "                      from its flags, so both use the same kernels)\n"
    "  --isa PATH          the VM runs the kernels of PATH and the bundle is built\n"
    "                      with '-O3' and that path's flags (unless --aot-cflags)\n";

// Parses "latency_ms median=.. min=.. max=.. runs=N" from a runner's output.
bool ParseLatency(const std::string& text, RunnerResult* r) {
  size_t at = text.rfind("latency_ms ");
  if (at == std::string::npos) return false;
  std::string line = text.substr(at, text.find('\n', at) - at);
  std::map<std::string, std::string> kv;
  for (absl::string_view part : absl::StrSplit(line, ' ', absl::SkipEmpty())) {
    std::vector<std::string> p = absl::StrSplit(part, absl::MaxSplits('=', 1));
    if (p.size() == 2) kv[p[0]] = p[1];
  }
  return absl::SimpleAtod(kv["median"], &r->median_ms) && absl::SimpleAtod(kv["min"], &r->min_ms) &&
         absl::SimpleAtod(kv["max"], &r->max_ms) && absl::SimpleAtoi(kv["runs"], &r->runs);
}

double MaxAbsDiff(const std::vector<vm::NpyArray>& a, const std::vector<std::string>& files) {
  double worst = 0;
  for (size_t k = 0; k < a.size() && k < files.size(); ++k) {
    auto b = vm::ReadNpy(files[k]);
    if (!b.ok() || b->data.size() != a[k].data.size() || a[k].dtype != fb::DType::F32) return INFINITY;
    for (int64_t i = 0; i < a[k].element_count(); ++i) {
      const double d = std::fabs(static_cast<double>(a[k].floats()[i]) - b->floats()[i]);
      if (std::isnan(d)) return INFINITY;
      worst = std::max(worst, d);
    }
  }
  return worst;
}

// text and rodata+data+bss of an executable, from binutils `size -A`.
void AotSizes(const std::string& exe, BenchReport* report) {
  std::string out;
  if (aot::RunShell(absl::StrCat("size -A ", aot::ShellQuote(exe), " 2>/dev/null"), &out) != 0) return;
  const aot::SectionSizes s = aot::ParseSizeSections(out);
  report->aot_code_bytes += s.text;
  report->aot_data_bytes += s.rodata + s.data + s.bss;
}

std::string Flags(const char* flag, const std::vector<std::string>& files) {
  std::string s;
  for (const std::string& f : files) absl::StrAppend(&s, " ", flag, " ", aot::ShellQuote(f));
  return s;
}

std::string CIdentifier(const std::string& stem) {
  std::string id;
  for (char c : stem) id += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (id.empty() || std::isdigit(static_cast<unsigned char>(id[0]))) id = "m_" + id;
  return id;
}

absl::Status BuildBundle(const vm::ModuleImage& image, const std::string& name,
                         const std::string& dir, const std::string& cflags) {
  aot::AotOptions options;
  options.name = name;
  auto files = aot::EmitBundle(image, options);
  if (!files.ok()) return files.status();
  if (absl::Status s = aot::WriteBundle(dir, *files); !s.ok()) return s;
  std::string log;
  const std::string cmd = absl::StrCat("make -s -C ", aot::ShellQuote(dir), " -j2 CFLAGS=", aot::ShellQuote(cflags),
                                       " > ", aot::ShellQuote(dir + "/make.log"), " 2>&1");
  if (aot::RunShell(cmd, &log) != 0) {
    return absl::InternalError(absl::StrCat("building the AOT bundle failed; see ", dir, "/make.log"));
  }
  return absl::OkStatus();
}

}  // namespace

int BenchCommand(const std::vector<std::string>& argv) {
  absl::StatusOr<CliArgs> args = ParseCli(
      argv, {{"--input", "--repeat", "--warmup", "--out", "--baseline-cmd", "--plot", "--aot-cflags",
              "--isa"},
             {"--per-dispatch", "--no-aot"}});
  if (!args.ok()) return ReportError("bench", std::string(args.status().message()));
  if (args->help) {
    std::fputs(kHelp, stdout);
    return 0;
  }
  // An explicit path builds the bundle for that path; auto, for this CPU.
  absl::StatusOr<vm::KernelPath> path = vm::ChooseKernelPath(args->Get("--isa"));
  if (!path.ok()) return ReportError("bench", std::string(path.status().message()));
  const bool explicit_path = vm::KernelPathNamed(args->Get("--isa"));
  const std::string aot_cflags = args->Get(
      "--aot-cflags", explicit_path ? absl::StrCat("-O3 ", vm::KernelPathCompileFlags(*path))
                                    : std::string("-O3 -march=native"));
  if (args->positional.size() != 1) {
    std::fputs(kHelp, stderr);
    return 2;
  }
  int repeat = 20, warmup = 2;
  if ((args->Has("--repeat") && (!absl::SimpleAtoi(args->Get("--repeat"), &repeat) || repeat < 1 || repeat > 100000)) ||
      (args->Has("--warmup") && (!absl::SimpleAtoi(args->Get("--warmup"), &warmup) || warmup < 0 || warmup > 100000))) {
    return ReportError("bench", "--repeat must be in 1..100000 and --warmup in 0..100000");
  }
  const std::string model = args->positional[0];
  if (!fs::exists(model)) return ReportError("bench", absl::StrCat("'", model, "' does not exist"));
  const std::string name = CIdentifier(fs::path(model).stem().string());
  const std::string dir = args->Get("--out", absl::StrCat("kiln-bench-", name));
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return ReportError("bench", absl::StrCat("cannot create '", dir, "': ", ec.message()));

  BenchReport report;
  report.model = model;
  std::string module_path = model;
  if (!absl::EndsWith(model, ".kiln")) {
    auto bytes = compiler::BuildModule(model, {});
    if (!bytes.ok()) return ReportError("bench", std::string(bytes.status().message()));
    module_path = absl::StrCat(dir, "/", name, ".kiln");
    if (absl::Status s = WriteFileAtomically(module_path, *bytes); !s.ok()) {
      return ReportError("bench", std::string(s.message()));
    }
  }
  report.module = module_path;
  auto image = vm::ModuleImage::LoadFile(module_path);
  if (!image.ok()) return ReportError("bench", std::string(image.status().message()));
  auto instance = vm::Instance::Create(*image, 1, vm::KernelPathName(*path));
  if (!instance.ok()) return ReportError("bench", std::string(instance.status().message()));
  const fb::Signature& sig = (*instance)->signature();
  report.module_bytes = (*image)->size();
  report.arena_bytes = (*instance)->arena_bytes();
  auto dispatches = vm::DescribeDispatches(**image);
  if (!dispatches.ok()) return ReportError("bench", std::string(dispatches.status().message()));
  report.dispatches = static_cast<uint32_t>(dispatches->size());

  // Inputs: the user's files, or fixed-seed random ones written for the other runners.
  // Symbolic dims take their sizes from the inputs, so they need files.
  if ((*instance)->has_symbols() && !args->Has("--input")) {
    return ReportError("bench", absl::StrCat("'", module_path,
                                             "' has symbolic dimensions; give --input FILE.npy "
                                             "files of the size to time (random inputs need "
                                             "static shapes)"));
  }
  auto inputs = args->Has("--input") ? LoadInputs(sig, args->All("--input")) : RandomInputs(sig, 1234);
  if (!inputs.ok()) return ReportError("bench", std::string(inputs.status().message()));
  // Binds the symbols and sizes the workspace before the timed runs.
  if (absl::Status s = ReserveFor(**instance, *inputs); !s.ok()) {
    return ReportError("bench", std::string(s.message()));
  }
  report.arena_bytes = (*instance)->arena_bytes();
  std::vector<std::string> input_files;
  for (size_t k = 0; k < inputs->size(); ++k) {
    input_files.push_back(absl::StrCat(dir, "/input", k, ".npy"));
    if (absl::Status s = vm::WriteNpy(input_files.back(), (*inputs)[k]); !s.ok()) {
      return ReportError("bench", std::string(s.message()));
    }
  }
  auto output_files = [&](const std::string& runner) {
    std::vector<std::string> files;
    for (uint32_t k = 0; k < sig.outputs()->size(); ++k) {
      files.push_back(absl::StrCat(dir, "/", runner, "_output", k, ".npy"));
    }
    return files;
  };

  // VM, in process.
  std::vector<vm::NpyArray> vm_out = OutputBuffers(**instance);
  {
    std::vector<vm::HostTensor> in = Views(*inputs), out = Views(vm_out);
    // Sizes found during the run without a bound: an untimed run first grows
    // the workspace and outputs to what the timed ones need.
    if ((*instance)->has_unbounded_sizes()) {
      if (absl::Status s = RunGrowingOutputs(**instance, in, &vm_out, &out); !s.ok()) {
        return ReportError("bench", std::string(s.message()));
      }
      report.arena_bytes = (*instance)->arena_bytes();
    }
    RunnerResult r;
    r.name = "kiln vm";
    std::vector<double> ms;
    for (int k = 0; k < warmup + repeat; ++k) {
      auto t0 = std::chrono::steady_clock::now();
      absl::Status s = (*instance)->Run(in, out);
      auto t1 = std::chrono::steady_clock::now();
      if (!s.ok()) return ReportError("bench", std::string(s.message()));
      if (k >= warmup) ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    r.ok = true;
    r.median_ms = ms[ms.size() / 2];
    r.min_ms = ms.front();
    r.max_ms = ms.back();
    r.runs = repeat;
    r.note = absl::StrCat("in process, ", warmup, " warmup runs");
    report.runners.push_back(r);
    const std::vector<std::string> files = output_files("vm");
    for (size_t k = 0; k < vm_out.size(); ++k) (void)vm::WriteNpy(files[k], vm_out[k]);
  }

  // AOT: the bundle built with make, its runner timing itself.
  const std::string aot_dir = absl::StrCat(dir, "/aot");
  if (!args->flags.count("--no-aot")) {
    RunnerResult r;
    r.name = "kiln aot";
    if (absl::Status s = BuildBundle(**image, name, aot_dir, aot_cflags); !s.ok()) {
      r.note = std::string(s.message());
    } else {
      const std::string exe = absl::StrCat(aot_dir, "/", name, "_run");
      AotSizes(exe, &report);
      const std::vector<std::string> outs = output_files("aot");
      std::string text;
      const int rc = aot::RunShell(absl::StrCat(aot::ShellQuote(exe), Flags("--input", input_files),
                                        Flags("--output", outs), " --repeat ", repeat), &text);
      r.ok = rc == 0 && ParseLatency(text, &r);
      r.note = r.ok ? absl::StrCat("runner's own timing (make, ", aot_cflags, ")")
                    : absl::StrCat("runner failed (exit ", rc, ")");
      if (r.ok) r.max_abs_diff_vs_vm = MaxAbsDiff(vm_out, outs);
    }
    report.runners.push_back(r);
  }

  if (args->Has("--baseline-cmd")) {
    RunnerResult r;
    r.name = "baseline";
    const std::vector<std::string> outs = output_files("baseline");
    std::string text;
    auto t0 = std::chrono::steady_clock::now();
    const int rc = aot::RunShell(absl::StrCat(args->Get("--baseline-cmd"), Flags("--input", input_files),
                                      Flags("--output", outs), " --repeat ", repeat),
                         &text);
    auto t1 = std::chrono::steady_clock::now();
    if (rc != 0) {
      r.note = absl::StrCat("command failed (exit ", rc, ")");
    } else if (ParseLatency(text, &r)) {
      r.ok = true;
      r.note = "its own timing";
    } else {
      r.ok = true;
      r.median_ms = r.min_ms = r.max_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
      r.runs = 1;
      r.note = "wall time of the whole call (no latency_ms line)";
    }
    if (r.ok) r.max_abs_diff_vs_vm = MaxAbsDiff(vm_out, outs);
    report.runners.push_back(r);
  }

  if (args->flags.count("--per-dispatch")) {
    // VM: every dispatch timed by the observer; AOT: the -DKILN_TIMING hook.
    vm::DispatchTimer timer(report.dispatches, static_cast<uint32_t>(repeat));
    std::vector<vm::HostTensor> in = Views(*inputs), out = Views(vm_out);
    for (int k = 0; k < repeat; ++k) {
      if (absl::Status s = (*instance)->Run(in, out, &timer); !s.ok()) {
        return ReportError("bench", std::string(s.message()));
      }
    }
    const auto stats = vm::CollectDispatchStats(dispatches->size(), timer);
    std::vector<double> aot_us(dispatches->size(), 0);
    const std::string timed_dir = absl::StrCat(dir, "/aot_timed");
    if (absl::Status s = BuildBundle(**image, name, timed_dir, aot_cflags + " -DKILN_TIMING");
        !s.ok()) {
      return ReportError("bench", std::string(s.message()));
    }
    const std::string timing_file = absl::StrCat(dir, "/aot_timing.txt");
    std::string text;
    const int rc = aot::RunShell(absl::StrCat("KILN_TIMING_OUT=", aot::ShellQuote(timing_file), " ",
                                      aot::ShellQuote(absl::StrCat(timed_dir, "/", name, "_run")),
                                      Flags("--input", input_files),
                                      Flags("--output", output_files("aot_timed")), " --repeat ",
                                      repeat),
                         &text);
    std::ifstream timing(timing_file);
    if (rc != 0 || !timing) return ReportError("bench", "the timed AOT runner failed");
    uint32_t index;
    unsigned long calls;
    double ns;
    while (timing >> index >> calls >> ns) {
      if (index < aot_us.size() && calls > 0) aot_us[index] = ns / 1e3 / static_cast<double>(calls);
    }
    for (const vm::DispatchInfo& d : *dispatches) {
      DispatchComparison c;
      c.index = d.index;
      c.label = d.Label();
      c.op = d.OpPattern();
      c.kernel = d.kernel.substr(d.kernel.rfind("kiln_") == 0 ? 5 : 0);
      c.vm_us = stats[d.index].calls ? stats[d.index].total_ns / 1e3 / static_cast<double>(stats[d.index].calls) : 0;
      c.aot_us = aot_us[d.index];
      report.per_dispatch.push_back(c);
    }
  }

  std::fputs(report.Table().c_str(), stdout);
  for (const auto& [file, text] : std::vector<std::pair<std::string, std::string>>{
           {dir + "/bench.md", report.Markdown()}, {dir + "/bench.json", report.Json()}}) {
    if (absl::Status s = WriteFileAtomically(file, text); !s.ok()) {
      return ReportError("bench", std::string(s.message()));
    }
  }
  std::printf("\nwrote %s/bench.md and %s/bench.json\n", dir.c_str(), dir.c_str());
  if (args->Has("--plot")) {
    if (absl::Status s = WriteFileAtomically(args->Get("--plot"), report.Svg()); !s.ok()) {
      return ReportError("bench", std::string(s.message()));
    }
    std::printf("wrote %s\n", args->Get("--plot").c_str());
  }
  for (const RunnerResult& r : report.runners) {
    if (!r.ok) return ReportError("bench", absl::StrCat(r.name, ": ", r.note));
  }
  return 0;
}

}  // namespace kiln::tools
