// The bundle's README.md: how to call the model (entry points, buffers and
// their alignment, weights), what each file is for, and a marker line where
// `kiln aot` puts the size it measured on the built object.
#ifndef KILN_AOT_README_EMITTER_H_
#define KILN_AOT_README_EMITTER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "aot/c_emitter.h"

namespace kiln::aot {

struct ReadmeTensor {
  std::string name;
  std::string dtype;  // "float32"
  std::string shape;  // "1x1x49x10"
};

struct ReadmeFacts {
  std::string name;
  std::string origin;  // the module file
  AotOptions options;
  uint64_t workspace_bytes = 0;
  uint32_t workspace_alignment = 0;
  uint64_t weights_bytes = 0;
  uint32_t weights_alignment = 0;
  std::vector<ReadmeTensor> inputs, outputs;
  // Symbolic dimensions (empty for a static module): their names, in the
  // order NAME_run takes them, and the workspace bytes as a formula of them
  // ("N*10240 + 4096"); workspace_bytes is then the static part.
  std::vector<std::string> symbols;
  std::string workspace_formula;
  // NAME_run's parameter names ("inputs, outputs, workspace"), and whether
  // the run finds sizes without a bound (aot/growing_interface.h).
  std::string run_args;
  bool grows = false;
};

std::string EmitReadme(const ReadmeFacts& facts);

}  // namespace kiln::aot

#endif  // KILN_AOT_README_EMITTER_H_
