#!/usr/bin/python3
"""If, Loop and Scan in models with symbolic dims (issue 8), with NumPy
references at several sizes.

Writes into --out, per model NAME and size label K:
  NAME.onnx                       opset 13, symbolic dims as dim_param
  NAME.K.input.npy                the input (float32)
  NAME.K.output.npy               the NumPy reference (float32, from float64)
Each model is compiled once by tests/e2e/dynamic_models_test.sh and run at
every size in the VM and as AOT C.

  if_dynbatch      x [N,4]; If ReduceSum(x) > 0 then Relu(x) * 2 + 1 else x @ W
                   (both branches capture x; sizes pick both branches)
  loop_dynbatch    x [N,4]; Loop of 3 iterations carrying h [N,4]:
                   pre = reshape(h @ W, Shape(x)) + x, h = tanh(pre), halved
                   by a nested If when sum(pre) <= 0; scanning h out ->
                   [3,N,4] (the captured Shape(x) is a value of N)
  scan_dynseq      x [S,4]; Scan over S with state s [4]: s = 0.5 s + x_t,
                   scanning out 2 s -> [S,4] (S iterations: LOOP_DYN)
  scan_batch_dynseq x [N,S,3]; Scan over axis 1 with state [N,3], scanning
                   out along axis 1 in reverse -> [N,S,3]
  loop_trip_dynseq x [S,3]; Loop with trip count Shape(x)[0] = S: acc += x[i]
                   (x captured, Gather by the iteration number), scanning
                   acc out -> [S,3]
  scan_after_dynseq x [S,4]; Scan with a static [4] state over Relu(x) (a
                   tensor sized by S, so the Scan's slots lie past it), times
                   Relu(x): cumsum(relu(x)) * relu(x)
  if_widths_dynbatch x [N,4]; If ReduceSum(x) > 0 then x else x[:, :2], then
                   Sigmoid: [N, w] with w (4 or 2) known after the IF ran
  refused_if_shapes  a model Kiln refuses (no data): If branches of
                   shapes [N,4] and [N - 1,4] (lengths found inside bodies:
                   tests/models/result/generate_bodies.py)

Run with Debian's interpreter: /usr/bin/python3 generate_control.py --out DIR
Deterministic (fixed seeds): a second run writes identical bytes.
"""
import argparse
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 13
F = TensorProto.FLOAT


def const(name, array):
    return helper.make_node("Constant", [], [name], name=name,
                            value=numpy_helper.from_array(np.asarray(array), name))


def save_model(out, name, nodes, inputs, outputs):
    graph = helper.make_graph(nodes, name, inputs, outputs)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="kiln generate_control.py")
    model.ir_version = 7
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, name + ".onnx"))


def save_case(out, name, label, x, y):
    base = os.path.join(out, f"{name}.{label}")
    np.save(base + ".input.npy", x.astype(np.float32))
    np.save(base + ".output.npy", y.astype(np.float32))


def if_model(out):
    rng = np.random.default_rng(31)
    w = rng.standard_normal((4, 4)).astype(np.float32)
    then_graph = helper.make_graph(
        [helper.make_node("Relu", ["input"], ["r"], name="then_relu"),
         const("two", np.float32(2.0)), const("one", np.float32(1.0)),
         helper.make_node("Mul", ["r", "two"], ["r2"], name="then_mul"),
         helper.make_node("Add", ["r2", "one"], ["then_y"], name="then_add")],
        "then", [], [helper.make_tensor_value_info("then_y", F, ["N", 4])])
    else_graph = helper.make_graph(
        [const("w", w), helper.make_node("MatMul", ["input", "w"], ["else_y"], name="else_matmul")],
        "else", [], [helper.make_tensor_value_info("else_y", F, ["N", 4])])
    nodes = [
        helper.make_node("ReduceSum", ["input"], ["total"], name="total", keepdims=0),
        const("zero", np.float32(0.0)),
        helper.make_node("Greater", ["total", "zero"], ["positive"], name="positive"),
        helper.make_node("If", ["positive"], ["output"], name="branch",
                         then_branch=then_graph, else_branch=else_graph),
    ]
    save_model(out, "if_dynbatch", nodes, [helper.make_tensor_value_info("input", F, ["N", 4])],
               [helper.make_tensor_value_info("output", F, ["N", 4])])
    for n, shift in ((1, 1.0), (3, -1.0), (6, 0.5)):
        x = (rng.standard_normal((n, 4)) + shift).astype(np.float32)
        x64 = x.astype(np.float64)
        if x64.sum() > 0:
            y = np.maximum(x64, 0) * 2 + 1
        else:
            y = x64 @ w.astype(np.float64)
        save_case(out, "if_dynbatch", n, x, y)


