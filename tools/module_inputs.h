// Inputs for the tools that run modules on the user's behalf (compare,
// bench): .npy files in signature order or as NAME=FILE.npy, or, when none
// are given, fixed-seed random tensors of the signature's shapes.
#ifndef KILN_TOOLS_MODULE_INPUTS_H_
#define KILN_TOOLS_MODULE_INPUTS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "vm/instance.h"
#include "vm/tools/npy.h"

namespace kiln::tools {

// The file of each signature input, from --input arguments FILE (in
// signature order) or NAME=FILE. NAME=FILE for an input the compiler bound
// (kiln compile --input-value) is checked against the bound value and
// dropped: another value is an error naming both.
absl::StatusOr<std::vector<std::string>> PlaceInputFiles(const fb::Signature& sig,
                                                         const std::vector<std::string>& args);
// The same, read.
absl::StatusOr<std::vector<vm::NpyArray>> LoadInputs(const fb::Signature& sig,
                                                     const std::vector<std::string>& args);

// Uniform in [-1, 1) from a fixed seed; float32 inputs only.
absl::StatusOr<std::vector<vm::NpyArray>> RandomInputs(const fb::Signature& sig, uint32_t seed);

// Zeroed buffers for the signature's outputs.
std::vector<vm::NpyArray> OutputBuffers(const fb::Signature& sig);
// The same sized for the inputs `instance` last bound (Reserve/BindInputs):
// symbolic dims take their values.
std::vector<vm::NpyArray> OutputBuffers(const vm::Instance& instance);

// For a module with symbolic dims: binds them from `inputs` and sizes the
// workspace (before any timed run). Static modules: nothing to do.
absl::Status ReserveFor(vm::Instance& instance, std::vector<vm::NpyArray>& inputs);

// Output k of the last run with its real shape: a length known only after
// the run (a result symbol) shrinks the bound-sized buffer to what it holds.
void ShapeAfterRun(const vm::Instance& instance, size_t k, vm::NpyArray* output);

std::vector<vm::HostTensor> Views(std::vector<vm::NpyArray>& arrays);

// One run that grows the workspace and `outputs` to what sizes found during
// the run need (vm/run_growing.h); *views are `outputs`' views afterwards.
// For a module with such sizes, before any timed run.
absl::Status RunGrowingOutputs(vm::Instance& instance, absl::Span<const vm::HostTensor> inputs,
                               std::vector<vm::NpyArray>* outputs,
                               std::vector<vm::HostTensor>* views);

}  // namespace kiln::tools

#endif  // KILN_TOOLS_MODULE_INPUTS_H_
