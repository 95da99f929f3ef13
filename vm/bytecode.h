// Decoding of instruction boundaries for bytecode that has passed the
// verifier. The disassembler and the AOT emitter walk functions with it; the
// verifier walks the same format with checks, using the same operand table.
#ifndef KILN_VM_BYTECODE_H_
#define KILN_VM_BYTECODE_H_

#include <cstdint>

#include "kiln/opcodes.h"

namespace kiln::vm {

struct Instruction {
  uint32_t offset;          // word offset of the opcode
  uint32_t opcode;
  const uint32_t* operands; // the words after the opcode
  uint32_t length;          // words including the opcode
};

// Number of words the operands of kind string `kinds` occupy, given the
// operand words that follow the opcode (for 'L', the count word is read).
inline uint32_t OperandWords(const char* kinds, const uint32_t* operands) {
  uint32_t words = 0;
  for (const char* k = kinds; *k != '\0'; ++k) {
    if (*k == 'q') {
      words += 2;
    } else if (*k == 'L') {
      words += 1 + operands[words];
    } else if (*k == 'P') {
      words += 1 + 2 * operands[words];
    } else {
      words += 1;
    }
  }
  return words;
}

// The instruction at `offset` of verified bytecode.
inline Instruction DecodeVerified(const uint32_t* code, uint32_t offset) {
  Instruction inst;
  inst.offset = offset;
  inst.opcode = code[offset];
  inst.operands = code + offset + 1;
  inst.length = 1 + OperandWords(kiln_opcode_operands(inst.opcode), inst.operands);
  return inst;
}

inline uint64_t ReadU64(const uint32_t* words) {
  return uint64_t{words[0]} | (uint64_t{words[1]} << 32);
}

}  // namespace kiln::vm

#endif  // KILN_VM_BYTECODE_H_
