#!/usr/bin/python3
"""Small ONNX models exercising single ops on symbolic dims, with NumPy
references at several sizes (issue 8: Concat, Where and the typed
elementwise ops, Expand, Gather, Slice; GatherND, Reduce*, ArgMax/ArgMin,
CumSum, TopK, TopK with k = min(S, 4)).

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


def slice_back_model(out):
    # x [S,4] read backwards: flip = x[::-1] [S,4]; odd = x[5:0:-2] (start
    # clamped to S - 1, stops before row 0); tail = x[-1::-3]; y =
    # Concat0(flip, odd, tail), whose rows are an expression of S.
    def ints(name, v):
        return const(name, np.array(v, np.int64))
    i64_min = np.iinfo(np.int64).min
    nodes = [
        ints("fs", [-1]), ints("fe", [i64_min]), ints("ax", [0]), ints("m1", [-1]),
        ints("os", [5]), ints("oe", [0]), ints("m2", [-2]),
        ints("ts", [-1]), ints("m3", [-3]),
        helper.make_node("Slice", ["x", "fs", "fe", "ax", "m1"], ["flip"], name="slice_flip"),
        helper.make_node("Slice", ["x", "os", "oe", "ax", "m2"], ["odd"], name="slice_odd"),
        helper.make_node("Slice", ["x", "ts", "fe", "ax", "m3"], ["tail"], name="slice_tail"),
        helper.make_node("Concat", ["flip", "odd", "tail"], ["y"], name="cat", axis=0),
    ]
    save_model(out, "slice_back_dynseq", nodes, [value("x", TensorProto.FLOAT, ["S", 4])],
               value("y", TensorProto.FLOAT, ["L", 4]))
    rng = np.random.default_rng(23)
    for s in (1, 2, 3, 8):
        x = rng.standard_normal((s, 4)).astype(np.float32)
        y = np.concatenate([x[::-1], x[5:0:-2], x[-1::-3]], 0)
        save_case(out, "slice_back_dynseq", str(s), [x], np.ascontiguousarray(y, np.float32))


# ---- GatherND: symbolic tuple count and data dims, run-time index checks ----

def gathernd_model(out):
    # x [S,5,3]; idx [T,2], idx1 [T,1] int64 (negative entries wrap as in ONNX)
    # pairs = GatherND(x, idx) [T,3]; rows = GatherND(x, idx1) [T,5,3]
    # y = rows + Unsqueeze(pairs, 1) [T,5,3]
    nodes = [
        const("ax1", np.array([1], np.int64)),
        helper.make_node("GatherND", ["x", "idx"], ["pairs"], name="gathernd_pairs"),
        helper.make_node("GatherND", ["x", "idx1"], ["rows"], name="gathernd_rows"),
        helper.make_node("Unsqueeze", ["pairs", "ax1"], ["pairs1"], name="unsqueeze"),
        helper.make_node("Add", ["rows", "pairs1"], ["y"], name="add"),
    ]
    save_model(out, "gathernd_dynseq", nodes,
               [value("x", TensorProto.FLOAT, ["S", 5, 3]),
                value("idx", TensorProto.INT64, ["T", 2]),
                value("idx1", TensorProto.INT64, ["T", 1])],
               value("y", TensorProto.FLOAT, ["T", 5, 3]))
    rng = np.random.default_rng(16)
    for label, (s, t) in {"1": (1, 1), "4": (4, 7), "9": (9, 3)}.items():
        x = rng.standard_normal((s, 5, 3)).astype(np.float32)
        idx = np.stack([rng.integers(-s, s, (t,)), rng.integers(-5, 5, (t,))], 1).astype(np.int64)
        idx1 = rng.integers(-s, s, (t, 1)).astype(np.int64)
        y = x[idx1[:, 0]] + x[idx[:, 0], idx[:, 1]][:, None, :]
        save_case(out, "gathernd_dynseq", label, [x, idx, idx1], y.astype(np.float32))


def gathernd_batch_model(out):
    # batch_dims 1 over a symbolic batch: x [S,4,3], idx [S,2,1] -> y [S,2,3],
    # y[b, i] = x[b, idx[b, i, 0]]
    nodes = [helper.make_node("GatherND", ["x", "idx"], ["y"], name="gathernd_batch",
                              batch_dims=1)]
    save_model(out, "gathernd_batch_dynseq", nodes,
               [value("x", TensorProto.FLOAT, ["S", 4, 3]),
                value("idx", TensorProto.INT64, ["S", 2, 1])],
               value("y", TensorProto.FLOAT, ["S", 2, 3]))
    rng = np.random.default_rng(17)
    for s in (1, 3, 8):
        x = rng.standard_normal((s, 4, 3)).astype(np.float32)
        idx = rng.integers(-4, 4, (s, 2, 1)).astype(np.int64)
        y = x[np.arange(s)[:, None], idx[:, :, 0]]
        save_case(out, "gathernd_batch_dynseq", str(s), [x, idx], y.astype(np.float32))


# ---- Reduce*: over a symbolic axis, also one that is empty at run time -----

REDUCE_OPS = ["ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceSumSquare",
              "ReduceL1", "ReduceL2", "ReduceLogSumExp", "ReduceLogSum"]


def reduce_node(op, src, dst, axes, keepdims=1):
    # Opset 13: ReduceSum takes its axes as an input, the others as an attribute.
    if op == "ReduceSum":
        return helper.make_node(op, [src, axes[0]], [dst], name=dst, keepdims=keepdims)
    return helper.make_node(op, [src], [dst], name=dst, axes=axes[1], keepdims=keepdims)


def np_reduce(op, x, axis, keepdims=True):
    # The empty-set values follow the ONNX spec (opset 18 text): sum-like 0,
    # prod 1, max -inf, min +inf, log-sums log(0) = -inf.
    with np.errstate(divide="ignore"):
        x = x.astype(np.float64)
        if op == "ReduceSum":
            r = np.sum(x, axis=axis, keepdims=keepdims)
        elif op == "ReduceMax":
            r = np.max(x, axis=axis, keepdims=keepdims, initial=-np.inf)
        elif op == "ReduceMin":
            r = np.min(x, axis=axis, keepdims=keepdims, initial=np.inf)
        elif op == "ReduceProd":
            r = np.prod(x, axis=axis, keepdims=keepdims)
        elif op == "ReduceSumSquare":
            r = np.sum(x * x, axis=axis, keepdims=keepdims)
        elif op == "ReduceL1":
            r = np.sum(np.abs(x), axis=axis, keepdims=keepdims)
        elif op == "ReduceL2":
            r = np.sqrt(np.sum(x * x, axis=axis, keepdims=keepdims))
        elif op == "ReduceLogSumExp":
            r = np.log(np.sum(np.exp(x), axis=axis, keepdims=keepdims))
        else:  # ReduceLogSum
            r = np.log(np.sum(x, axis=axis, keepdims=keepdims))
    return r


def reduce_model(out):
    # x [S,4]; inner = x[1:-1] has max(S-2,0) rows (none at S = 1, 2).
    # Every op reduces x and inner over axis 0 (keepdims 1 -> [1,4]); LogSum
    # reads |x|. Infinite results of the empty reductions pass through Exp
    # (max, LogSumExp, LogSum: exp(-inf) = 0) or Exp(Neg) (min) so the output
    # stays finite. Plus ReduceSum keepdims 0 ([4]) broadcast onto a row.
    # y = Concat0(rows) [2*9+1, 4]
    nodes = [const("axes0", np.array([0], np.int64)),
             const("s1", np.array([1], np.int64)), const("e1", np.array([-1], np.int64)),
             helper.make_node("Slice", ["x", "s1", "e1", "axes0"], ["inner"], name="inner"),
             helper.make_node("Abs", ["x"], ["absx"], name="absx"),
             helper.make_node("Abs", ["inner"], ["absinner"], name="absinner")]
    rows = []
    for src in ("x", "inner"):
        for op in REDUCE_OPS:
            dst = f"{op}_{src}"
            data = ("abs" + src) if op == "ReduceLogSum" else src
            nodes.append(reduce_node(op, data, dst, ("axes0", [0])))
            if src == "inner" and op in ("ReduceMax", "ReduceLogSumExp", "ReduceLogSum"):
                nodes.append(helper.make_node("Exp", [dst], [dst + "_exp"], name=dst + "_exp"))
                dst += "_exp"
            elif src == "inner" and op == "ReduceMin":
                nodes.append(helper.make_node("Neg", [dst], [dst + "_neg"], name=dst + "_neg"))
                nodes.append(helper.make_node("Exp", [dst + "_neg"], [dst + "_exp"],
                                              name=dst + "_exp"))
                dst += "_exp"
            rows.append(dst)
    nodes.append(reduce_node("ReduceSum", "x", "sum_flat", ("axes0", [0]), keepdims=0))
    nodes.append(helper.make_node("Add", ["sum_flat", "ReduceMax_x"], ["sum_plus_max"],
                                  name="sum_plus_max"))
    rows.append("sum_plus_max")
    nodes.append(helper.make_node("Concat", rows, ["y"], name="rows", axis=0))
    save_model(out, "reduce_dynseq", nodes, [value("x", TensorProto.FLOAT, ["S", 4])],
               value("y", TensorProto.FLOAT, [len(rows), 4]))
    rng = np.random.default_rng(18)
    for s in (1, 2, 3, 8):
        x = rng.standard_normal((s, 4)).astype(np.float32)
        ref = []
        for name, src in (("x", x), ("inner", x[1:-1])):
            for op in REDUCE_OPS:
                r = np_reduce(op, np.abs(src) if op == "ReduceLogSum" else src, 0)
                if name == "inner" and op in ("ReduceMax", "ReduceLogSumExp", "ReduceLogSum"):
                    r = np.exp(r)
                elif name == "inner" and op == "ReduceMin":
                    r = np.exp(-r)
                ref.append(r)
        ref.append(np_reduce("ReduceSum", x, 0, False) + np_reduce("ReduceMax", x, 0))
        y = np.concatenate(ref, 0).astype(np.float32)
        assert np.all(np.isfinite(y))
        save_case(out, "reduce_dynseq", str(s), [x], y)


def reduce_keep_model(out):
    # x [2,S,3]: reductions keeping S (axes 0/2, keepdims 0 and 1), over S
    # (axis 1) and over every axis; all broadcast back onto x:
    # y = x + Unsqueeze(max02, [0,2]) + l2_2 + sum_1 + min_all + lse_1
    #       + sumsq_0 + l1_2 + prod_1        [2,S,3]
    nodes = [
        const("axes1", np.array([1], np.int64)), const("axes02", np.array([0, 2], np.int64)),
        helper.make_node("ReduceMax", ["x"], ["max02"], name="max02", axes=[0, 2], keepdims=0),
        helper.make_node("Unsqueeze", ["max02", "axes02"], ["max02u"], name="max02u"),
        helper.make_node("ReduceL2", ["x"], ["l2_2"], name="l2_2", axes=[2]),
        helper.make_node("ReduceSum", ["x", "axes1"], ["sum_1"], name="sum_1"),
        helper.make_node("ReduceMin", ["x"], ["min_all"], name="min_all"),
        helper.make_node("ReduceLogSumExp", ["x"], ["lse_1"], name="lse_1", axes=[-2]),
        helper.make_node("ReduceSumSquare", ["x"], ["sumsq_0"], name="sumsq_0", axes=[0]),
        helper.make_node("ReduceL1", ["x"], ["l1_2"], name="l1_2", axes=[2], keepdims=1),
        helper.make_node("ReduceProd", ["x"], ["prod_1"], name="prod_1", axes=[1]),
    ]
    terms = ["max02u", "l2_2", "sum_1", "min_all", "lse_1", "sumsq_0", "l1_2", "prod_1"]
    acc = "x"
    for k, t in enumerate(terms):
        nodes.append(helper.make_node("Add", [acc, t], [f"acc{k}"], name=f"acc{k}"))
        acc = f"acc{k}"
    nodes.append(helper.make_node("Identity", [acc], ["y"], name="y"))
    save_model(out, "reduce_keep_dynseq", nodes, [value("x", TensorProto.FLOAT, [2, "S", 3])],
               value("y", TensorProto.FLOAT, [2, "S", 3]))
    rng = np.random.default_rng(19)
    for s in (1, 4, 10):
        x = rng.uniform(-1.5, 1.5, (2, s, 3)).astype(np.float32)
        y = (x.astype(np.float64) + np_reduce("ReduceMax", x, (0, 2))
             + np_reduce("ReduceL2", x, 2) + np_reduce("ReduceSum", x, 1)
             + np_reduce("ReduceMin", x, None) + np_reduce("ReduceLogSumExp", x, 1)
             + np_reduce("ReduceSumSquare", x, 0) + np_reduce("ReduceL1", x, 2)
             + np_reduce("ReduceProd", x, 1))
        save_case(out, "reduce_keep_dynseq", str(s), [x], y.astype(np.float32))


# ---- ArgMax/ArgMin over and beside a symbolic axis, with ties -------------

def argmax_model(out):
    # x [S,4] of small integers (many ties). Index results are cast to float;
    # [1,4] ones broadcast to [S,4] by adding zs = 0 * an1 [S,1].
    # y = Concat1(an1, an1_last, am0 + zs, am0_last + zs, an0 + zs) [S,14]
    def arg(op, dst, axis, keepdims, last=0):
        return [helper.make_node(op, ["x"], [dst], name=dst, axis=axis, keepdims=keepdims,
                                 select_last_index=last),
                helper.make_node("Cast", [dst], [dst + "_f"], name=dst + "_f",
                                 to=TensorProto.FLOAT)]
    nodes = [const("zero", np.array(0.0, np.float32)), const("ax0", np.array([0], np.int64))]
    nodes += arg("ArgMin", "an1", 1, 1)
    nodes += arg("ArgMin", "an1_last", -1, 1, 1)
    nodes += arg("ArgMax", "am0", 0, 0)
    nodes += arg("ArgMax", "am0_last", 0, 0, 1)
    nodes += arg("ArgMin", "an0", 0, 1)
    nodes += [
        helper.make_node("Mul", ["an1_f", "zero"], ["zs"], name="zs"),
        helper.make_node("Unsqueeze", ["am0_f", "ax0"], ["am0_u"], name="am0_u"),
        helper.make_node("Unsqueeze", ["am0_last_f", "ax0"], ["am0_last_u"], name="am0_last_u"),
        helper.make_node("Add", ["am0_u", "zs"], ["c0"], name="c0"),
        helper.make_node("Add", ["am0_last_u", "zs"], ["c1"], name="c1"),
        helper.make_node("Add", ["an0_f", "zs"], ["c2"], name="c2"),
        helper.make_node("Concat", ["an1_f", "an1_last_f", "c0", "c1", "c2"], ["y"], name="y",
                         axis=1),
    ]
    save_model(out, "argmax_dynseq", nodes, [value("x", TensorProto.FLOAT, ["S", 4])],
               value("y", TensorProto.FLOAT, ["S", 14]))
    rng = np.random.default_rng(20)

    def last(a, axis, fn):  # select_last_index: the first index of the reversed axis
        n = a.shape[axis]
        return n - 1 - fn(np.flip(a, axis), axis=axis)
    for s in (1, 5, 9):
        x = rng.integers(-2, 3, (s, 4)).astype(np.float32)
        cols = [np.argmin(x, 1)[:, None], last(x, 1, np.argmin)[:, None]]
        rows = [np.argmax(x, 0), last(x, 0, np.argmax), np.argmin(x, 0)]
        y = np.concatenate(cols + [np.broadcast_to(r, (s, 4)) for r in rows], 1)
        save_case(out, "argmax_dynseq", str(s), [x], y.astype(np.float32))


# ---- CumSum along a symbolic axis and beside it ----------------------------

def cumsum_model(out):
    # x [S,3]: y = Concat1(CumSum0(x), CumSum0(x, exclusive, reverse), CumSum1(x)) [S,9]
    nodes = [
        const("a0", np.array(0, np.int64)), const("a1", np.array(-1, np.int32)),
        helper.make_node("CumSum", ["x", "a0"], ["c0"], name="cumsum0"),
        helper.make_node("CumSum", ["x", "a0"], ["c0er"], name="cumsum0_excl_rev",
                         exclusive=1, reverse=1),
        helper.make_node("CumSum", ["x", "a1"], ["c1"], name="cumsum1"),
        helper.make_node("Concat", ["c0", "c0er", "c1"], ["y"], name="y", axis=1),
    ]
    save_model(out, "cumsum_dynseq", nodes, [value("x", TensorProto.FLOAT, ["S", 3])],
               value("y", TensorProto.FLOAT, ["S", 9]))
    rng = np.random.default_rng(21)
    for s in (1, 4, 11):
        x = rng.standard_normal((s, 3)).astype(np.float32)
        xd = x.astype(np.float64)
        rev = np.flip(np.cumsum(np.flip(xd, 0), 0), 0) - xd  # exclusive, reversed
        y = np.concatenate([np.cumsum(xd, 0), rev, np.cumsum(xd, 1)], 1)
        save_case(out, "cumsum_dynseq", str(s), [x], y.astype(np.float32))


# ---- TopK with a constant k beside a symbolic dim (and along one) ----------

def topk_model(out):
    # x [S,6] (distinct values): t1 = TopK(x, 3, axis 1), t2 = TopK(x, 2,
    # axis -1, smallest), t0 = TopK(x, 1, axis 0) along S ([1,6]).
    # y = Concat1(t1v, t1i, t2v, t2i, x - t0v, t0i + 0*x) [S,22]
    def topk(dst, k, axis, largest=1):
        return [const(dst + "_k", np.array([k], np.int64)),
                helper.make_node("TopK", ["x", dst + "_k"], [dst + "v", dst + "i"], name=dst,
                                 axis=axis, largest=largest),
                helper.make_node("Cast", [dst + "i"], [dst + "f"], name=dst + "f",
                                 to=TensorProto.FLOAT)]
    nodes = [const("zero", np.array(0.0, np.float32))]
    nodes += topk("t1", 3, 1) + topk("t2", 2, -1, 0) + topk("t0", 1, 0)
    nodes += [
        helper.make_node("Sub", ["x", "t0v"], ["xm"], name="xm"),
        helper.make_node("Mul", ["x", "zero"], ["zx"], name="zx"),
        helper.make_node("Add", ["t0f", "zx"], ["t0b"], name="t0b"),
        helper.make_node("Concat", ["t1v", "t1f", "t2v", "t2f", "xm", "t0b"], ["y"], name="y",
                         axis=1),
    ]
    save_model(out, "topk_dynseq", nodes, [value("x", TensorProto.FLOAT, ["S", 6])],
               value("y", TensorProto.FLOAT, ["S", 22]))
    rng = np.random.default_rng(22)
    for s in (1, 5, 12):
        x = rng.permutation(s * 6).reshape(s, 6).astype(np.float32) / 4 - 3  # distinct
        i1 = np.argsort(-x, 1, kind="stable")[:, :3]
        i2 = np.argsort(x, 1, kind="stable")[:, :2]
        i0 = np.argmax(x, 0)[None, :]
        y = np.concatenate([np.take_along_axis(x, i1, 1), i1, np.take_along_axis(x, i2, 1), i2,
                            x - x.max(0, keepdims=True), np.broadcast_to(i0, (s, 6))], 1)
        save_case(out, "topk_dynseq", str(s), [x], y.astype(np.float32))


def topk_min_model(out):
    # torchvision's num_topk = min(candidates, scores.size(0)), as its ONNX
    # export writes it: k = ReduceMin(Concat(Unsqueeze(Gather(Shape(x), 0)), [4])).
    # y = TopK(x, k, axis 0) values [min(S, 4), 6]; the indices' sum as a
    # float times 0 joins them so both outputs run.
    nodes = [
        helper.make_node("Shape", ["x"], ["shape"], name="shape"),
        const("zero_i", np.array(0, np.int64)), const("axes0", np.array([0], np.int64)),
        const("cap", np.array([4], np.int64)),
        helper.make_node("Gather", ["shape", "zero_i"], ["len"], name="len", axis=0),
        helper.make_node("Unsqueeze", ["len", "axes0"], ["len1"], name="len1"),
        helper.make_node("Concat", ["len1", "cap"], ["both"], name="both", axis=0),
        helper.make_node("ReduceMin", ["both"], ["k"], name="k", keepdims=1),
        helper.make_node("TopK", ["x", "k"], ["v", "i"], name="top", axis=0),
        helper.make_node("Cast", ["i"], ["fi"], name="fi", to=TensorProto.FLOAT),
        const("zero_f", np.array(0.0, np.float32)),
        helper.make_node("Mul", ["fi", "zero_f"], ["zi"], name="zi"),
        helper.make_node("Add", ["v", "zi"], ["y"], name="y"),
    ]
    save_model(out, "topk_min_dynseq", nodes, [value("x", TensorProto.FLOAT, ["S", 6])],
               value("y", TensorProto.FLOAT, ["K", 6]))
    rng = np.random.default_rng(23)
    for s in (1, 3, 9):
        x = rng.permutation(s * 6).reshape(s, 6).astype(np.float32) / 4 - 3  # distinct
        y = -np.sort(-x, axis=0)[:min(s, 4)]
        save_case(out, "topk_min_dynseq", str(s), [x], y.astype(np.float32))


MODELS = {"concat_dynseq": concat_model, "elementwise_dynseq": elementwise_model,
          "expand_dynseq": expand_model, "gather_dynseq": gather_model,
          "slice_dynseq": slice_model, "gathernd_dynseq": gathernd_model,
          "gathernd_batch_dynseq": gathernd_batch_model, "reduce_dynseq": reduce_model,
          "reduce_keep_dynseq": reduce_keep_model, "argmax_dynseq": argmax_model,
          "cumsum_dynseq": cumsum_model, "topk_dynseq": topk_model,
          "slice_back_dynseq": slice_back_model, "topk_min_dynseq": topk_min_model}


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
