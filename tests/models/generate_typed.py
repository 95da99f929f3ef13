#!/usr/bin/python3
"""Writes the end-to-end test models for non-float32 dtypes (casts,
comparisons, logic, Where, IsNaN/IsInf, integer and float64 arithmetic).

Run with Debian's interpreter (onnx 1.12, numpy 1.24):
  /usr/bin/python3 tests/models/generate_typed.py

Same layout as generate.py: tests/models/NAME.onnx, NAME.input<i>.npy,
NAME.output<i>.npy, but inputs and outputs keep their own dtypes (int8..uint64,
float16, float64, bool). References are computed here with NumPy, independently
of Kiln, following the ONNX semantics (integer Div truncates toward zero,
Cast float->int truncates, comparisons with NaN are false). The e2e test
compares non-float32 outputs exactly. Fixed seeds: reruns write identical files.
"""
import os

import numpy as np
import onnx
from onnx import TensorProto as TP, helper

HERE = os.path.dirname(os.path.abspath(__file__))
OPSET = 15  # CastLike needs 15


def save(name, nodes, inputs, outputs, feeds, refs, initializers=()):
    """inputs/outputs: [(name, TensorProto type, shape)]; feeds/refs: arrays."""
    graph = helper.make_graph(
        nodes, name,
        [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
        [helper.make_tensor_value_info(n, t, s) for n, t, s in outputs],
        initializer=list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="kiln-generate-typed")
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(HERE, name + ".onnx"))
    for i, a in enumerate(feeds):
        np.save(os.path.join(HERE, f"{name}.input{i}.npy"), a)
    for i, a in enumerate(refs):
        assert a.dtype == {TP.FLOAT: np.float32, TP.BOOL: np.bool_, TP.INT64: np.int64,
                           TP.INT32: np.int32, TP.INT8: np.int8, TP.UINT8: np.uint8,
                           TP.UINT16: np.uint16, TP.FLOAT16: np.float16,
                           TP.DOUBLE: np.float64, TP.UINT64: np.uint64}[outputs[i][1]], name
        np.save(os.path.join(HERE, f"{name}.output{i}.npy"), a)


def trunc_div(a, b):
    """ONNX integer Div: C-style truncation toward zero, exact in float64 here."""
    return np.trunc(a.astype(np.float64) / b.astype(np.float64)).astype(a.dtype)


def int32_arith(rng):
    a = rng.integers(-1000, 1000, size=(2, 3)).astype(np.int32)
    b = rng.integers(1, 50, size=(3,)).astype(np.int32) * np.array([1, -1, 1], np.int32)
    nodes = [helper.make_node(op, ["a", "b"], [op.lower()]) for op in ("Add", "Sub", "Mul", "Div")]
    refs = [a + b, a - b, a * b, trunc_div(a, b)]
    assert (trunc_div(np.array([-7], np.int32), np.array([2], np.int32)) == -3).all()
    save("typed_int32_arith", nodes, [("a", TP.INT32, [2, 3]), ("b", TP.INT32, [3])],
         [(op.lower(), TP.INT32, [2, 3]) for op in ("Add", "Sub", "Mul", "Div")], [a, b], refs)


def compare_logic_where(rng):
    x = rng.standard_normal((3, 4)).astype(np.float32)
    y = rng.standard_normal((1, 4)).astype(np.float32)
    x[0, 0] = np.nan  # NaN compares false everywhere
    x[1, 1] = y[0, 1]  # an equal pair for LessOrEqual / GreaterOrEqual
    nodes = [
        helper.make_node("Less", ["x", "y"], ["lt"]),
        helper.make_node("GreaterOrEqual", ["x", "y"], ["ge"]),
        helper.make_node("Greater", ["x", "y"], ["gt"]),
        helper.make_node("LessOrEqual", ["x", "y"], ["le"]),
        helper.make_node("Or", ["lt", "gt"], ["ne"]),
        helper.make_node("Xor", ["le", "ge"], ["xr"]),
        helper.make_node("Not", ["xr"], ["nxr"]),
        helper.make_node("And", ["nxr", "le"], ["eqish"]),
        helper.make_node("Where", ["lt", "x", "y"], ["mn"]),
    ]
    lt, ge, gt, le = x < y, x >= y, x > y, x <= y
    ne = lt | gt
    xr = le ^ ge
    eqish = ~xr & le
    mn = np.where(lt, x, y).astype(np.float32)
    save("typed_compare_logic_where", nodes, [("x", TP.FLOAT, [3, 4]), ("y", TP.FLOAT, [1, 4])],
         [("ne", TP.BOOL, [3, 4]), ("eqish", TP.BOOL, [3, 4]), ("mn", TP.FLOAT, [3, 4])],
         [x, y], [ne, eqish, mn])


