#!/usr/bin/python3
"""Writes reference cases for conv3d_f32 and conv_transpose3d_f32 to
tests/runtime/data/ (same file format as make_reference.py, read by
tests/runtime/kernel_case.h).

Expected outputs come from torch.nn.functional.conv3d / conv_transpose3d in
float64 on the same float32 inputs, independently of the C kernels. Torch only
pads symmetrically, so asymmetric conv pads are applied to the input with
F.pad first, and transposed-conv pads by cropping the unpadded full output.

Run with Debian's interpreter: /usr/bin/python3 tests/runtime/make_reference_conv3d.py
"""
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference_case import (ACT_CLIP, ACT_NONE, ACT_RELU, ACT_SIGMOID, ACT_TANH, IN, OUT,
                            OUT_DIR, UNUSED, activation, binding, write_case, written)  # noqa: E402


rng = np.random.default_rng(20240901)


def rand(*shape):
    return rng.uniform(-1.0, 1.0, size=shape).astype(np.float32)


def t64(a):
    return torch.from_numpy(np.asarray(a, dtype=np.float64))


def f32(a):
    if isinstance(a, torch.Tensor):
        a = a.numpy()
    return np.ascontiguousarray(np.asarray(a), dtype=np.float32)


# ---------------------------------------------------------------- conv3d_f32
def conv3d_case(case, N, C, dhw, OC, k, stride=(1, 1, 1), pads=(0,) * 6, dil=(1, 1, 1),
                groups=1, act=ACT_NONE, alpha=0.0, beta=0.0, bias=True, residual=False):
    """pads = (front, top, left, back, bottom, right) as ONNX orders them."""
    x = rand(N, C, *dhw)
    w = rand(OC, C // groups, *k)
    b = rand(OC) if bias else None
    pf, pt, pl, pk, pb, pr = pads
    xp = F.pad(t64(x), (pl, pr, pt, pb, pf, pk))
    y = F.conv3d(xp, t64(w), t64(b) if bias else None, stride=stride, dilation=dil,
                 groups=groups).numpy()
    r = None
    if residual:
        r = rand(*y.shape)
        y = y + r.astype(np.float64)
    y = f32(activation(y, act, alpha, beta))
    ip = [N, C, *dhw, OC, *y.shape[2:], *k, *stride, pf, pt, pl, *dil, groups, act,
          1 if bias else 0, 1 if residual else 0]
    write_case(case, "conv3d_f32", ip, [alpha, beta],
               [binding(IN, x), binding(IN, w),
                binding(IN, b) if bias else binding(UNUSED),
                binding(IN, r) if residual else binding(UNUSED),
                binding(OUT, expected=y)])


conv3d_case("basic", 2, 3, (5, 6, 4), 4, (3, 3, 3), pads=(1,) * 6)
# Strides drop trailing input planes/rows/columns: implied end pads < 0.
conv3d_case("strided_asym_pads_relu", 1, 2, (7, 6, 9), 3, (2, 3, 2), stride=(2, 1, 3),
            pads=(1, 0, 2, 0, 1, 1), act=ACT_RELU)
conv3d_case("dilated_grouped_nobias", 1, 4, (6, 7, 8), 6, (2, 3, 2), dil=(2, 1, 3),
            pads=(1, 1, 0, 1, 1, 2), groups=2, bias=False)
conv3d_case("depthwise_clip", 2, 3, (5, 5, 6), 3, (3, 3, 3), stride=(2, 2, 2),
            pads=(1,) * 6, groups=3, act=ACT_CLIP, alpha=-0.3, beta=0.5)
conv3d_case("residual_sigmoid", 1, 2, (4, 5, 3), 5, (1, 3, 3), pads=(0, 1, 1, 0, 1, 1),
            act=ACT_SIGMOID, residual=True)
# Pads beyond the kernel: some outputs see only padding (bias only).
conv3d_case("pad_beyond_kernel", 1, 2, (3, 3, 3), 2, (2, 2, 2), stride=(2, 2, 2),
            pads=(3, 3, 3, 3, 3, 3))
# A 1-D window in 3-D form: unit depth and height.
conv3d_case("unit_leading_dims", 2, 3, (1, 1, 11), 2, (1, 1, 3), stride=(1, 1, 2),
            pads=(0, 0, 1, 0, 0, 1), act=ACT_TANH)


# ------------------------------------------------------ conv_transpose3d_f32
def conv_transpose3d_case(case, N, C, dhw, OC, k, stride=(1, 1, 1), pads=(0,) * 6,
                          dil=(1, 1, 1), out_pad=(0, 0, 0), groups=1, bias=True):
    """pads = (begin[3], end[3]); out_pad extends the end as ONNX's
    output_padding does (those positions hold the bias only)."""
    x = rand(N, C, *dhw)
    w = rand(C, OC // groups, *k)
    b = rand(OC) if bias else None
    full = F.conv_transpose3d(t64(x), t64(w), None, stride=stride, dilation=dil,
                              groups=groups).numpy()
    full = np.pad(full, [(0, 0), (0, 0)] + [(0, p) for p in out_pad])
    out = [full.shape[2 + d] - pads[d] - pads[3 + d] for d in range(3)]
    y = full[:, :, pads[0]:pads[0] + out[0], pads[1]:pads[1] + out[1],
             pads[2]:pads[2] + out[2]]
    if bias:
        y = y + b.astype(np.float64).reshape(1, -1, 1, 1, 1)
    y = f32(y)
    ip = [N, C, *dhw, OC, *out, *k, *stride, *pads[:3], *dil, groups, 1 if bias else 0]
    write_case(case, "conv_transpose3d_f32", ip, [],
               [binding(IN, x), binding(IN, w),
                binding(IN, b) if bias else binding(UNUSED),
                binding(OUT, expected=y)])


conv_transpose3d_case("basic", 1, 2, (3, 4, 5), 3, (3, 3, 3))
conv_transpose3d_case("strided_padded_dilated", 2, 3, (3, 2, 4), 2, (3, 2, 3),
                      stride=(2, 1, 3), pads=(1, 0, 2, 0, 1, 1), dil=(1, 2, 1),
                      out_pad=(1, 0, 2))
conv_transpose3d_case("grouped_nobias", 1, 4, (2, 3, 3), 6, (2, 2, 3), stride=(2, 2, 1),
                      pads=(0, 1, 1, 1, 0, 1), groups=2, bias=False)

# Layers the size of a video network's, which conv3d_f32 runs as GEMMs with
# an im2col B through the depth axis (after the cases above, so that their
# random draws, and files, stay as they were): rows of 37 outputs (whole
# 16-column panels and a partial one), K = 12*27 = 324 split by the GEMM's
# 256-row K blocks inside a channel's depth taps, depth padding front and
# back, a residual; then stride 2 across rows of 20 outputs, a depth
# dilation, 17 output channels (a partial micro-tile of rows), two images.
conv3d_case("wide_rows_deep_k_residual_relu", 1, 12, (4, 9, 37), 20, (3, 3, 3), pads=(1,) * 6,
            act=ACT_RELU, residual=True)
conv3d_case("stride2_wide_dilated_depth", 2, 5, (7, 8, 40), 17, (3, 3, 3), stride=(2, 2, 2),
            pads=(2, 1, 1, 2, 1, 1), dil=(2, 1, 1))
# 1x1x1 unit-stride windows (S3D's branch projections), which conv3d_f32
# runs as one GEMM per image and group over the input in place: two groups
# of 3 channels with a residual and ReLU over 165 positions per channel, and
# one group of 20 channels into 17 over 252.
conv3d_case("pointwise_grouped_residual_relu", 2, 6, (3, 5, 11), 8, (1, 1, 1), groups=2,
            act=ACT_RELU, residual=True)
conv3d_case("pointwise_deep", 1, 20, (4, 7, 9), 17, (1, 1, 1))

total = sum(os.path.getsize(p) for p in written)
print("wrote %d cases, %d bytes, to %s" % (len(written), total, OUT_DIR))
