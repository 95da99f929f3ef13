// A Loop with scan outputs whose trip count or condition is a run-time value
// (ONNX's Range expanded into its function: trip ceil((limit - start) /
// delta), condition trip > 0, the body passing the condition through):
// when the body's condition stays true, the scan outputs hold
// `cond ? max(trip, 0) : 0` slices. This pass computes that count before the
// loop, into the trip count (the condition folded in and dropped), and marks
// the node (kScanCountAttr); the control-flow analysis then makes the count
// a length found during the run, without a bound, that sizes the scan
// outputs (control_flow.h). Only at the top level (lengths without a bound
// live in the entry's workspace tail) and only where no scan output
// declares its shape (a declared length is used as it is).
#ifndef KILN_COMPILER_PASSES_LOOP_SCAN_COUNT_H_
#define KILN_COMPILER_PASSES_LOOP_SCAN_COUNT_H_

#include "absl/status/status.h"
#include "compiler/ir/graph.h"

namespace kiln::compiler {

inline constexpr char kScanCountAttr[] = "kiln.trip_is_scan_count";

absl::Status CountLoopScans(ir::Graph& graph);

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_PASSES_LOOP_SCAN_COUNT_H_