def loop_model(out):
    rng = np.random.default_rng(32)
    w = (rng.standard_normal((4, 4)) * 0.5).astype(np.float32)
    body = helper.make_graph(
        [const("w", w),
         helper.make_node("MatMul", ["h_in", "w"], ["hw_flat"], name="body_matmul"),
         # A shape value computed from N, captured: a constant of the body.
         helper.make_node("Reshape", ["hw_flat", "in_shape"], ["hw"], name="body_reshape"),
         helper.make_node("Add", ["hw", "input"], ["pre"], name="body_add"),
         helper.make_node("Tanh", ["pre"], ["t"], name="body_tanh"),
         # Nested: an If in the body, its branches capturing t [N,4].
         helper.make_node("ReduceSum", ["pre"], ["pre_sum"], name="body_sum", keepdims=0),
         const("zero", np.float32(0.0)),
         helper.make_node("Greater", ["pre_sum", "zero"], ["up"], name="body_up"),
         helper.make_node("If", ["up"], ["h_out"], name="body_if",
                          then_branch=helper.make_graph(
                              [helper.make_node("Identity", ["t"], ["keep"], name="then_keep")],
                              "then", [], [helper.make_tensor_value_info("keep", F, ["N", 4])]),
                          else_branch=helper.make_graph(
                              [const("half", np.float32(0.5)),
                               helper.make_node("Mul", ["t", "half"], ["halved"], name="else_half")],
                              "else", [], [helper.make_tensor_value_info("halved", F, ["N", 4])])),
         helper.make_node("Identity", ["cond_in"], ["cond_out"], name="body_cond"),
         helper.make_node("Identity", ["h_out"], ["h_scan"], name="body_scan")],
        "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("h_in", F, ["N", 4])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("h_out", F, ["N", 4]),
         helper.make_tensor_value_info("h_scan", F, ["N", 4])])
    nodes = [
        const("trip", np.int64(3)), const("cond", np.bool_(True)),
        helper.make_node("Mul", ["input", "input"], ["h0"], name="h0"),
        helper.make_node("Shape", ["input"], ["in_shape"], name="in_shape"),
        helper.make_node("Loop", ["trip", "cond", "h0"], ["h_final", "output"], name="loop",
                         body=body),
    ]
    save_model(out, "loop_dynbatch", nodes, [helper.make_tensor_value_info("input", F, ["N", 4])],
               [helper.make_tensor_value_info("output", F, [3, "N", 4])])
    for n in (1, 2, 5):
        x = rng.standard_normal((n, 4)).astype(np.float32)
        h = x.astype(np.float64) ** 2
        ys = []
        for _ in range(3):
            pre = h @ w.astype(np.float64) + x
            h = np.tanh(pre) if pre.sum() > 0 else np.tanh(pre) * 0.5
            ys.append(h)
        save_case(out, "loop_dynbatch", n, x, np.stack(ys))


def scan_model(out):
    rng = np.random.default_rng(33)
    body = helper.make_graph(
        [const("half", np.float32(0.5)), const("two", np.float32(2.0)),
         helper.make_node("Mul", ["s_in", "half"], ["s_half"], name="body_half"),
         helper.make_node("Add", ["s_half", "x_t"], ["s_out"], name="body_add"),
         helper.make_node("Mul", ["s_out", "two"], ["y_t"], name="body_double")],
        "body",
        [helper.make_tensor_value_info("s_in", F, [4]),
         helper.make_tensor_value_info("x_t", F, [4])],
        [helper.make_tensor_value_info("s_out", F, [4]),
         helper.make_tensor_value_info("y_t", F, [4])])
    nodes = [
        const("s0", np.full(4, 0.25, np.float32)),
        helper.make_node("Scan", ["s0", "input"], ["s_final", "output"], name="scan",
                         body=body, num_scan_inputs=1),
    ]
    save_model(out, "scan_dynseq", nodes, [helper.make_tensor_value_info("input", F, ["S", 4])],
               [helper.make_tensor_value_info("output", F, ["S", 4])])
    for s in (1, 4, 9):
        x = rng.standard_normal((s, 4)).astype(np.float32)
        state = np.full(4, 0.25)
        ys = []
        for t in range(s):
            state = state * 0.5 + x[t].astype(np.float64)
            ys.append(state * 2)
        save_case(out, "scan_dynseq", s, x, np.stack(ys))


