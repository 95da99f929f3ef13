// The integer binary opcodes' table (schemas/kiln/opcodes.def
// KILN_INT_BINARY) as the interpreter and the verifier evaluate it
// (vm/int_binary.h): each opcode against the arithmetic done here in 128
// bits, over values up to the int64 limits, overflow refused; the table's
// helper names and text exactly for the "nnn" opcodes.
#include "vm/int_binary.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace {

using kiln::vm::EvalIntBinary;

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

// The exact result in 128 bits; `defined` false where the opcode refuses
// (a divisor below 1).
__int128 Exact(uint32_t opcode, int64_t a, int64_t b, bool* defined) {
  *defined = true;
  const __int128 x = a, y = b;
  switch (opcode) {
    case KILN_OP_IADD: return x + y;
    case KILN_OP_ISUB: return x - y;
    case KILN_OP_IMUL: return x * y;
    case KILN_OP_IDIV: {
      if (y < 1) {
        *defined = false;
        return 0;
      }
      __int128 q = x / y;  // truncates; floor for a negative inexact quotient
      if (q * y != x && x < 0) q -= 1;
      return q;
    }
    case KILN_OP_IMIN: return x < y ? x : y;
    case KILN_OP_IMAX: return x > y ? x : y;
    default: ADD_FAILURE() << "opcode " << opcode; return 0;
  }
}

TEST(IntBinary, EachOpcodeComputesItsArithmeticAndRefusesOverflow) {
  const std::vector<int64_t> values = {kMin, kMin + 1, -(int64_t{1} << 40), -7, -2, -1, 0, 1,
                                       2, 3, 7, int64_t{1} << 31, int64_t{1} << 40, kMax - 1,
                                       kMax};
  const uint32_t opcodes[] = {KILN_OP_IADD, KILN_OP_ISUB, KILN_OP_IMUL,
                              KILN_OP_IDIV, KILN_OP_IMIN, KILN_OP_IMAX};
  for (uint32_t opcode : opcodes) {
    for (int64_t a : values) {
      for (int64_t b : values) {
        bool defined = false;
        const __int128 want = Exact(opcode, a, b, &defined);
        const bool fits = defined && want >= kMin && want <= kMax;
        int64_t got = 12345;
        const int rc = EvalIntBinary(opcode, a, b, &got);
        if (fits) {
          EXPECT_EQ(rc, KILN_OK) << kiln_opcode_name(opcode) << "(" << a << ", " << b << ")";
          EXPECT_EQ(got, static_cast<int64_t>(want))
              << kiln_opcode_name(opcode) << "(" << a << ", " << b << ")";
        } else {
          EXPECT_EQ(rc, KILN_ERR_OUT_OF_RANGE)
              << kiln_opcode_name(opcode) << "(" << a << ", " << b << ") must fail";
        }
      }
    }
  }
}

TEST(IntBinary, TheTableCoversExactlyTheThreeRegisterOpcodes) {
  int rows = 0;
  for (uint32_t opcode = 0; opcode < 256; ++opcode) {
    const char* kinds = kiln_opcode_operands(opcode);
    const bool binary = kinds != nullptr && std::string(kinds) == "nnn";
    const char* helper = kiln_int_binary_helper_name(opcode);
    const char* text = kiln_int_binary_text(opcode);
    EXPECT_EQ(helper != nullptr, binary) << "opcode " << opcode;
    EXPECT_EQ(text != nullptr, binary) << "opcode " << opcode;
    if (!binary) {
      int64_t out = 0;
      EXPECT_EQ(EvalIntBinary(opcode, 1, 1, &out), KILN_ERR_INVALID_ARGUMENT);
      continue;
    }
    ++rows;
    EXPECT_EQ(std::strncmp(helper, "kiln_i", 6), 0) << helper;
    EXPECT_GT(std::strlen(text), 0u);
  }
  EXPECT_EQ(rows, 6);
}

}  // namespace
