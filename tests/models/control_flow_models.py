"""Control-flow test models (ONNX If, Loop, Scan) with NumPy references.

Imported by generate.py. Every model takes and gives float32 tensors only
(the e2e harness's contract); conditions and trip counts are computed inside
the model or are constants. The references re-implement the ONNX semantics
directly in NumPy, loop by loop, independently of the graphs.
"""
import numpy as np
from onnx import TensorProto, helper, numpy_helper

F32 = TensorProto.FLOAT
I64 = TensorProto.INT64
BOOL = TensorProto.BOOL


def _vi(name, shape, dtype=F32):
    return helper.make_tensor_value_info(name, dtype, list(shape))


def _const(name, arr):
    return helper.make_node("Constant", [], [name],
                            value=numpy_helper.from_array(np.asarray(arr), name))


def _model(name, nodes, inputs, outputs, inits, opset):
    graph = helper.make_graph(nodes, name, inputs, outputs, initializer=inits)
    return helper.make_model(graph, producer_name="kiln-tests",
                             opset_imports=[helper.make_opsetid("", opset)])


def if_capture(save, rng):
    """If whose branches read outer values (x, Relu(x), an outer initializer)
    and a constant of their own; the condition is sum(x) > 0."""
    c_then = rng.standard_normal(3).astype(np.float32)
    c_else = rng.standard_normal(3).astype(np.float32)
    then_g = helper.make_graph(
        [helper.make_node("Mul", ["x", "r"], ["t1"]),
         _const("c_then", c_then),
         helper.make_node("Add", ["t1", "c_then"], ["then_a"]),
         helper.make_node("Sigmoid", ["x"], ["then_b"])],
        "then_body", [], [_vi("then_a", [2, 3]), _vi("then_b", [2, 3])])
    else_g = helper.make_graph(
        [helper.make_node("Sub", ["x", "c_else"], ["e1"]),
         helper.make_node("Neg", ["e1"], ["else_a"]),
         helper.make_node("Abs", ["x"], ["else_b"])],
        "else_body", [], [_vi("else_a", [2, 3]), _vi("else_b", [2, 3])])
    nodes = [
        helper.make_node("ReduceSum", ["x"], ["s"], keepdims=0),
        _const("zero", np.float32(0)),
        helper.make_node("Greater", ["s", "zero"], ["cond"]),
        helper.make_node("Relu", ["x"], ["r"]),
        helper.make_node("If", ["cond"], ["a", "b"], then_branch=then_g, else_branch=else_g),
    ]
    model = _model("control_if", nodes, [_vi("x", [2, 3])],
                   [_vi("a", [2, 3]), _vi("b", [2, 3])],
                   [numpy_helper.from_array(c_else, "c_else")], 13)

    def reference(x):
        if x.sum() > 0:
            return [x * np.maximum(x, 0) + c_then, 1 / (1 + np.exp(-x))]
        return [-(x - c_else), np.abs(x)]

    x = rng.standard_normal((2, 3)).astype(np.float32)
    x_then = np.abs(x) + 0.1
    x_else = -np.abs(x) - 0.1
    for suffix, data in (("then", x_then), ("else", x_else)):
        save(f"control_if_{suffix}", model, [data], reference(data),
             "If: captured outer values and initializers, two outputs, "
             f"the {suffix} branch taken", "numpy")


def loop_scan(save, rng):
    """Loop with a constant trip count: a carried state, a scan output and a
    captured outer tensor read with the iteration number (Gather)."""
    body = helper.make_graph(
        [helper.make_node("Gather", ["x", "i"], ["row"], axis=0),
         _const("half", np.float32(0.5)),
         helper.make_node("Mul", ["s_in", "half"], ["scaled"]),
         helper.make_node("Add", ["scaled", "row"], ["s_out"]),
         helper.make_node("Identity", ["cond_in"], ["cond_out"]),
         helper.make_node("Tanh", ["s_out"], ["scan"])],
        "loop_body",
        [_vi("i", [], I64), _vi("cond_in", [], BOOL), _vi("s_in", [3])],
        [_vi("cond_out", [], BOOL), _vi("s_out", [3]), _vi("scan", [3])])
    nodes = [helper.make_node("Loop", ["trip", "go", "s0"], ["s", "scans"], body=body)]
    model = _model("control_loop_scan", nodes, [_vi("x", [4, 3]), _vi("s0", [3])],
                   [_vi("s", [3]), _vi("scans", [4, 3])],
                   [numpy_helper.from_array(np.array(4, np.int64), "trip"),
                    numpy_helper.from_array(np.array(True), "go")], 13)
    x = rng.standard_normal((4, 3)).astype(np.float32)
    s0 = rng.standard_normal(3).astype(np.float32)
    s, scans = s0.copy(), []
    for i in range(4):
        s = s * np.float32(0.5) + x[i]
        scans.append(np.tanh(s))
    save("control_loop_scan", model, [x, s0], [s, np.stack(scans)],
         "Loop: constant trip count, a carried value, a scan output, a captured "
         "outer input indexed by the iteration number", "numpy")


