// Element sizes and names of the module's dtypes, shared by every reader of
// modules (the table: runtime/include/kiln/dtypes.def).
#ifndef KILN_VM_DTYPE_H_
#define KILN_VM_DTYPE_H_

#include <cstddef>

#include "kiln/module_generated.h"

namespace kiln {

// The table's codes are the module format's.
#define KILN_DTYPE(name, upper, code, size, text, numpy) \
  static_assert(static_cast<int>(fb::DType::name) == code, "dtypes.def: " #name);
#include "kiln/dtypes.def"
#undef KILN_DTYPE

// Bytes per element; 0 for Unknown or a value outside the enum.
inline size_t DTypeSize(fb::DType dtype) {
  switch (dtype) {
#define KILN_DTYPE(name, upper, code, size, text, numpy) \
  case fb::DType::name:              \
    return size;
#include "kiln/dtypes.def"
#undef KILN_DTYPE
    default: return 0;
  }
}

// NumPy-style name ("float32"), or "unknown".
inline const char* DTypeName(fb::DType dtype) {
  switch (dtype) {
#define KILN_DTYPE(name, upper, code, size, text, numpy) \
  case fb::DType::name:              \
    return text;
#include "kiln/dtypes.def"
#undef KILN_DTYPE
    default: return "unknown";
  }
}

}  // namespace kiln

#endif  // KILN_VM_DTYPE_H_
