#!/usr/bin/python3
"""Detection post-processing over lengths found during the run, with a
torchvision reference (issue 19: SSDlite's and Faster R-CNN's score filter
and batched NMS):

  nms_filter_dynlen  boxes [40,4], scores [40]: keep = NonZero(scores > 0.3),
                     the kept boxes and scores gathered (a length n), then
                     If(Size == 0) -> an empty [0] | NonMaxSuppression over the
                     n boxes, IoU 0.5, mapped back to the original indices.
                     Output: the kept indices as float32 [K] (K: the branch
                     length). Data sets: none (every score below 0.3: the
                     empty branch), some, all.
  nonzero_concat_dynlen  a [12], b [12]: Concat of NonZero(a > 0) and
                     NonZero(b > 0) along their lengths, [1, n1 + n2] as float32:
                     an output dim that is an expression of two lengths found
                     during the run (reported as a length of its own).
                     Data sets: none, some, all (NumPy reference).

Writes into --out: NAME.onnx, NAME.LABEL.input0.npy (boxes),
NAME.LABEL.input1.npy (scores), NAME.LABEL.output.npy (torchvision.ops.nms
on the kept boxes, as float32).

Run with Debian's interpreter:
  /usr/bin/python3 generate_detection.py --out tests/models/dynamic
Deterministic (fixed seed).
"""
import argparse
import os

import numpy as np
import onnx
import torch
import torchvision
from onnx import TensorProto as T
from onnx import helper, numpy_helper

ap = argparse.ArgumentParser(description=__doc__)
ap.add_argument("--out", required=True)
out = ap.parse_args().out


def c(name, a):
    return helper.make_node("Constant", [], [name], name=name,
                            value=numpy_helper.from_array(np.asarray(a), name))


def node(op, ins, outs, **attrs):
    return helper.make_node(op, ins, outs, name=outs[0], **attrs)


def vi(name, elem, dims):
    return helper.make_tensor_value_info(name, elem, dims)


def nms_filter_model():
    """keep = NonZero(scores > 0.3); If(Size(kept) == 0): [] | the NMS of the kept boxes."""
    then_g = helper.make_graph([c("empty", np.zeros([0], np.int64))], "then", [],
                               [vi("empty", T.INT64, [0])])
    else_g = helper.make_graph(
        [c("ax0", np.array([0], np.int64)), c("ax01", np.array([0, 1], np.int64)),
         node("Unsqueeze", ["b", "ax0"], ["b3"]),
         node("Unsqueeze", ["s", "ax01"], ["s3"]),
         c("maxo", np.array([100], np.int64)), c("iou", np.array([0.5], np.float32)),
         node("NonMaxSuppression", ["b3", "s3", "maxo", "iou"], ["sel"]),
         c("two", np.array(2, np.int64)),
         node("Gather", ["sel", "two"], ["kept"], axis=1),
         node("Gather", ["idx", "kept"], ["keep"], axis=0)],
        "else", [], [vi("keep", T.INT64, ["M"])])
    nodes = [c("thr", np.array(0.3, np.float32)),
             node("Greater", ["scores", "thr"], ["mask"]),
             node("NonZero", ["mask"], ["nz"]),
             c("axz", np.array([0], np.int64)),
             node("Squeeze", ["nz", "axz"], ["idx"]),
             node("Gather", ["boxes", "idx"], ["b"], axis=0),
             node("Gather", ["scores", "idx"], ["s"], axis=0),
             node("Size", ["s"], ["n"]),
             c("zero", np.array(0, np.int64)),
             node("Equal", ["n", "zero"], ["none"]),
             helper.make_node("If", ["none"], ["k"], name="if", then_branch=then_g,
                              else_branch=else_g),
             node("Cast", ["k"], ["y"], to=T.FLOAT)]
    g = helper.make_graph(nodes, "nms_filter",
                          [vi("boxes", T.FLOAT, [40, 4]), vi("scores", T.FLOAT, [40])],
                          [vi("y", T.FLOAT, ["K"])])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])


m = nms_filter_model()
onnx.checker.check_model(m)
onnx.save(m, os.path.join(out, "nms_filter_dynlen.onnx"))
rng = np.random.default_rng(5)
n = 40
for label in ("none", "some", "all"):
    xy = rng.uniform(0, 20, (n, 2)).astype(np.float32)
    wh = rng.uniform(4, 12, (n, 2)).astype(np.float32)
    boxes = np.concatenate([xy, xy + wh], 1).astype(np.float32)
    scores = rng.uniform(0, 1, n).astype(np.float32)
    if label == "none":
        scores[:] = 0.1  # nothing passes the threshold: the empty branch
    if label == "all":
        scores = rng.uniform(0.4, 1, n).astype(np.float32)
    idx = np.nonzero(scores > 0.3)[0]
    keep = torchvision.ops.nms(torch.from_numpy(boxes[idx]), torch.from_numpy(scores[idx]),
                               0.5).numpy()
    y = idx[keep].astype(np.float32)
    np.save(os.path.join(out, f"nms_filter_dynlen.{label}.input0.npy"), boxes)
    np.save(os.path.join(out, f"nms_filter_dynlen.{label}.input1.npy"), scores)
    np.save(os.path.join(out, f"nms_filter_dynlen.{label}.output.npy"), y)
    print(f"nms_filter_dynlen.{label}: {len(idx)} boxes over 0.3, {len(y)} kept")


# nonzero_concat_dynlen: an output sized n1 + n2.
nodes = [c("zero_f", np.array(0.0, np.float32)),
         node("Greater", ["a", "zero_f"], ["pa"]),
         node("Greater", ["b", "zero_f"], ["pb"]),
         node("NonZero", ["pa"], ["ia"]),
         node("NonZero", ["pb"], ["ib"]),
         node("Concat", ["ia", "ib"], ["both"], axis=1),
         node("Cast", ["both"], ["y"], to=T.FLOAT)]
g = helper.make_graph(nodes, "nonzero_concat", [vi("a", T.FLOAT, [12]), vi("b", T.FLOAT, [12])],
                      [vi("y", T.FLOAT, [1, "K"])])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
onnx.checker.check_model(m)
onnx.save(m, os.path.join(out, "nonzero_concat_dynlen.onnx"))
for label in ("none", "some", "all"):
    a = rng.uniform(-1, 1, 12).astype(np.float32)
    b = rng.uniform(-1, 1, 12).astype(np.float32)
    if label == "none":
        a, b = -np.abs(a), -np.abs(b)
    if label == "all":
        a, b = np.abs(a) + 0.1, np.abs(b) + 0.1
    y = np.concatenate([np.nonzero(a > 0)[0], np.nonzero(b > 0)[0]])[None].astype(np.float32)
    np.save(os.path.join(out, f"nonzero_concat_dynlen.{label}.input0.npy"), a)
    np.save(os.path.join(out, f"nonzero_concat_dynlen.{label}.input1.npy"), b)
    np.save(os.path.join(out, f"nonzero_concat_dynlen.{label}.output.npy"), y)
    print(f"nonzero_concat_dynlen.{label}: {y.shape[1]} indices")
