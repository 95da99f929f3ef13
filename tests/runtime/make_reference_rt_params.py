#!/usr/bin/python3
"""Writes reference cases for the kernels that read operator parameters at
run time (slice_rt, pad_rt, reduce_rt_f32, range) to tests/runtime/data/
(format of reference_case.py, read by tests/runtime/kernel_case.h).

References, independent of the C kernels: NumPy basic slicing (whose
clamping of out-of-range bounds and negative steps is what ONNX Slice
specifies), np.pad (constant/edge/reflect/wrap; negative pads as a slice of
the result), np.sum/mean/max/logaddexp.reduce in float64, and
start + i * delta in float64 / exact Python integers for Range.

Run with Debian's interpreter: /usr/bin/python3 tests/runtime/make_reference_rt_params.py
"""
import numpy as np

from reference_case import IN, OUT, binding, write_case

F32, F64, I16, I32, I64, U8, I8 = 1, 3, 5, 6, 7, 8, 4
DT = {F32: np.float32, F64: np.float64, I16: np.int16, I32: np.int32, I64: np.int64,
      U8: np.uint8, I8: np.int8}
SUM, MEAN, MAX, LOG_SUM_EXP = 0, 1, 2, 8
rng = np.random.default_rng(20250301)
IMIN, IMAX = -(2 ** 63), 2 ** 63 - 1


def data(shape, t):
    if t in (F32, F64):
        return rng.standard_normal(shape).astype(DT[t])
    info = np.iinfo(DT[t])
    return rng.integers(max(info.min, -1000), min(info.max, 1000), shape).astype(DT[t])


def slice_case(name, shape, t, starts, ends, axes, steps, pt=I64):
    x = data(shape, t)
    index = [slice(None)] * len(shape)
    for s, e, a, st in zip(starts, ends, axes, steps):
        index[a] = slice(s, e, st)
    y = np.ascontiguousarray(x[tuple(index)])
    r, n = len(shape), len(starts)
    ip = [x.itemsize, r, n, pt, pt, pt, pt] + list(shape) + list(y.shape)
    ints = lambda v: np.array(v, dtype=DT[pt])
    write_case(name, "slice_rt", ip, [],
               [binding(IN, x, tight=False), binding(IN, ints(starts)), binding(IN, ints(ends)),
                binding(IN, ints(axes)), binding(IN, ints(steps)), binding(OUT, expected=y)],
               compare=1)


def pad_case(name, shape, t, mode, pads, axes=None, value=0, pt=I64):
    x = data(shape, t)
    r = len(shape)
    axes = list(range(r)) if axes is None else axes
    n = len(axes)
    width = [[0, 0] for _ in range(r)]
    for k, a in enumerate(axes):
        width[a % r] = [pads[k], pads[n + k]]
    grow = [[max(b, 0), max(e, 0)] for b, e in width]
    kw = {"constant_values": value} if mode == "constant" else {}
    y = np.pad(x, grow, mode=mode, **kw)
    crop = tuple(slice(-min(b, 0), y.shape[d] + min(e, 0)) for d, (b, e) in enumerate(width))
    y = np.ascontiguousarray(y[crop])
    m = {"constant": 0, "edge": 1, "reflect": 2, "wrap": 3}[mode]
    ip = [x.itemsize, m, r, n, pt, pt] + list(shape) + list(y.shape)
    write_case(name, "pad_rt", ip, [],
               [binding(IN, x), binding(IN, np.array(pads, DT[pt])),
                binding(IN, np.array(value, DT[t])), binding(IN, np.array(axes, DT[pt])),
                binding(OUT, expected=y)],
               compare=1)


def reduce_case(name, shape, kind, axes, keepdims, noop=0, pt=I64):
    x = data(shape, F32)
    r = len(shape)
    if not axes and noop:
        y = x.astype(np.float64)
    else:
        ax = tuple(a % r for a in axes) if axes else tuple(range(r))
        x64 = x.astype(np.float64)
        if kind == SUM:
            y = x64.sum(axis=ax, keepdims=bool(keepdims))
        elif kind == MEAN:
            y = x64.mean(axis=ax, keepdims=bool(keepdims))
        elif kind == MAX:
            y = x64.max(axis=ax, keepdims=bool(keepdims))
        else:
            m = x64.max(axis=ax, keepdims=True)
            y = np.log(np.exp(x64 - m).sum(axis=ax, keepdims=True)) + m
            if not keepdims:
                y = y.squeeze(axis=ax)
    y = np.asarray(y, np.float32)
    ip = [kind, keepdims, noop, pt, len(axes), r, y.ndim] + list(shape) + list(y.shape)
    write_case(name, "reduce_rt_f32", ip, [],
               [binding(IN, x), binding(IN, np.array(axes, DT[pt])), binding(OUT, expected=y)])


