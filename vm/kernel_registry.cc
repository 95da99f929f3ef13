#include "vm/kernel_registry.h"

#include "kiln/kernels.h"

namespace kiln::vm {
namespace {

const KernelInfo kKernels[] = {
#define KILN_KERNEL(name, bindings, writes, source) \
  {"kiln_" #name, bindings, writes, source, &kiln_##name, &kiln_##name##_check},
#include "kiln/kernel_table.def"
#undef KILN_KERNEL
};

}  // namespace

const KernelInfo* FindKernel(std::string_view symbol) {
  for (const KernelInfo& kernel : kKernels) {
    if (symbol == kernel.symbol) return &kernel;
  }
  return nullptr;
}

}  // namespace kiln::vm
