// Limits of a module, shared by everything that writes or reads one: the
// compiler refuses a model past them, the verifier refuses a module past
// them, and the VM sizes its fixed arrays by them (raising one here raises
// it everywhere at once). The largest rank is the kernels' KILN_MAX_RANK
// (kiln/kernel_abi.h).
#ifndef KILN_LIMITS_H_
#define KILN_LIMITS_H_

#include <cstdint>

namespace kiln {

constexpr uint64_t kMaxArenaBytes = uint64_t{16} << 30;
constexpr uint64_t kMaxTensorBytes = uint64_t{16} << 30;
constexpr uint32_t kMaxRegisters = 1u << 20;
// Dimension symbols of a module (the VM binds them in a fixed array).
constexpr uint32_t kMaxSymbols = 64;
// Inputs bound at compile time (configuration values: a sample rate, a flag).
constexpr uint32_t kMaxBoundInputs = 64;
constexpr uint64_t kMaxBoundInputBytes = uint64_t{1} << 20;

}  // namespace kiln

#endif  // KILN_LIMITS_H_
