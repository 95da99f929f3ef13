// Chrome Trace Event Format (chrome://tracing, Perfetto) from a DispatchTimer:
// one complete event ("ph":"X") per dispatch, named by the ONNX nodes it fused
// and its kernel, with shapes and bytes as args, plus one event per run.
#ifndef KILN_VM_TOOLS_TRACE_WRITER_H_
#define KILN_VM_TOOLS_TRACE_WRITER_H_

#include <string>
#include <vector>

#include "vm/tools/debug_info.h"
#include "vm/tools/dispatch_timer.h"

namespace kiln::vm {

// Dispatch events have "cat":"dispatch"; run events "cat":"run".
std::string ChromeTraceJson(const std::string& module_name,
                            const std::vector<DispatchInfo>& dispatches,
                            const DispatchTimer& timer);

}  // namespace kiln::vm

#endif  // KILN_VM_TOOLS_TRACE_WRITER_H_
