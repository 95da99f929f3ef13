// Serialises a lowered module into the schemas/module.fbs flatbuffer.
#ifndef KILN_COMPILER_EMIT_MODULE_WRITER_H_
#define KILN_COMPILER_EMIT_MODULE_WRITER_H_

#include <string>

#include "absl/status/statusor.h"
#include "compiler/emit/lowering.h"

namespace kiln::compiler::emit {

// Producer string recorded in every module.
inline constexpr char kProducer[] = "kiln 0.1";

// The module bytes, with file identifier "KILN". Each constant starts at a
// 64-byte aligned offset of constant_data, itself 64-byte aligned relative to
// the buffer start.
absl::StatusOr<std::string> WriteModule(const LoweredModule& module);

}  // namespace kiln::compiler::emit

#endif  // KILN_COMPILER_EMIT_MODULE_WRITER_H_
