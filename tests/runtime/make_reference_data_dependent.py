#!/usr/bin/python3
"""Writes reference cases for the kernels whose output length depends on
the data (nonzero, compress, unique, non_max_suppression) to
tests/runtime/data/ (format of reference_case.py, read by
tests/runtime/kernel_case.h).

References, independent of the C kernels: np.nonzero (row-major order;
-0.0 counts as zero, NaN as non-zero) stacked into [rank, count] int64, and
np.compress (a condition shorter than the axis drops the rest; without an
axis the input is flattened), and data_dependent_reference.py for Unique
(np.unique) and NonMaxSuppression. The compiled output shape in each case's
iparams is the reference's own.

Run with Debian's interpreter: /usr/bin/python3 tests/runtime/make_reference_data_dependent.py
"""
import numpy as np

from data_dependent_reference import nms_reference, unique_reference
from reference_case import IN, OUT, UNUSED, binding, scratch, write_case

F32, F64, I8, I16, I32, I64, U8, BOOL, U16, U64 = 1, 3, 4, 5, 6, 7, 8, 9, 10, 12
DT = {F32: np.float32, F64: np.float64, I8: np.int8, I16: np.int16, I32: np.int32,
      I64: np.int64, U8: np.uint8, BOOL: np.bool_, U16: np.uint16, U64: np.uint64}
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


def unique_case(name, x, axis=None, is_sorted=True, outputs=(1, 1, 1)):
    """outputs: which of indices, inverse, counts the kernel writes."""
    t = next(k for k, v in DT.items() if v == x.dtype.type)
    y, first, inverse, counts = unique_reference(x, axis, is_sorted)
    if axis is None:
        outer, length, inner = 1, x.size, 1
    else:
        a = axis % x.ndim
        outer, length = int(np.prod(x.shape[:a])), x.shape[a]
        inner = int(np.prod(x.shape[a + 1:]))
    count = first.size
    ip = [t, outer, length, inner, count, 1 if is_sorted else 0] + list(outputs)
    extra = [binding(OUT, expected=np.asarray(v, dtype=np.int64).reshape(-1)) if on
             else binding(UNUSED) for v, on in zip((first, inverse, counts), outputs)]
    write_case(name, "unique", ip, [],
               [binding(IN, x), binding(OUT, expected=np.ascontiguousarray(y))] + extra +
               [scratch(16 * length)], compare=1)


unique_case("f32_flat", np.array([2, 1, 1, 3, 4, 3, -0.0, 0.0, np.nan, 1, np.nan],
                                 dtype=np.float32))
unique_case("f32_flat_unsorted", np.array([2, 1, 1, 3, 4, 3, np.nan, 0.5, np.nan],
                                          dtype=np.float32), is_sorted=False)
unique_case("i32_axis0", rng.integers(-2, 2, [7, 2]).astype(np.int32), axis=0)
unique_case("i64_axis1_3d_unsorted", rng.integers(0, 2, [2, 6, 2]).astype(np.int64), axis=1,
            is_sorted=False)
unique_case("f64_negative_axis", np.array([[1, 0, 1, 0], [2, 3, 2, 3.5]]), axis=-1)
unique_case("i8_signed", rng.integers(-128, 128, [40]).astype(np.int8))
unique_case("u64_unsigned", np.array([2**63 + 5, 7, 2**64 - 1, 7, 2**63 + 5, 0],
                                     dtype=np.uint64))
unique_case("u16_only_y", rng.integers(0, 70000, [30]).astype(np.uint16) % 9,
            outputs=(0, 0, 0))
unique_case("bool_counts_only", rng.random([3, 5]) < 0.5, axis=1, outputs=(0, 0, 1))
unique_case("f32_empty", np.zeros([0], dtype=np.float32))
unique_case("i16_long", rng.integers(-50, 50, [1000]).astype(np.int16), is_sorted=False)


def nms_case(name, boxes, scores, max_out=None, iou=None, score_thr=None, center=0,
             max_dtype=np.int64, thr_dtype=np.float32):
    boxes, scores = boxes.astype(np.float32), scores.astype(np.float32)
    y = nms_reference(boxes, scores, 0 if max_out is None else max(max_out, 0),
                      np.float32(0 if iou is None else iou),
                      None if score_thr is None else np.float32(score_thr), center)
    def scalar(v, dtype):
        return binding(UNUSED) if v is None else binding(IN, np.array([v], dtype=dtype))
    def code(v, dtype):
        return 0 if v is None else next(k for k, d in DT.items() if d == dtype)
    B, N, C = boxes.shape[0], boxes.shape[1], scores.shape[1]
    ip = [B, N, C, center, y.shape[0], code(max_out, max_dtype), code(iou, thr_dtype),
          code(score_thr, thr_dtype)]
    write_case(name, "non_max_suppression", ip, [],
               [binding(IN, boxes), binding(IN, scores), scalar(max_out, max_dtype),
                scalar(iou, thr_dtype), scalar(score_thr, thr_dtype),
                binding(OUT, expected=y), scratch(24 * N)], compare=1)


def random_boxes(B, N, center):
    xy = rng.uniform(0, 10, [B, N, 2])
    wh = rng.uniform(0.5, 4, [B, N, 2])
    if center:
        return np.concatenate([xy, wh], axis=-1)
    flip = rng.random([B, N, 1]) < 0.3  # some boxes given by the other diagonal
    a, b = xy[..., ::-1], (xy + wh)[..., ::-1]  # [y, x] corners
    return np.concatenate([np.where(flip, b, a), np.where(flip, a, b)], axis=-1)


nms_case("corners_2b_3c", random_boxes(2, 12, 0), rng.random([2, 3, 12]), max_out=5,
         iou=0.3, score_thr=0.2)
nms_case("center_no_score_thr", random_boxes(1, 20, 1), rng.random([1, 2, 20]), max_out=20,
         iou=0.5, center=1)
ties = np.round(rng.random([1, 1, 16]) * 4) / 4  # many equal scores
nms_case("tied_scores_i32_f64", random_boxes(1, 16, 0), ties, max_out=16, iou=0.2,
         score_thr=0.0, max_dtype=np.int32, thr_dtype=np.float64)
nms_case("no_max_output", random_boxes(1, 4, 0), rng.random([1, 1, 4]))
nms_case("negative_max_output", random_boxes(1, 4, 0), rng.random([1, 1, 4]), max_out=-3)
scores_nan = rng.random([1, 1, 6])
scores_nan[0, 0, 2] = np.nan
degenerate = random_boxes(1, 6, 0)
degenerate[0, 1, 2] = degenerate[0, 1, 0]  # no height: overlaps nothing
nms_case("nan_score_empty_box", degenerate, scores_nan, max_out=6, iou=0.0)

xy = rng.uniform(0, 2, [1, 30, 2])  # large boxes near each other: most suppressed
clustered = np.concatenate([xy, xy + rng.uniform(2, 4, [1, 30, 2])], axis=-1)
nms_case("clustered", clustered, rng.random([1, 2, 30]), max_out=30, iou=0.4, score_thr=0.1)
