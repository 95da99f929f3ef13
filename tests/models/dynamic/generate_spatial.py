#!/usr/bin/python3
"""Models whose spatial sizes are symbolic (height/width, an audio length),
with PyTorch references, for one-module-many-sizes tests of Conv and the
pools (issue 19: paddle2onnx OCR models declare x [N,3,H,W]).

  cnn_dynhw        x [N,3,H,W]: stem Conv 3x3, Conv stride 2, a packed-size
                   3x3 Conv (32 -> 64), depthwise 3x3, 1x1 Conv, MaxPool
                   ceil_mode, AvgPool with padding, nearest Upsample x2, a
                   residual Add; output [N,16,h,w] (symbolic h, w)
  conv_autopad_dynhw  x [1,4,H,W]: Convs with auto_pad SAME_UPPER stride 2,
                   SAME_LOWER dilated, VALID stride 3 and a MaxPool SAME_UPPER;
                   output the sum of global pools [1,8] plus a spatial map
  audio_frontend_dynlen  x [N,L]: framed "STFT" as Conv1d(1,32,k=64,s=16),
                   power, mel MatMul, log, Conv1d k=3 pad 1, MaxPool1d
  resize_sizes_dynhw  x [1,4,H,W]: bilinear Resize to sizes from Shape(x)
                   (symbolic), then to a constant 8x12 from symbolic H, W
  lraspp_dynhw     (--torchvision, generated at test time) torchvision
                   LR-ASPP MobileNetV3 over [N,3,H,W]
  conv3d_dynd      x [1,2,D,7,7]: Conv3d 3x3x3 (depth unpadded), MaxPool3d
                   ceil_mode over a symbolic depth

Writes into --out, per model NAME and size label K ("HxW" or the length):
  NAME.onnx, NAME.K.input.npy, NAME.K.output.npy (PyTorch, float32).
The ONNX for the first two comes from torch.onnx.export with dynamic axes,
except conv_autopad_dynhw, written with onnx.helper (PyTorch does not
export auto_pad) and referenced by explicit F.pad + conv in PyTorch.

Run with Debian's interpreter: /usr/bin/python3 generate_spatial.py --out DIR
Deterministic (fixed seeds).
"""
import argparse
import io
import os
import sys
import warnings

import numpy as np
import onnx
import torch
import torch.nn as nn
import torch.nn.functional as F
from onnx import TensorProto, helper, numpy_helper

OPSET = 13
SEED = 4321


class DynCnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 16, 3, padding=1)
        self.down = nn.Conv2d(16, 32, 3, stride=2, padding=1)
        self.mid = nn.Conv2d(32, 64, 3, padding=1)
        self.dw = nn.Conv2d(64, 64, 3, padding=1, groups=64)
        self.pw = nn.Conv2d(64, 16, 1)
        self.pool = nn.MaxPool2d(3, stride=2, padding=1, ceil_mode=True)
        self.avg = nn.AvgPool2d(3, stride=1, padding=1, count_include_pad=False)

    def forward(self, x):
        x = F.relu(self.stem(x))
        x = F.relu(self.down(x))
        x = F.relu(self.mid(x))
        x = F.relu6(self.dw(x))
        x = self.pw(x)
        y = self.pool(x)
        y = F.interpolate(y, scale_factor=2.0, mode="nearest")
        # ceil_mode pooling then x2 can overshoot x by one row/column.
        y = y[:, :, : x.shape[2], : x.shape[3]]
        return self.avg(x) + y


class AudioFrontend(nn.Module):
    def __init__(self):
        super().__init__()
        self.frames = nn.Conv1d(1, 32, 64, stride=16, bias=False)
        self.mel = nn.Parameter(torch.rand(32, 12))
        self.conv = nn.Conv1d(12, 8, 3, padding=1)
        self.pool = nn.MaxPool1d(2)

    def forward(self, x):
        f = self.frames(x.unsqueeze(1))          # [N,32,T]
        p = (f * f).transpose(1, 2)              # [N,T,32]
        m = torch.log(p @ self.mel + 1e-3)       # [N,T,12]
        return self.pool(F.relu(self.conv(m.transpose(1, 2))))


def export(model, example, out, name, axes):
    model.eval()
    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, example, buf, opset_version=OPSET, input_names=["input"],
                          output_names=["output"], dynamic_axes={"input": axes},
                          do_constant_folding=True)
    m = onnx.load_from_string(buf.getvalue())
    dims = m.graph.input[0].type.tensor_type.shape.dim
    for k, sym in axes.items():
        assert dims[k].dim_param == sym, (name, k, dims[k])
    onnx.save(m, os.path.join(out, name + ".onnx"))


