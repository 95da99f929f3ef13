// The SIMD paths of the runtime kernels. The VM links one copy of the kernels
// per path its host can target (runtime/CMakeLists.txt), each compiled as an
// AOT bundle for that path would be, and picks one copy per instance: the
// widest this CPU runs, or the one KILN_ISA (or `kiln run --isa`) names.
#ifndef KILN_VM_KERNEL_PATHS_H_
#define KILN_VM_KERNEL_PATHS_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace kiln::vm {

enum class KernelPath : int { kPortable = 0, kAvx2 = 1, kAvx512 = 2, kNeon = 3 };
inline constexpr int kKernelPathCount = 4;

// "portable", "avx2", "avx512", "neon".
const char* KernelPathName(KernelPath path);
// What the path's kernels are compiled for, e.g. "AVX2 + FMA".
const char* KernelPathDescription(KernelPath path);
// The C compiler flags that select the path in an AOT bundle (and that the
// VM's copy was compiled with): "-mavx2 -mfma"; "" for NEON (the AArch64
// base); the portable path's define switches SIMD code off on any target.
const char* KernelPathCompileFlags(KernelPath path);

// This VM links a copy of the kernels for `path`.
bool KernelPathBuilt(KernelPath path);
// Built, and this CPU can run it.
bool KernelPathRunnable(KernelPath path);
// The widest runnable path.
KernelPath WidestKernelPath();
// Every runnable path, comma-separated ("portable, avx2, avx512").
std::string RunnableKernelPaths();

// The path called `name` ("" or "auto": the KILN_ISA environment variable
// when set, else the widest), refused with a message naming the paths this
// machine runs when it is unknown, not built or beyond this CPU.
absl::StatusOr<KernelPath> ChooseKernelPath(std::string_view name);
// Whether `name` (or, for "" and "auto", KILN_ISA) names a path rather than
// leaving the choice to the CPU.
bool KernelPathNamed(std::string_view name);

}  // namespace kiln::vm

#endif  // KILN_VM_KERNEL_PATHS_H_
