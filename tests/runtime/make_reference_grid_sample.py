#!/usr/bin/python3
"""Writes reference cases for grid_sample_f32 (ONNX GridSample, opset 16) to
tests/runtime/data/ (format of reference_case.py, read by
tests/runtime/kernel_case.h).

The reference is torch.nn.functional.grid_sample (torch 1.13), which the
ONNX operator defers to, evaluated in float64 on the float32 inputs:
  - every mode x padding_mode x align_corners on random X and a grid that
    reaches past [-1, 1];
  - nearest at exact rounding ties (half to even), cross-checked here
    against np.rint on the unnormalised coordinates;
  - H = 1 under reflection (an empty reflection span) for each mode;
  - grids holding NaN, +-inf and huge finite values. torch itself has no
    consistent answer for non-finite coordinates (it returns NaN for some
    modes and the border value for others), so the kernel's documented rule
    is the reference there: a sample with a NaN coordinate is 0; an infinite
    or huge one lies infinitely far out, so zeros gives 0 and border the
    edge (torch at +-1e6, where it is exact); reflection has no fold of
    +-inf and gives 0. (Reflection of huge finite values is checked for
    safety in grid_sample_test.cc, not against torch, whose float fold
    loses the value.)

Run with Debian's interpreter: /usr/bin/python3 tests/runtime/make_reference_grid_sample.py
"""
import numpy as np
import torch

from reference_case import IN, OUT, binding, write_case

MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
PADS = {"zeros": 0, "border": 1, "reflection": 2}
rng = np.random.default_rng(20251201)


def torch_grid_sample(x, grid, mode, pad, align):
    y = torch.nn.functional.grid_sample(
        torch.from_numpy(x.astype(np.float64)), torch.from_numpy(grid.astype(np.float64)),
        mode=mode, padding_mode=pad, align_corners=bool(align))
    return y.numpy()


def case(name, x, grid, mode, pad, align, expected):
    n, c, h, w = x.shape
    ip = [n, c, h, w, grid.shape[1], grid.shape[2], MODES[mode], PADS[pad], align]
    write_case(name, "grid_sample_f32", ip, [],
               [binding(IN, x), binding(IN, grid),
                binding(OUT, expected=expected.astype(np.float32))])


def random_case(name, shape, out_hw, mode, pad, align):
    x = rng.standard_normal(shape).astype(np.float32)
    grid = rng.uniform(-1.6, 1.6, (shape[0], out_hw[0], out_hw[1], 2)).astype(np.float32)
    case(name, x, grid, mode, pad, align, torch_grid_sample(x, grid, mode, pad, align))


for mode in MODES:
    for pad in PADS:
        for align in (0, 1):
            random_case("%s_%s_ac%d" % (mode, pad, align), (2, 3, 5, 4), (4, 3), mode, pad, align)
    # One input row: align_corners maps every y to 0, reflection has no span.
    for align in (0, 1):
        random_case("%s_reflection_h1_ac%d" % (mode, align), (1, 2, 1, 4), (3, 2), mode,
                    "reflection", align)

# Ties: with W = H = 4 and align_corners=0, g in {-1.5, -1, ..., 1.5} maps
# to pixel -1.5, -0.5, ..., 4.5, each exactly halfway between two pixels.
x = rng.standard_normal((1, 2, 4, 4)).astype(np.float32)
ties = np.arange(-1.5, 1.75, 0.5, dtype=np.float32)
gx, gy = np.meshgrid(ties, ties[::-1])
grid = np.stack([gx, gy], axis=-1)[None].astype(np.float32)
for pad in ("zeros", "border"):
    want = torch_grid_sample(x, grid, "nearest", pad, 0)
    # Independent check of the torch reference: rint (half to even) on
    # pixel = (g + 1) * 2 - 0.5, clamped for border, 0 outside for zeros.
    ix, iy = np.rint((gx + 1) * 2 - 0.5), np.rint((gy + 1) * 2 - 0.5)
    if pad == "border":
        ix, iy = np.clip(ix, 0, 3), np.clip(iy, 0, 3)
    inside = (ix >= 0) & (ix < 4) & (iy >= 0) & (iy < 4)
    cx, cy = np.clip(ix, 0, 3).astype(int), np.clip(iy, 0, 3).astype(int)
    mine = np.where(inside, x[0][:, cy, cx], 0.0)
    assert np.array_equal(mine, want[0]), pad
    case("nearest_ties_%s" % pad, x, grid, "nearest", pad, 0, want)

# Non-finite and huge grid values, each paired with an ordinary coordinate.
SPECIAL = [np.nan, np.inf, -np.inf, 1e30, -1e30, 3.4e38, -3.4e38]
x = rng.standard_normal((1, 2, 3, 4)).astype(np.float32)
ordinary = rng.uniform(-1.2, 1.2, len(SPECIAL)).astype(np.float32)
cols = [[s, o] for s, o in zip(SPECIAL, ordinary)] + [[o, s] for s, o in zip(SPECIAL, ordinary)]
grid = np.array(cols, dtype=np.float32).reshape(1, 2, len(SPECIAL), 2)
bad = np.isnan(grid).any(axis=-1)  # [1, 2, 7]
# torch's input: NaN (whose samples are 0 anyway) as 0, far values at +-1e6.
stand_in = np.nan_to_num(grid.astype(np.float64), nan=0.0, posinf=1e6, neginf=-1e6)
stand_in = np.where(np.abs(stand_in) > 1e20, np.sign(stand_in) * 1e6, stand_in)
for mode in MODES:
    for align in (0, 1):
        for pad in ("zeros", "border"):
            want = torch_grid_sample(x, stand_in, mode, pad, align)
            want = np.where(bad[:, None], 0.0, want)
            case("special_%s_%s_ac%d" % (mode, pad, align), x, grid, mode, pad, align, want)
        # Reflection: only NaN and +-inf, which sample 0.
        rgrid = grid[:, :, :3].copy()
        case("special_%s_reflection_ac%d" % (mode, align), x, rgrid, mode, "reflection", align,
             np.zeros((1, 2, 2, 3)))
