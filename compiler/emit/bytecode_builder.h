// Appends instructions of the Kiln bytecode (schemas/kiln/opcodes.def).
#ifndef KILN_COMPILER_EMIT_BYTECODE_BUILDER_H_
#define KILN_COMPILER_EMIT_BYTECODE_BUILDER_H_

#include <cstdint>
#include <utility>
#include <vector>

namespace kiln::compiler::emit {

class BytecodeBuilder {
 public:
  // A fresh register; register_count() is one past the highest handed out.
  uint32_t NewRegister() { return register_count_++; }
  uint32_t register_count() const { return register_count_; }

  void ViewInput(uint32_t reg, uint32_t input);
  void ViewOutput(uint32_t reg, uint32_t output);
  void ViewConst(uint32_t reg, uint32_t constant);
  void ViewArena(uint32_t reg, uint64_t offset, uint64_t size);
  // Returns the word offset of the DISPATCH opcode.
  uint32_t Dispatch(uint32_t executable, const std::vector<uint32_t>& bindings);
  void Return();
  // Control flow; `none` operands are KILN_NO_REGISTER (kiln/control_ops.h).
  void If(uint32_t condition, uint32_t then_function, uint32_t else_function);
  void Loop(uint32_t body, uint32_t trip, uint32_t condition, uint32_t iteration,
            uint32_t condition_after, uint64_t expected_iterations);
  // LOOP with the trip count and expected iterations in integer registers.
  void LoopDyn(uint32_t body, uint32_t trip_ireg, uint32_t condition, uint32_t iteration,
               uint32_t condition_after, uint32_t expected_ireg);
  // IF or LOOP by opcode, with register operands in opcode order.
  void Control(uint32_t opcode, const std::vector<uint32_t>& functions,
               const std::vector<uint32_t>& registers, uint64_t expected_iterations);

  // Integer registers and the dynamic-shape instructions.
  uint32_t NewIntRegister() { return int_register_count_++; }
  uint32_t int_register_count() const { return int_register_count_; }
  void IntSymbol(uint32_t ireg, uint32_t symbol);
  void IntConst(uint32_t ireg, int64_t value);
  void IntAssertEq(uint32_t a, uint32_t b);
  void IntLoad(uint32_t ireg, uint32_t result_symbol);
  // `opcode` is one of IADD, ISUB, IMUL, IDIV, IMIN, IMAX.
  void IntBinary(uint32_t opcode, uint32_t ireg, uint32_t a, uint32_t b);
  void ViewInputDyn(uint32_t reg, uint32_t input, uint32_t size_ireg);
  void ViewOutputDyn(uint32_t reg, uint32_t output, uint32_t size_ireg);
  void ViewArenaDyn(uint32_t reg, uint32_t offset_ireg, uint32_t size_ireg);
  // patches: (iparam index, integer register). Returns the opcode's offset.
  uint32_t DispatchDyn(uint32_t executable, const std::vector<uint32_t>& bindings,
                       const std::vector<std::pair<uint32_t, uint32_t>>& patches);

  const std::vector<uint32_t>& words() const { return words_; }

 private:
  void Emit(uint32_t word) { words_.push_back(word); }
  void Emit64(uint64_t value);

  std::vector<uint32_t> words_;
  uint32_t register_count_ = 0;
  uint32_t int_register_count_ = 0;
};

}  // namespace kiln::compiler::emit

#endif  // KILN_COMPILER_EMIT_BYTECODE_BUILDER_H_
