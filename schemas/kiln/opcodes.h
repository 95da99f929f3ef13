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
