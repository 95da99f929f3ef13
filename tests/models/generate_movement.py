#!/usr/bin/python3
"""Writes end-to-end models for data movement, NN and recurrent ops.

Run with Debian's interpreter (torch 1.13, onnx 1.12, numpy):
  /usr/bin/python3 tests/models/generate_movement.py

Each model NAME becomes tests/models/NAME.onnx, NAME.input<i>.npy and
NAME.output<i>.npy (picked up by tests/e2e/models_test.cc). References are
PyTorch's outputs (torch-exported models) or NumPy's (onnx.helper graphs);
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
        onnx.checker.check_model(model_path_or_proto)
        onnx.save(model_path_or_proto, os.path.join(HERE, name + ".onnx"))
    for i, a in enumerate(inputs):
        np.save(os.path.join(HERE, f"{name}.input{i}.npy"), a)
    for i, a in enumerate(outputs):
        np.save(os.path.join(HERE, f"{name}.output{i}.npy"), a.astype(np.float32))


def export(name, module, args, opset=13):
    module.eval()
    with torch.no_grad():
        outs = module(*args)
    if not isinstance(outs, tuple):
        outs = (outs,)
    path = os.path.join(HERE, name + ".onnx")
    torch.onnx.export(module, args, path, opset_version=opset,
                      input_names=[f"in{i}" for i in range(len(args))],
                      output_names=[f"out{i}" for i in range(len(outs))],
                      do_constant_folding=False)
    save(name, path, [a.numpy() for a in args], [o.numpy() for o in outs])


class Resizes(nn.Module):
    def forward(self, x):
        a = F.interpolate(x, scale_factor=2, mode="nearest")
        b = F.interpolate(x, size=(7, 5), mode="bilinear", align_corners=False)
        c = F.interpolate(x, size=(9, 4), mode="bilinear", align_corners=True)
        return a, b, c


class Pads(nn.Module):
    def forward(self, x):
        return (F.pad(x, (1, 2, 2, 1), mode="reflect"),
                F.pad(x, (2, 0, 1, 3), mode="replicate"),
                F.pad(x, (1, 1, 0, 2), mode="constant", value=-1.5))


class Movement(nn.Module):
    def forward(self, x):
        a, b = x.split([1, 3], dim=1)
        t = b.repeat(1, 2, 1, 2)
        e = a.expand(2, 3, 3, 5)
        s = x[:, 1:3, ::2, 1:]
        return t, e, s


class Embed(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(11, 6)

    def forward(self, ids):
        return self.emb(ids) * 2.0


class Deconv(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2)
        self.b = nn.ConvTranspose2d(6, 3, (2, 3), stride=(1, 2), dilation=(2, 1))

    def forward(self, x):
        return self.b(torch.relu(self.a(x)))


class Lstm(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(5, 7, num_layers=2, bidirectional=True)
        self.fc = nn.Linear(14, 3)

    def forward(self, x):
        y, (h, c) = self.rnn(x)
        return self.fc(y), h, c


class Gru(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(5, 6, batch_first=True)

    def forward(self, x, h0):
        y, h = self.rnn(x, h0)
        return y, h


class WindowPartition(nn.Module):
    """Swin Transformer's window partition (torchvision's swin_t): the input is
    padded up to a multiple of the window, the padding computed with Mod from
    the sizes, which folds to constants for a fixed input."""

    def forward(self, x):
        b, h, w, c = x.shape
        pad_r, pad_b = (7 - w % 7) % 7, (7 - h % 7) % 7
        x = F.pad(x, (0, 0, 0, pad_r, 0, pad_b))
        _, ph, pw, _ = x.shape
        x = x.view(b, ph // 7, 7, pw // 7, 7, c).permute(0, 1, 3, 2, 4, 5)
        return x.reshape(b * (ph // 7) * (pw // 7), 49, c)


def helper_models():
    rng = np.random.default_rng(7)
    # Slice with negative steps and a GatherElements/CumSum/Pad-edge chain.
    x = rng.standard_normal((3, 6, 5)).astype(np.float32)
    idx = rng.integers(-6, 6, size=(3, 4, 5)).astype(np.int64)
    inits = [numpy_helper.from_array(np.array(v, dtype=np.int64), n) for n, v in
             [("starts", [-1, 5]), ("ends", [-7, 0]), ("axes", [1, 2]), ("steps", [-2, -1]),
              ("axis", 0)]]
    nodes = [helper.make_node("Slice", ["x", "starts", "ends", "axes", "steps"], ["s"]),
             helper.make_node("GatherElements", ["x", "idx"], ["g"], axis=1),
             helper.make_node("CumSum", ["x", "axis"], ["c"], reverse=1)]
    graph = helper.make_graph(
        nodes, "movement_helper",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape),
         helper.make_tensor_value_info("idx", TensorProto.INT64, idx.shape)],
        [helper.make_tensor_value_info("s", TensorProto.FLOAT, (3, 3, 4)),
         helper.make_tensor_value_info("g", TensorProto.FLOAT, idx.shape),
         helper.make_tensor_value_info("c", TensorProto.FLOAT, x.shape)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    s = x[:, 5::-2, :][:, :, 4:0:-1]  # starts (5, 4) after clamping
    g = np.take_along_axis(x, np.where(idx < 0, idx + 6, idx), axis=1)
    c = np.flip(np.cumsum(np.flip(x, 0), 0), 0)
    save("movement_slice_gather_cumsum", model, [x, idx], [s, g, c])


def main():
    torch.manual_seed(0)
    export("movement_resize", Resizes(), (torch.randn(1, 2, 4, 3),), opset=13)
    export("movement_pad", Pads(), (torch.randn(1, 2, 4, 5),), opset=13)
    export("movement_split_tile_expand", Movement(), (torch.randn(2, 4, 3, 5),), opset=13)
    export("movement_embedding", Embed(), (torch.tensor([[1, 10, 3], [0, 4, 4]]),), opset=13)
    export("nn_conv_transpose", Deconv(), (torch.randn(1, 4, 5, 6),), opset=13)
    export("rnn_lstm_bidir_2layer", Lstm(), (torch.randn(6, 2, 5),), opset=13)
    export("rnn_gru_batch_first", Gru(), (torch.randn(3, 4, 5), torch.randn(1, 3, 6)), opset=13)
    export("movement_window_partition", WindowPartition(), (torch.randn(1, 10, 12, 3),), opset=17)
    helper_models()


if __name__ == "__main__":
    main()