def save_case(out, name, label, x, y):
    base = os.path.join(out, f"{name}.{label}")
    np.save(base + ".input.npy", x.astype(np.float32))
    np.save(base + ".output.npy", y.astype(np.float32))


def cnn_dynhw(out):
    torch.manual_seed(SEED)
    model = DynCnn().eval()
    export(model, torch.randn(1, 3, 20, 20), out, "cnn_dynhw", {0: "N", 2: "H", 3: "W"})
    rng = np.random.default_rng(SEED)
    for n, h, w in [(1, 20, 20), (1, 9, 31), (2, 33, 14)]:
        x = rng.standard_normal((n, 3, h, w)).astype(np.float32)
        with torch.no_grad():
            y = model(torch.from_numpy(x)).numpy()
        save_case(out, "cnn_dynhw", f"{n}x{h}x{w}", x, y)


def same_pads(size, k, s, d, upper):
    extent = (k - 1) * d + 1
    total = max(0, (-(-size // s) - 1) * s + extent - size)
    small = total // 2
    return (small, total - small) if upper else (total - small, small)


def conv_autopad_dynhw(out):
    rng = np.random.default_rng(SEED + 1)
    w1 = (rng.standard_normal((8, 4, 3, 3)) / 6).astype(np.float32)
    w2 = (rng.standard_normal((8, 8, 2, 2)) / 4).astype(np.float32)
    w3 = (rng.standard_normal((8, 4, 4, 4)) / 8).astype(np.float32)
    b1 = rng.standard_normal(8).astype(np.float32)
    init = [numpy_helper.from_array(a, n) for a, n in [(w1, "w1"), (w2, "w2"), (w3, "w3"), (b1, "b1")]]
    nodes = [
        helper.make_node("Conv", ["input", "w1", "b1"], ["c1"], name="same_upper_s2",
                         auto_pad="SAME_UPPER", strides=[2, 2]),
        helper.make_node("Conv", ["c1", "w2"], ["c2"], name="same_lower_dil",
                         auto_pad="SAME_LOWER", dilations=[2, 2]),
        helper.make_node("MaxPool", ["c2"], ["p2"], name="pool_same", kernel_shape=[3, 3],
                         strides=[2, 2], auto_pad="SAME_UPPER"),
        helper.make_node("Conv", ["input", "w3"], ["c3"], name="valid_s3", auto_pad="VALID",
                         strides=[3, 3]),
        helper.make_node("GlobalAveragePool", ["p2"], ["g2"], name="g2"),
        helper.make_node("GlobalMaxPool", ["c3"], ["g3"], name="g3"),
        helper.make_node("Add", ["g2", "g3"], ["g"], name="g"),
        helper.make_node("Add", ["p2", "g"], ["output"], name="out"),
    ]
    graph = helper.make_graph(
        nodes, "conv_autopad_dynhw",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 4, "H", "W"])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 8, None, None])], init)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="kiln generate_spatial.py")
    model.ir_version = 7
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, "conv_autopad_dynhw.onnx"))

    def ref(x):
        t = torch.from_numpy(x)
        h, w = x.shape[2:]
        ph, pw = same_pads(h, 3, 2, 1, True), same_pads(w, 3, 2, 1, True)
        c1 = F.conv2d(F.pad(t, (*pw, *ph)), torch.from_numpy(w1), torch.from_numpy(b1), stride=2)
        h1, w1_ = c1.shape[2:]
        ph, pw = same_pads(h1, 2, 1, 2, False), same_pads(w1_, 2, 1, 2, False)
        c2 = F.conv2d(F.pad(c1, (*pw, *ph)), torch.from_numpy(w2), dilation=2)
        ph, pw = same_pads(h1, 3, 2, 1, True), same_pads(w1_, 3, 2, 1, True)
        p2 = F.max_pool2d(F.pad(c2, (*pw, *ph), value=-float("inf")), 3, stride=2)
        c3 = F.conv2d(t, torch.from_numpy(w3), stride=3)
        g = p2.mean(dim=(2, 3), keepdim=True) + c3.amax(dim=(2, 3), keepdim=True)
        return (p2 + g).numpy()

    for h, w in [(8, 8), (13, 6), (21, 30)]:
        x = rng.standard_normal((1, 4, h, w)).astype(np.float32)
        save_case(out, "conv_autopad_dynhw", f"{h}x{w}", x, ref(x))