def scan_batch_model(out):
    rng = np.random.default_rng(34)
    body = helper.make_graph(
        [helper.make_node("Max", ["s_in", "x_t"], ["s_out"], name="body_max"),
         helper.make_node("Sub", ["x_t", "s_out"], ["y_t"], name="body_sub")],
        "body",
        [helper.make_tensor_value_info("s_in", F, ["N", 3]),
         helper.make_tensor_value_info("x_t", F, ["N", 3])],
        [helper.make_tensor_value_info("s_out", F, ["N", 3]),
         helper.make_tensor_value_info("y_t", F, ["N", 3])])
    nodes = [
        helper.make_node("ReduceMin", ["input"], ["s0"], name="s0", axes=[1], keepdims=0),
        helper.make_node("Scan", ["s0", "input"], ["s_final", "output"], name="scan",
                         body=body, num_scan_inputs=1, scan_input_axes=[1],
                         scan_output_axes=[1], scan_output_directions=[1]),
    ]
    save_model(out, "scan_batch_dynseq", nodes,
               [helper.make_tensor_value_info("input", F, ["N", "S", 3])],
               [helper.make_tensor_value_info("output", F, ["N", "S", 3])])
    # One size label per case; N and S vary together.
    for label, (n, s) in ((1, (1, 1)), (3, (2, 3)), (7, (3, 7))):
        x = rng.standard_normal((n, s, 3)).astype(np.float32)
        state = x.min(axis=1).astype(np.float64)
        ys = []
        for t in range(s):
            state = np.maximum(state, x[:, t])
            ys.append(x[:, t] - state)
        # A reversed scan output: iteration t writes slice s-1-t.
        save_case(out, "scan_batch_dynseq", label, x, np.stack(ys[::-1], axis=1))


def scan_after_model(out):
    """A Scan with a static state whose slots lie past a tensor sized by S."""
    rng = np.random.default_rng(37)
    body = helper.make_graph(
        [helper.make_node("Add", ["s_in", "x_t"], ["s_out"], name="body_acc"),
         helper.make_node("Identity", ["s_out"], ["y_t"], name="body_y")],
        "body",
        [helper.make_tensor_value_info("s_in", F, [4]), helper.make_tensor_value_info("x_t", F, [4])],
        [helper.make_tensor_value_info("s_out", F, [4]), helper.make_tensor_value_info("y_t", F, [4])])
    nodes = [helper.make_node("Relu", ["input"], ["r"], name="relu"),
             const("s0", np.zeros(4, np.float32)),
             helper.make_node("Scan", ["s0", "r"], ["s_final", "ys"], name="scan", body=body,
                              num_scan_inputs=1),
             helper.make_node("Mul", ["ys", "r"], ["output"], name="mul")]
    save_model(out, "scan_after_dynseq", nodes,
               [helper.make_tensor_value_info("input", F, ["S", 4])],
               [helper.make_tensor_value_info("output", F, ["S", 4])])
    for s in (1, 4, 9):
        x = rng.standard_normal((s, 4)).astype(np.float32)
        r = np.maximum(x, 0).astype(np.float64)
        save_case(out, "scan_after_dynseq", s, x, np.cumsum(r, axis=0) * r)


