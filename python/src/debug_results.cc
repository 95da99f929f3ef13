#include "debug_results.h"

#include <map>
#include <string>

#include <pybind11/stl.h>

#include "absl/strings/str_cat.h"
#include "arrays.h"
#include "text.h"
#include "vm/tools/profiler.h"

namespace kiln::python {
namespace py = pybind11;

py::list DumpList(const vm::ValueRecorder& recorder) {
  py::list out;
  std::map<std::string, size_t> seen;
  for (const vm::RecordedValue& v : recorder.values()) {
    const size_t k = ++seen[v.info->name];
    const std::string name = k > 1 ? absl::StrCat(v.info->name, "__", k) : v.info->name;
    out.append(py::make_tuple(
        Text(name), ArrayFromBytes(v.info->dtype, v.shape, v.bytes.data(), v.bytes.size())));
  }
  return out;
}

py::list ProfileList(const std::vector<vm::DispatchInfo>& dispatches,
                     const vm::DispatchTimer& timer) {
  const std::vector<vm::DispatchStats> stats = vm::CollectDispatchStats(dispatches.size(), timer);
  double run_ns = 0;
  for (size_t r = 0; r < timer.run_count(); ++r) {
    run_ns += static_cast<double>(timer.runs()[r].end_ns - timer.runs()[r].begin_ns);
  }
  py::list out;
  for (const vm::DispatchInfo& d : dispatches) {
    const vm::DispatchStats& s = stats[d.index];
    const double calls = static_cast<double>(s.calls);
    const double flops = vm::FlopsPerCall(d, timer);
    py::dict row;
    row["dispatch"] = d.index;
    row["nodes"] = Text(d.Label());
    row["op"] = Text(d.OpPattern());
    row["kernel"] = Text(d.kernel);
    row["onnx_nodes"] = TextList(d.nodes);
    row["op_types"] = TextList(d.op_types);
    row["calls"] = s.calls;
    row["total_ms"] = s.total_ns / 1e6;
    row["mean_us"] = s.calls ? s.total_ns / 1e3 / calls : 0.0;
    row["min_us"] = s.min_ns / 1e3;
    row["share"] = run_ns > 0 ? 100.0 * s.total_ns / run_ns : 0.0;
    row["gflops"] = flops < 0 || s.total_ns <= 0 ? py::object(py::none())
                                                 : py::object(py::float_(flops * calls / s.total_ns));
    out.append(row);
  }
  return out;
}

}  // namespace kiln::python
