"""Lengths found during the run inside If and Loop bodies (issue 8): a
NonZero or Compress in a subgraph gives its result a length the called
function loads itself, anew on every call; a body may also read a length
its caller found. Three data sets per model give different lengths, one of
them empty; references in float64 NumPy.

- loop_compress: a Loop over the rows of x [4, 5]; its body keeps a row's
  positive entries (Compress), adds their sum to a carried total and scans
  out how many there were (Shape, Cast).
- if_nonzero: an If on sum(x) > 0 whose then-branch gathers the entries of
  x [6] above 0.5 (NonZero, Squeeze, Gather) and sums their squares; the
  else-branch takes min(x).
- loop_caller_length: the entry keeps x's positive entries (Compress, a
  length of the entry); a Loop of 3 iterations reads them and adds
  (i + 1) * their sum to a carried total.
- loop_if_lengths: a Loop over the 4 entries of c; its body has an If whose
  branches give x[:2] and 2 * x[1:] (x [6]) by the sign of c[i], summed
  into a carried total: the If's length is the body's own.
- loop_requirement: a body adds 3 offsets to a row's positive entries, so
  broadcasting requires every row of x [2, 5] to have exactly 3;
  loop_requirement.bad.npy has a row with 2 (refused by both back ends).
- loop_twin_names: two Loops of one name, each with a Compress in its
  body (their lengths must stay apart).
- loop_rows_dynbatch: a Loop over the N rows of sin(x), x [N, 5], N = 1, 3
  and 6, summing each row's positive entries.
- loop_signs_dynbatch: loop_rows_dynbatch with two lengths in the body
  (the positive and the negative entries of a row): two static slots in
  the entry, each where the verifier lets a view start.
- loop_then_if: loop_compress's Loop, then an If whose branches use the
  arena where the body kept its length (which is not read after the run).
- refuse_body_length_out: refused at compile time (refused_models).
usage: /usr/bin/python3 tests/models/result/generate_bodies.py"""
import os

import numpy as np
from onnx import TensorProto, helper

from generate import HERE, save, save_model

F32, I64, BOOL = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL


def vi(name, shape, dtype=F32):
    return helper.make_tensor_value_info(name, dtype, shape)


def const(name, dtype, dims, values):
    return helper.make_node("Constant", [], [name], name=name,
                            value=helper.make_tensor(name, dtype, dims, values))


def loop_inputs(state_shape):
    return [vi("i", [], I64), vi("cond_in", [], BOOL), vi("acc_in", state_shape)]


def positive_entries(rows):
    """Body nodes keeping the positive entries of row i of `rows`: pos."""
    return [helper.make_node("Gather", [rows, "i"], ["row"], name="row", axis=0),
            const("zero", F32, [], [0]),
            helper.make_node("Greater", ["row", "zero"], ["mask"], name="mask"),
            helper.make_node("Compress", ["row", "mask"], ["pos"], name="pos", axis=0)]


def summing_body(rows):
    """A Loop body adding the sum of row i's positive entries to acc."""
    return helper.make_graph(
        positive_entries(rows) + [
         helper.make_node("ReduceSum", ["pos"], ["s"], name="s", keepdims=1),
         helper.make_node("Add", ["acc_in", "s"], ["acc_out"], name="acc"),
         helper.make_node("Identity", ["cond_in"], ["cond_out"], name="cond")],
        "body", loop_inputs([1]), [vi("cond_out", [], BOOL), vi("acc_out", [1])])


def signed_cases(base):
    """base, all positive, all negative: lengths in between, all, none."""
    return [base, np.abs(base) + 0.5, -np.abs(base) - 0.5]


