// The runtime kernels by name, from runtime/include/kiln/kernel_table.def.
// Used once at load to resolve executables (VM) and at transpile time to pick
// the kernel sources a bundle needs (AOT); never on the run path.
#ifndef KILN_VM_KERNEL_REGISTRY_H_
#define KILN_VM_KERNEL_REGISTRY_H_

#include <cstdint>
#include <string_view>

#include "kiln/kernel_abi.h"
#include "vm/kernel_paths.h"

namespace kiln::vm {

struct KernelInfo {
  const char* symbol;        // "kiln_conv2d_f32"
  uint32_t binding_count;
  uint32_t writes;           // bit k set: the kernel writes binding k
  const char* sources;       // "conv2d.c sgemm.c": the kernel's, then those of
                             // the shared functions it calls (runtime/kernels/)
  kiln_kernel_fn fn[kKernelPathCount];  // per KernelPath; nullptr where not built
  kiln_kernel_check_fn check;            // the same in every path
};

// The kernel whose symbol is `symbol`, or nullptr.
const KernelInfo* FindKernel(std::string_view symbol);

}  // namespace kiln::vm

#endif  // KILN_VM_KERNEL_REGISTRY_H_
