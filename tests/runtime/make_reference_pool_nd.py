#!/usr/bin/python3
"""Writes reference cases for pool_nd to tests/runtime/data/ (file format of
make_reference.py, read by tests/runtime/kernel_case.h).

Expected outputs come from the ONNX MaxPool / AveragePool definition written
out here in NumPy (float64), independently of the C kernel: output position
o reads input positions o*stride - pad_begin + tap*dilation; taps outside the
input are skipped; max propagates NaN and is -inf over no taps; average
divides the taps' sum by their count, or with count_include_pad by the taps
inside input + pads, and is 0 over no divisor.

Run with Debian's interpreter: /usr/bin/python3 tests/runtime/make_reference_pool_nd.py
"""
import itertools
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference_case import IN, OUT, OUT_DIR, binding, write_case, written  # noqa: E402

rng = np.random.default_rng(20261208)
MAX, AVG = 0, 1
F32 = 1


def pool_reference(x, kind, k, stride, dil, pb, pe, out, count_pad):
    nc = x.shape[0]
    S = len(k)
    y = np.zeros((nc,) + tuple(out), np.float64)
    for o in itertools.product(*[range(n) for n in out]):
        inside, padded = [], 0
        for t in itertools.product(*[range(n) for n in k]):
            pos = [o[d] * stride[d] - pb[d] + t[d] * dil[d] for d in range(S)]
            if all(-pb[d] <= pos[d] < x.shape[1 + d] + pe[d] for d in range(S)):
                padded += 1
            if all(0 <= pos[d] < x.shape[1 + d] for d in range(S)):
                inside.append(tuple(pos))
        for p in range(nc):
            vals = np.array([x[(p,) + q] for q in inside], np.float64)
            if kind == MAX:
                y[(p,) + o] = vals.max() if len(vals) else -np.inf
            else:
                div = padded if count_pad else len(vals)
                y[(p,) + o] = vals.sum() / div if div > 0 else 0.0
    return y.astype(np.float32)


def pool_case(case, kind, nc, shape, k, stride, pads, dil=None, out=None, count_pad=0, nan_at=None):
    S = len(shape)
    dil = dil or [1] * S
    pb, pe = list(pads[:S]), list(pads[S:])
    if out is None:  # floor mode
        out = [(shape[d] + pb[d] + pe[d] - ((k[d] - 1) * dil[d] + 1)) // stride[d] + 1
               for d in range(S)]
    x = rng.uniform(-1.0, 1.0, size=(nc,) + tuple(shape)).astype(np.float32)
    if nan_at is not None:
        x[nan_at] = np.nan
    y = pool_reference(x, kind, k, stride, dil, pb, pe, out, count_pad)
    ip = [kind, F32, S, count_pad, nc, *shape, *out, *k, *stride, *dil, *pb, *pe]
    write_case(case, "pool_nd", ip, [], [binding(IN, x), binding(OUT, expected=y)])


# Video networks' 3-D pools: a 3x3x3 max with same padding; S3D's 1x3x3
# max, stride (1, 2, 2); a dilated max.
pool_case("max3d_same", MAX, 3, (4, 6, 7), (3, 3, 3), (1, 1, 1), (1, 1, 1, 1, 1, 1))
pool_case("max3d_spatial_stride2", MAX, 2, (3, 9, 10), (1, 3, 3), (1, 2, 2), (0, 1, 1, 0, 1, 1))
pool_case("max3d_dilated", MAX, 2, (6, 5, 8), (2, 2, 2), (1, 2, 1), (0, 0, 1, 0, 0, 1),
          dil=(2, 1, 2))
# Average with asymmetric pads and a ceil-mode output (windows past the end
# pads), with and without the pads in the divisor.
pool_case("avg3d_asym_ceil", AVG, 2, (5, 6, 7), (2, 3, 3), (2, 2, 2), (1, 0, 1, 0, 1, 1),
          out=(4, 4, 5))
pool_case("avg3d_asym_ceil_count_pad", AVG, 2, (5, 6, 7), (2, 3, 3), (2, 2, 2),
          (1, 0, 1, 0, 1, 1), out=(4, 4, 5), count_pad=1)
# Windows wholly in the padding: max -inf, average 0.
pool_case("max3d_windows_in_padding", MAX, 1, (2, 2, 3), (2, 2, 2), (1, 1, 1), (3, 0, 0, 0, 0, 0))
pool_case("avg3d_windows_in_padding", AVG, 1, (2, 2, 3), (2, 2, 2), (1, 1, 1), (3, 0, 0, 0, 0, 0))
# A NaN in a max window stays NaN.
pool_case("max3d_nan", MAX, 1, (3, 4, 5), (2, 2, 2), (1, 1, 1), (0, 0, 0, 0, 0, 0),
          nan_at=(0, 1, 2, 3))
# One and two spatial dims.
pool_case("avg1d", AVG, 3, (11,), (3,), (2,), (1, 1))
pool_case("max2d", MAX, 2, (5, 6), (2, 3), (1, 2), (0, 1, 1, 0))
# Rows wide enough for the separable max pool's vectors (37 and 40 columns:
# whole vectors and a tail on every path), NaNs inside them, stride and
# dilation along the rows; and a row longer than its stack buffer, which
# takes the walk.
pool_case("max3d_wide_rows_nan", MAX, 2, (3, 4, 37), (3, 3, 3), (1, 1, 1), (1,) * 6,
          nan_at=(np.array([0, 1]), np.array([1, 2]), np.array([2, 0]), np.array([5, 33])))
pool_case("max3d_wide_stride2_dilated", MAX, 1, (4, 5, 40), (2, 2, 3), (2, 1, 2),
          (1, 0, 2, 0, 1, 2), dil=(1, 2, 2))
pool_case("max3d_row_past_stack", MAX, 1, (2, 2, 1030), (1, 2, 3), (1, 1, 4), (0, 0, 1, 0, 0, 1))

total = sum(os.path.getsize(p) for p in written)
print("wrote %d cases, %d bytes, to %s" % (len(written), total, OUT_DIR))
