#!/usr/bin/python3
"""Runs the exported dynamic-shape graphs with a tiny NumPy ONNX interpreter.

There is no onnxruntime here, so this checks the written .onnx files directly:
every node is evaluated from the graph alone (shape chains included), once per
size, and the result is compared with the PyTorch reference. A graph that had
a size baked in (a constant Reshape to the trace length, say) fails at the
other sizes. Only the ops these exports use are implemented; Conv and MaxPool
use torch.nn.functional for speed, the rest is NumPy.

  /usr/bin/python3 tests/models/dynamic/onnx_eval.py DIR [--only A,B]
"""
import argparse
import glob
import os
import re
import sys

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from onnx import helper, numpy_helper

# |got - ref| <= RTOL * max(1, max|ref|): float32 with a different summation order.
RTOL = 1e-4


def attrs(node):
    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def reshape(x, shape):
    shape = [int(s) for s in shape]
    shape = [x.shape[i] if s == 0 else s for i, s in enumerate(shape)]  # allowzero=0
    return x.reshape(shape)


def conv(x, w, b=None, strides=(1, 1), pads=(0, 0, 0, 0), dilations=(1, 1), group=1, **_):
    assert pads[0] == pads[2] and pads[1] == pads[3], "asymmetric pads"
    y = F.conv2d(torch.tensor(x), torch.tensor(w), None if b is None else torch.tensor(b),
                 stride=tuple(strides), padding=(pads[0], pads[1]),
                 dilation=tuple(dilations), groups=group)
    return y.numpy()


def maxpool(x, kernel_shape, strides, pads=(0, 0, 0, 0), ceil_mode=0, **_):
    assert pads[0] == pads[2] and pads[1] == pads[3], "asymmetric pads"
    y = F.max_pool2d(torch.tensor(x), tuple(kernel_shape), tuple(strides),
                     (pads[0], pads[1]), ceil_mode=bool(ceil_mode))
    return y.numpy()


def gemm(a, b, c=None, alpha=1.0, beta=1.0, transA=0, transB=0):
    y = alpha * ((a.T if transA else a) @ (b.T if transB else b))
    return y if c is None else y + beta * c


def softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def div(a, b):
    if np.issubdtype(a.dtype, np.integer):
        return (np.trunc(a / b)).astype(a.dtype)  # ONNX integer Div truncates
    return a / b


CAST = {onnx.TensorProto.FLOAT: np.float32, onnx.TensorProto.INT64: np.int64}


def run_node(op, ins, a):
    if op == "Constant":
        return [numpy_helper.to_array(a["value"])]
    if op == "Identity":
        return [ins[0]]
    if op == "Shape":
        return [np.array(ins[0].shape, dtype=np.int64)]
    if op == "Gather":
        return [np.take(ins[0], ins[1], axis=a.get("axis", 0))]
    if op == "Unsqueeze":
        return [np.expand_dims(ins[0], tuple(int(i) for i in ins[1]))]
    if op == "Concat":
        return [np.concatenate(ins, axis=a["axis"])]
    if op == "Reshape":
        return [reshape(ins[0], ins[1])]
    if op == "Cast":
        return [ins[0].astype(CAST[a["to"]])]
    if op == "Transpose":
        return [np.transpose(ins[0], a["perm"])]
    if op == "Split":
        idx = np.cumsum(ins[1])[:-1]
        return np.split(ins[0], idx, axis=a.get("axis", 0))
    if op == "Flatten":
        ax = a.get("axis", 1)
        return [ins[0].reshape(int(np.prod(ins[0].shape[:ax])), -1)]
    if op == "MatMul":
        return [ins[0] @ ins[1]]
    if op == "Gemm":
        return [gemm(*ins, **a)]
    if op == "Conv":
        return [conv(*ins, **a)]
    if op == "MaxPool":
        return [maxpool(ins[0], **a)]
    if op == "GlobalAveragePool":
        return [ins[0].mean(axis=(2, 3), keepdims=True)]
    if op == "ReduceMean":
        return [ins[0].mean(axis=tuple(a["axes"]), keepdims=bool(a.get("keepdims", 1)))]
    if op == "Softmax":
        return [softmax(ins[0], a.get("axis", -1))]
    if op == "Relu":
        return [np.maximum(ins[0], 0)]
    if op == "Sqrt":
        return [np.sqrt(ins[0])]
    binary = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply,
              "Div": div, "Pow": np.power}
    if op in binary:
        y = binary[op](ins[0], ins[1])
        return [y.astype(ins[0].dtype)]  # ONNX: the result has A's type
    raise NotImplementedError(op)


def run(model, feeds):
    env = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    env.update(feeds)
    for node in model.graph.node:
        ins = [env[n] if n else None for n in node.input]
        outs = run_node(node.op_type, ins, attrs(node))
        for name, val in zip(node.output, outs):
            env[name] = np.asarray(val)
    return [env[o.name] for o in model.graph.output]


def check_dir(out_dir, only):
    failures = 0
    for path in sorted(glob.glob(os.path.join(out_dir, "*.onnx"))):
        name = os.path.basename(path)[:-5]
        if only and name not in only:
            continue
        model = onnx.load(path)
        sizes = sorted(int(m.group(1)) for f in os.listdir(out_dir)
                       for m in [re.fullmatch(re.escape(name) + r"\.(\d+)\.input\.npy", f)] if m)
        for s in sizes:
            x = np.load(os.path.join(out_dir, f"{name}.{s}.input.npy"))
            ref = np.load(os.path.join(out_dir, f"{name}.{s}.output.npy"))
            try:
                (got,) = run(model, {model.graph.input[0].name: x})
            except (ValueError, IndexError) as e:  # e.g. a Reshape to a baked-in size
                failures += 1
                print(f"FAIL {name} size {s}: {type(e).__name__}: {e}")
                continue
            err = float(np.abs(got - ref).max()) if got.shape == ref.shape else float("inf")
            ok = err <= RTOL * max(1.0, float(np.abs(ref).max()))
            failures += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {name} size {s}: input {x.shape} -> "
                  f"{got.shape} (ref {ref.shape}), max |diff| {err:.2e}")
    return failures


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    ap.add_argument("--only", default="")
    args = ap.parse_args(argv)
    only = set(n for n in args.only.split(",") if n)
    return 1 if check_dir(args.dir, only) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