def loop_while(save, rng):
    """Loop that stops on its condition (computed from a captured input)
    before the trip count; no scan outputs."""
    body = helper.make_graph(
        [_const("k", np.float32(1.5)),
         _const("b", np.float32(0.25)),
         helper.make_node("Mul", ["v_in", "k"], ["m"]),
         helper.make_node("Add", ["m", "b"], ["v_out"]),
         helper.make_node("ReduceSum", ["v_out"], ["total"], keepdims=0),
         helper.make_node("Less", ["total", "bound"], ["cond_out"])],
        "while_body",
        [_vi("i", [], I64), _vi("cond_in", [], BOOL), _vi("v_in", [2])],
        [_vi("cond_out", [], BOOL), _vi("v_out", [2])])
    nodes = [
        helper.make_node("ReduceSum", ["v0"], ["total0"], keepdims=0),
        helper.make_node("ReduceSum", ["limit"], ["bound"], keepdims=0),  # [1] -> scalar
        helper.make_node("Less", ["total0", "bound"], ["go"]),
        helper.make_node("Loop", ["trip", "go", "v0"], ["v"], body=body),
    ]
    model = _model("control_loop_while", nodes, [_vi("v0", [2]), _vi("limit", [1])],
                   [_vi("v", [2])],
                   [numpy_helper.from_array(np.array(50, np.int64), "trip")], 13)
    v0 = np.abs(rng.standard_normal(2)).astype(np.float32)
    limit = np.array([40.0], np.float32)
    v = v0.copy()
    trips = 0
    while trips < 50 and v.sum() < limit[0]:
        v = v * np.float32(1.5) + np.float32(0.25)
        trips += 1
    assert 2 < trips < 50, trips  # the condition, not the count, ends it
    save("control_loop_while", model, [v0, limit], [v],
         "Loop: ends on its condition (a captured input as the bound), "
         "before the trip count", "numpy")


def scan_axes(save, rng):
    """Scan over axis 1 of its input, read in reverse; two scan outputs, one
    assembled along axis 1 and one along axis 0 in reverse; a captured
    initializer (W) in the body."""
    w = rng.standard_normal((2, 2)).astype(np.float32) * 0.5
    body = helper.make_graph(
        [helper.make_node("MatMul", ["x_t", "W"], ["xw"]),
         helper.make_node("ReduceSum", ["xw"], ["red"], axes=[0], keepdims=0),
         helper.make_node("Add", ["h_in", "red"], ["pre"]),
         helper.make_node("Tanh", ["pre"], ["h_out"]),
         helper.make_node("Mul", ["h_out", "h_out"], ["sq"]),
         helper.make_node("Identity", ["h_out"], ["h_copy"])],
        "scan_body", [_vi("h_in", [2]), _vi("x_t", [3, 2])],
        [_vi("h_out", [2]), _vi("sq", [2]), _vi("h_copy", [2])])
    nodes = [helper.make_node("Scan", ["h0", "x"], ["h", "squares", "states"], body=body,
                              num_scan_inputs=1, scan_input_axes=[1],
                              scan_input_directions=[1], scan_output_axes=[1, 0],
                              scan_output_directions=[0, 1])]
    model = _model("control_scan_axes", nodes, [_vi("h0", [2]), _vi("x", [3, 4, 2])],
                   [_vi("h", [2]), _vi("squares", [2, 4]), _vi("states", [4, 2])],
                   [numpy_helper.from_array(w, "W")], 11)
    h0 = rng.standard_normal(2).astype(np.float32)
    x = rng.standard_normal((3, 4, 2)).astype(np.float32)
    h = h0.copy()
    squares = np.zeros((2, 4), np.float32)
    states = np.zeros((4, 2), np.float32)
    for t in range(4):
        x_t = x[:, 3 - t, :]
        h = np.tanh(h + (x_t @ w).sum(axis=0))
        squares[:, t] = h * h
        states[3 - t, :] = h
    save("control_scan_axes", model, [h0, x], [h, squares, states],
         "Scan: input along axis 1 in reverse, outputs along axes 1 and 0 "
         "(one reversed), a captured initializer", "numpy")


