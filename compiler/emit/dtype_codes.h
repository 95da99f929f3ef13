// The compiler's dtype (compiler/ir/dtype.h) at its two edges: the module's
// enum (fb::DType) and the kernels' parameter codes (kiln_dtype, which
// kiln/kernel_abi.h numbers as module.fbs does).
#ifndef KILN_COMPILER_EMIT_DTYPE_CODES_H_
#define KILN_COMPILER_EMIT_DTYPE_CODES_H_

#include <cstdint>

#include "compiler/ir/dtype.h"
#include "kiln/module_generated.h"

namespace kiln::compiler::emit {

inline fb::DType ModuleDType(ir::DType dtype) {
  switch (dtype) {
#define KILN_DTYPE(name, upper, code, size, text, numpy) \
  case ir::DType::name:              \
    return fb::DType::name;
#include "kiln/dtypes.def"
#undef KILN_DTYPE
    default: return fb::DType::Unknown;
  }
}

// The kiln_dtype code a kernel parameter carries.
inline int64_t KernelDTypeCode(ir::DType dtype) {
  return static_cast<int64_t>(ModuleDType(dtype));
}

}  // namespace kiln::compiler::emit

#endif  // KILN_COMPILER_EMIT_DTYPE_CODES_H_
