"""Models whose data-dependent lengths carry on into later ops (issue 8): the
length a NonZero, Compress, Unique or NonMaxSuppression finds during the run
sizes the ops that read its result, and the graph outputs are returned with
the shapes they turn out to have. Three data sets per model give different
lengths, one of them empty where the model allows it.

- mask_select: `x[x > 0] * 2` exported by PyTorch (Greater, NonZero,
  Transpose, GatherND, Mul); reference by NumPy boolean indexing.
- nms_boxes: NonMaxSuppression, then the kept box indices (Gather of column
  2) pick the boxes (Gather along axis 0); reference by generate.py's NumPy
  NMS.
- unique_scaled: Unique's distinct values times their counts, plus 1.
- compress_rows: rows chosen by a run-time condition (Compress, axis 0),
  a MatMul and a Softmax over each row; reference in float64 NumPy.
- nonzero_batch: a symbolic batch N beside the length: NonZero of a mask
  picks columns of x [N, 5] (Squeeze, Gather axis 1, Relu): [N, length].
- nonzero_requirement: the positions of a mask's non-zeros plus a constant
  of 3 values, which broadcasting requires the length to equal; three masks
  with 3 non-zeros, and nonzero_requirement.bad.npy with 2 (refused).
- if_lengths: an If whose branches give [4, 2] (x[:, :2]) and [4, 5]
  (2 * x[:, 1:]): the output's second dim is the length of the branch
  taken; Exp and a ReduceSum over it follow (z [4]).
usage: /usr/bin/python3 tests/models/result/generate_carried.py"""
import os

import numpy as np
import onnx
import torch
from onnx import TensorProto, helper, numpy_helper

from generate import check_margins, nms_data, nms_reference, save, save_model

HERE = os.path.dirname(os.path.abspath(__file__))


def mask_select(rng):
    class MaskSelect(torch.nn.Module):
        def forward(self, x):
            return x[x > 0] * 2.0

    path = os.path.join(HERE, "mask_select.onnx")
    torch.onnx.export(MaskSelect(), (torch.randn(3, 4),), path, opset_version=13,
                      input_names=["x"], output_names=["y"])
    model = onnx.load(path)
    model.producer_version = ""  # keep the bytes independent of the torch build
    onnx.save(model, path)
    base = rng.standard_normal((3, 4)).astype(np.float32)
    for k, x in enumerate([base, np.abs(base) + 0.5, -np.abs(base) - 0.5]):
        save("mask_select", "x", k, x)
        save("mask_select", "y", k, (x[x > 0] * np.float32(2)).astype(np.float32))
        print("mask_select", k, int((x > 0).sum()), "selected")


def nms_boxes(rng):
    boxes = helper.make_tensor_value_info("boxes", TensorProto.FLOAT, [1, 6, 4])
    scores = helper.make_tensor_value_info("scores", TensorProto.FLOAT, [1, 2, 6])
    thr = helper.make_tensor_value_info("score_threshold", TensorProto.FLOAT, [1])
    sel = helper.make_tensor_value_info("selected", TensorProto.INT64, ["n", 3])
    picked = helper.make_tensor_value_info("picked", TensorProto.FLOAT, ["n", 4])
    inits = [helper.make_tensor("max_out", TensorProto.INT64, [1], [3]),
             helper.make_tensor("iou_threshold", TensorProto.FLOAT, [1], [0.3]),
             helper.make_tensor("column", TensorProto.INT64, [], [2]),
             helper.make_tensor("rows", TensorProto.INT64, [2], [6, 4])]
    nodes = [helper.make_node("NonMaxSuppression",
                              ["boxes", "scores", "max_out", "iou_threshold", "score_threshold"],
                              ["selected"], name="nms"),
             helper.make_node("Gather", ["selected", "column"], ["box_index"], name="box_index",
                              axis=1),
             helper.make_node("Reshape", ["boxes", "rows"], ["box_rows"], name="box_rows"),
             helper.make_node("Gather", ["box_rows", "box_index"], ["picked"], name="pick",
                              axis=0)]
    save_model(helper.make_graph(nodes, "nms_boxes", [boxes, scores, thr], [sel, picked],
                                 initializer=inits), "nms_boxes")
    b = nms_data(rng, 1, 6, 0.3)
    s = rng.permutation(12).reshape(1, 2, 6).astype(np.float32) / 12 + 0.01
    for k, t in enumerate([0.005, 0.6, 2.0]):  # all candidates, a few, none
        check_margins(b, s, 0.3, t)
        ref = nms_reference(b, s, 3, 0.3, t)
        save("nms_boxes", "boxes", k, b)
        save("nms_boxes", "scores", k, s)
        save("nms_boxes", "score_threshold", k, np.array([t], dtype=np.float32))
        save("nms_boxes", "selected", k, ref)
        save("nms_boxes", "picked", k, np.ascontiguousarray(b[0][ref[:, 2]], dtype=np.float32))
        print("nms_boxes", k, len(ref), "boxes")