def audio_frontend_dynlen(out):
    torch.manual_seed(SEED + 2)
    model = AudioFrontend().eval()
    export(model, torch.randn(1, 400), out, "audio_frontend_dynlen", {0: "N", 1: "L"})
    rng = np.random.default_rng(SEED + 2)
    for n, length in [(1, 400), (2, 1000), (1, 97)]:
        x = rng.standard_normal((n, length)).astype(np.float32)
        with torch.no_grad():
            y = model(torch.from_numpy(x)).numpy()
        save_case(out, "audio_frontend_dynlen", f"{n}x{length}", x, y)


class Conv3dNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv3d(2, 4, 3, padding=(0, 1, 1))
        self.pool = nn.MaxPool3d(2, ceil_mode=True)

    def forward(self, x):
        return self.pool(F.relu(self.conv(x)))


def conv3d_dynd(out):
    torch.manual_seed(SEED + 3)
    model = Conv3dNet().eval()
    export(model, torch.randn(1, 2, 6, 7, 7), out, "conv3d_dynd", {2: "D"})
    rng = np.random.default_rng(SEED + 3)
    for depth in (3, 6, 11):
        x = rng.standard_normal((1, 2, depth, 7, 7)).astype(np.float32)
        with torch.no_grad():
            y = model(torch.from_numpy(x)).numpy()
        save_case(out, "conv3d_dynd", f"{depth}", x, y)


class ResizeSizes(nn.Module):
    def __init__(self):
        super().__init__()
        self.down = nn.Conv2d(4, 4, 3, stride=2, padding=1)

    def forward(self, x):
        # Sizes from Shape(x) (symbolic), then a constant size from a
        # symbolic input (torchvision's segmentation heads and transforms).
        y = F.interpolate(self.down(x), size=x.shape[-2:], mode="bilinear", align_corners=False)
        return F.interpolate(y + x, size=(8, 12), mode="bilinear", align_corners=False)


def resize_sizes_dynhw(out):
    torch.manual_seed(SEED + 4)
    model = ResizeSizes().eval()
    export(model, torch.randn(1, 4, 16, 16), out, "resize_sizes_dynhw", {2: "H", 3: "W"})
    rng = np.random.default_rng(SEED + 4)
    for h, w in [(16, 16), (7, 25), (30, 9)]:
        x = rng.standard_normal((1, 4, h, w)).astype(np.float32)
        with torch.no_grad():
            y = model(torch.from_numpy(x)).numpy()
        save_case(out, "resize_sizes_dynhw", f"{h}x{w}", x, y)


def lraspp_dynhw(out):
    """torchvision's LR-ASPP MobileNetV3-Large (weights=None) exported as
    users export it, with dynamic batch, height and width: its head resizes
    to Shape(x)[-2:]. BatchNorm statistics calibrated on seeded images
    (benchmarks/models/export.py) so the output depends on the input.
    About 13 MB: generated at test time, not committed."""
    import torchvision
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))))
    sys.path.insert(0, os.path.join(root, "benchmarks", "models"))
    sys.dont_write_bytecode = True
    from export import calibrate_batchnorm, randomise_batchnorm

    class Out(nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, x):
            return self.m(x)["out"]

    torch.manual_seed(SEED + 5)
    net = torchvision.models.segmentation.lraspp_mobilenet_v3_large(
        weights=None, weights_backbone=None)
    randomise_batchnorm(net, SEED + 5)
    calibrate_batchnorm(net, (1, 3, 96, 96), SEED + 6)
    model = Out(net).eval()
    export(model, torch.randn(1, 3, 96, 96), out, "lraspp_dynhw", {0: "N", 2: "H", 3: "W"})
    rng = np.random.default_rng(SEED + 5)
    for n, h, w in [(1, 96, 96), (1, 64, 136), (2, 57, 75)]:
        x = rng.standard_normal((n, 3, h, w)).astype(np.float32)
        with torch.no_grad():
            y = model(torch.from_numpy(x)).numpy()
        save_case(out, "lraspp_dynhw", f"{n}x{h}x{w}", x, y)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--torchvision", action="store_true",
                    help="write only the (large) torchvision model lraspp_dynhw")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.set_num_threads(1)
    if args.torchvision:
        lraspp_dynhw(args.out)
        return
    cnn_dynhw(args.out)
    conv_autopad_dynhw(args.out)
    audio_frontend_dynlen(args.out)
    conv3d_dynd(args.out)
    resize_sizes_dynhw(args.out)


if __name__ == "__main__":
    main()
