#!/usr/bin/python3
"""Small models with the patterns that published models (PaddleOCR det/rec/cls
exported by paddle2onnx, Silero VAD) showed Kiln, each over symbolic sizes,
with NumPy or PyTorch references:

  if_squeeze_dynlen   x [B,L], flag: If(flag) then Squeeze(x, axis 1) (L must
                      be 1 - a requirement of that branch only) else
                      ReduceSum over axis 1; run with L != 1 and flag false
  int32_shape_dynhw   x [N,4,H,W]: GlobalAveragePool, then Reshape to
                      Concat(Cast(Slice(Cast(Shape(x), int32)), int64), [-1])
                      (paddle2onnx's size arithmetic in int32)
  concat_updown_dynhw x [1,4,H,W]: MaxPool 2x2 stride 2, nearest Resize x2,
                      Concat with x on channels: floor(H/2)*2 == H and the same
                      for W are run-time requirements (even sizes run)
  convtranspose_dynhw x [1,4,H,W]: ConvTranspose 3x3 stride 2 (pads 1,
                      output_padding 1), ReLU (PyTorch)
  lstm_dynseq         x [S,B,8]: LSTM(8, 16) over a symbolic length and batch
                      (PyTorch)
  window_partition_dynhw x [1,H,W,3]: Swin Transformer's window partition
                      (tests/models/generate_movement.py): padded up to
                      multiples of 7 by (7 - W % 7) % 7, viewed as 7x7
                      windows (PyTorch); the pads are symbolic and the views'
                      element counts a run-time requirement
  pairs_dynlen        x [N,3]: x.view(N // 2, 2, 3) (PyTorch): N*3 ==
                      floor(N/2)*6 is a run-time requirement (odd N refused)

Writes into --out, per model NAME and size label K: NAME.onnx,
NAME.K.input.npy (or input0, input1, ...) and NAME.K.output.npy.
Run with Debian's interpreter: /usr/bin/python3 generate_published_patterns.py --out DIR
Deterministic (fixed seeds).
"""
import argparse
import io
import os
import warnings

import sys

import numpy as np
import onnx
import torch
import torch.nn as nn
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from generate_movement import WindowPartition  # noqa: E402

SEED = 1919


def save(out, name, label, inputs, y):
    base = os.path.join(out, f"{name}.{label}")
    if len(inputs) == 1:
        np.save(base + ".input.npy", inputs[0])
    else:
        for k, a in enumerate(inputs):
            np.save(base + f".input{k}.npy", a)
    np.save(base + ".output.npy", y.astype(np.float32))


def i64(name, values):
    return numpy_helper.from_array(np.array(values, np.int64), name)


def if_squeeze_dynlen(out, rng):
    then = helper.make_graph(
        [helper.make_node("Squeeze", ["x", "axis1"], ["squeezed"])], "then", [],
        [helper.make_tensor_value_info("squeezed", TensorProto.FLOAT, None)])
    other = helper.make_graph(
        [helper.make_node("ReduceSum", ["x", "axis1"], ["summed"], keepdims=0)], "else", [],
        [helper.make_tensor_value_info("summed", TensorProto.FLOAT, None)])
    graph = helper.make_graph(
        [helper.make_node("If", ["flag"], ["y"], then_branch=then, else_branch=other)],
        "if_squeeze_dynlen",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["B", "L"]),
         helper.make_tensor_value_info("flag", TensorProto.BOOL, [])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["B"])],
        initializer=[i64("axis1", [1])])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]),
              os.path.join(out, "if_squeeze_dynlen.onnx"))
    for b, l, flag in [(2, 5, False), (3, 1, True), (1, 7, False)]:
        x = rng.standard_normal((b, l)).astype(np.float32)
        y = x[:, 0] if flag else x.sum(axis=1)
        save(out, "if_squeeze_dynlen", f"{b}x{l}{'t' if flag else 'f'}",
             [x, np.array(flag)], y)


