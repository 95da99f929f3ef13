// The module verifier, run once at load by the VM and the AOT tool:
//  1. flatbuffer structure (identifier, bounds, depth/table limits);
//  2. format version, signature (dtypes, ranks, sizes), memory plan limits;
//  3. constants lie inside constant_data, 64-byte aligned, sizes match dtypes;
//  4. executables name known kernels with the kernel's binding count, and
//     each kernel's checker accepts the static parameters and binding sizes
//     of every executable a static DISPATCH calls;
//  5. each function is walked once: opcodes known, operands inside the
//     function, registers/ordinals in range, integer registers set before
//     read, every arena view inside the arena, every register bound by a
//     DISPATCH set earlier to a view at least as large as the executable
//     declares, no kernel writing an input or constant, every LOOP trip
//     count read from a constant within Module.max_trip_count, and the
//     function ends in RETURN.
// After this the interpreter runs without per-instruction checks, except for
// what only a run can know: the *_DYN views check their bounds and each
// DISPATCH_DYN runs its kernel's checker on the real sizes; how long loops
// whose trip counts are data run is bounded by the host's run budget
// (vm/run_budget.h).
#ifndef KILN_VM_MODULE_VERIFIER_H_
#define KILN_VM_MODULE_VERIFIER_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "kiln/limits.h"
#include "kiln/module_generated.h"

namespace kiln::vm {

// A verified module stays within kiln/limits.h.
// The largest constant LOOP trip count accepted from a module that declares
// none (Module.max_trip_count absent: written before modules declared it).
// Modules that declare one are held to what they declare.
constexpr int64_t kUndeclaredTripLimit = (int64_t{1} << 32) - 1;

// Verifies `size` bytes at `data` (64-byte aligned) as a module; `origin`
// names it in messages. Returns the module root on success.
absl::StatusOr<const fb::Module*> VerifyModuleBytes(const uint8_t* data, size_t size,
                                                    const std::string& origin);

// Byte size of a signature tensor (verified: no overflow); symbolic dims
// count as 1.
uint64_t TensorDescBytes(const fb::TensorDesc& desc);
// Whether any dim of `desc` is symbolic (-1, named in dim_symbols).
bool HasSymbols(const fb::TensorDesc& desc);

}  // namespace kiln::vm

#endif  // KILN_VM_MODULE_VERIFIER_H_
