// The compiler's element types, from the one table of them
// (runtime/include/kiln/dtypes.def). The module format (fb::DType) and the kernels
// (kiln_dtype) have enums of their own; compiler/emit/dtype_codes.h converts
// at those edges, so the IR depends on neither.
#ifndef KILN_COMPILER_IR_DTYPE_H_
#define KILN_COMPILER_IR_DTYPE_H_

#include <cstddef>
#include <cstdint>

namespace kiln::ir {

enum class DType : uint8_t {
  Unknown,
#define KILN_DTYPE(name, upper, code, size, text, numpy) name = code,
#include "kiln/dtypes.def"
#undef KILN_DTYPE
};

// Bytes per element; 0 for Unknown.
inline size_t DTypeSize(DType dtype) {
  switch (dtype) {
#define KILN_DTYPE(name, upper, code, size, text, numpy) \
  case DType::name:                  \
    return size;
#include "kiln/dtypes.def"
#undef KILN_DTYPE
    default: return 0;
  }
}

// "float32", "int64", ...; "unknown".
inline const char* DTypeName(DType dtype) {
  switch (dtype) {
#define KILN_DTYPE(name, upper, code, size, text, numpy) \
  case DType::name:                  \
    return text;
#include "kiln/dtypes.def"
#undef KILN_DTYPE
    default: return "unknown";
  }
}

// float32, float64, float16 or bfloat16.
inline bool IsFloat(DType dtype) {
  return dtype == DType::F32 || dtype == DType::F64 || dtype == DType::F16 ||
         dtype == DType::BF16;
}

}  // namespace kiln::ir

#endif  // KILN_COMPILER_IR_DTYPE_H_
