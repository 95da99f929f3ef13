#!/usr/bin/python3
"""Small ONNX models exercising single ops on symbolic dims, with NumPy
references at several sizes (issue 8: Concat, Where and the typed
elementwise ops, Expand, Gather, Slice).

Writes into --out, per model NAME and size label K:
  NAME.onnx                       opset 13, symbolic dims as dim_param
  NAME.K.input.npy | NAME.K.input0.npy, .input1.npy ...
  NAME.K.output.npy               the NumPy reference (float32)
Each model is compiled once by tests/e2e/dynamic_models_test.sh and run at
every size in the VM and as AOT C.

Run with Debian's interpreter: /usr/bin/python3 generate_ops.py --out DIR
Deterministic (fixed seeds): a second run writes identical bytes.
"""
import argparse
import math
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 13
I64_MAX = np.iinfo(np.int64).max


def const(name, array):
    return helper.make_node("Constant", [], [name], name=name,
                            value=numpy_helper.from_array(np.asarray(array), name))


def value(name, elem, dims):
    return helper.make_tensor_value_info(name, elem, dims)


def save_model(out, name, nodes, inputs, output):
    graph = helper.make_graph(nodes, name, inputs, [output])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="kiln generate_ops.py")
    model.ir_version = 7
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, name + ".onnx"))


def save_case(out, name, label, inputs, output):
    base = os.path.join(out, f"{name}.{label}")
    if len(inputs) == 1:
        np.save(base + ".input.npy", inputs[0])
    else:
        for k, x in enumerate(inputs):
            np.save(base + f".input{k}.npy", x)
    assert output.dtype == np.float32, name
    np.save(base + ".output.npy", output)


# ---- Concat: symbolic dims off the axis and on it (S + T + 2) ---------------

def concat_model(out):
    # a [S,4], b [T,4] -> ab = Concat0(a, b) [S+T,4] -> wide = Concat1(ab, ab) [S+T,8]
    # -> cat = Concat0(head [2,8], wide) [S+T+2,8]; y = cat + r [L,8].
    # A signature dim must be a bare symbol (not S+T+2): adding r makes the
    # output [L,8] and L == S+T+2 a requirement checked when a run starts.
    head = np.arange(16, dtype=np.float32).reshape(2, 8) / 8 - 1
    nodes = [
        const("head", head),
        helper.make_node("Concat", ["a", "b"], ["ab"], name="cat_rows", axis=0),
        helper.make_node("Concat", ["ab", "ab"], ["wide"], name="cat_cols", axis=-1),
        helper.make_node("Concat", ["head", "wide"], ["cat"], name="cat_head", axis=0),
        helper.make_node("Add", ["cat", "r"], ["y"], name="add_r"),
    ]
    save_model(out, "concat_dynseq", nodes,
               [value("a", TensorProto.FLOAT, ["S", 4]), value("b", TensorProto.FLOAT, ["T", 4]),
                value("r", TensorProto.FLOAT, ["L", 8])],
               value("y", TensorProto.FLOAT, ["L", 8]))
    rng = np.random.default_rng(11)
    for label, (s, t) in {"1": (1, 1), "3": (3, 5), "8": (8, 2)}.items():
        a = rng.standard_normal((s, 4)).astype(np.float32)
        b = rng.standard_normal((t, 4)).astype(np.float32)
        r = rng.standard_normal((s + t + 2, 8)).astype(np.float32)
        ab = np.concatenate([a, b], 0)
        y = np.concatenate([head, np.concatenate([ab, ab], 1)], 0) + r
        save_case(out, "concat_dynseq", label, [a, b, r], y)


# ---- Where, comparisons, logic, typed and float unary ops --------------------

