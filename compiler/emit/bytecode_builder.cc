#include "compiler/emit/bytecode_builder.h"

#include "kiln/opcodes.h"

namespace kiln::compiler::emit {

void BytecodeBuilder::Emit64(uint64_t value) {
  Emit(static_cast<uint32_t>(value & 0xffffffffu));  // 'q': low word first
  Emit(static_cast<uint32_t>(value >> 32));
}

void BytecodeBuilder::ViewInput(uint32_t reg, uint32_t input) {
  Emit(KILN_OP_VIEW_INPUT);
  Emit(reg);
  Emit(input);
}

void BytecodeBuilder::ViewOutput(uint32_t reg, uint32_t output) {
  Emit(KILN_OP_VIEW_OUTPUT);
  Emit(reg);
  Emit(output);
}

void BytecodeBuilder::ViewConst(uint32_t reg, uint32_t constant) {
  Emit(KILN_OP_VIEW_CONST);
  Emit(reg);
  Emit(constant);
}

void BytecodeBuilder::ViewArena(uint32_t reg, uint64_t offset, uint64_t size) {
  Emit(KILN_OP_VIEW_ARENA);
  Emit(reg);
  Emit64(offset);
  Emit64(size);
}

uint32_t BytecodeBuilder::Dispatch(uint32_t executable, const std::vector<uint32_t>& bindings) {
  const uint32_t at = static_cast<uint32_t>(words_.size());
  Emit(KILN_OP_DISPATCH);
  Emit(executable);
  Emit(static_cast<uint32_t>(bindings.size()));
  for (uint32_t r : bindings) Emit(r);
  return at;
}

void BytecodeBuilder::Return() { Emit(KILN_OP_RETURN); }

}  // namespace kiln::compiler::emit
