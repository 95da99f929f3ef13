#!/usr/bin/python3
"""Writes end-to-end models with 3-D Conv and ConvTranspose.

Run with Debian's interpreter (torch 1.13, onnx 1.12, numpy):
  /usr/bin/python3 tests/models/generate_conv3d.py

Each model NAME becomes tests/models/NAME.onnx, NAME.input<i>.npy and
NAME.output<i>.npy (picked up by tests/e2e/models_test.cc):
- nn_conv3d: a PyTorch-exported net (Conv3d with padding, grouped/strided/
  dilated Conv3d, a residual Add and ReLUs the compiler fuses into the conv,
  a grouped ConvTranspose3d with output_padding); outputs are PyTorch's.
- nn_conv3d_autopad: an onnx.helper graph with auto_pad SAME_UPPER /
  SAME_LOWER / VALID Convs and ConvTransposes with output_shape and auto_pad;
  outputs come from torch.nn.functional in float64 with the pads worked out
  below from the ONNX operator spec.
Kiln's code is not involved. Fixed seeds: reruns give identical files.
"""
import os

import numpy as np
import onnx
import torch
import torch.nn as nn
import torch.nn.functional as F
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))


def save(name, model_path_or_proto, inputs, outputs):
    if not isinstance(model_path_or_proto, str):
        onnx.checker.check_model(model_path_or_proto, full_check=True)
        onnx.save(model_path_or_proto, os.path.join(HERE, name + ".onnx"))
    for i, a in enumerate(inputs):
        np.save(os.path.join(HERE, f"{name}.input{i}.npy"), np.asarray(a, dtype=np.float32))
    for i, a in enumerate(outputs):
        np.save(os.path.join(HERE, f"{name}.output{i}.npy"), np.asarray(a, dtype=np.float32))


class Conv3dNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Conv3d(2, 4, 3, padding=1)
        self.b = nn.Conv3d(4, 4, 3, padding=1, bias=False)
        self.c = nn.Conv3d(4, 6, (3, 2, 3), stride=(1, 2, 2), padding=(2, 0, 1),
                           dilation=(2, 1, 1), groups=2)
        self.up = nn.ConvTranspose3d(6, 4, (2, 3, 3), stride=(2, 2, 1), padding=(0, 1, 1),
                                     output_padding=(1, 1, 0), groups=2)

    def forward(self, x):
        h = torch.relu(self.a(x))
        h = torch.relu(self.b(h) + h)  # residual + activation fused into the conv
        y = self.c(h)
        return y, self.up(y)


def export(name, module, args, opset=13):
    module.eval()
    with torch.no_grad():
        outs = module(*args)
    path = os.path.join(HERE, name + ".onnx")
    torch.onnx.export(module, args, path, opset_version=opset,
                      input_names=[f"in{i}" for i in range(len(args))],
                      output_names=[f"out{i}" for i in range(len(outs))],
                      do_constant_folding=False)
    save(name, path, [a.numpy() for a in args], [o.numpy() for o in outs])