def int32_shape_dynhw(out, rng):
    nodes = [
        helper.make_node("GlobalAveragePool", ["x"], ["pooled"]),
        helper.make_node("Shape", ["x"], ["shape"]),
        helper.make_node("Cast", ["shape"], ["shape32"], to=TensorProto.INT32),
        helper.make_node("Slice", ["shape32", "zero", "one", "zero"], ["n32"]),
        helper.make_node("Cast", ["n32"], ["n"], to=TensorProto.INT64),
        helper.make_node("Concat", ["n", "minus1"], ["target"], axis=0),
        helper.make_node("Reshape", ["pooled", "target"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes, "int32_shape_dynhw",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4, "H", "W"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 4])],
        initializer=[i64("zero", [0]), i64("one", [1]), i64("minus1", [-1])])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)]),
              os.path.join(out, "int32_shape_dynhw.onnx"))
    for n, h, w in [(1, 6, 9), (3, 4, 4), (2, 11, 5)]:
        x = rng.standard_normal((n, 4, h, w)).astype(np.float32)
        save(out, "int32_shape_dynhw", f"{n}x{h}x{w}", [x], x.mean(axis=(2, 3)))


def concat_updown_dynhw(out, rng):
    nodes = [
        helper.make_node("MaxPool", ["x"], ["down"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Resize", ["down", "", "scales"], ["up"], mode="nearest"),
        helper.make_node("Concat", ["x", "up"], ["y"], axis=1),
    ]
    scales = numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), "scales")
    graph = helper.make_graph(
        nodes, "concat_updown_dynhw",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, "H", "W"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8, "H", "W"])],
        initializer=[scales])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]),
              os.path.join(out, "concat_updown_dynhw.onnx"))
    for h, w in [(8, 6), (4, 10), (12, 12), (7, 6)]:  # 7x6: refused (H odd)
        x = rng.standard_normal((1, 4, h, w)).astype(np.float32)
        down = x[:, :, :h // 2 * 2, :w // 2 * 2].reshape(1, 4, h // 2, 2, w // 2, 2).max(axis=(3, 5))
        up = down.repeat(2, axis=2).repeat(2, axis=3)
        y = np.concatenate([x, up], axis=1) if up.shape == x.shape else np.zeros(0, np.float32)
        save(out, "concat_updown_dynhw", f"{h}x{w}", [x], y)


def export(model, example, out, name, axes):
    model.eval()
    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, example, buf, opset_version=13, input_names=["input"],
                          output_names=["output"], dynamic_axes={"input": axes},
                          do_constant_folding=True)
    onnx.save(onnx.load_from_string(buf.getvalue()), os.path.join(out, name + ".onnx"))


class ConvT(nn.Module):
    def __init__(self):
        super().__init__()
        self.up = nn.ConvTranspose2d(4, 3, 3, stride=2, padding=1, output_padding=1)

    def forward(self, x):
        return torch.relu(self.up(x))


class Lstm(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(8, 16)

    def forward(self, x):
        return self.rnn(x)[0]


class Pairs(nn.Module):
    def forward(self, x):
        return x.view(x.shape[0] // 2, 2, 3)


def torch_cases(out, model, name, axes, shapes, label):
    export(model, torch.zeros(shapes[0]), out, name, axes)
    for shape in shapes:
        x = torch.randn(shape)
        with torch.no_grad():
            y = model(x).numpy()
        save(out, name, label(shape), [x.numpy()], y)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True)
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rng = np.random.default_rng(SEED)
    torch.manual_seed(SEED)
    if_squeeze_dynlen(args.out, rng)
    int32_shape_dynhw(args.out, rng)
    concat_updown_dynhw(args.out, rng)
    torch_cases(args.out, ConvT().eval(), "convtranspose_dynhw", {2: "H", 3: "W"},
                [(1, 4, 5, 7), (1, 4, 8, 8), (1, 4, 3, 11)], lambda s: f"{s[2]}x{s[3]}")
    torch_cases(args.out, Lstm().eval(), "lstm_dynseq", {0: "S", 1: "B"},
                [(7, 2, 8), (1, 1, 8), (20, 3, 8)], lambda s: f"{s[0]}x{s[1]}")
    torch_cases(args.out, WindowPartition(), "window_partition_dynhw", {1: "H", 2: "W"},
                [(1, 10, 12, 3), (1, 7, 7, 3), (1, 15, 4, 3), (1, 1, 22, 3)],
                lambda s: f"{s[1]}x{s[2]}")
    torch_cases(args.out, Pairs(), "pairs_dynlen", {0: "N"}, [(4, 3), (10, 3)],
                lambda s: f"{s[0]}")


if __name__ == "__main__":
    main()