def elementwise_model(out):
    # x [2,S], y [S] (broadcast along the first axis); the float values sit
    # at odd multiples of 1/6 so Cast(3x) truncates without rounding doubts.
    nodes = [
        const("three", np.array([3.0], np.float32)),
        const("thresh", np.array([0.4], np.float32)),
        const("one", np.array(1.0, np.float32)),
        helper.make_node("Greater", ["x", "y"], ["gt"], name="gt"),
        helper.make_node("Less", ["x", "thresh"], ["lt"], name="lt"),
        helper.make_node("Mul", ["x", "three"], ["x3"], name="x3"),
        helper.make_node("Mul", ["y", "three"], ["y3"], name="y3"),
        helper.make_node("Cast", ["x3"], ["xi"], name="xi", to=TensorProto.INT64),
        helper.make_node("Cast", ["y3"], ["yi"], name="yi", to=TensorProto.INT64),
        helper.make_node("Equal", ["xi", "yi"], ["eq"], name="eq"),
        helper.make_node("Not", ["lt"], ["nlt"], name="nlt"),
        helper.make_node("And", ["gt", "nlt"], ["both"], name="both"),
        helper.make_node("Or", ["both", "eq"], ["mask"], name="mask"),
        helper.make_node("Neg", ["x"], ["negx"], name="negx"),
        helper.make_node("Exp", ["negx"], ["expx"], name="expx"),
        helper.make_node("Abs", ["y"], ["absy"], name="absy"),
        helper.make_node("Add", ["absy", "one"], ["absy1"], name="absy1"),
        helper.make_node("Log", ["absy1"], ["logy"], name="logy"),
        helper.make_node("Where", ["mask", "expx", "logy"], ["sel"], name="where"),
        helper.make_node("Erf", ["sel"], ["erf"], name="erf"),
        helper.make_node("Cast", ["mask"], ["maskf"], name="maskf", to=TensorProto.FLOAT),
        helper.make_node("Max", ["x", "y"], ["mx"], name="max"),
        helper.make_node("Sin", ["mx"], ["sinmx"], name="sin"),
        helper.make_node("Min", ["x", "y"], ["mn"], name="min"),
        helper.make_node("Floor", ["mn"], ["flmn"], name="floor"),
        helper.make_node("Sub", ["xi", "yi"], ["dint"], name="dint"),  # int64 Sub (typed)
        helper.make_node("Abs", ["dint"], ["adint"], name="adint"),     # int64 Abs (typed)
        helper.make_node("Cast", ["adint"], ["adf"], name="adf", to=TensorProto.FLOAT),
        helper.make_node("Add", ["erf", "maskf"], ["s1"], name="s1"),
        helper.make_node("Add", ["s1", "sinmx"], ["s2"], name="s2"),
        helper.make_node("Add", ["s2", "flmn"], ["s3"], name="s3"),
        helper.make_node("Add", ["s3", "adf"], ["out"], name="out"),
    ]
    save_model(out, "elementwise_dynseq", nodes,
               [value("x", TensorProto.FLOAT, [2, "S"]), value("y", TensorProto.FLOAT, ["S"])],
               value("out", TensorProto.FLOAT, [2, "S"]))
    rng = np.random.default_rng(12)
    erf = np.vectorize(math.erf)
    for s in (1, 4, 11):
        x = ((rng.integers(-4, 4, (2, s)) + 0.5) / 3).astype(np.float32)
        y = ((rng.integers(-4, 4, (s,)) + 0.5) / 3).astype(np.float32)
        three = np.float32(3)
        xi = (x * three).astype(np.int64)
        yi = (y * three).astype(np.int64)
        mask = ((x > y) & ~(x < np.float32(0.4))) | (xi == yi)
        sel = np.where(mask, np.exp(-x), np.log(np.abs(y) + np.float32(1)))
        res = erf(sel.astype(np.float64)).astype(np.float32)
        res = res + mask.astype(np.float32)
        res = res + np.sin(np.maximum(x, y))
        res = res + np.floor(np.minimum(x, y))
        res = res + np.abs(xi - yi).astype(np.float32)
        save_case(out, "elementwise_dynseq", str(s), [x, y], res.astype(np.float32))


# ---- Expand: a constant shape, and a shape computed from symbolic dims ------

def expand_model(out):
    # x [S,1] -> e1 = Expand(x, [2,1,3]) [2,S,3];
    # e2 = Expand(row [3], Shape(e1)) [2,S,3] (the expand_as pattern);
    # ef = Cast(Expand(int32 x, [1,3])) [S,3]; y = e1 * e2 + ef
    row = np.array([1.0, -2.0, 0.5], np.float32)
    nodes = [
        const("shape_c", np.array([2, 1, 3], np.int64)),
        const("row", row),
        const("shape_13", np.array([1, 3], np.int64)),
        helper.make_node("Expand", ["x", "shape_c"], ["e1"], name="expand_const"),
        helper.make_node("Shape", ["e1"], ["e1_shape"], name="shape_e1"),
        helper.make_node("Expand", ["row", "e1_shape"], ["e2"], name="expand_as"),
        helper.make_node("Mul", ["e1", "e2"], ["prod"], name="prod"),
        helper.make_node("Cast", ["x"], ["xi"], name="xi", to=TensorProto.INT32),
        helper.make_node("Expand", ["xi", "shape_13"], ["ei"], name="expand_int"),  # [S,3]
        helper.make_node("Cast", ["ei"], ["ef"], name="ef", to=TensorProto.FLOAT),
        helper.make_node("Add", ["prod", "ef"], ["y"], name="y"),
    ]
    save_model(out, "expand_dynseq", nodes, [value("x", TensorProto.FLOAT, ["S", 1])],
               value("y", TensorProto.FLOAT, [2, "S", 3]))
    rng = np.random.default_rng(13)
    for s in (1, 3, 10):
        x = (rng.standard_normal((s, 1)) * 4).astype(np.float32)
        e1 = np.broadcast_to(x, (2, s, 3))
        e2 = np.broadcast_to(row, (2, s, 3))
        ef = np.broadcast_to(x.astype(np.int32), (s, 3)).astype(np.float32)
        save_case(out, "expand_dynseq", str(s), [x], (e1 * e2 + ef).astype(np.float32))


