#include "vm/kernel_registry.h"

#include "kiln/kernels.h"

// Each path's copy of the kernels, renamed kiln_<path>_NAME
// (runtime/CMakeLists.txt); the checkers are the same code in every copy.
#define KILN_DECLARE_PATH_KERNEL(path, name)                                        \
  int kiln_##path##_##name(const int64_t* iparams, const float* fparams,           \
                           void* const* bindings, const kiln_host* host);         \
  int kiln_##path##_##name##_check(const int64_t* iparams, uint32_t iparam_count,   \
                                   const float* fparams, uint32_t fparam_count,     \
                                   const uint64_t* binding_bytes);

extern "C" {
#ifdef KILN_VM_PATH_PORTABLE
#define KILN_KERNEL(name, bindings, writes, source, iparams, fparams) \
  KILN_DECLARE_PATH_KERNEL(portable, name)
#include "kiln/kernel_table.def"
#undef KILN_KERNEL
#endif
#ifdef KILN_VM_PATH_AVX2
#define KILN_KERNEL(name, bindings, writes, source, iparams, fparams) \
  KILN_DECLARE_PATH_KERNEL(avx2, name)
#include "kiln/kernel_table.def"
#undef KILN_KERNEL
#endif
#ifdef KILN_VM_PATH_AVX512
#define KILN_KERNEL(name, bindings, writes, source, iparams, fparams) \
  KILN_DECLARE_PATH_KERNEL(avx512, name)
#include "kiln/kernel_table.def"
#undef KILN_KERNEL
#endif
#ifdef KILN_VM_PATH_NEON
#define KILN_KERNEL(name, bindings, writes, source, iparams, fparams) \
  KILN_DECLARE_PATH_KERNEL(neon, name)
#include "kiln/kernel_table.def"
#undef KILN_KERNEL
#endif
}

#ifdef KILN_VM_PATH_AVX2
#define KILN_AVX2_FN(name) &kiln_avx2_##name
#else
#define KILN_AVX2_FN(name) nullptr
#endif
#ifdef KILN_VM_PATH_AVX512
#define KILN_AVX512_FN(name) &kiln_avx512_##name
#else
#define KILN_AVX512_FN(name) nullptr
#endif
#ifdef KILN_VM_PATH_NEON
#define KILN_NEON_FN(name) &kiln_neon_##name
#else
#define KILN_NEON_FN(name) nullptr
#endif

namespace kiln::vm {
namespace {

// Indexed by KernelPath: portable, avx2, avx512, neon.
const KernelInfo kKernels[] = {
#define KILN_KERNEL(name, bindings, writes, source, iparams, fparams)                    \
  {"kiln_" #name,                                                                        \
   bindings,                                                                             \
   writes,                                                                               \
   source,                                                                               \
   {&kiln_portable_##name, KILN_AVX2_FN(name), KILN_AVX512_FN(name), KILN_NEON_FN(name)}, \
   &kiln_portable_##name##_check},
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
