// Writes a bundle directory atomically: files go to a temporary sibling
// directory that replaces DIR only once everything is written, so a failure
// never leaves a half-written bundle where a good one was.
#ifndef KILN_AOT_BUNDLE_WRITER_H_
#define KILN_AOT_BUNDLE_WRITER_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "aot/c_emitter.h"

namespace kiln::aot {

// Runs in the staging directory after every file is written and before it
// replaces DIR (kiln aot builds and measures the bundle there); an error
// abandons the bundle.
using BundleFinalizer = std::function<absl::Status(const std::string& staging_dir)>;

absl::Status WriteBundle(const std::string& dir, const std::vector<BundleFile>& files,
                         const BundleFinalizer& finalize = nullptr);

}  // namespace kiln::aot

#endif  // KILN_AOT_BUNDLE_WRITER_H_
