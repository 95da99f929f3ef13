/* Opcode enumeration and operand-kind helpers generated from opcodes.def. */
#ifndef KILN_OPCODES_H_
#define KILN_OPCODES_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum kiln_opcode {
#define KILN_OP(name, code, operands, semantics) KILN_OP_##name = code,
#include "kiln/opcodes.def"
#undef KILN_OP
};

#define KILN_FORMAT_VERSION 1u

/* Returns the operand kind string for `opcode`, or NULL when it is unknown. */
static inline const char* kiln_opcode_operands(uint32_t opcode) {
  switch (opcode) {
#define KILN_OP(name, code, operands, semantics) \
  case code:                                     \
    return operands;
#include "kiln/opcodes.def"
#undef KILN_OP
    default:
      return 0;
  }
}

/* The dynamic-shape opcodes (ISYM and up: integer instructions and the
 * *_DYN views and dispatch), meaningful only in a module with symbols. A
 * macro so that C++ may test it in constant expressions. */
#define KILN_OPCODE_IS_DYNAMIC(opcode) ((uint32_t)(opcode) >= (uint32_t)KILN_OP_ISYM)

static inline int kiln_opcode_is_dynamic(uint32_t opcode) { return KILN_OPCODE_IS_DYNAMIC(opcode); }

/* Integer instructions (shape arithmetic on the symbols): their operands are
 * only integer registers, symbols and immediates, never buffer views. */
static inline int kiln_opcode_is_integer(uint32_t opcode) {
  const char* k = kiln_opcode_operands(opcode);
  if (k == 0 || *k == '\0') return 0;
  for (; *k != '\0'; ++k) {
    if (*k != 'n' && *k != 's' && *k != 'd' && *k != 'q') return 0;
  }
  return 1;
}

/* Integer instructions that write their first operand (all but IASSERT_EQ). */
static inline int kiln_opcode_writes_integer(uint32_t opcode) {
  return kiln_opcode_is_integer(opcode) && opcode != KILN_OP_IASSERT_EQ;
}

/* Returns the mnemonic for `opcode`, or NULL when it is unknown. */
static inline const char* kiln_opcode_name(uint32_t opcode) {
  switch (opcode) {
#define KILN_OP(name, code, operands, semantics) \
  case code:                                     \
    return #name;
#include "kiln/opcodes.def"
#undef KILN_OP
    default:
      return 0;
  }
}

#ifdef __cplusplus
}
#endif

#endif /* KILN_OPCODES_H_ */
