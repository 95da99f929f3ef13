// Turns symbolic dims (ir/dim_expr.h) into integer bytecode: each distinct
// expression is computed once, into its own integer register, where it is
// first needed. Expressions of the symbols only go at the start of the entry
// function; those of data symbols after the ILOAD of each (Load).
#ifndef KILN_COMPILER_EMIT_SHAPE_PROGRAM_H_
#define KILN_COMPILER_EMIT_SHAPE_PROGRAM_H_

#include <cstdint>
#include <map>

#include "compiler/emit/bytecode_builder.h"
#include "compiler/ir/dim_expr.h"

namespace kiln::compiler::emit {

class ShapeProgram {
 public:
  ShapeProgram(const ir::DimPool& dims, BytecodeBuilder& bc) : dims_(dims), bc_(bc) {}

  // The integer register holding `dim` (static or encoded), emitting the
  // instructions that compute it on first use.
  uint32_t Register(int64_t dim);

  // Emits ILOAD of data symbol `data` (DimPool::data_symbols()), whose
  // count the module keeps as result symbol `result`.
  void Load(int32_t data, uint32_t result);
  // Whether every data symbol `dim` involves has been loaded.
  bool Ready(int64_t dim) const;
  // False once Register met a data symbol not loaded yet (a lowering bug:
  // the register would be read before it is set).
  bool ok() const { return ok_; }

 private:
  uint32_t AtomRegister(int32_t atom);

  const ir::DimPool& dims_;
  BytecodeBuilder& bc_;
  std::map<int64_t, uint32_t> dim_regs_;
  std::map<int32_t, uint32_t> atom_regs_;
  bool ok_ = true;
};

}  // namespace kiln::compiler::emit

#endif  // KILN_COMPILER_EMIT_SHAPE_PROGRAM_H_
