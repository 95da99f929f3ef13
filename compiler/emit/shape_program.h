// Turns symbolic dims (ir/dim_expr.h) into integer bytecode: each distinct
// expression is computed once, into its own integer register, at the start
// of the entry function (every expression depends only on the symbols).
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

 private:
  uint32_t AtomRegister(int32_t atom);

  const ir::DimPool& dims_;
  BytecodeBuilder& bc_;
  std::map<int64_t, uint32_t> dim_regs_;
  std::map<int32_t, uint32_t> atom_regs_;
};

}  // namespace kiln::compiler::emit

#endif  // KILN_COMPILER_EMIT_SHAPE_PROGRAM_H_