def loop_compress(rng):
    body = helper.make_graph(
        positive_entries("x") + [
         helper.make_node("ReduceSum", ["pos"], ["s"], name="s", keepdims=1),
         helper.make_node("Add", ["acc_in", "s"], ["acc_out"], name="acc"),
         helper.make_node("Shape", ["pos"], ["n"], name="n"),
         helper.make_node("Cast", ["n"], ["count"], name="count", to=F32),
         helper.make_node("Identity", ["cond_in"], ["cond_out"], name="cond")],
        "body", loop_inputs([1]),
        [vi("cond_out", [], BOOL), vi("acc_out", [1]), vi("count", [1])])
    nodes = [helper.make_node("Loop", ["trip", "", "start"], ["acc", "counts"], name="rows",
                              body=body)]
    inits = [helper.make_tensor("trip", I64, [], [4])]
    save_model(helper.make_graph(nodes, "loop_compress", [vi("x", [4, 5]), vi("start", [1])],
                                 [vi("acc", [1]), vi("counts", [4, 1])], initializer=inits),
               "loop_compress")
    base = rng.standard_normal((4, 5)).astype(np.float32)
    base[2] = -np.abs(base[2])  # a row with nothing to keep
    for k, x in enumerate(signed_cases(base)):
        start = np.array([0.25 * (k + 1)], np.float32)
        x64 = x.astype(np.float64)
        save("loop_compress", "x", k, x)
        save("loop_compress", "start", k, start)
        save("loop_compress", "acc", k, (start + x64[x64 > 0].sum()).astype(np.float32))
        save("loop_compress", "counts", k, (x > 0).sum(axis=1, keepdims=True).astype(np.float32))
        print("loop_compress", k, (x > 0).sum(axis=1).tolist(), "kept per row")


def if_nonzero(rng):
    then_graph = helper.make_graph(
        [const("half", F32, [], [0.5]),
         helper.make_node("Greater", ["x", "half"], ["big"], name="big"),
         helper.make_node("NonZero", ["big"], ["where"], name="where"),
         const("axis0", I64, [1], [0]),
         helper.make_node("Squeeze", ["where", "axis0"], ["index"], name="index"),
         helper.make_node("Gather", ["x", "index"], ["picked"], name="picked"),
         helper.make_node("Mul", ["picked", "picked"], ["squares"], name="squares"),
         helper.make_node("ReduceSum", ["squares"], ["y_then"], name="sum", keepdims=1)],
        "then", [], [vi("y_then", [1])])
    else_graph = helper.make_graph(
        [helper.make_node("ReduceMin", ["x"], ["y_else"], name="min", keepdims=1)],
        "else", [], [vi("y_else", [1])])
    nodes = [helper.make_node("ReduceSum", ["x"], ["total"], name="total", keepdims=0),
             helper.make_node("Greater", ["total", "zero"], ["positive"], name="positive"),
             helper.make_node("If", ["positive"], ["y"], name="choose",
                              then_branch=then_graph, else_branch=else_graph)]
    inits = [helper.make_tensor("zero", F32, [], [0])]
    save_model(helper.make_graph(nodes, "if_nonzero", [vi("x", [6])], [vi("y", [1])],
                                 initializer=inits), "if_nonzero")
    base = np.abs(rng.standard_normal(6)).astype(np.float32)
    for k, x in enumerate([base, np.full(6, 0.25, np.float32), -base]):
        x64 = x.astype(np.float64)
        y = (x64[x64 > 0.5] ** 2).sum() if x64.sum() > 0 else x64.min()
        save("if_nonzero", "x", k, x)
        save("if_nonzero", "y", k, np.array([y], np.float32))
        print("if_nonzero", k, int((x > 0.5).sum()) if x64.sum() > 0 else "else")


def loop_caller_length(rng):
    body = helper.make_graph(
        [const("one", I64, [], [1]),
         helper.make_node("Add", ["i", "one"], ["i1"], name="i1"),
         helper.make_node("Cast", ["i1"], ["w"], name="w", to=F32),
         helper.make_node("Mul", ["pos", "w"], ["scaled"], name="scaled"),
         helper.make_node("ReduceSum", ["scaled"], ["s"], name="s", keepdims=1),
         helper.make_node("Add", ["acc_in", "s"], ["acc_out"], name="acc"),
         helper.make_node("Identity", ["cond_in"], ["cond_out"], name="cond")],
        "body", loop_inputs([1]), [vi("cond_out", [], BOOL), vi("acc_out", [1])])
    nodes = [helper.make_node("Greater", ["x", "zero"], ["mask"], name="mask"),
             helper.make_node("Compress", ["x", "mask"], ["pos"], name="pos", axis=0),
             helper.make_node("Loop", ["trip", "", "acc0"], ["acc"], name="passes", body=body)]
    inits = [helper.make_tensor("zero", F32, [], [0]), helper.make_tensor("trip", I64, [], [3]),
             helper.make_tensor("acc0", F32, [1], [0.5])]
    save_model(helper.make_graph(nodes, "loop_caller_length", [vi("x", [7])], [vi("acc", [1])],
                                 initializer=inits), "loop_caller_length")
    base = rng.standard_normal(7).astype(np.float32)
    for k, x in enumerate(signed_cases(base)):
        x64 = x.astype(np.float64)
        save("loop_caller_length", "x", k, x)
        save("loop_caller_length", "acc", k, np.array([0.5 + 6 * x64[x64 > 0].sum()], np.float32))
        print("loop_caller_length", k, int((x > 0).sum()), "kept")