def unique_scaled(rng):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [8])
    z = helper.make_tensor_value_info("z", TensorProto.FLOAT, ["n"])
    nodes = [helper.make_node("Unique", ["x"], ["y", "", "", "counts"], name="uq", sorted=1),
             helper.make_node("Cast", ["counts"], ["weight"], name="weight", to=TensorProto.FLOAT),
             helper.make_node("Mul", ["y", "weight"], ["scaled"], name="scale"),
             helper.make_node("Add", ["scaled", "one"], ["z"], name="plus_one")]
    save_model(helper.make_graph(nodes, "unique_scaled", [x], [z],
                                 initializer=[helper.make_tensor("one", TensorProto.FLOAT, [1],
                                                                 [1.0])]), "unique_scaled")
    data = [np.array([2.5, -1, 2.5, 0, 7, -1, 2.5, 3], dtype=np.float32),
            np.full(8, 4.25, dtype=np.float32),
            rng.permutation(np.arange(8)).astype(np.float32) * 1.5 - 3]
    for k, a in enumerate(data):
        y, counts = np.unique(a, return_counts=True)
        save("unique_scaled", "x", k, a)
        save("unique_scaled", "z", k, (y * counts.astype(np.float32) + 1).astype(np.float32))
        print("unique_scaled", k, len(y), "distinct")


def compress_rows(rng):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [5, 4])
    cond = helper.make_tensor_value_info("cond", TensorProto.BOOL, [5])
    p = helper.make_tensor_value_info("p", TensorProto.FLOAT, ["n", 3])
    w = rng.standard_normal((4, 3)).astype(np.float32)
    nodes = [helper.make_node("Compress", ["x", "cond"], ["rows"], name="pick_rows", axis=0),
             helper.make_node("MatMul", ["rows", "w"], ["logits"], name="project"),
             helper.make_node("Softmax", ["logits"], ["p"], name="softmax", axis=1)]
    save_model(helper.make_graph(nodes, "compress_rows", [x, cond], [p],
                                 initializer=[numpy_helper.from_array(w, "w")]),
               "compress_rows")
    data = rng.standard_normal((5, 4)).astype(np.float32)
    for k, c in enumerate([[1, 0, 1, 1, 0], [1, 1, 1, 1, 1], [0, 0, 0, 0, 0]]):
        c = np.array(c, dtype=bool)
        logits = data[c].astype(np.float64) @ w.astype(np.float64)
        e = np.exp(logits - logits.max(axis=1, keepdims=True)) if len(logits) else logits
        ref = e / e.sum(axis=1, keepdims=True) if len(logits) else logits
        save("compress_rows", "x", k, data)
        save("compress_rows", "cond", k, c)
        save("compress_rows", "p", k, ref.astype(np.float32).reshape(-1, 3))
        print("compress_rows", k, int(c.sum()), "rows")


def nonzero_batch(rng):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 5])
    m = helper.make_tensor_value_info("m", TensorProto.FLOAT, [5])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", "n"])
    nodes = [helper.make_node("NonZero", ["m"], ["where"], name="nz"),
             helper.make_node("Squeeze", ["where", "zero"], ["columns"], name="columns"),
             helper.make_node("Gather", ["x", "columns"], ["picked"], name="pick", axis=1),
             helper.make_node("Relu", ["picked"], ["y"], name="relu")]
    save_model(helper.make_graph(nodes, "nonzero_batch", [x, m], [y],
                                 initializer=[helper.make_tensor("zero", TensorProto.INT64, [1],
                                                                 [0])]), "nonzero_batch")
    for k, (n, mask) in enumerate([(2, [0, 1.5, 0, -2, 3]), (3, [1, 1, 1, 1, 1]),
                                   (1, [0, 0, 0, 0, 0])]):
        xs = rng.standard_normal((n, 5)).astype(np.float32)
        mask = np.array(mask, dtype=np.float32)
        save("nonzero_batch", "x", k, xs)
        save("nonzero_batch", "m", k, mask)
        save("nonzero_batch", "y", k,
             np.ascontiguousarray(np.maximum(xs[:, np.nonzero(mask)[0]], 0), dtype=np.float32))
        print("nonzero_batch", k, f"N={n}", int(np.count_nonzero(mask)), "columns")


