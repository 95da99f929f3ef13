#include "vm/tools/trace_writer.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "vm/dtype.h"
#include "vm/tools/json_text.h"

namespace kiln::vm {
namespace {

// Microseconds, as the format wants, keeping nanosecond precision.
std::string Micros(int64_t ns) { return JsonNumber(static_cast<double>(ns) / 1000.0); }

std::string StringArray(const std::vector<std::string>& v) {
  std::vector<std::string> quoted;
  for (const std::string& s : v) quoted.push_back(JsonString(s));
  return absl::StrCat("[", absl::StrJoin(quoted, ","), "]");
}

std::string DispatchArgs(const DispatchInfo& d) {
  std::vector<std::string> values;
  for (const ValueInfo& v : d.values) {
    values.push_back(absl::StrCat("{\"name\":", JsonString(v.name), ",\"dtype\":",
                                  JsonString(DTypeName(v.dtype)), ",\"shape\":",
                                  JsonString(ValueShapeText(v)), ",\"bytes\":", v.bytes, "}"));
  }
  std::string args = absl::StrCat(
      "{\"dispatch\":", d.index, ",\"pc\":", d.pc, ",\"kernel\":", JsonString(d.kernel),
      ",\"executable\":", d.executable, ",\"nodes\":", StringArray(d.nodes),
      ",\"op_types\":", StringArray(d.op_types), ",\"values\":[", absl::StrJoin(values, ","),
      "],\"binding_bytes\":[", absl::StrJoin(d.binding_bytes, ","),
      "],\"bytes\":", d.TotalBindingBytes());
  if (d.flops >= 0) absl::StrAppend(&args, ",\"flops\":", JsonNumber(d.flops));
  return args + "}";
}

}  // namespace

std::string ChromeTraceJson(const std::string& module_name,
                            const std::vector<DispatchInfo>& dispatches,
                            const DispatchTimer& timer) {
  std::vector<std::string> args(dispatches.size());
  std::vector<std::string> names(dispatches.size());
  for (size_t k = 0; k < dispatches.size(); ++k) {
    args[k] = DispatchArgs(dispatches[k]);
    names[k] = JsonString(absl::StrCat(dispatches[k].Label(), " (",
                                       absl::StripPrefix(dispatches[k].kernel, "kiln_"), ")"));
  }
  std::string out = "{\"displayTimeUnit\":\"ms\",\"otherData\":{\"module\":";
  absl::StrAppend(&out, JsonString(module_name), ",\"dispatches\":", dispatches.size(),
                  ",\"runs\":", timer.run_count(), ",\"dropped_events\":", timer.dropped(),
                  "},\n\"traceEvents\":[\n");
  absl::StrAppend(&out, "{\"ph\":\"M\",\"pid\":1,\"tid\":1,\"name\":\"process_name\",",
                  "\"args\":{\"name\":", JsonString(absl::StrCat("kiln vm: ", module_name)),
                  "}},\n{\"ph\":\"M\",\"pid\":1,\"tid\":1,\"name\":\"thread_name\",",
                  "\"args\":{\"name\":\"interpreter\"}}");
  for (size_t r = 0; r < timer.run_count(); ++r) {
    const DispatchTimer::RunSpan& run = timer.runs()[r];
    absl::StrAppend(&out, ",\n{\"ph\":\"X\",\"cat\":\"run\",\"pid\":1,\"tid\":1,\"name\":",
                    JsonString(absl::StrCat("run ", r)), ",\"ts\":", Micros(run.begin_ns),
                    ",\"dur\":", Micros(run.end_ns - run.begin_ns), ",\"args\":{\"run\":", r,
                    "}}");
  }
  for (size_t k = 0; k < timer.event_count(); ++k) {
    const DispatchTimer::Event& e = timer.events()[k];
    if (e.dispatch >= dispatches.size()) continue;
    absl::StrAppend(&out, ",\n{\"ph\":\"X\",\"cat\":\"dispatch\",\"pid\":1,\"tid\":1,\"name\":",
                    names[e.dispatch], ",\"ts\":", Micros(e.begin_ns),
                    ",\"dur\":", Micros(e.end_ns - e.begin_ns), ",\"args\":", args[e.dispatch],
                    "}");
  }
  absl::StrAppend(&out, "\n]}\n");
  return out;
}

}  // namespace kiln::vm
