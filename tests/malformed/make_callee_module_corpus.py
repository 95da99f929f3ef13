#!/usr/bin/python3
"""Writes hand-made modules for the dynamic opcodes in called functions and
LOOP_DYN into tests/malformed/modules/ (checked by
tests/malformed/callee_modules_test.cc and replayed by `scripts/fuzz.sh all 0`).

Each is a small module written here: input x float32 [N], output y
float32 [1] (copied from a zeroed arena slot), and the construct under test.

usage: /usr/bin/python3 tests/malformed/make_callee_module_corpus.py
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_module_corpus as corpus  # noqa: E402  (write(): flatc JSON -> .kiln)

# Opcodes (schemas/kiln/opcodes.def).
VIEW_OUTPUT, VIEW_ARENA, DISPATCH, RETURN, IF = 0x02, 0x04, 0x05, 0x06, 0x07
ISYM, ICONST, IADD, IMAX, IASSERT_EQ = 0x10, 0x11, 0x12, 0x17, 0x18
LOOP_DYN = 0x24
NONE = 0xFFFFFFFF  # an 'R' operand naming no register


def q(value):
    """A 64-bit operand as two words, low first (two's complement)."""
    value &= (1 << 64) - 1
    return [value & 0xFFFFFFFF, value >> 32]


def module(functions):
    """functions: (bytecode, registers, integer registers) per function; the
    entry's code follows r0 = arena[192..196), r1 = output 0, copy r0 -> r1."""
    head = [VIEW_ARENA, 0] + q(192) + q(4) + [VIEW_OUTPUT, 1, 0, DISPATCH, 0, 2, 0, 1]
    fs = []
    for k, (code, registers, ints) in enumerate(functions):
        fs.append({"name": "main" if k == 0 else "f%d" % k, "register_count": registers,
                   "bytecode": (head if k == 0 else []) + code, "int_register_count": ints})
    return {
        "format_version": 1,
        "producer": "kiln-malformed",
        "signature": {
            "inputs": [{"name": "x", "dtype": "F32", "shape": [-1], "dim_symbols": ["N"]}],
            "outputs": [{"name": "y", "dtype": "F32", "shape": [1]}],
        },
        "functions": fs,
        "executables": [{"kernel": "kiln_copy", "iparams": [4], "binding_count": 2,
                         "binding_bytes": [4, 4]}],
        "memory": {"arena_size": 256, "arena_alignment": 64, "workspace_register": -1},
        "symbols": ["N"],
    }


def loop_dyn(trip_code, expected_code):
    """Entry: n0 = trip, n1 = expected, r2 = iteration slot, LOOP_DYN of an
    empty body with neither condition."""
    return module([
        (trip_code + expected_code + [VIEW_ARENA, 2] + q(0) + q(8) +
         [LOOP_DYN, 1, 0, NONE, 2, NONE, 1, RETURN], 3, 2),
        ([RETURN], 1, 0)])


def doubling(add_opcode, registers):
    """n0 = N, n(k+1) = n(k) op n(k): an expression whose text doubles at
    each step (kiln inspect and the requirement message spell it out)."""
    code = [ISYM, 0, 0]
    for k in range(registers - 1):
        code += [add_opcode, k + 1, k, k]
    return code


def main():
    os.makedirs(corpus.OUT, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        # Trip INT64_MAX means no limit: without a condition the body sets,
        # the loop never ends (hung the VM; LOOP's equivalent was refused).
        corpus.write("loop_dyn_unbounded",
                     loop_dyn([ICONST, 0] + q(2**63 - 1), [ICONST, 1] + q(-1)), tmp)
        # A negative trip count: the body never runs (accepted, runs).
        corpus.write("loop_dyn_negative_trip",
                     loop_dyn([ICONST, 0] + q(-5), [ICONST, 1] + q(-1)), tmp)
        # An expected count of 2^62 the trip N never reaches: the run fails.
        corpus.write("loop_dyn_expected_huge",
                     loop_dyn([ISYM, 0, 0], [ICONST, 1] + q(2**62)), tmp)
        # A failing IASSERT_EQ on a register whose expression doubles 60
        # times: its message took gigabytes (out of memory), so did inspect.
        corpus.write("iassert_expression_blowup", module([
            (doubling(IADD, 61) + [IASSERT_EQ, 60, 0, RETURN], 2, 61)]), tmp)
        # The same in a function an IF calls (n60 = N, required to be 0).
        corpus.write("callee_iassert_expression_blowup", module([
            ([VIEW_ARENA, 2] + q(0) + q(1) + [IF, 2, 1, 1, RETURN], 3, 0),
            (doubling(IMAX, 61) + [ICONST, 61] + q(0) + [IASSERT_EQ, 60, 61, RETURN], 1, 62)]),
            tmp)


if __name__ == "__main__":
    main()
