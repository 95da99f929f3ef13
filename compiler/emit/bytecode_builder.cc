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

void BytecodeBuilder::If(uint32_t condition, uint32_t then_function, uint32_t else_function) {
  Emit(KILN_OP_IF);
  Emit(condition);
  Emit(then_function);
  Emit(else_function);
}

void BytecodeBuilder::Loop(uint32_t body, uint32_t trip, uint32_t condition, uint32_t iteration,
                           uint32_t condition_after, uint64_t expected_iterations) {
  Emit(KILN_OP_LOOP);
  Emit(body);
  Emit(trip);
  Emit(condition);
  Emit(iteration);
  Emit(condition_after);
  Emit64(expected_iterations);
}

void BytecodeBuilder::LoopDyn(uint32_t body, uint32_t trip_ireg, uint32_t condition,
                              uint32_t iteration, uint32_t condition_after, uint32_t expected_ireg) {
  Emit(KILN_OP_LOOP_DYN);
  Emit(body);
  Emit(trip_ireg);
  Emit(condition);
  Emit(iteration);
  Emit(condition_after);
  Emit(expected_ireg);
}

void BytecodeBuilder::Control(uint32_t opcode, const std::vector<uint32_t>& functions,
                              const std::vector<uint32_t>& registers,
                              uint64_t expected_iterations) {
  if (opcode == KILN_OP_IF) {
    If(registers[0], functions[0], functions[1]);
  } else {
    Loop(functions[0], registers[0], registers[1], registers[2], registers[3], expected_iterations);
  }
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

void BytecodeBuilder::IntSymbol(uint32_t ireg, uint32_t symbol) {
  Emit(KILN_OP_ISYM);
  Emit(ireg);
  Emit(symbol);
}

void BytecodeBuilder::IntConst(uint32_t ireg, int64_t value) {
  Emit(KILN_OP_ICONST);
  Emit(ireg);
  Emit64(static_cast<uint64_t>(value));
}

void BytecodeBuilder::IntLoad(uint32_t ireg, uint32_t result_symbol) {
  Emit(KILN_OP_ILOAD);
  Emit(ireg);
  Emit(result_symbol);
}

void BytecodeBuilder::IntAssertEq(uint32_t a, uint32_t b) {
  Emit(KILN_OP_IASSERT_EQ);
  Emit(a);
  Emit(b);
}

void BytecodeBuilder::IntBinary(uint32_t opcode, uint32_t ireg, uint32_t a, uint32_t b) {
  Emit(opcode);
  Emit(ireg);
  Emit(a);
  Emit(b);
}

void BytecodeBuilder::ViewInputDyn(uint32_t reg, uint32_t input, uint32_t size_ireg) {
  Emit(KILN_OP_VIEW_INPUT_DYN);
  Emit(reg);
  Emit(input);
  Emit(size_ireg);
}

void BytecodeBuilder::ViewOutputDyn(uint32_t reg, uint32_t output, uint32_t size_ireg) {
  Emit(KILN_OP_VIEW_OUTPUT_DYN);
  Emit(reg);
  Emit(output);
  Emit(size_ireg);
}

void BytecodeBuilder::ViewArenaDyn(uint32_t reg, uint32_t offset_ireg, uint32_t size_ireg) {
  Emit(KILN_OP_VIEW_ARENA_DYN);
  Emit(reg);
  Emit(offset_ireg);
  Emit(size_ireg);
}

uint32_t BytecodeBuilder::DispatchDyn(uint32_t executable, const std::vector<uint32_t>& bindings,
                                      const std::vector<std::pair<uint32_t, uint32_t>>& patches) {
  const uint32_t at = static_cast<uint32_t>(words_.size());
  Emit(KILN_OP_DISPATCH_DYN);
  Emit(executable);
  Emit(static_cast<uint32_t>(bindings.size()));
  for (uint32_t r : bindings) Emit(r);
  Emit(static_cast<uint32_t>(patches.size()));
  for (const auto& [index, ireg] : patches) {
    Emit(index);
    Emit(ireg);
  }
  return at;
}

}  // namespace kiln::compiler::emit