def loop_nested_if(save, rng):
    """An If inside a Loop body, capturing the body's own input (v_in) and
    deciding on the iteration number."""
    then_g = helper.make_graph(
        [_const("two", np.float32(2)), helper.make_node("Mul", ["v_in", "two"], ["t"])],
        "then_body", [], [_vi("t", [3])])
    else_g = helper.make_graph(
        [_const("one", np.float32(1)), helper.make_node("Add", ["v_in", "one"], ["e"])],
        "else_body", [], [_vi("e", [3])])
    body = helper.make_graph(
        [helper.make_node("Cast", ["i"], ["fi"], to=F32),
         _const("cut", np.float32(1.5)),
         helper.make_node("Less", ["fi", "cut"], ["early"]),
         helper.make_node("If", ["early"], ["v_out"], then_branch=then_g, else_branch=else_g),
         helper.make_node("Identity", ["cond_in"], ["cond_out"]),
         helper.make_node("Sqrt", ["v_out"], ["root"])],
        "nested_body",
        [_vi("i", [], I64), _vi("cond_in", [], BOOL), _vi("v_in", [3])],
        [_vi("cond_out", [], BOOL), _vi("v_out", [3]), _vi("root", [3])])
    nodes = [helper.make_node("Loop", ["trip", "", "v0"], ["v", "roots"], body=body)]
    model = _model("control_loop_nested_if", nodes, [_vi("v0", [3])],
                   [_vi("v", [3]), _vi("roots", [4, 3])],
                   [numpy_helper.from_array(np.array(4, np.int64), "trip")], 13)
    v0 = np.abs(rng.standard_normal(3)).astype(np.float32)
    v, roots = v0.copy(), []
    for i in range(4):
        v = v * np.float32(2) if i < 1.5 else v + np.float32(1)
        roots.append(np.sqrt(v))
    save("control_loop_nested_if", model, [v0], [v, np.stack(roots)],
         "Loop with an If in its body that captures a body input; no "
         "condition input", "numpy")


def loop_window(save, rng):
    """Loop whose body slices a captured input at the iteration number
    (x[i:i+3], starts and ends known only during the run): the shapes the
    body declares for its outputs give the slice its length."""
    body = helper.make_graph(
        [_const("axis0", np.array([0], np.int64)),
         _const("width", np.array([3], np.int64)),
         _const("two", np.float32(2)),
         helper.make_node("Unsqueeze", ["i", "axis0"], ["start"]),
         helper.make_node("Add", ["start", "width"], ["end"]),
         helper.make_node("Slice", ["x", "start", "end"], ["window"]),
         helper.make_node("Mul", ["window", "two"], ["doubled"]),
         helper.make_node("Add", ["s_in", "doubled"], ["s_out"]),
         helper.make_node("Identity", ["cond_in"], ["cond_out"]),
         helper.make_node("Identity", ["window"], ["scan"])],
        "loop_body",
        [_vi("i", [], I64), _vi("cond_in", [], BOOL), _vi("s_in", [3])],
        [_vi("cond_out", [], BOOL), _vi("s_out", [3]), _vi("scan", [3])])
    nodes = [helper.make_node("Loop", ["trip", "", "s0"], ["s", "windows"], body=body)]
    model = _model("control_loop_window", nodes, [_vi("x", [6]), _vi("s0", [3])],
                   [_vi("s", [3]), _vi("windows", [4, 3])],
                   [numpy_helper.from_array(np.array(4, np.int64), "trip")], 13)
    x = rng.standard_normal(6).astype(np.float32)
    s0 = rng.standard_normal(3).astype(np.float32)
    s, windows = s0.copy(), []
    for i in range(4):
        s = s + x[i:i + 3] * np.float32(2)
        windows.append(x[i:i + 3])
    save("control_loop_window", model, [x, s0], [s, np.stack(windows)],
         "Loop slicing a captured input at the iteration number (run-time "
         "starts/ends inside a body, shaped by the body's declared outputs)", "numpy")


def control_flow_models(save):
    rng = np.random.default_rng(2026)
    if_capture(save, rng)
    loop_scan(save, rng)
    loop_while(save, rng)
    scan_axes(save, rng)
    loop_nested_if(save, rng)
    loop_window(save, rng)