def loop_if_lengths(rng):
    then_graph = helper.make_graph(
        [helper.make_node("Slice", ["x", "start0", "end2"], ["head"], name="head")],
        "then", [], [vi("head", [2])])
    else_graph = helper.make_graph(
        [helper.make_node("Slice", ["x", "start1", "end6"], ["tail"], name="tail"),
         helper.make_node("Mul", ["tail", "two"], ["tail2"], name="double")],
        "else", [], [vi("tail2", [5])])
    body = helper.make_graph(
        [helper.make_node("Gather", ["c", "i"], ["ci"], name="ci", axis=0),
         helper.make_node("Greater", ["ci", "zero"], ["positive"], name="positive"),
         helper.make_node("If", ["positive"], ["part"], name="choose",
                          then_branch=then_graph, else_branch=else_graph),
         helper.make_node("ReduceSum", ["part"], ["s"], name="s", keepdims=1),
         helper.make_node("Add", ["acc_in", "s"], ["acc_out"], name="acc"),
         helper.make_node("Identity", ["cond_in"], ["cond_out"], name="cond")],
        "body", loop_inputs([1]), [vi("cond_out", [], BOOL), vi("acc_out", [1])])
    nodes = [helper.make_node("Loop", ["trip", "", "acc0"], ["acc"], name="steps", body=body)]
    inits = [helper.make_tensor("zero", F32, [], [0]), helper.make_tensor("two", F32, [], [2]),
             helper.make_tensor("trip", I64, [], [4]), helper.make_tensor("acc0", F32, [1], [0]),
             helper.make_tensor("start0", I64, [1], [0]), helper.make_tensor("start1", I64, [1], [1]),
             helper.make_tensor("end2", I64, [1], [2]), helper.make_tensor("end6", I64, [1], [6])]
    save_model(helper.make_graph(nodes, "loop_if_lengths", [vi("x", [6]), vi("c", [4])],
                                 [vi("acc", [1])], initializer=inits), "loop_if_lengths")
    x = rng.standard_normal(6).astype(np.float32)
    for k, c in enumerate([[1, -1, 1, -1], [1, 1, 1, 1], [-1, -1, -1, 1]]):
        c = np.array(c, np.float32)
        x64 = x.astype(np.float64)
        acc = sum(x64[:2].sum() if ci > 0 else (2 * x64[1:]).sum() for ci in c)
        save("loop_if_lengths", "x", k, x)
        save("loop_if_lengths", "c", k, c)
        save("loop_if_lengths", "acc", k, np.array([acc], np.float32))


def loop_requirement():
    body = helper.make_graph(
        positive_entries("x") + [
         helper.make_node("Add", ["pos", "offsets"], ["shifted"], name="shifted"),
         helper.make_node("Identity", ["cond_in"], ["cond_out"], name="cond")],
        "body", [vi("i", [], I64), vi("cond_in", [], BOOL)],
        [vi("cond_out", [], BOOL), vi("shifted", None)])  # no shape: the length decides
    nodes = [helper.make_node("Loop", ["trip", ""], ["rows"], name="rows", body=body)]
    inits = [helper.make_tensor("trip", I64, [], [2]),
             helper.make_tensor("offsets", F32, [3], [10, 20, 30])]
    save_model(helper.make_graph(nodes, "loop_requirement", [vi("x", [2, 5])],
                                 [vi("rows", [2, 3])], initializer=inits), "loop_requirement")
    offsets = np.array([10, 20, 30], np.float64)
    for k, x in enumerate([[[1, -1, 2, -2, 3], [-1, 4, 5, 6, -2]],
                           [[7, 8, 9, -1, -1], [-1, -1, 1, 2, 3]],
                           [[1, 1, 1, 0, 0], [0, 2, 0, 2, 2]]]):
        x = np.array(x, np.float32)
        save("loop_requirement", "x", k, x)
        save("loop_requirement", "rows", k,
             np.stack([r[r > 0].astype(np.float64) + offsets for r in x]).astype(np.float32))
    np.save(os.path.join(HERE, "loop_requirement.bad.npy"),
            np.array([[1, 2, 3, 0, 0], [1, 0, 0, 0, 3]], np.float32))


