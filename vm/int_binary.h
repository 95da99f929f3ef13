// The integer binary opcodes (schemas/kiln/opcodes.def KILN_INT_BINARY):
// their evaluation, which the interpreter and the verifier's folding of known
// values share, and the compile-time check that the table and the opcodes
// agree (every "nnn" opcode has a row, every row is an "nnn" opcode). The AOT
// emitter names the same helpers (kiln_int_binary_helper_name).
#ifndef KILN_VM_INT_BINARY_H_
#define KILN_VM_INT_BINARY_H_

#include <cstdint>

#include "kiln/dynamic_ops.h"
#include "kiln/kernel_abi.h"
#include "kiln/opcodes.h"

namespace kiln::vm {

// a op b into *out: KILN_OK, or the helper's error (overflow, a divisor
// below 1); KILN_ERR_INVALID_ARGUMENT for an opcode that is not one.
inline int EvalIntBinary(uint32_t opcode, int64_t a, int64_t b, int64_t* out) {
  switch (opcode) {
#define KILN_INT_BINARY(name, helper, text) \
  case KILN_OP_##name:                      \
    return helper(a, b, out);
#include "kiln/opcodes.def"
#undef KILN_INT_BINARY
    default:
      return KILN_ERR_INVALID_ARGUMENT;
  }
}

namespace int_binary_check {

constexpr bool SameText(const char* a, const char* b) {
  if (a == nullptr || b == nullptr) return a == b;
  for (; *a != '\0' && *a == *b; ++a, ++b) {
  }
  return *a == *b;
}

constexpr int ThreeRegisterOpcodes() {
  int n = 0;
#define KILN_OP(name, code, operands, semantics) n += SameText(operands, "nnn") ? 1 : 0;
#include "kiln/opcodes.def"
#undef KILN_OP
  return n;
}

constexpr int TableRows() {
  int n = 0;
#define KILN_INT_BINARY(name, helper, text) \
  static_assert(SameText(kiln_opcode_operands(KILN_OP_##name), "nnn"), \
                #name " in the KILN_INT_BINARY table is not an \"nnn\" opcode"); \
  ++n;
#include "kiln/opcodes.def"
#undef KILN_INT_BINARY
  return n;
}

static_assert(ThreeRegisterOpcodes() == TableRows(),
              "an \"nnn\" opcode of opcodes.def has no KILN_INT_BINARY row");

}  // namespace int_binary_check

}  // namespace kiln::vm

#endif  // KILN_VM_INT_BINARY_H_