def range_case(name, t, start, limit, delta):
    if t in (F32, F64):
        n = max(int(np.ceil((limit - start) / delta)), 0)
        y = (np.float64(start) + np.arange(n, dtype=np.float64) * delta).astype(DT[t])
    else:
        n = max(-((start - limit) // delta), 0)  # ceil((limit - start) / delta), exact
        y = np.array([start + i * delta for i in range(n)], dtype=DT[t])
    write_case(name, "range", [t, n], [],
               [binding(IN, np.array(start, DT[t])), binding(IN, np.array(limit, DT[t])),
                binding(IN, np.array(delta, DT[t])), binding(OUT, expected=y)],
               compare=1)


slice_case("two_axes", [20, 10, 5], F32, [0, 0], [3, 10], [0, 1], [1, 1])
slice_case("neg_steps", [20, 10, 5], F32, [20, 10, 4], [0, 0, 1], [0, 1, 2], [-1, -3, -2])
slice_case("int32_params_clamped", [4, 6], I16, [-100], [1000], [-1], [2], pt=I32)
slice_case("int64_extremes", [3, 7, 2], U8, [IMIN, 2], [IMAX, IMIN], [1, 2], [1, -1])
slice_case("huge_steps", [5, 6], F32, [4, 1], [IMIN, IMAX], [0, 1], [IMIN, IMAX])
slice_case("empty_result", [4, 3], I32, [3], [1], [0], [1])

pad_case("constant", [1, 3, 4, 5], F32, "constant", [0, 0, 1, 3, 0, 0, 2, 4], value=1.25)
pad_case("edge_int32", [1, 3, 4, 5], I32, "edge", [0, 0, 1, 1, 0, 0, 1, 1])
pad_case("reflect", [1, 3, 4, 5], F32, "reflect", [0, 0, 2, 3, 0, 1, 1, 4])
pad_case("wrap_axes", [3, 4], I8, "wrap", [-1, 5, 2, -2], axes=[0, -1])
pad_case("crop_int32_params", [2, 6], F64, "constant", [-2, 3], axes=[1], value=-7.5, pt=I32)

reduce_case("sum_keepdims", [3, 2, 2], SUM, [1], 1)
reduce_case("sum_two_axes", [3, 4, 5], SUM, [-1, 0], 0, pt=I32)
reduce_case("mean_all_empty_axes", [2, 3, 4], MEAN, [], 1)
reduce_case("sum_noop_empty_axes", [2, 3], SUM, [], 0, noop=1)
reduce_case("max_middle", [2, 5, 3], MAX, [1], 0)
reduce_case("logsumexp", [2, 3, 4], LOG_SUM_EXP, [2, 1], 1)

range_case("f32_positive", F32, 1.0, 5.0, 2.0)
range_case("f64_fraction", F64, 0.5, 2.0, 0.25)
range_case("i32_negative", I32, 10, 6, -3)
range_case("i16", I16, -7, 20, 4)
range_case("i64_wide", I64, -(2 ** 62), 2 ** 62, 2 ** 61)
range_case("i64_empty", I64, 5, 5, 1)
# pad_core.h runs row by row of the last dim: pads wider than the input row
# (reflect and wrap repeat it), crops at either end of it, one-byte and
# eight-byte elements, rows that are all fill (the top and bottom pads).
pad_case("reflect_wider_than_row", [2, 3, 4], F32, "reflect", [0, 2, 7, 0, 2, 9])
pad_case("wrap_crop_front_wide_back", [3, 5], I16, "wrap", [1, -3, 0, 8])
pad_case("constant_fill_rows_i8", [4, 1, 6], I8, "constant", [1, 2, 2, 0, 3, 0], value=3)
pad_case("edge_crop_both_ends_f64", [2, 9], F64, "edge", [1, -2, 0, -3])
