#!/usr/bin/python3
"""Writes hand-made malformed modules for the result-symbol (ILOAD) and
output-dim-register (TensorDesc.dim_registers) fields into
tests/malformed/modules/ (checked by tests/malformed/data_symbol_modules_test.cc and
replayed by `scripts/fuzz.sh all 0`).

Each module is a compiled test model (or a small module written here) with
one field broken, round-tripped through flatc's JSON form.

usage: /usr/bin/python3 tests/malformed/make_module_corpus.py KILN
  KILN: a built `kiln` tool (compiles the base models).
"""
import copy
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SCHEMA = os.path.join(ROOT, "schemas", "module.fbs")
OUT = os.path.join(HERE, "modules")

# Opcodes (schemas/kiln/opcodes.def).
VIEW_INPUT, VIEW_OUTPUT, DISPATCH, RETURN = 0x01, 0x02, 0x05, 0x06
ISYM, ISUB, ILOAD = 0x10, 0x13, 0x19


def to_json(kiln_path, tmp):
    subprocess.run(["flatc", "--json", "--raw-binary", "--strict-json", "--defaults-json",
                    "-o", tmp, SCHEMA, "--", kiln_path], check=True)
    base = os.path.splitext(os.path.basename(kiln_path))[0]
    with open(os.path.join(tmp, base + ".json")) as f:
        return json.load(f)


def build(name, module, tmp):
    src = os.path.join(tmp, name + ".json")
    with open(src, "w") as f:
        json.dump(module, f)
    subprocess.run(["flatc", "--binary", "-o", tmp, SCHEMA, src], check=True)
    with open(os.path.join(tmp, name + ".kiln"), "rb") as f:  # the schema's file_extension
        return f.read()


def write(name, module, tmp):
    # flatc does not keep constant_data 64-byte aligned (the verifier wants
    # it so): pad the producer string, written last (flatc builds in JSON
    # order, back to front), until the blob lands aligned.
    blob = bytes(module.get("constant_data", []))
    producer = module.get("producer", "")
    module = {k: v for k, v in module.items() if k != "producer"}
    for pad in range(0, 256):
        module["producer"] = producer + " " * pad
        data = build(name, module, tmp)
        at = data.find(blob) if blob else 0
        if at >= 0 and at % 64 == 0:
            break
    else:
        raise RuntimeError(name + ": cannot align constant_data")
    with open(os.path.join(OUT, name + ".kiln"), "wb") as f:
        f.write(data)
    print("wrote", name + ".kiln", len(data), "bytes")


def compiled(kiln, model, tmp):
    out = os.path.join(tmp, os.path.basename(model).replace(".onnx", ".kiln"))
    subprocess.run([kiln, "compile", os.path.join(ROOT, "tests", "models", model), "-o", out],
                   check=True)
    return to_json(out, tmp)


def zero_dim_static_output():
    """float32 [N,4] -> [N-N,4]: the output's dim 0 is n1 = N - N = 0, but a
    static VIEW_OUTPUT (which assumes every -1 dim is at least 1) lets a
    16-byte copy write into the caller's empty output buffer."""
    code = [ISYM, 0, 0,
            ISUB, 1, 0, 0,
            VIEW_INPUT, 0, 0,
            VIEW_OUTPUT, 1, 0,
            DISPATCH, 0, 2, 0, 1,
            RETURN]
    return {
        "format_version": 1,
        "producer": "kiln-malformed",
        "signature": {
            "inputs": [{"name": "x", "dtype": "F32", "shape": [-1, 4], "dim_symbols": ["N", ""]}],
            "outputs": [{"name": "y", "dtype": "F32", "shape": [-1, 4],
                         "dim_symbols": ["N - N", ""], "dim_registers": [1, -1]}],
        },
        "functions": [{"name": "main", "register_count": 2, "bytecode": code,
                       "int_register_count": 2}],
        "executables": [{"kernel": "kiln_copy", "iparams": [16], "binding_count": 2,
                         "binding_bytes": [16, 16]}],
        "memory": {"arena_size": 0, "arena_alignment": 64, "workspace_register": -1},
        "symbols": ["N"],
    }


