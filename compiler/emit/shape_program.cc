#include "compiler/emit/shape_program.h"

#include "kiln/opcodes.h"

namespace kiln::compiler::emit {

uint32_t ShapeProgram::AtomRegister(int32_t atom) {
  auto it = atom_regs_.find(atom);
  if (it != atom_regs_.end()) return it->second;
  const ir::DimPool::Atom& a = dims_.AtomAt(atom);
  uint32_t reg;
  if (a.kind == ir::DimPool::AtomKind::kData) {
    ok_ = false;  // Load() sets these
    return bc_.NewIntRegister();
  }
  if (a.kind == ir::DimPool::AtomKind::kSymbol) {
    reg = bc_.NewIntRegister();
    bc_.IntSymbol(reg, static_cast<uint32_t>(a.symbol));
  } else {
    const uint32_t lhs = Register(a.a), rhs = Register(a.b);
    reg = bc_.NewIntRegister();
    if (a.kind == ir::DimPool::AtomKind::kMod) {
      // No opcode of its own: a - b * floor(a / b), IDIV refusing b <= 0.
      const uint32_t quotient = bc_.NewIntRegister(), multiple = bc_.NewIntRegister();
      bc_.IntBinary(KILN_OP_IDIV, quotient, lhs, rhs);
      bc_.IntBinary(KILN_OP_IMUL, multiple, quotient, rhs);
      bc_.IntBinary(KILN_OP_ISUB, reg, lhs, multiple);
    } else {
      const uint32_t opcode = a.kind == ir::DimPool::AtomKind::kFloorDiv ? KILN_OP_IDIV
                              : a.kind == ir::DimPool::AtomKind::kMin    ? KILN_OP_IMIN
                                                                         : KILN_OP_IMAX;
      bc_.IntBinary(opcode, reg, lhs, rhs);
    }
  }
  atom_regs_[atom] = reg;
  return reg;
}

void ShapeProgram::Load(int32_t data, uint32_t result) {
  const uint32_t reg = bc_.NewIntRegister();
  bc_.IntLoad(reg, result);
  atom_regs_[dims_.data_symbols()[static_cast<size_t>(data)].atom] = reg;
}

bool ShapeProgram::Ready(int64_t dim) const {
  if (!dims_.Known(dim)) return true;
  for (const ir::DimPool::Term& t : dims_.PolyOf(dim)) {
    for (int32_t id : t.atoms) {
      const ir::DimPool::Atom& a = dims_.AtomAt(id);
      if (a.kind == ir::DimPool::AtomKind::kData && !atom_regs_.count(id)) return false;
      if (a.kind != ir::DimPool::AtomKind::kData && a.kind != ir::DimPool::AtomKind::kSymbol &&
          (!Ready(a.a) || !Ready(a.b))) {
        return false;
      }
    }
  }
  return true;
}

uint32_t ShapeProgram::Register(int64_t dim) {
  auto it = dim_regs_.find(dim);
  if (it != dim_regs_.end()) return it->second;
  uint32_t reg;
  if (!ir::IsSymbolic(dim)) {
    reg = bc_.NewIntRegister();
    bc_.IntConst(reg, dim);
  } else {
    // Sum of terms, each its coefficient times its atoms.
    bool first_term = true;
    reg = 0;
    for (const ir::DimPool::Term& t : dims_.PolyOf(dim)) {
      uint32_t term;
      if (t.atoms.empty()) {
        term = Register(t.coeff);
      } else {
        term = AtomRegister(t.atoms[0]);
        for (size_t k = 1; k < t.atoms.size(); ++k) {
          const uint32_t product = bc_.NewIntRegister();
          bc_.IntBinary(KILN_OP_IMUL, product, term, AtomRegister(t.atoms[k]));
          term = product;
        }
        if (t.coeff != 1) {
          const uint32_t scaled = bc_.NewIntRegister();
          bc_.IntBinary(KILN_OP_IMUL, scaled, term, Register(t.coeff));
          term = scaled;
        }
      }
      if (first_term) {
        reg = term;
        first_term = false;
      } else {
        const uint32_t sum = bc_.NewIntRegister();
        bc_.IntBinary(KILN_OP_IADD, sum, reg, term);
        reg = sum;
      }
    }
  }
  dim_regs_[dim] = reg;
  return reg;
}

}  // namespace kiln::compiler::emit
