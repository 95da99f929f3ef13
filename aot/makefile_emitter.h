// The bundle's Makefile. Every target gets the same library rules:
//   NAME_model.o  one pre-linked object holding only the code and data that
//                 NAME_run, NAME_run_with_host and NAME_metadata reach
//                 (what the size report measures)
//   lib           libNAME.a, that object archived
//   size          `size -A` of that object
// plus, for the host, the runner NAME_run (default goal) and `shared`
// (libNAME.so exporting NAME_run, NAME_run_with_host and NAME_metadata), and for Cortex-M the
// firmware and `qemu` rules of aot/templates/cortex_m/Makefile.in.
#ifndef KILN_AOT_MAKEFILE_EMITTER_H_
#define KILN_AOT_MAKEFILE_EMITTER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "aot/target.h"

namespace kiln::aot {

struct MakefileSpec {
  std::string name;
  Target target = Target::kHost;
  std::vector<std::string> lib_sources;  // NAME.c, NAME_weights.c, runtime kernels
  // Entry points beyond NAME_run, NAME_run_with_host and NAME_metadata that
  // NAME_model.o keeps (NAME_workspace_size for a module with symbols).
  std::vector<std::string> extra_entry_points = {};
};

absl::StatusOr<std::string> EmitMakefile(const MakefileSpec& spec);

}  // namespace kiln::aot

#endif  // KILN_AOT_MAKEFILE_EMITTER_H_