def loop_twin_names(rng):
    """Two Loops both named "rows" (ONNX does not demand unique node names),
    keeping the positive entries of x's rows and of -x's: each body's length
    is its own (named after its Loop's first output)."""
    nodes = [helper.make_node("Loop", ["trip", "", "zero1"], ["kept"], name="rows",
                              body=summing_body("x")),
             helper.make_node("Neg", ["x"], ["neg"], name="neg"),
             helper.make_node("Loop", ["trip", "", "zero1"], ["dropped"], name="rows",
                              body=summing_body("neg"))]
    inits = [helper.make_tensor("trip", I64, [], [4]), helper.make_tensor("zero1", F32, [1], [0])]
    save_model(helper.make_graph(nodes, "loop_twin_names", [vi("x", [4, 5])],
                                 [vi("kept", [1]), vi("dropped", [1])], initializer=inits),
               "loop_twin_names")
    base = rng.standard_normal((4, 5)).astype(np.float32)
    for k, x in enumerate(signed_cases(base)):
        x64 = x.astype(np.float64)
        save("loop_twin_names", "x", k, x)
        save("loop_twin_names", "kept", k, np.array([x64[x64 > 0].sum()], np.float32))
        save("loop_twin_names", "dropped", k, np.array([-x64[x64 < 0].sum()], np.float32))


def loop_then_if(rng):
    """loop_compress's Loop, then an If whose branches compute [4, 40]
    tensors in the arena where the Loop body kept its length: a called
    function's length is the body's alone, not read back after the run."""
    def branch(name, scale):
        return helper.make_graph(
            [helper.make_node("Tile", ["x", "repeats"], [name + "_tiled"], name=name + "_tile"),
             const(name + "_scale", F32, [], [scale]),
             helper.make_node("Mul", [name + "_tiled", name + "_scale"], [name + "_scaled"],
                              name=name + "_mul"),
             helper.make_node("ReduceSum", [name + "_scaled", "axis1"], [name + "_y"],
                              name=name + "_sum", keepdims=0)],
            name, [], [vi(name + "_y", [4])])
    nodes = [helper.make_node("Loop", ["trip", "", "zero1"], ["acc"], name="rows",
                              body=summing_body("x")),
             helper.make_node("ReduceSum", ["acc"], ["total"], name="total", keepdims=0),
             helper.make_node("Greater", ["total", "origin"], ["positive"], name="positive"),
             helper.make_node("If", ["positive"], ["y"], name="choose",
                              then_branch=branch("then", 2.0), else_branch=branch("else", 3.0))]
    inits = [helper.make_tensor("trip", I64, [], [4]), helper.make_tensor("zero1", F32, [1], [0]),
             helper.make_tensor("origin", F32, [], [0]),
             helper.make_tensor("repeats", I64, [2], [1, 8]),
             helper.make_tensor("axis1", I64, [1], [1])]
    save_model(helper.make_graph(nodes, "loop_then_if", [vi("x", [4, 5])],
                                 [vi("acc", [1]), vi("y", [4])], initializer=inits),
               "loop_then_if")
    base = rng.standard_normal((4, 5)).astype(np.float32)
    for k, x in enumerate(signed_cases(base)):
        x64 = x.astype(np.float64)
        acc = x64[x64 > 0].sum()
        save("loop_then_if", "x", k, x)
        save("loop_then_if", "acc", k, np.array([acc], np.float32))
        save("loop_then_if", "y", k, ((2.0 if acc > 0 else 3.0) * 8 * x64.sum(axis=1)).astype(np.float32))


