// Element sizes and names of the module's dtypes, shared by every reader and
// writer of modules.
#ifndef KILN_DTYPE_H_
#define KILN_DTYPE_H_

#include <cstddef>

#include "kiln/module_generated.h"

namespace kiln {

// Bytes per element; 0 for Unknown or a value outside the enum.
inline size_t DTypeSize(fb::DType dtype) {
  switch (dtype) {
    case fb::DType::F32: return 4;
    case fb::DType::F16: return 2;
    case fb::DType::F64: return 8;
    case fb::DType::I8: return 1;
    case fb::DType::I16: return 2;
    case fb::DType::I32: return 4;
    case fb::DType::I64: return 8;
    case fb::DType::U8: return 1;
    case fb::DType::Bool: return 1;
    case fb::DType::U16: return 2;
    case fb::DType::U32: return 4;
    case fb::DType::U64: return 8;
    case fb::DType::BF16: return 2;
    default: return 0;
  }
}

// NumPy-style name ("float32"), or "unknown".
inline const char* DTypeName(fb::DType dtype) {
  switch (dtype) {
    case fb::DType::F32: return "float32";
    case fb::DType::F16: return "float16";
    case fb::DType::F64: return "float64";
    case fb::DType::I8: return "int8";
    case fb::DType::I16: return "int16";
    case fb::DType::I32: return "int32";
    case fb::DType::I64: return "int64";
    case fb::DType::U8: return "uint8";
    case fb::DType::Bool: return "bool";
    case fb::DType::U16: return "uint16";
    case fb::DType::U32: return "uint32";
    case fb::DType::U64: return "uint64";
    case fb::DType::BF16: return "bfloat16";
    default: return "unknown";
  }
}

}  // namespace kiln

#endif  // KILN_DTYPE_H_
