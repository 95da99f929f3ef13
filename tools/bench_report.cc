#include "tools/bench_report.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "vm/tools/json_text.h"

namespace kiln::tools {
namespace {

std::string Mib(uint64_t bytes) { return absl::StrFormat("%.2f MiB", bytes / 1048576.0); }

// Latency relative to the VM, "1.00x" = same; above 1 means slower than the VM.
std::string VsVm(const BenchReport& r, const RunnerResult& x) {
  if (!x.ok || r.runners.empty() || !r.runners[0].ok || x.median_ms <= 0) return "-";
  return absl::StrFormat("%.2fx", r.runners[0].median_ms / x.median_ms);
}

std::string Diff(const RunnerResult& x) {
  return x.max_abs_diff_vs_vm < 0 ? "-" : absl::StrFormat("%.3g", x.max_abs_diff_vs_vm);
}

std::string XmlEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// A round axis maximum (1, 2 or 5 times a power of ten) at or above `v`.
double NiceMax(double v) {
  if (v <= 0) return 1;
  const double p = std::pow(10.0, std::floor(std::log10(v)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * p >= v) return m * p;
  }
  return 10 * p;
}

}  // namespace

std::string BenchReport::Table() const {
  std::string t = absl::StrFormat("kiln bench %s  (module %s)\n\n", model, module);
  absl::StrAppend(&t, absl::StrFormat("%-12s %12s %22s %10s %14s  %s\n", "runner", "median_ms",
                                      "min-max_ms", "vm/this", "max|diff| vm", "note"));
  for (const RunnerResult& x : runners) {
    if (!x.ok) {
      absl::StrAppend(&t, absl::StrFormat("%-12s %12s %22s %10s %14s  %s\n", x.name, "failed", "",
                                          "", "", x.note));
      continue;
    }
    absl::StrAppend(&t, absl::StrFormat("%-12s %12.4f %22s %10s %14s  %s\n", x.name, x.median_ms,
                                        absl::StrFormat("%.4f-%.4f", x.min_ms, x.max_ms),
                                        VsVm(*this, x), Diff(x), x.note));
  }
  absl::StrAppend(&t, absl::StrFormat(
                          "\nmodule %s, arena %s, %u dispatches; AOT code %s, AOT data %s\n",
                          Mib(module_bytes), Mib(arena_bytes), dispatches, Mib(aot_code_bytes),
                          Mib(aot_data_bytes)));
  if (!per_dispatch.empty()) {
    absl::StrAppend(&t, "\nper dispatch (mean per call)\n",
                    absl::StrFormat("%5s  %-40s %-20s %10s %10s %10s %7s\n", "#", "nodes", "kernel",
                                    "vm_us", "aot_us", "vm-aot_us", "vm/aot"));
    double vm_total = 0, aot_total = 0;
    for (const DispatchComparison& d : per_dispatch) {
      vm_total += d.vm_us;
      aot_total += d.aot_us;
      std::string label = d.label.size() > 40 ? d.label.substr(0, 37) + "..." : d.label;
      absl::StrAppend(&t, absl::StrFormat("%5u  %-40s %-20s %10.2f %10.2f %10.2f %7s\n", d.index,
                                          label, d.kernel, d.vm_us, d.aot_us, d.vm_us - d.aot_us,
                                          d.aot_us > 0 ? absl::StrFormat("%.2fx", d.vm_us / d.aot_us)
                                                       : std::string("-")));
    }
    absl::StrAppend(&t, absl::StrFormat("%5s  %-40s %-20s %10.2f %10.2f %10.2f\n", "", "sum", "",
                                        vm_total, aot_total, vm_total - aot_total));
  }
  return t;
}

std::string BenchReport::Markdown() const {
  std::string md = absl::StrCat("# kiln bench: ", model, "\n\n",
                                "| runner | median ms | min–max ms | VM time / this | max abs diff vs VM | note |\n",
                                "|---|---:|---:|---:|---:|---|\n");
  for (const RunnerResult& x : runners) {
    if (!x.ok) {
      absl::StrAppend(&md, "| ", x.name, " | failed | | | | ", x.note, " |\n");
      continue;
    }
    absl::StrAppend(&md, absl::StrFormat("| %s | %.4f | %.4f–%.4f | %s | %s | %s |\n", x.name,
                                         x.median_ms, x.min_ms, x.max_ms, VsVm(*this, x), Diff(x),
                                         x.note));
  }
  absl::StrAppend(&md, "\n| module | arena | dispatches | AOT code | AOT data |\n|---:|---:|---:|---:|---:|\n",
                  absl::StrFormat("| %s | %s | %u | %s | %s |\n", Mib(module_bytes), Mib(arena_bytes),
                                  dispatches, Mib(aot_code_bytes), Mib(aot_data_bytes)));
  if (!per_dispatch.empty()) {
    absl::StrAppend(&md, "\n## Per dispatch (mean µs per call)\n\n",
                    "| # | nodes | kernel | VM µs | AOT µs | VM − AOT µs |\n|---:|---|---|---:|---:|---:|\n");
    for (const DispatchComparison& d : per_dispatch) {
      absl::StrAppend(&md, absl::StrFormat("| %u | %s | %s | %.2f | %.2f | %.2f |\n", d.index,
                                           d.label, d.kernel, d.vm_us, d.aot_us, d.vm_us - d.aot_us));
    }
  }
  return md;
}

std::string BenchReport::Json() const {
  using vm::JsonNumber;
  using vm::JsonString;
  std::vector<std::string> rs;
  for (const RunnerResult& x : runners) {
    rs.push_back(absl::StrCat("{\"name\":", JsonString(x.name), ",\"ok\":", x.ok ? "true" : "false",
                              ",\"note\":", JsonString(x.note), ",\"median_ms\":",
                              JsonNumber(x.median_ms), ",\"min_ms\":", JsonNumber(x.min_ms),
                              ",\"max_ms\":", JsonNumber(x.max_ms), ",\"runs\":", x.runs,
                              ",\"max_abs_diff_vs_vm\":",
                              x.max_abs_diff_vs_vm < 0 ? "null" : JsonNumber(x.max_abs_diff_vs_vm),
                              "}"));
  }
  std::vector<std::string> ds;
  for (const DispatchComparison& d : per_dispatch) {
    ds.push_back(absl::StrCat("{\"index\":", d.index, ",\"nodes\":", JsonString(d.label),
                              ",\"op\":", JsonString(d.op), ",\"kernel\":", JsonString(d.kernel),
                              ",\"vm_us\":", JsonNumber(d.vm_us), ",\"aot_us\":",
                              JsonNumber(d.aot_us), "}"));
  }
  const double ratio = runners.size() > 1 && runners[0].ok && runners[1].ok && runners[1].median_ms > 0
                           ? runners[0].median_ms / runners[1].median_ms
                           : NAN;
  return absl::StrCat("{\"model\":", JsonString(model), ",\"module\":", JsonString(module),
                      ",\"module_bytes\":", module_bytes, ",\"arena_bytes\":", arena_bytes,
                      ",\"aot_code_bytes\":", aot_code_bytes, ",\"aot_data_bytes\":", aot_data_bytes,
                      ",\"dispatches\":", dispatches, ",\"vm_over_aot\":", JsonNumber(ratio),
                      ",\n\"runners\":[", absl::StrJoin(rs, ",\n  "), "],\n\"per_dispatch\":[",
                      absl::StrJoin(ds, ",\n  "), "]}\n");
}

// Horizontal bars (median latency) with min–max whiskers, one row per runner,
// the value and the ratio to the VM printed beside each bar.
std::string BenchReport::Svg() const {
  const int width = 840, left = 120, right = 250, top = 56, row = 44, bar = 24;
  const int plot_w = width - left - right;
  std::vector<const RunnerResult*> ok;
  for (const RunnerResult& x : runners) {
    if (x.ok) ok.push_back(&x);
  }
  double vmax = 0;
  for (const RunnerResult* x : ok) vmax = std::max(vmax, x->max_ms);
  const double axis = NiceMax(vmax);
  const int height = top + row * static_cast<int>(std::max<size_t>(ok.size(), 1)) + 50;
  auto X = [&](double ms) { return left + static_cast<int>(plot_w * ms / axis + 0.5); };
  const char* colors[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#b07aa1"};

  std::string s = absl::StrFormat(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
      "font-family=\"sans-serif\" font-size=\"13\">\n"
      "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
      "<text x=\"%d\" y=\"24\" font-size=\"16\" font-weight=\"bold\">%s: median latency "
      "(ms, lower is better)</text>\n"
      "<text x=\"%d\" y=\"42\" fill=\"#555\">bars: median of the runs; whiskers: min–max</text>\n",
      width, height, width, height, left, XmlEscape(model), left);
  for (int k = 0; k <= 5; ++k) {
    const double ms = axis * k / 5;
    const int x = X(ms);
    const int bottom = top + row * static_cast<int>(ok.size());
    absl::StrAppend(&s, absl::StrFormat(
                            "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#ddd\"/>\n"
                            "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">%g</text>\n",
                            x, top - 6, x, bottom, x, bottom + 18, ms));
  }
  for (size_t i = 0; i < ok.size(); ++i) {
    const RunnerResult& x = *ok[i];
    const int y = top + row * static_cast<int>(i) + (row - bar) / 2;
    const int cy = y + bar / 2;
    absl::StrAppend(
        &s,
        absl::StrFormat("<text x=\"%d\" y=\"%d\" text-anchor=\"end\" dominant-baseline=\"middle\">%s</text>\n",
                        left - 8, cy, XmlEscape(x.name)),
        absl::StrFormat("<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>\n", left, y,
                        std::max(1, X(x.median_ms) - left), bar, colors[i % 5]),
        absl::StrFormat("<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#222\" stroke-width=\"1.5\"/>\n",
                        X(x.min_ms), cy, X(x.max_ms), cy),
        absl::StrFormat("<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#222\"/>\n", X(x.min_ms),
                        cy - 6, X(x.min_ms), cy + 6),
        absl::StrFormat("<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#222\"/>\n", X(x.max_ms),
                        cy - 6, X(x.max_ms), cy + 6),
        absl::StrFormat("<text x=\"%d\" y=\"%d\" dominant-baseline=\"middle\">%.3f ms%s</text>\n",
                        X(axis) + 8, cy, x.median_ms,
                        i == 0 ? std::string("") : absl::StrCat("  (vm/this ", VsVm(*this, x), ")")));
  }
  absl::StrAppend(&s, absl::StrFormat(
                          "<text x=\"%d\" y=\"%d\" fill=\"#555\">arena %s · module %s · AOT code %s, data %s</text>\n",
                          left, height - 10, Mib(arena_bytes), Mib(module_bytes), Mib(aot_code_bytes),
                          Mib(aot_data_bytes)));
  return s + "</svg>\n";
}

}  // namespace kiln::tools