def loop_declared_length(path):
    """A Loop whose trip count is a run-time int64 input and whose scan output
    declares 3 rows: runs with another count must fail (tests/e2e)."""
    body = helper.make_graph(
        [_const("one", np.float32(1)),
         helper.make_node("Add", ["s_in", "one"], ["s_out"]),
         helper.make_node("Identity", ["cond_in"], ["cond_out"]),
         helper.make_node("Identity", ["s_out"], ["scan"])],
        "count_body",
        [_vi("i", [], I64), _vi("cond_in", [], BOOL), _vi("s_in", [2])],
        [_vi("cond_out", [], BOOL), _vi("s_out", [2]), _vi("scan", [2])])
    nodes = [helper.make_node("Loop", ["trip", "", "s0"], ["s", "scans"], body=body)]
    model = _model("control_loop_declared_length", nodes,
                   [_vi("trip", [], I64), _vi("s0", [2])],
                   [_vi("s", [2]), _vi("scans", [3, 2])], [], 13)
    import os
    import onnx
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, path)
    base = os.path.splitext(path)[0]
    s0 = np.array([0.5, -1.0], np.float32)
    np.save(base + ".s0.npy", s0)
    for trips in (2, 3, 5):
        np.save(base + f".trip{trips}.npy", np.array(trips, np.int64))
    # The one count the declaration allows: s0 + 3 and rows s0 + 1 .. s0 + 3.
    np.save(base + ".output0.npy", s0 + 3)
    np.save(base + ".output1.npy", np.stack([s0 + k for k in (1, 2, 3)]))


def loop_budget_models(out_dir):
    """Loops only a run budget bounds (tests/vm/run_budget_test.cc,
    tests/aot/run_budget_bundle_test.cc, tests/e2e/run_budget_test.sh):

    - loop_counted: the trip count is a run-time int64 input; the body halves
      the carried s and adds 1 (it tends to 2: any count keeps it finite).
      trip 7 runs to the reference; trip 2^62 runs for ever.
    - loop_until: a while loop as PyTorch exports it, trip count the constant
      INT64_MAX (the module declares it), ended by its condition: the sum of v
      below the input bound. v tends to [2, 2], so bound 3.5 ends after a few
      iterations and bound 5 never does.
    """
    import os
    import onnx
    i64_max = np.iinfo(np.int64).max
    half_plus_one = [_const("half", np.float32(0.5)), _const("one", np.float32(1)),
                     helper.make_node("Mul", ["s_in", "half"], ["h"]),
                     helper.make_node("Add", ["h", "one"], ["s_out"])]
    counted = helper.make_graph(
        half_plus_one + [helper.make_node("Identity", ["cond_in"], ["cond_out"])],
        "counted_body", [_vi("i", [], I64), _vi("cond_in", [], BOOL), _vi("s_in", [2])],
        [_vi("cond_out", [], BOOL), _vi("s_out", [2])])
    model = _model("loop_counted", [helper.make_node("Loop", ["trip", "", "s0"], ["s"], body=counted)],
                   [_vi("trip", [], I64), _vi("s0", [2])], [_vi("s", [2])], [], 13)
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, os.path.join(out_dir, "loop_counted.onnx"))
    s0 = np.array([0.5, -3.0], np.float32)
    s = s0.copy()
    for _ in range(7):
        s = s * np.float32(0.5) + np.float32(1)
    base = os.path.join(out_dir, "loop_counted")
    np.save(base + ".s0.npy", s0)
    np.save(base + ".trip7.npy", np.array(7, np.int64))
    np.save(base + ".trip_huge.npy", np.array(1 << 62, np.int64))
    np.save(base + ".output7.npy", s)

    until = helper.make_graph(
        [helper.make_node("Identity", ["v_in"], ["s_in"])] + half_plus_one +
        [helper.make_node("Identity", ["s_out"], ["v_out"]),
         helper.make_node("ReduceSum", ["v_out"], ["total"], keepdims=0),
         helper.make_node("Less", ["total", "limit"], ["cond_out"])],
        "until_body", [_vi("i", [], I64), _vi("cond_in", [], BOOL), _vi("v_in", [2])],
        [_vi("cond_out", [], BOOL), _vi("v_out", [2])])
    nodes = [helper.make_node("ReduceSum", ["bound"], ["limit"], keepdims=0),
             helper.make_node("ReduceSum", ["v0"], ["total0"], keepdims=0),
             helper.make_node("Less", ["total0", "limit"], ["go"]),
             helper.make_node("Loop", ["trip", "go", "v0"], ["v"], body=until)]
    model = _model("loop_until", nodes, [_vi("v0", [2]), _vi("bound", [1])], [_vi("v", [2])],
                   [numpy_helper.from_array(np.array(i64_max, np.int64), "trip")], 13)
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, os.path.join(out_dir, "loop_until.onnx"))
    v0 = np.array([0.0, 1.0], np.float32)
    v = v0.copy()
    trips = 0
    while v.sum(dtype=np.float32) < np.float32(3.5):
        v = v * np.float32(0.5) + np.float32(1)
        trips += 1
    assert 2 < trips < 20, trips  # the condition ends it
    base = os.path.join(out_dir, "loop_until")
    np.save(base + ".v0.npy", v0)
    np.save(base + ".bound_ends.npy", np.array([3.5], np.float32))
    np.save(base + ".bound_never.npy", np.array([5.0], np.float32))
    np.save(base + ".output_ends.npy", v)
