#include "compiler/passes/report_output_lengths.h"

#include <algorithm>
#include <cstddef>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/passes/materialize_symbolic_values.h"

namespace kiln::compiler {
namespace {

// Whether `dim` needs reporting: an expression (not a bare length) of
// lengths found during the run, all bounded or one of them without a bound.
bool NeedsReport(const ir::DimPool& dims, int64_t dim) {
  int64_t bound = 0;
  return dims.Known(dim) && dims.HasData(dim) && dims.BareData(dim) < 0 &&
         (dims.HasUnbounded(dim) || dims.UpperBound(dim, &bound));
}

// Moves the last node to just before node `at`.
void MoveLastNodeBefore(ir::Graph& graph, size_t at) {
  std::rotate(graph.nodes.begin() + static_cast<std::ptrdiff_t>(at), graph.nodes.end() - 1,
              graph.nodes.end());
  for (size_t n = at; n < graph.nodes.size(); ++n) {
    for (ir::ValueId out : graph.nodes[n].outputs) {
      if (out != ir::kNoValue) graph.value(out).producer = static_cast<ir::NodeId>(n);
    }
  }
}

}  // namespace

absl::Status ReportOutputLengths(ir::Graph& graph) {
  if (graph.dims.empty() || !graph.scope.empty()) return absl::OkStatus();
  for (ir::ValueId& o : graph.outputs) {
    const ir::Value& out = graph.value(o);
    if (!out.has_shape || out.constant != nullptr) continue;
    std::vector<size_t> report;
    for (size_t d = 0; d < out.shape.size(); ++d) {
      if (NeedsReport(graph.dims, out.shape[d])) report.push_back(d);
    }
    if (report.empty()) continue;
    const std::string name = out.name;
    const std::vector<int64_t> shape = out.shape;  // copies: AddValue may move the values
    const ir::DType dtype = out.dtype;
    graph.RenameValue(o, absl::StrCat(name, ".computed"));
    // The dims, computed at run time into an int64 [m].
    const ir::ValueId lengths = graph.AddValue(absl::StrCat(name, ".lengths"));
    ir::Value& lv = graph.value(lengths);
    lv.dtype = ir::DType::I64;
    lv.shape = {static_cast<int64_t>(report.size())};
    lv.has_shape = true;
    lv.live_to_end = true;  // the module reads the lengths after the run
    std::vector<int64_t> dims;
    for (size_t d : report) dims.push_back(shape[d]);
    graph.AddNode(SymbolicValueNode(graph, std::move(dims), lengths));
    // A length without a bound sizes the output's buffer, so the caller
    // must learn it before any kernel writes there: the lengths are computed
    // as soon as those they derive from are. Bounded ones may come from the
    // output's producer itself (a NonZero's count), so after every node.
    bool unbounded = false;
    std::set<int32_t> sources;
    for (size_t d : report) {
      unbounded = unbounded || graph.dims.HasUnbounded(shape[d]);
      graph.dims.DataSymbolsIn(shape[d], &sources);
    }
    if (unbounded) {
      size_t after = 0;
      for (int32_t s : sources) {
        const ir::NodeId p = graph.value(graph.dims.data_symbols()[s].count_value).producer;
        if (p != ir::kNoNode) after = std::max(after, static_cast<size_t>(p) + 1);
      }
      MoveLastNodeBefore(graph, after);
    }
    // Each a length of its own, element j of that tensor.
    std::vector<int64_t> reported = shape;
    for (size_t j = 0; j < report.size(); ++j) {
      int64_t bound = ir::kNoBound;
      if (!graph.dims.HasUnbounded(shape[report[j]])) graph.dims.UpperBound(shape[report[j]], &bound);
      reported[report[j]] = graph.dims.Data(absl::StrCat(name, ".dim", report[j]), bound,
                                            static_cast<int32_t>(lengths), graph.scope,
                                            static_cast<int32_t>(j));
    }
    const ir::ValueId result = graph.AddValue(name);
    ir::Value& rv = graph.value(result);
    rv.dtype = dtype;
    rv.shape = std::move(reported);
    rv.has_shape = true;
    ir::Node identity;
    identity.name = absl::StrCat(name, "/report");
    identity.op_type = "Identity";
    identity.inputs = {o};
    identity.outputs = {result};
    graph.AddNode(std::move(identity));
    o = result;
  }
  return absl::OkStatus();
}

}  // namespace kiln::compiler