def nonzero_requirement():
    m = helper.make_tensor_value_info("m", TensorProto.FLOAT, [5])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n"])
    nodes = [helper.make_node("NonZero", ["m"], ["where"], name="nz"),
             helper.make_node("Squeeze", ["where", "zero"], ["columns"], name="columns"),
             helper.make_node("Cast", ["columns"], ["position"], name="position",
                              to=TensorProto.FLOAT),
             helper.make_node("Add", ["position", "offsets"], ["y"], name="add_offsets")]
    inits = [helper.make_tensor("zero", TensorProto.INT64, [1], [0]),
             helper.make_tensor("offsets", TensorProto.FLOAT, [3], [10, 20, 30])]
    save_model(helper.make_graph(nodes, "nonzero_requirement", [m], [y], initializer=inits),
               "nonzero_requirement")
    offsets = np.array([10, 20, 30], dtype=np.float32)
    for k, mask in enumerate([[1, 0, 2, 0, 3], [0, 0, 4, 5, 6], [7, 8, 9, 0, 0]]):
        mask = np.array(mask, dtype=np.float32)
        save("nonzero_requirement", "m", k, mask)
        save("nonzero_requirement", "y", k, np.nonzero(mask)[0].astype(np.float32) + offsets)
    np.save(os.path.join(HERE, "nonzero_requirement.bad.npy"),
            np.array([1, 0, 0, 0, 3], dtype=np.float32))


def if_lengths(rng):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 6])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, "n"])
    z = helper.make_tensor_value_info("z", TensorProto.FLOAT, [4])
    then_graph = helper.make_graph(
        [helper.make_node("Slice", ["x", "start0", "end2", "axis1"], ["head"], name="head")],
        "then", [], [helper.make_tensor_value_info("head", TensorProto.FLOAT, [4, 2])])
    else_graph = helper.make_graph(
        [helper.make_node("Slice", ["x", "start1", "end6", "axis1"], ["tail"], name="tail"),
         helper.make_node("Mul", ["tail", "two"], ["tail2"], name="double")],
        "else", [], [helper.make_tensor_value_info("tail2", TensorProto.FLOAT, [4, 5])])
    nodes = [helper.make_node("ReduceSum", ["x"], ["total"], name="total", keepdims=0),
             helper.make_node("Greater", ["total", "zero"], ["positive"], name="positive"),
             helper.make_node("If", ["positive"], ["y"], name="pick",
                              then_branch=then_graph, else_branch=else_graph),
             helper.make_node("Exp", ["y"], ["e"], name="exp"),
             helper.make_node("ReduceSum", ["e", "axis1"], ["z"], name="row_sum", keepdims=0)]
    inits = [helper.make_tensor("zero", TensorProto.FLOAT, [], [0]),
             helper.make_tensor("two", TensorProto.FLOAT, [], [2]),
             helper.make_tensor("start0", TensorProto.INT64, [1], [0]),
             helper.make_tensor("start1", TensorProto.INT64, [1], [1]),
             helper.make_tensor("end2", TensorProto.INT64, [1], [2]),
             helper.make_tensor("end6", TensorProto.INT64, [1], [6]),
             helper.make_tensor("axis1", TensorProto.INT64, [1], [1])]
    save_model(helper.make_graph(nodes, "if_lengths", [x], [y, z], initializer=inits),
               "if_lengths")
    for k, shift in enumerate([1.0, -1.0, 0.5]):
        xs = (rng.standard_normal((4, 6)) * 0.5 + shift).astype(np.float32)
        x64 = xs.astype(np.float64)
        ys = x64[:, :2] if x64.sum() > 0 else 2 * x64[:, 1:]
        save("if_lengths", "x", k, xs)
        save("if_lengths", "y", k, ys.astype(np.float32))
        save("if_lengths", "z", k, np.exp(ys).sum(axis=1).astype(np.float32))
        print("if_lengths", k, ys.shape[1], "columns")


def main():
    rng = np.random.default_rng(8)
    torch.manual_seed(8)
    mask_select(rng)
    nms_boxes(rng)
    unique_scaled(rng)
    compress_rows(rng)
    nonzero_batch(rng)
    nonzero_requirement()
    if_lengths(np.random.default_rng(9))


if __name__ == "__main__":
    main()
