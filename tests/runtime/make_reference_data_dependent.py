#!/usr/bin/python3
"""Writes reference cases for the kernels whose output length depends on
the data (nonzero, compress) to tests/runtime/data/ (format of
reference_case.py, read by tests/runtime/kernel_case.h).

References, independent of the C kernels: np.nonzero (row-major order;
-0.0 counts as zero, NaN as non-zero) stacked into [rank, count] int64, and
np.compress (a condition shorter than the axis drops the rest; without an
axis the input is flattened). The compiled output shape in each case's
iparams is the reference's own.

Run with Debian's interpreter: /usr/bin/python3 tests/runtime/make_reference_data_dependent.py
"""
import numpy as np

from reference_case import IN, OUT, binding, write_case

F32, F64, I8, I16, I32, I64, U8, BOOL, U16 = 1, 3, 4, 5, 6, 7, 8, 9, 10
DT = {F32: np.float32, F64: np.float64, I8: np.int8, I16: np.int16, I32: np.int32,
      I64: np.int64, U8: np.uint8, BOOL: np.bool_, U16: np.uint16}
rng = np.random.default_rng(20251129)


def sparse(shape, t, density=0.5):
    """Random values of dtype t with about (1 - density) of them zero."""
    if t == BOOL:
        return rng.random(shape) < density
    if t in (F32, F64):
        v = rng.standard_normal(shape)
    else:
        info = np.iinfo(DT[t])
        v = rng.integers(max(info.min, -100), min(info.max, 100) + 1, shape)
    v = np.where(rng.random(shape) < density, v, 0)
    return v.astype(DT[t])


def nonzero_case(name, x):
    t = next(k for k, v in DT.items() if v == x.dtype.type)
    y = np.array(np.nonzero(x), dtype=np.int64).reshape(x.ndim, -1)
    ip = [t, x.ndim, y.shape[1]] + list(x.shape)
    write_case(name, "nonzero", ip, [], [binding(IN, x), binding(OUT, expected=y)], compare=1)


def compress_case(name, x, cond, axis=None):
    cond = np.array(cond, dtype=np.bool_)
    y = np.ascontiguousarray(np.compress(cond, x, axis=axis))
    if axis is None:
        outer, length, inner, out = 1, x.size, 1, y.size
    else:
        a = axis % x.ndim
        outer, length = int(np.prod(x.shape[:a])), x.shape[a]
        inner, out = int(np.prod(x.shape[a + 1:])), y.shape[a]
    ip = [x.itemsize, outer, length, inner, cond.size, out]
    write_case(name, "compress", ip, [],
               [binding(IN, x), binding(IN, cond), binding(OUT, expected=y)], compare=1)


x = sparse([3, 4], F32)
x.flat[0], x.flat[1], x.flat[2] = -0.0, np.nan, 0.0
nonzero_case("f32_signed_zero_nan", x)
nonzero_case("bool_2x2", np.array([[1, 0], [1, 1]], dtype=np.bool_))
nonzero_case("i16_rank3", sparse([2, 3, 4], I16))
nonzero_case("u8_all_zero", np.zeros([5], dtype=np.uint8))
nonzero_case("i64_rank5", sparse([2, 1, 3, 1, 2], I64, 0.7))
nonzero_case("f64_dense", rng.standard_normal([2, 3]) + 10.0)

compress_case("f32_axis0", sparse([3, 2], F32, 1.0), [0, 1, 1], axis=0)
compress_case("i32_axis1_short", sparse([3, 4, 5], I32, 1.0), [1, 0, 1], axis=1)
compress_case("f64_flat", sparse([2, 3], F64, 1.0), [0, 1, 0, 0, 1])
compress_case("i8_negative_axis", sparse([2, 3], I8, 1.0), [1, 1, 1], axis=-1)
compress_case("u16_none", sparse([4, 2], U16, 1.0), [0, 0, 0, 0], axis=0)
compress_case("i64_long_condition", sparse([3, 2], I64, 1.0), [1, 0, 1, 0, 0], axis=0)
compress_case("bool_axis2", sparse([2, 2, 6], BOOL), [1, 0, 0, 1, 1, 0], axis=2)
