// Inputs the compiler bound to one value (kiln compile --input-value): not
// in the signature's inputs, recorded in Signature.bound_inputs. A run that
// names one anyway (kiln run --input NAME=FILE, Python's run(NAME=...)) must
// give that value; the tools check it here.
#ifndef KILN_VM_BOUND_INPUTS_H_
#define KILN_VM_BOUND_INPUTS_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "kiln/module_generated.h"

namespace kiln::vm {

// The bound input named `name`, or nullptr.
const fb::BoundInput* FindBoundInput(const fb::Signature& sig, const std::string& name);

// Ok when the given tensor (`dtype`, `shape`, element bytes `data` in C
// order) has the bound dtype, shape and bytes; else an error naming the
// input, the bound value and what was given.
absl::Status CheckBoundInputValue(const fb::BoundInput& bound, fb::DType dtype,
                                  absl::Span<const int64_t> shape,
                                  absl::Span<const uint8_t> data);

// "sr int64[] = 16000" (values elided past a few), for messages and inspect.
std::string DescribeBoundInput(const fb::BoundInput& bound);

}  // namespace kiln::vm

#endif  // KILN_VM_BOUND_INPUTS_H_
