// What the debugging runs of kiln.Module.run return to Python: recorded
// intermediates (dump=True) and the per-dispatch profile (profile=True).
#ifndef KILN_PYTHON_DEBUG_RESULTS_H_
#define KILN_PYTHON_DEBUG_RESULTS_H_

#include <vector>

#include <pybind11/pybind11.h>

#include "vm/tools/debug_info.h"
#include "vm/tools/dispatch_timer.h"
#include "vm/tools/dump.h"

namespace kiln::python {

// [(ONNX value name, array)] in run order, in ONNX layout; the k-th
// recording of a value repeated in a Loop/Scan body is NAME__k, as
// `kiln run --dump` names its files.
pybind11::list DumpList(const vm::ValueRecorder& recorder);

// One dict per dispatch, the rows of `kiln run --profile`'s first table:
// dispatch, nodes, op, kernel, onnx_nodes, op_types, calls, total_ms,
// mean_us, min_us, share (percent of the run time) and gflops (None when
// the kernel's FLOPs are unknown).
pybind11::list ProfileList(const std::vector<vm::DispatchInfo>& dispatches,
                           const vm::DispatchTimer& timer);

}  // namespace kiln::python

#endif  // KILN_PYTHON_DEBUG_RESULTS_H_