# ------------------------------------------------------ ONNX pads, per spec
def conv_same_pads(in_sp, k, s, d, upper):
    """Conv auto_pad SAME_*: output ceil(in / stride); the odd pad goes to the
    end for SAME_UPPER, to the start for SAME_LOWER. Returns (begin, end)."""
    begin, end = [], []
    for n, kk, ss, dd in zip(in_sp, k, s, d):
        out = -(-n // ss)
        total = max(0, (out - 1) * ss + (kk - 1) * dd + 1 - n)
        small, big = total // 2, total - total // 2
        begin.append(small if upper else big)
        end.append(big if upper else small)
    return begin, end


def conv_ref(x, w, b, s, d, begin, end, groups=1):
    pad = []
    for lo, hi in zip(reversed(begin), reversed(end)):
        pad += [lo, hi]
    xp = F.pad(torch.from_numpy(x.astype(np.float64)), pad)
    return F.conv3d(xp, torch.from_numpy(w.astype(np.float64)),
                    torch.from_numpy(b.astype(np.float64)), stride=s, dilation=d,
                    groups=groups).numpy()


def conv_transpose_ref(x, w, b, s, d, out_shape, upper, groups=1):
    """ConvTranspose with a target output shape: total padding
    stride*(in-1) + ((k-1)*d+1) - out, split as auto_pad says (SAME_UPPER puts
    the smaller half at the start)."""
    full = F.conv_transpose3d(torch.from_numpy(x.astype(np.float64)),
                              torch.from_numpy(w.astype(np.float64)), None, stride=s,
                              dilation=d, groups=groups).numpy()
    sl = [slice(None), slice(None)]
    for i, o in enumerate(out_shape):
        total = full.shape[2 + i] - o
        assert total >= 0
        begin = total // 2 if upper else total - total // 2
        sl.append(slice(begin, begin + o))
    return full[tuple(sl)] + b.astype(np.float64).reshape(1, -1, 1, 1, 1)


def autopad_model():
    rng = np.random.default_rng(31)
    x = rng.standard_normal((1, 3, 5, 6, 7)).astype(np.float32)
    w1 = (rng.standard_normal((4, 3, 3, 2, 3)) * 0.3).astype(np.float32)
    b1 = rng.standard_normal(4).astype(np.float32)
    w2 = (rng.standard_normal((4, 2, 2, 3, 2)) * 0.3).astype(np.float32)
    b2 = rng.standard_normal(4).astype(np.float32)
    wt = (rng.standard_normal((4, 1, 3, 3, 3)) * 0.3).astype(np.float32)
    bt = rng.standard_normal(2).astype(np.float32)

    # SAME_UPPER, stride 2: odd totals put the extra pad at the end.
    s1, d1 = (2, 2, 2), (1, 1, 1)
    pb, pe = conv_same_pads(x.shape[2:], w1.shape[2:], s1, d1, upper=True)
    y1 = conv_ref(x, w1, b1, s1, d1, pb, pe)
    # SAME_LOWER, grouped and dilated, on y1.
    s2, d2 = (1, 1, 1), (2, 1, 1)
    pb, pe = conv_same_pads(y1.shape[2:], w2.shape[2:], s2, d2, upper=False)
    y2 = conv_ref(y1.astype(np.float32), w2, b2, s2, d2, pb, pe, groups=2)
    # VALID: no pads.
    y3 = conv_ref(x, w1, b1, (1, 2, 1), d1, [0, 0, 0], [0, 0, 0])
    # ConvTranspose, grouped, output_shape with odd total padding, both splits.
    st, dt = (2, 2, 3), (1, 2, 1)
    target = [6, 7, 11]
    y4 = conv_transpose_ref(y1.astype(np.float32), wt, bt, st, dt, target, upper=True,
                            groups=2)
    y5 = conv_transpose_ref(y1.astype(np.float32), wt, bt, st, dt, target, upper=False,
                            groups=2)
    # ConvTranspose SAME_UPPER without output_shape: output = input * stride.
    y6 = conv_transpose_ref(y1.astype(np.float32), wt, bt, st, dt,
                            [n * s for n, s in zip(y1.shape[2:], st)], upper=True, groups=2)

    inits = [numpy_helper.from_array(a, n) for n, a in
             [("w1", w1), ("b1", b1), ("w2", w2), ("b2", b2), ("wt", wt), ("bt", bt)]]
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["y1"], name="same_upper",
                         auto_pad="SAME_UPPER", strides=list(s1)),
        helper.make_node("Conv", ["y1", "w2", "b2"], ["y2"], name="same_lower",
                         auto_pad="SAME_LOWER", dilations=list(d2), group=2),
        helper.make_node("Conv", ["x", "w1", "b1"], ["y3"], name="valid",
                         auto_pad="VALID", strides=[1, 2, 1]),
        helper.make_node("ConvTranspose", ["y1", "wt", "bt"], ["y4"], name="out_shape_upper",
                         auto_pad="SAME_UPPER", output_shape=target, strides=list(st),
                         dilations=list(dt), group=2),
        helper.make_node("ConvTranspose", ["y1", "wt", "bt"], ["y5"], name="out_shape_lower",
                         auto_pad="SAME_LOWER", output_shape=target, strides=list(st),
                         dilations=list(dt), group=2),
        helper.make_node("ConvTranspose", ["y1", "wt", "bt"], ["y6"], name="same_upper_t",
                         auto_pad="SAME_UPPER", strides=list(st), dilations=list(dt),
                         group=2),
    ]
    outs = [y1, y2, y3, y4, y5, y6]
    graph = helper.make_graph(
        nodes, "nn_conv3d_autopad",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)],
        [helper.make_tensor_value_info(f"y{i + 1}", TensorProto.FLOAT, o.shape)
         for i, o in enumerate(outs)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    inferred = onnx.shape_inference.infer_shapes(model, strict_mode=True)
    for want, got in zip(graph.output, inferred.graph.output):
        assert want.type == got.type, (want, got)
    save("nn_conv3d_autopad", model, [x], outs)


def main():
    torch.manual_seed(3)
    export("nn_conv3d", Conv3dNet(), (torch.randn(1, 2, 5, 6, 7),), opset=13)
    autopad_model()


if __name__ == "__main__":
    main()
