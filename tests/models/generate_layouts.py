#!/usr/bin/python3
"""Writes end-to-end models whose narrow depthwise convs the compiler stores
channels last (compiler/passes/layout_selection).

Run with Debian's interpreter (torch 1.13, onnx 1.12, numpy):
  /usr/bin/python3 tests/models/generate_layouts.py

Each model NAME becomes tests/models/NAME.onnx, NAME.input<i>.npy and
NAME.output<i>.npy (picked up by tests/e2e/models_test.cc); outputs are
PyTorch's, exported with Conv+BatchNorm unfused (the compiler folds them).
- layout_ds_cnn: a keyword-spotting DS-CNN at batch 2: a one-channel 5x3
  stride-2 stem, then depthwise convs on 5-wide planes (3x3 + ReLU6, 5x5
  stride 2, 3x3 dilated) between pointwise convs to 32, 16 and 24 channels,
  a global max pool and a classifier. Every tensor between stem and pool is
  NHWC.
- layout_inverted_residual: MobileNetV2-style blocks on 7x7 planes: one with
  a residual Add (read NCHW by the projection), one with a stride-2
  depthwise conv, and one whose depthwise output also feeds a
  squeeze-and-excite style gate (a Mul without an NHWC kernel), which keeps
  that block NCHW. Two outputs: the last block and a global average pool.
- layout_inception_concat: GoogLeNet-style Inception blocks: a 3-channel
  stem and max pool (NHWC from there), a block of three branches (1x1;
  1x1 then 3x3; 3x3 max pool then 1x1) joined by a channel Concat that
  stays NHWC, a Concat of an NHWC branch with the NCHW side input s (more
  channels NHWC: the join goes NHWC and s is transposed as it is copied),
  and a Concat of an NHWC branch with the side input t (more channels
  NCHW: the join stays NCHW and the branch is transposed). Three inputs,
  two outputs.
- layout_grouped_blocks: RegNet- and ResNeXt-style bottleneck blocks at
  batch 2 after a 3-channel stem: 1x1, grouped 3x3 (groups of 16 channels
  in and out), 1x1 plus shortcut; a stride-2 block with a 1x1 stride-2
  projection, then an identity block. The stream stays NHWC from the stem
  on (the grouped convs run conv2d_packed_cl_f32's tiles). Output: a 1x1
  conv head over the last block's map (NHWC in, NCHW out).
Kiln's code is not involved. Fixed seeds: reruns give identical files.
"""
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from generate import randomise_bn

HERE = os.path.dirname(os.path.abspath(__file__))


def conv_bn(cin, cout, k, stride=1, pad=0, groups=1, dilation=1):
    return nn.Sequential(nn.Conv2d(cin, cout, k, stride=stride, padding=pad, groups=groups,
                                   dilation=dilation, bias=False),
                         nn.BatchNorm2d(cout))


class DsCnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = conv_bn(1, 16, (5, 3), stride=2, pad=(2, 1))
        self.dw1 = conv_bn(16, 16, 3, pad=1, groups=16)
        self.pw1 = conv_bn(16, 32, 1)
        self.dw2 = conv_bn(32, 32, 5, stride=2, pad=2, groups=32)
        self.pw2 = nn.Conv2d(32, 16, 1)
        self.dw3 = conv_bn(16, 16, 3, pad=2, groups=16, dilation=2)
        self.pw3 = conv_bn(16, 24, 1)
        self.head = nn.Linear(24, 10)

    def forward(self, x):
        h = torch.relu(self.stem(x))
        h = torch.clamp(self.dw1(h), 0, 6)
        h = torch.relu(self.pw1(h))
        h = torch.relu(self.dw2(h))
        h = torch.relu(self.pw2(h))
        h = torch.relu(self.dw3(h))
        h = torch.relu(self.pw3(h))
        return self.head(F.adaptive_max_pool2d(h, 1).flatten(1))


def relu6(x):
    # F.relu6 exports as Relu then Clip; clamp exports as the one Clip that
    # MobileNetV2's nn.ReLU6 gives.
    return torch.clamp(x, 0, 6)


