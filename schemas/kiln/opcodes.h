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

/* Constant expressions in C++ (vm/int_binary.h checks its table with them). */
#ifdef __cplusplus
#define KILN_OPCODES_CONSTEXPR constexpr
#else
#define KILN_OPCODES_CONSTEXPR
#endif

/* Returns the operand kind string for `opcode`, or NULL when it is unknown. */
static KILN_OPCODES_CONSTEXPR inline const char* kiln_opcode_operands(uint32_t opcode) {
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

/* For an integer binary opcode (opcodes.def KILN_INT_BINARY): the name of
 * the kiln/dynamic_ops.h helper that computes it, and how `kiln inspect`
 * writes it (an infix operator, or a function name and "("); NULL for any
 * other opcode. */
static inline const char* kiln_int_binary_helper_name(uint32_t opcode) {
  switch (opcode) {
#define KILN_INT_BINARY(name, helper, text) \
  case KILN_OP_##name:                      \
    return #helper;
#include "kiln/opcodes.def"
#undef KILN_INT_BINARY
    default:
      return 0;
  }
}

static inline const char* kiln_int_binary_text(uint32_t opcode) {
  switch (opcode) {
#define KILN_INT_BINARY(name, helper, text) \
  case KILN_OP_##name:                      \
    return text;
#include "kiln/opcodes.def"
#undef KILN_INT_BINARY
    default:
      return 0;
  }
}

#ifdef __cplusplus
}
#endif

#endif /* KILN_OPCODES_H_ */