def refused_models():
    """A body Kiln refuses, naming why: it returns a value sized by the
    length it found (its caller could not plan it)."""
    body = helper.make_graph(
        positive_entries("x") + [
         helper.make_node("Identity", ["cond_in"], ["cond_out"], name="cond")],
        "body", [vi("i", [], I64), vi("cond_in", [], BOOL)],
        [vi("cond_out", [], BOOL), vi("pos", None)])
    nodes = [helper.make_node("Loop", ["trip", ""], ["rows"], name="rows", body=body)]
    save_model(helper.make_graph(nodes, "refuse_body_length_out", [vi("x", [2, 5])],
                                 [vi("rows", [2, "n"])],
                                 initializer=[helper.make_tensor("trip", I64, [], [2])]),
               "refuse_body_length_out")


def loop_rows_dynbatch(rng):
    """A Loop over the N rows of sin(x), x [N, 5] (trip count Shape(x)[0]),
    summing each row's positive entries (Compress): the body's tensors lie
    past sin(x), at offsets known only during the run, so the entry keeps a
    static slot for the body's length."""
    nodes = [helper.make_node("Sin", ["x"], ["r"], name="sin"),
             helper.make_node("Shape", ["x"], ["shape"], name="shape"),
             helper.make_node("Gather", ["shape", "first"], ["trip"], name="trip"),
             helper.make_node("Loop", ["trip", "", "acc0"], ["acc"], name="rows",
                              body=summing_body("r"))]
    inits = [helper.make_tensor("first", I64, [], [0]), helper.make_tensor("acc0", F32, [1], [0])]
    save_model(helper.make_graph(nodes, "loop_rows_dynbatch", [vi("x", ["N", 5])],
                                 [vi("acc", [1])], initializer=inits),
               "loop_rows_dynbatch")
    for k, n in enumerate([1, 3, 6]):
        x = rng.standard_normal((n, 5)).astype(np.float32)
        r = np.sin(x.astype(np.float64))
        save("loop_rows_dynbatch", "x", k, x)
        save("loop_rows_dynbatch", "acc", k, np.array([r[r > 0].sum()], np.float32))


def loop_signs_dynbatch(rng):
    """A Loop over the N rows of sin(x), x [N, 5], adding each row's
    positive entries and subtracting its negative ones (two Compress in the
    body): the sum of |sin(x)|, through two lengths of the body."""
    negative = [helper.make_node("Less", ["row", "zero"], ["neg_mask"], name="neg_mask"),
                helper.make_node("Compress", ["row", "neg_mask"], ["neg"], name="neg", axis=0)]
    body = helper.make_graph(
        positive_entries("r") + negative + [
         helper.make_node("ReduceSum", ["pos"], ["sp"], name="sp", keepdims=1),
         helper.make_node("ReduceSum", ["neg"], ["sn"], name="sn", keepdims=1),
         helper.make_node("Sub", ["sp", "sn"], ["s"], name="s"),
         helper.make_node("Add", ["acc_in", "s"], ["acc_out"], name="acc"),
         helper.make_node("Identity", ["cond_in"], ["cond_out"], name="cond")],
        "body", loop_inputs([1]), [vi("cond_out", [], BOOL), vi("acc_out", [1])])
    nodes = [helper.make_node("Sin", ["x"], ["r"], name="sin"),
             helper.make_node("Shape", ["x"], ["shape"], name="shape"),
             helper.make_node("Gather", ["shape", "first"], ["trip"], name="trip"),
             helper.make_node("Loop", ["trip", "", "acc0"], ["acc"], name="rows", body=body)]
    inits = [helper.make_tensor("first", I64, [], [0]), helper.make_tensor("acc0", F32, [1], [0])]
    save_model(helper.make_graph(nodes, "loop_signs_dynbatch", [vi("x", ["N", 5])],
                                 [vi("acc", [1])], initializer=inits),
               "loop_signs_dynbatch")
    for k, n in enumerate([1, 3, 6]):
        x = rng.standard_normal((n, 5)).astype(np.float32)
        r = np.sin(x.astype(np.float64))
        save("loop_signs_dynbatch", "x", k, x)
        save("loop_signs_dynbatch", "acc", k, np.array([np.abs(r).sum()], np.float32))


def main():
    rng = np.random.default_rng(10)
    loop_compress(rng)
    if_nonzero(rng)
    loop_caller_length(rng)
    loop_if_lengths(rng)
    loop_requirement()
    loop_twin_names(rng)
    loop_rows_dynbatch(rng)
    loop_then_if(rng)
    refused_models()
    loop_signs_dynbatch(np.random.default_rng(11))


if __name__ == "__main__":
    main()