def loop_trip_model(out):
    rng = np.random.default_rng(35)
    body = helper.make_graph(
        [helper.make_node("Gather", ["input", "i"], ["row"], name="body_row", axis=0),
         helper.make_node("Add", ["acc_in", "row"], ["acc_out"], name="body_acc"),
         helper.make_node("Identity", ["cond_in"], ["cond_out"], name="body_cond"),
         helper.make_node("Identity", ["acc_out"], ["acc_scan"], name="body_scan")],
        "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_in", F, [3])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_out", F, [3]),
         helper.make_tensor_value_info("acc_scan", F, [3])])
    nodes = [
        helper.make_node("Shape", ["input"], ["shape"], name="shape"),
        const("zero", np.int64(0)),
        helper.make_node("Gather", ["shape", "zero"], ["trip"], name="trip", axis=0),
        const("acc0", np.zeros(3, np.float32)),
        helper.make_node("Loop", ["trip", "", "acc0"], ["acc_final", "output"], name="loop",
                         body=body),
    ]
    save_model(out, "loop_trip_dynseq", nodes,
               [helper.make_tensor_value_info("input", F, ["S", 3])],
               [helper.make_tensor_value_info("output", F, ["S", 3])])
    for s in (1, 3, 8):
        x = rng.standard_normal((s, 3)).astype(np.float32)
        save_case(out, "loop_trip_dynseq", s, x, np.cumsum(x.astype(np.float64), axis=0))


def refused_models(out):
    """Models Kiln refuses, naming the node (no data files)."""
    # If branches whose shapes differ in a symbolic dim: [N,4] and [N - 1,4].
    then_graph = helper.make_graph(
        [helper.make_node("Identity", ["input"], ["then_y"], name="then_id")],
        "then", [], [helper.make_tensor_value_info("then_y", F, ["N", 4])])
    else_graph = helper.make_graph(
        [const("starts", np.array([1], np.int64)), const("ends", np.array([1 << 40], np.int64)),
         helper.make_node("Slice", ["input", "starts", "ends"], ["else_y"], name="else_slice")],
        "else", [], [helper.make_tensor_value_info("else_y", F, [None, 4])])
    nodes = [helper.make_node("ReduceSum", ["input"], ["total"], name="total", keepdims=0),
             const("zero", np.float32(0.0)),
             helper.make_node("Greater", ["total", "zero"], ["positive"], name="positive"),
             helper.make_node("If", ["positive"], ["output"], name="branch",
                              then_branch=then_graph, else_branch=else_graph)]
    save_model(out, "refused_if_shapes", nodes,
               [helper.make_tensor_value_info("input", F, ["N", 4])],
               [helper.make_tensor_value_info("output", F, [None, 4])])


def if_widths_model(out):
    """If branches of different static widths beside a symbolic batch."""
    rng = np.random.default_rng(36)
    then_graph = helper.make_graph(
        [helper.make_node("Identity", ["input"], ["then_y"], name="then_id")],
        "then", [], [helper.make_tensor_value_info("then_y", F, ["N", 4])])
    else_graph = helper.make_graph(
        [const("starts", np.array([0], np.int64)), const("ends", np.array([2], np.int64)),
         const("axes", np.array([1], np.int64)),
         helper.make_node("Slice", ["input", "starts", "ends", "axes"], ["else_y"], name="else_slice")],
        "else", [], [helper.make_tensor_value_info("else_y", F, ["N", 2])])
    nodes = [helper.make_node("ReduceSum", ["input"], ["total"], name="total", keepdims=0),
             const("zero", np.float32(0.0)),
             helper.make_node("Greater", ["total", "zero"], ["positive"], name="positive"),
             helper.make_node("If", ["positive"], ["picked"], name="branch",
                              then_branch=then_graph, else_branch=else_graph),
             helper.make_node("Sigmoid", ["picked"], ["output"], name="squash")]
    save_model(out, "if_widths_dynbatch", nodes,
               [helper.make_tensor_value_info("input", F, ["N", 4])],
               [helper.make_tensor_value_info("output", F, ["N", "w"])])
    for n, shift in ((1, -1.0), (3, 1.0), (6, -0.5)):
        x = (rng.standard_normal((n, 4)) + shift).astype(np.float32)
        x64 = x.astype(np.float64)
        y = x64 if x64.sum() > 0 else x64[:, :2]
        save_case(out, "if_widths_dynbatch", n, x, 1 / (1 + np.exp(-y)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    if_model(args.out)
    loop_model(args.out)
    scan_model(args.out)
    scan_batch_model(args.out)
    loop_trip_model(args.out)
    scan_after_model(args.out)
    if_widths_model(args.out)
    refused_models(args.out)


if __name__ == "__main__":
    main()
