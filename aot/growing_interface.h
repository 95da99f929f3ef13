// The C interface of a bundle whose run finds sizes without a bound
// (GrowsDuringRun): NAME_run also takes every output buffer's bytes, the
// workspace's bytes and a kiln_shortfall, and a run that finds a buffer too
// small stops with KILN_ERR_BUFFER_TOO_SMALL naming it; the caller grows it
// and runs again (as vm::RunGrowing does for the VM).
#ifndef KILN_AOT_GROWING_INTERFACE_H_
#define KILN_AOT_GROWING_INTERFACE_H_

#include <string>

namespace kiln::aot {

// The header's comment block on the grow-and-run-again protocol.
std::string GrowingHeaderComment(const std::string& name, const std::string& upper,
                                 bool symbolic);

// The README's paragraph on the same.
std::string GrowingReadme(const std::string& name, const std::string& upper, bool symbolic);

}  // namespace kiln::aot

#endif  // KILN_AOT_GROWING_INTERFACE_H_