def main():
    kiln = sys.argv[1]
    os.makedirs(OUT, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        mask = compiled(kiln, "result/mask_select.onnx", tmp)    # ILOAD, no symbols
        nzb = compiled(kiln, "result/nonzero_batch.onnx", tmp)   # ILOAD and symbol N
        kv = compiled(kiln, "dynamic/kvcache_dynseq.onnx", tmp)  # dim_registers

        def edit(base, fn):
            m = copy.deepcopy(base)
            fn(m)
            return m

        def iload_operand(m, value):
            code = m["functions"][0]["bytecode"]
            pc = code.index(ILOAD)  # the first ILOAD word (verified layout)
            code[pc + 2] = value

        # ILOAD naming result symbol 5 of 1.
        write("iload_result_out_of_range", edit(mask, lambda m: iload_operand(m, 5)), tmp)

        # An ILOAD in a function other than the entry (never called).
        # A called function may load a length, but only one the module has.
        def callee_iload(m):
            m["functions"].append({"name": "callee", "register_count": 1,
                                   "bytecode": [ILOAD, 0, 5, RETURN], "int_register_count": 1})
        write("iload_callee_result_out_of_range", edit(mask, callee_iload), tmp)

        # Result slots past the arena end, straddling it, and misaligned.
        def slot(offset):
            return lambda m: m["result_symbols"][0].__setitem__("arena_offset", offset)
        write("result_slot_outside_arena", edit(mask, slot(448)), tmp)
        write("result_slot_past_uint64", edit(mask, slot(2**64 - 8)), tmp)
        write("result_slot_misaligned", edit(mask, slot(385)), tmp)
        # Two result symbols with one name.
        write("result_symbol_repeated",
              edit(mask, lambda m: m["result_symbols"].append(dict(m["result_symbols"][0]))), tmp)
        # A negative bound.
        write("result_bound_negative",
              edit(mask, lambda m: m["result_symbols"][0].__setitem__("bound", -1)), tmp)
        # An output dim naming the result but not holding its bound.
        write("result_dim_not_bound",
              edit(mask, lambda m: m["signature"]["outputs"][0].__setitem__("shape", [11])), tmp)

        def regs(which, index, value):
            return lambda m: m["signature"][which][index].__setitem__("dim_registers", value)
        # dim_registers on an input, out of range, wrong length, on a static dim.
        write("dim_registers_on_input", edit(kv, regs("inputs", 0, [2, -1])), tmp)
        write("dim_registers_out_of_range", edit(kv, regs("outputs", 1, [100000, -1])), tmp)
        write("dim_registers_negative_huge", edit(kv, regs("outputs", 1, [2, 2**31 - 1])), tmp)
        write("dim_registers_short", edit(kv, regs("outputs", 1, [2])), tmp)
        write("dim_registers_static_dim", edit(kv, regs("outputs", 1, [2, 2])), tmp)
        # An output dim register written only after the entry's first ILOAD
        # (n8 = N * where.length): unknown before the run.
        def after_load(m):
            out = m["signature"]["outputs"][0]
            out["dim_symbols"] = ["N * where.length", out["dim_symbols"][1]]
            out["shape"] = [-1, out["shape"][1]]
            out["dim_registers"] = [8, -1]
        write("dim_register_after_iload", edit(nzb, after_load), tmp)
        # The workspace size in a register an ILOAD feeds (n8), or the ILOAD's own.
        write("workspace_register_after_iload",
              edit(nzb, lambda m: m["memory"].__setitem__("workspace_register", 8)), tmp)
        write("workspace_register_is_iload",
              edit(nzb, lambda m: m["memory"].__setitem__("workspace_register", 7)), tmp)
        # A workspace register the entry never writes.
        def unwritten_ws(m):
            m["functions"][0]["int_register_count"] += 1
            m["memory"]["workspace_register"] = m["functions"][0]["int_register_count"] - 1
        write("workspace_register_unwritten", edit(kv, unwritten_ws), tmp)
        # An output dim register the entry never writes.
        def unwritten_dim(m):
            m["functions"][0]["int_register_count"] += 1
            n = m["functions"][0]["int_register_count"] - 1
            m["signature"]["outputs"][1]["dim_registers"] = [n, -1]
        write("dim_register_unwritten", edit(kv, unwritten_dim), tmp)
        # A zero-length expression dim behind a static VIEW_OUTPUT.
        write("dim_register_zero_static_view", zero_dim_static_output(), tmp)


if __name__ == "__main__":
    main()
