// Graph outputs whose dims are expressions of lengths found during the run
// (min(n, 300) boxes after a TopK, n1 + n2 rows after a Concat): a caller
// learns an output's dims from the module, which reports a length as the
// value a kernel wrote, not as arithmetic on several. This pass computes
// each such dim at run time into an int64 tensor (a kiln:SymbolicValue node,
// its values patched from the integer registers once the lengths are
// loaded), makes each a length of its own read from there, and returns the
// output through an Identity shaped by them. When a length without a bound
// is among them, they are computed as soon as the lengths they derive from
// are (they size the caller's buffer), else after the graph's other nodes.
#ifndef KILN_COMPILER_PASSES_REPORT_OUTPUT_LENGTHS_H_
#define KILN_COMPILER_PASSES_REPORT_OUTPUT_LENGTHS_H_

#include "absl/status/status.h"
#include "compiler/ir/graph.h"

namespace kiln::compiler {

absl::Status ReportOutputLengths(ir::Graph& graph);

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_PASSES_REPORT_OUTPUT_LENGTHS_H_
