// Writes a bundle directory atomically: files go to a temporary sibling
// directory that replaces DIR only once everything is written, so a failure
// never leaves a half-written bundle where a good one was.
#ifndef KILN_AOT_BUNDLE_WRITER_H_
#define KILN_AOT_BUNDLE_WRITER_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "aot/c_emitter.h"

namespace kiln::aot {

absl::Status WriteBundle(const std::string& dir, const std::vector<BundleFile>& files);

}  // namespace kiln::aot

#endif  // KILN_AOT_BUNDLE_WRITER_H_