# ---- Gather: symbolic data dims, constant and symbolic-length indices -------

def gather_model(out):
    # x [S,6], ids [T] int64 (values in 0..S-1)
    # rows = Gather0(x, ids) [T,6]; last = Gather0(x, -1) [6]; r = rows + last
    # y = Gather1(r, [[0,-1],[3,2]]) [T,2,2]
    nodes = [
        const("minus_one", np.array(-1, np.int64)),
        const("cols", np.array([[0, -1], [3, 2]], np.int64)),
        helper.make_node("Gather", ["x", "ids"], ["rows"], name="gather_rows", axis=0),
        helper.make_node("Gather", ["x", "minus_one"], ["last"], name="gather_last", axis=0),
        helper.make_node("Add", ["rows", "last"], ["r"], name="add"),
        helper.make_node("Gather", ["r", "cols"], ["y"], name="gather_cols", axis=1),
    ]
    save_model(out, "gather_dynseq", nodes,
               [value("x", TensorProto.FLOAT, ["S", 6]), value("ids", TensorProto.INT64, ["T"])],
               value("y", TensorProto.FLOAT, ["T", 2, 2]))
    rng = np.random.default_rng(14)
    for label, (s, t) in {"1": (1, 1), "4": (4, 7), "9": (9, 3)}.items():
        x = rng.standard_normal((s, 6)).astype(np.float32)
        ids = rng.integers(-s, s, (t,)).astype(np.int64)  # negative ids wrap as in ONNX
        r = x[ids] + x[-1]
        y = r[:, np.array([[0, 5], [3, 2]])]
        save_case(out, "gather_dynseq", label, [x, ids], y.astype(np.float32))


# ---- Slice: constant bounds on a symbolic axis, clamped to its length -------

def slice_model(out):
    # x [S,5]: inner = x[1:-1] [max(S-2,0)-ish,5]; b = inner[0:3, 0:3];
    # c = x[0::2, 1:4] [ceil(S/2),3]; y = Concat0(b, c) + r [L,3] (r: see
    # concat_model; here L == min(max(S-2,0),3) + ceil(S/2) at run time)
    def ints(name, v):
        return const(name, np.array(v, np.int64))
    nodes = [
        ints("s1", [1]), ints("e1", [-1]), ints("a0", [0]),
        ints("s2", [0, 0]), ints("e2", [3, 3]), ints("a01", [0, 1]),
        ints("s3", [0, 1]), ints("e3", [I64_MAX, 4]), ints("st3", [2, 1]),
        helper.make_node("Slice", ["x", "s1", "e1", "a0"], ["inner"], name="slice_inner"),
        helper.make_node("Slice", ["inner", "s2", "e2", "a01"], ["b"], name="slice_head"),
        helper.make_node("Slice", ["x", "s3", "e3", "a01", "st3"], ["c"], name="slice_step"),
        helper.make_node("Concat", ["b", "c"], ["cat"], name="cat", axis=0),
        helper.make_node("Add", ["cat", "r"], ["y"], name="add_r"),
    ]
    save_model(out, "slice_dynseq", nodes,
               [value("x", TensorProto.FLOAT, ["S", 5]), value("r", TensorProto.FLOAT, ["L", 3])],
               value("y", TensorProto.FLOAT, ["L", 3]))
    rng = np.random.default_rng(15)
    for s in (2, 4, 9):
        x = rng.standard_normal((s, 5)).astype(np.float32)
        cat = np.concatenate([x[1:-1][0:3, 0:3], x[0::2, 1:4]], 0)
        r = rng.standard_normal(cat.shape).astype(np.float32)
        save_case(out, "slice_dynseq", str(s), [x, r], (cat + r).astype(np.float32))


MODELS = {"concat_dynseq": concat_model, "elementwise_dynseq": elementwise_model,
          "expand_dynseq": expand_model, "gather_dynseq": gather_model,
          "slice_dynseq": slice_model}


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", required=True)
    ap.add_argument("--only", default="", help="comma-separated model names")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    names = [n for n in args.only.split(",") if n] or list(MODELS)
    for name in names:
        MODELS[name](args.out)
        print(f"{name}: written")


if __name__ == "__main__":
    main()