def casts(rng):
    x = (rng.standard_normal((2, 5)) * 100).astype(np.float32)
    x[0, :3] = [np.nan, np.inf, -np.inf]
    x[1, 0] = 2.5
    finite = np.where(np.isfinite(x), x, 0).astype(np.float32)
    k = np.array([3], np.int64)
    nodes = [
        helper.make_node("IsNaN", ["x"], ["nan"]),
        helper.make_node("IsInf", ["x"], ["posinf"], detect_negative=0),
        helper.make_node("Cast", ["f"], ["i64"], to=TP.INT64),
        helper.make_node("Mul", ["i64", "k"], ["i64k"]),
        helper.make_node("Equal", ["i64k", "i64"], ["zero"]),
        helper.make_node("Cast", ["i64k"], ["h"], to=TP.FLOAT16),
        helper.make_node("Cast", ["h"], ["back"], to=TP.FLOAT),
        helper.make_node("CastLike", ["f", "like"], ["d"]),
    ]
    i64 = np.trunc(finite).astype(np.int64)
    i64k = i64 * 3
    h = i64k.astype(np.float16)
    like = np.zeros((1,), np.float64)
    # float -> uint8 for values in range only (ONNX leaves the rest undefined).
    f_u8 = np.abs(finite) % 200
    save("typed_casts",
         nodes,
         [("x", TP.FLOAT, [2, 5]), ("f", TP.FLOAT, [2, 5]), ("like", TP.DOUBLE, [1])],
         [("nan", TP.BOOL, [2, 5]), ("posinf", TP.BOOL, [2, 5]), ("i64k", TP.INT64, [2, 5]),
          ("zero", TP.BOOL, [2, 5]), ("h", TP.FLOAT16, [2, 5]), ("back", TP.FLOAT, [2, 5]),
          ("d", TP.DOUBLE, [2, 5])],
         [x, finite, like],
         [np.isnan(x), np.isposinf(x), i64k, i64k == i64, h, h.astype(np.float32),
          finite.astype(np.float64)],
         initializers=[helper.make_tensor("k", TP.INT64, [1], k.tolist())])
    # A second model for the uint8 path with in-range inputs.
    nodes = [helper.make_node("Cast", ["f"], ["u8"], to=TP.UINT8),
             helper.make_node("Add", ["u8", "u8"], ["u8sum"])]
    f = f_u8.astype(np.float32)
    u8 = np.trunc(f).astype(np.uint8)
    save("typed_cast_uint8_wrap", nodes, [("f", TP.FLOAT, [2, 5])],
         [("u8sum", TP.UINT8, [2, 5])], [f], [(u8 + u8).astype(np.uint8)])


def wide_and_narrow(rng):
    a = rng.integers(0, 65535, size=(4,)).astype(np.uint16)
    b = rng.integers(0, 65535, size=(4,)).astype(np.uint16)
    c = rng.standard_normal((2, 2))
    d = rng.standard_normal((2, 1)) + 3.0
    e = np.array([-128, -5, 0, 127], np.int8)
    nodes = [helper.make_node("Add", ["a", "b"], ["ab"]),
             helper.make_node("Div", ["c", "d"], ["cd"]),
             helper.make_node("Neg", ["e"], ["ne"]),
             helper.make_node("Abs", ["e"], ["ae"])]
    with np.errstate(over="ignore"):
        refs = [(a + b).astype(np.uint16), c / d, -e, np.abs(e)]
    save("typed_uint16_f64_int8", nodes,
         [("a", TP.UINT16, [4]), ("b", TP.UINT16, [4]), ("c", TP.DOUBLE, [2, 2]),
          ("d", TP.DOUBLE, [2, 1]), ("e", TP.INT8, [4])],
         [("ab", TP.UINT16, [4]), ("cd", TP.DOUBLE, [2, 2]), ("ne", TP.INT8, [4]),
          ("ae", TP.INT8, [4])],
         [a, b, c, d, e], refs)


def main():
    rng = np.random.default_rng(20260503)
    int32_arith(rng)
    compare_logic_where(rng)
    casts(rng)
    wide_and_narrow(rng)


if __name__ == "__main__":
    main()
