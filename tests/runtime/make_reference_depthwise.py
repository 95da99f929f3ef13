#!/usr/bin/python3
"""Writes reference cases for depthwise conv2d_f32 / conv2d_res_f32 on small
planes (the flat path of runtime/kernels/depthwise_flat.h and the row path it
falls back to) to tests/runtime/data/, in the format of make_reference.py
(read by tests/runtime/kernel_case.h).

Expected outputs come from torch.nn.functional.conv2d in float64 on the same
float32 inputs, independently of the C kernels. Torch only pads
symmetrically, so the input is zero-padded with F.pad first.

Run with Debian's interpreter: /usr/bin/python3 tests/runtime/make_reference_depthwise.py
"""
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference_case import (ACT_CLIP, ACT_NONE, ACT_RELU, ACT_SIGMOID, ACT_TANH, IN, OUT,
                            UNUSED, activation, binding, write_case, written)  # noqa: E402


rng = np.random.default_rng(20250304)


def rand(*shape):
    return rng.uniform(-1.0, 1.0, size=shape).astype(np.float32)


def t64(a):
    return torch.from_numpy(np.asarray(a, dtype=np.float64))


def dw_case(case, N, C, H, W, KH, KW, stride=(1, 1), pads=(0, 0, 0, 0), dil=(1, 1),
            act=ACT_NONE, alpha=0.0, beta=0.0, bias=True, residual=False):
    """Depthwise (groups = C = OC); pads = (top, left, bottom, right)."""
    x = rand(N, C, H, W)
    w = rand(C, 1, KH, KW)
    b = rand(C) if bias else None
    pt, pl, pb, pr = pads
    xp = F.pad(t64(x), (pl, pr, pt, pb))
    y = F.conv2d(xp, t64(w), t64(b) if bias else None, stride=stride, dilation=dil,
                 groups=C).numpy()
    r = rand(*y.shape) if residual else None
    if residual:
        y = y + r.astype(np.float64)
    y = np.ascontiguousarray(activation(y, act, alpha, beta), dtype=np.float32)
    OH, OW = y.shape[2], y.shape[3]
    ip = [N, C, H, W, C, OH, OW, KH, KW, stride[0], stride[1], pt, pl,
          dil[0], dil[1], C, act, 1 if bias else 0]
    bindings = [binding(IN, x), binding(IN, w),
                binding(IN, b) if bias else binding(UNUSED)]
    if residual:
        bindings.append(binding(IN, r))
    bindings.append(binding(OUT, expected=y))
    kernel = "conv2d_res_f32" if residual else "conv2d_f32"
    write_case(case, kernel, ip, [alpha, beta], bindings)


# DS-CNN's depthwise layer (25 x 5 plane, 3x3 "same"), fewer channels.
dw_case("dw_dscnn_relu", 1, 6, 25, 5, 3, 3, pads=(1, 1, 1, 1), act=ACT_RELU)
# 7 x 7 (49 outputs: a partial last block), residual then Clip.
dw_case("dw_7x7_res_clip", 2, 3, 7, 7, 3, 3, pads=(1, 1, 1, 1), act=ACT_CLIP,
        alpha=-0.3, beta=0.5, residual=True)
# Dilation 2 with pads 2 keeps OW == W; sigmoid runs after the tile.
dw_case("dw_dilated_sigmoid_nobias", 1, 4, 9, 6, 3, 3, pads=(2, 2, 2, 2), dil=(2, 2),
        act=ACT_SIGMOID, bias=False)
# Asymmetric pads with a 5x5 kernel (25 taps: the unspecialised tap loop).
dw_case("dw_k5_asym_tanh", 1, 3, 8, 6, 5, 5, pads=(3, 1, 1, 3), act=ACT_TANH)
# 20 x 19 = 380 outputs: more than one tile of 16 blocks; residual, ReLU.
dw_case("dw_two_tiles_res_relu", 1, 5, 20, 19, 3, 3, pads=(1, 1, 1, 1), act=ACT_RELU,
        residual=True)
# Taller pads than the kernel reach: whole output rows of bias only.
dw_case("dw_pad_rows", 1, 2, 4, 5, 3, 3, pads=(3, 1, 3, 1))
# One-column plane (16 rows per vector) and a row wider than a vector.
dw_case("dw_one_column", 1, 3, 17, 1, 3, 1, pads=(1, 0, 1, 0), act=ACT_RELU)
dw_case("dw_wide_rows", 1, 2, 3, 18, 3, 3, pads=(1, 1, 1, 1))
# Kernel taller than the plane; 1x1 depthwise (one tap).
dw_case("dw_kernel_taller_than_plane", 1, 2, 2, 5, 5, 5, pads=(2, 2, 2, 2))
dw_case("dw_1x1", 1, 4, 5, 3, 1, 1, act=ACT_CLIP, alpha=-0.5, beta=0.25)
# Shapes the flat path leaves to the row path: stride 2 (with a residual),
# "valid" width padding (OW < W), a kernel wider than 8.
dw_case("dw_s2_res_relu", 1, 4, 11, 7, 3, 3, stride=(2, 2), pads=(1, 1, 1, 1),
        act=ACT_RELU, residual=True)
dw_case("dw_valid_width", 2, 3, 6, 7, 3, 3, pads=(1, 0, 1, 0), act=ACT_CLIP,
        alpha=-0.2, beta=0.4)
dw_case("dw_k9_wide", 1, 2, 5, 12, 1, 9, pads=(0, 4, 0, 4))

if __name__ == "__main__":
    for p in written:
        print(os.path.relpath(p))