class InvertedResidual(nn.Module):
    def __init__(self):
        super().__init__()
        self.e1, self.d1, self.p1 = conv_bn(8, 32, 1), conv_bn(32, 32, 3, pad=1, groups=32), \
            conv_bn(32, 8, 1)
        self.e2, self.d2, self.p2 = conv_bn(8, 32, 1), \
            conv_bn(32, 32, 3, stride=2, pad=1, groups=32), conv_bn(32, 16, 1)
        self.e3, self.d3, self.p3 = conv_bn(16, 32, 1), conv_bn(32, 32, 3, pad=1, groups=32), \
            conv_bn(32, 24, 1)

    def forward(self, x):
        h = x + self.p1(relu6(self.d1(relu6(self.e1(x)))))
        h = self.p2(relu6(self.d2(relu6(self.e2(h)))))
        d = relu6(self.d3(relu6(self.e3(h))))
        y = self.p3(d * torch.sigmoid(F.adaptive_avg_pool2d(d, 1)))
        return y, F.adaptive_avg_pool2d(y, 1)


class InceptionConcat(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = conv_bn(3, 16, 3, stride=2, pad=1)
        self.b1 = conv_bn(16, 16, 1)
        self.b2a, self.b2b = conv_bn(16, 16, 1), conv_bn(16, 24, 3, pad=1)
        self.b3 = conv_bn(16, 8, 1)
        self.d = conv_bn(48, 16, 1)
        self.e = conv_bn(20, 16, 3, pad=1)
        self.f = conv_bn(16, 4, 1)
        self.g = conv_bn(16, 8, 1)

    def forward(self, x, s, t):
        h = F.max_pool2d(torch.relu(self.stem(x)), 3, 2, ceil_mode=True)
        h = torch.cat([torch.relu(self.b1(h)), torch.relu(self.b2b(torch.relu(self.b2a(h)))),
                       torch.relu(self.b3(F.max_pool2d(h, 3, 1, 1)))], 1)
        h = torch.relu(self.e(torch.cat([torch.relu(self.d(h)), s], 1)))
        y = self.g(torch.cat([torch.relu(self.f(h)), t], 1))
        return y, F.adaptive_avg_pool2d(y, 1).flatten(1)


class GroupedBottleneck(nn.Module):
    def __init__(self, cin, width, cout, group_width, stride):
        super().__init__()
        self.a = conv_bn(cin, width, 1)
        self.b = conv_bn(width, width, 3, stride=stride, pad=1, groups=width // group_width)
        self.c = conv_bn(width, cout, 1)
        self.proj = conv_bn(cin, cout, 1, stride=stride) if stride != 1 or cin != cout else None

    def forward(self, x):
        h = self.c(torch.relu(self.b(torch.relu(self.a(x)))))
        return torch.relu(h + (self.proj(x) if self.proj is not None else x))


class GroupedBlocks(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = conv_bn(3, 16, 3, stride=2, pad=1)
        self.blocks = nn.Sequential(GroupedBottleneck(16, 32, 16, 16, 2),
                                    GroupedBottleneck(16, 32, 16, 16, 1))
        self.head = nn.Conv2d(16, 8, 1)

    def forward(self, x):
        return self.head(self.blocks(torch.relu(self.stem(x))))


def export(name, cls, seed, *shapes):
    torch.manual_seed(seed)
    module = cls()
    randomise_bn(module, torch.Generator().manual_seed(seed + 1))
    module.eval()
    xs = [torch.randn(*shape, generator=torch.Generator().manual_seed(seed + 2 + i))
          for i, shape in enumerate(shapes)]
    with torch.no_grad():
        outs = module(*xs)
    outs = list(outs) if isinstance(outs, tuple) else [outs]
    torch.onnx.export(module, tuple(xs), os.path.join(HERE, name + ".onnx"), opset_version=13,
                      input_names=[f"input{i}" for i in range(len(xs))],
                      output_names=[f"output{i}" for i in range(len(outs))],
                      do_constant_folding=False, training=torch.onnx.TrainingMode.PRESERVE)
    for i, x in enumerate(xs):
        np.save(os.path.join(HERE, f"{name}.input{i}.npy"), x.numpy())
    for i, o in enumerate(outs):
        np.save(os.path.join(HERE, f"{name}.output{i}.npy"), o.numpy())


def main():
    export("layout_ds_cnn", DsCnn, 71, (2, 1, 20, 9))
    export("layout_inverted_residual", InvertedResidual, 81, (1, 8, 7, 7))
    export("layout_inception_concat", InceptionConcat, 91, (1, 3, 32, 32), (1, 4, 8, 8),
           (1, 12, 8, 8))
    export("layout_grouped_blocks", GroupedBlocks, 101, (2, 3, 30, 26))


if __name__ == "__main__":
    main()
