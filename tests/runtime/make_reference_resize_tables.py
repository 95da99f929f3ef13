#!/usr/bin/python3
"""Writes reference cases for resize_f32 (tap tables fixed by the compiler)
to tests/runtime/data/ (file format of make_reference.py, read by
tests/runtime/kernel_case.h).

The kernel's contract, kiln/kernels.h: output o of axis d reads input
positions index[d][o][t] with weights weight[d][o][t]; an element is the sum
over every combination of taps of the weights' product times X there, or
the extrapolation value where some axis's first index is -1. The expected
outputs apply that contract in NumPy (float64) as one matrix per axis
(M_d[o, i] = sum of the weights of o's taps at i), contracted with X axis by
axis: a different computation from the kernel's walk. The tables are either
PyTorch's bilinear half-pixel ones (upsampling, as a segmentation head's) or
random.

Run with Debian's interpreter: /usr/bin/python3 tests/runtime/make_reference_resize_tables.py
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference_case import IN, OUT, OUT_DIR, binding, write_case, written  # noqa: E402

rng = np.random.default_rng(20261209)


def bilinear_table(n_in, n_out):
    """Half-pixel linear taps (two per output) of one axis."""
    idx, w = [], []
    for o in range(n_out):
        x = max((o + 0.5) * n_in / n_out - 0.5, 0.0)
        i0 = min(int(np.floor(x)), n_in - 1)
        i1 = min(i0 + 1, n_in - 1)
        f = x - i0
        idx.append([i0, i1])
        w.append([1.0 - f, f])
    return np.array(idx, np.int64), np.array(w, np.float32)


def identity_table(n):
    return np.arange(n, dtype=np.int64).reshape(n, 1), np.ones((n, 1), np.float32)


def random_table(n_in, n_out, taps, outside=()):
    idx = rng.integers(0, n_in, size=(n_out, taps)).astype(np.int64)
    w = rng.uniform(-1.0, 1.0, size=(n_out, taps)).astype(np.float32)
    for o in outside:
        idx[o, 0] = -1
    return idx, w


def resize_case(case, x, tables, extrapolation=0.0):
    R = x.ndim
    y = x.astype(np.float64)
    outside = np.zeros(tuple(t[0].shape[0] for t in tables), bool)
    for d, (idx, w) in enumerate(tables):
        m = np.zeros((idx.shape[0], x.shape[d]))
        for o in range(idx.shape[0]):
            for t in range(idx.shape[1]):
                m[o, max(idx[o, t], 0)] += float(w[o, t])
        y = np.moveaxis(np.tensordot(m, y, axes=([1], [d])), 0, d)
        marks = idx[:, 0] < 0
        shape = [1] * R
        shape[d] = idx.shape[0]
        outside |= marks.reshape(shape)
    y = np.where(outside, extrapolation, y).astype(np.float32)
    ip = [R, *x.shape, *[t[0].shape[0] for t in tables], *[t[0].shape[1] for t in tables]]
    fp = []
    for idx, w in tables:
        ip += idx.reshape(-1).tolist()
        fp += w.reshape(-1).tolist()
    fp.append(extrapolation)
    write_case(case, "resize_f32", ip, fp, [binding(IN, x), binding(OUT, expected=y)])


def rand(*shape):
    return rng.uniform(-1.0, 1.0, size=shape).astype(np.float32)


# Bilinear upsampling of the last two axes (one row's two input rows listed
# once, each element's four terms written out).
resize_case("bilinear_upsample_2d", rand(1, 3, 5, 6),
            [identity_table(1), identity_table(3), bilinear_table(5, 11), bilinear_table(6, 13)])
# Four taps per axis (bicubic's count) with random weights: the row's walk
# over sixteen combinations.
resize_case("four_taps_random", rand(2, 6, 7),
            [identity_table(2), random_table(6, 9, 4), random_table(7, 5, 4)])
# Outputs outside the input on the last axis and on an outer one (taps
# marked -1): the extrapolation value.
resize_case("extrapolated_edges", rand(1, 4, 6),
            [identity_table(1), random_table(4, 5, 2, outside=(0, 4)),
             random_table(6, 7, 2, outside=(1, 6))], extrapolation=-3.5)
# One axis.
resize_case("one_axis", rand(9), [random_table(9, 14, 3)])
# More combinations of the outer axes than a row lists (5 x 5 x 5 > 64):
# element by element.
resize_case("many_outer_combinations", rand(3, 4, 3, 5),
            [random_table(3, 2, 5), random_table(4, 3, 5), random_table(3, 2, 5),
             random_table(5, 4, 2)])

total = sum(os.path.getsize(p) for p in written)
print("wrote %d cases, %d bytes, to %s" % (len(written), total, OUT_DIR))
