#!/usr/bin/python3
"""Writes the reference cases for the runtime kernel tests to tests/runtime/data/.

Each case is one kernel call: its iparams/fparams (laid out as
runtime/include/kiln/kernels.h documents), its input bindings and the expected
outputs, computed here independently of the C kernels with PyTorch / NumPy in
float64 from the same float32 inputs.

Run with Debian's interpreter: /usr/bin/python3 tests/runtime/make_reference.py

File format (little-endian), read by tests/runtime/kernel_case.h:
  b"KILNCAS1"
  u32 len, kernel name (e.g. "conv2d_f32")
  u32 compare            0 = float32 within tolerance, 1 = bytes exactly
  u32 n, i64 iparams[n]
  u32 n, f32 fparams[n]
  u32 n bindings, each:
    u32 role             0 input, 1 output, 2 not read, 3 in-out (partially written)
    u32 tight            1 when the kernel reaches the binding's last byte
    u64 nbytes
    bytes initial        (roles 0 and 3)
    bytes expected       (roles 1 and 3)
"""
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference_case import (ACT_CLIP, ACT_NONE, ACT_RELU, ACT_SIGMOID, ACT_TANH, IN, INOUT,
                            OUT, OUT_DIR, UNUSED, activation, binding, write_case, written)  # noqa: E402

ADD, SUB, MUL, DIV = range(4)
POOL_MAX, POOL_AVG = 0, 1

rng = np.random.default_rng(20240607)


def rand(*shape, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, size=shape).astype(np.float32)


def f64(a):
    return torch.from_numpy(np.asarray(a, dtype=np.float64))


def to_f32(t):
    if isinstance(t, torch.Tensor):
        t = t.numpy()
    return np.ascontiguousarray(np.asarray(t), dtype=np.float32)


# ---------------------------------------------------------------- conv2d_f32
def conv_case(case, N, C, H, W, OC, KH, KW, stride=(1, 1), pads=(0, 0, 0, 0),
              dil=(1, 1), groups=1, act=ACT_NONE, alpha=0.0, beta=0.0, bias=True):
    """pads = (top, left, bottom, right); torch only pads symmetrically, so
    the input is zero-padded explicitly first."""
    x = rand(N, C, H, W)
    w = rand(OC, C // groups, KH, KW)
    b = rand(OC) if bias else None
    pt, pl, pb, pr = pads
    xp = F.pad(f64(x), (pl, pr, pt, pb))
    y = F.conv2d(xp, f64(w), f64(b) if bias else None, stride=stride,
                 dilation=dil, groups=groups)
    y = to_f32(activation(y.numpy(), act, alpha, beta))
    OH, OW = y.shape[2], y.shape[3]
    ip = [N, C, H, W, OC, OH, OW, KH, KW, stride[0], stride[1], pt, pl,
          dil[0], dil[1], groups, act, 1 if bias else 0]
    write_case(case, "conv2d_f32", ip, [alpha, beta],
               [binding(IN, x), binding(IN, w),
                binding(IN, b) if bias else binding(UNUSED),
                binding(OUT, expected=y)])


conv_case("basic", 2, 3, 8, 7, 4, 3, 3, pads=(1, 1, 1, 1))
# Stride drops the last input rows/columns: the implied bottom pad is negative.
conv_case("strided_asym_pads", 1, 4, 10, 11, 6, 3, 2, stride=(2, 3),
          pads=(1, 2, 0, 1), act=ACT_RELU)
conv_case("dilated_grouped", 1, 4, 9, 8, 6, 3, 3, pads=(2, 2, 2, 2),
          dil=(2, 1), groups=2, act=ACT_RELU)
conv_case("depthwise_s2_clip", 2, 5, 9, 9, 5, 3, 3, stride=(2, 2),
          pads=(1, 1, 1, 1), groups=5, act=ACT_CLIP, alpha=-0.2, beta=0.6)
conv_case("depthwise_k5_nobias", 1, 8, 7, 6, 8, 5, 5, pads=(2, 2, 2, 2),
          groups=8, act=ACT_SIGMOID, bias=False)
conv_case("pointwise_tanh", 1, 16, 5, 5, 8, 1, 1, act=ACT_TANH)
conv_case("pointwise_strided", 2, 4, 6, 5, 3, 1, 1, stride=(2, 2))
# Pads larger than the kernel: some windows see only padding (bias only).
conv_case("pad_beyond_kernel", 1, 2, 4, 4, 2, 2, 2, stride=(2, 2), pads=(3, 3, 3, 3))
conv_case("grouped_oc_multiple", 1, 6, 5, 5, 9, 2, 3, pads=(0, 1, 1, 0), groups=3)

# ------------------------------------------------------------------ gemm_f32
def gemm_case(case, M, N, K, trans_a=0, trans_b=0, c_shape=None, alpha=1.0,
              beta=1.0, act=ACT_NONE, act_alpha=0.0, act_beta=0.0):
    a = rand(K, M) if trans_a else rand(M, K)
    b = rand(N, K) if trans_b else rand(K, N)
    a64 = a.astype(np.float64).T if trans_a else a.astype(np.float64)
    b64 = b.astype(np.float64).T if trans_b else b.astype(np.float64)
    y = alpha * (a64 @ b64)
    if c_shape is not None:
        c = rand(*c_shape)
        c2 = c.reshape(c_shape if len(c_shape) == 2 else (1,) + tuple(c_shape))
        y = y + beta * np.broadcast_to(c2.astype(np.float64), (M, N))
        # Strides of C's [M,N] view: 0 along broadcast dims.
        csm = 0 if c2.shape[0] == 1 else c2.shape[1]
        csn = 0 if c2.shape[1] == 1 else 1
        cb = binding(IN, c)
    else:
        csm = csn = 0
        cb = binding(UNUSED)
    y = to_f32(activation(y, act, act_alpha, act_beta))
    ip = [M, N, K, trans_a, trans_b, 1 if c_shape is not None else 0, csm, csn, act]
    write_case(case, "gemm_f32", ip, [alpha, beta, act_alpha, act_beta],
               [binding(IN, a), binding(IN, b), cb, binding(OUT, expected=y)])


gemm_case("nn_no_c", 5, 7, 6)
gemm_case("tn_full_c", 4, 6, 5, trans_a=1, c_shape=(4, 6), alpha=0.5, beta=2.0)
gemm_case("nt_row_c_relu", 6, 5, 7, trans_b=1, c_shape=(5,), act=ACT_RELU)
gemm_case("tt_col_c_sigmoid", 3, 8, 4, trans_a=1, trans_b=1, c_shape=(3, 1),
          alpha=1.5, beta=-1.0, act=ACT_SIGMOID)
gemm_case("scalar_c_clip", 5, 4, 3, c_shape=(1,), act=ACT_CLIP, act_alpha=-0.3,
          act_beta=0.4)
gemm_case("nt_larger", 17, 33, 40, trans_b=1, c_shape=(33,), alpha=0.7, beta=0.3)
gemm_case("k_zero", 3, 4, 0, c_shape=(3, 4), beta=0.5)

# ---------------------------------------------------------------- matmul_f32
def batch_strides(shape, out_batch, mat_elems):
    """Element strides of a contiguous operand's batch dims, aligned to the
    output batch dims from the right; 0 where the operand broadcasts."""
    R = len(out_batch)
    shape = (1,) * (R - len(shape)) + tuple(shape)
    strides, step = [0] * R, mat_elems
    for i in range(R - 1, -1, -1):
        strides[i] = 0 if shape[i] == 1 else step
        step *= shape[i]
    return strides


def matmul_case(case, a_batch, b_batch, M, N, K):
    a = rand(*a_batch, M, K)
    b = rand(*b_batch, K, N)
    y = to_f32(np.matmul(a.astype(np.float64), b.astype(np.float64)))
    out_batch = list(y.shape[:-2])
    ip = [M, N, K, len(out_batch)] + out_batch + \
        batch_strides(a_batch, out_batch, M * K) + batch_strides(b_batch, out_batch, K * N)
    write_case(case, "matmul_f32", ip, [],
               [binding(IN, a), binding(IN, b), binding(OUT, expected=y)])


matmul_case("single", (), (), 4, 5, 3)
matmul_case("batched", (3,), (3,), 2, 4, 5)
matmul_case("broadcast_both", (2, 1), (3,), 3, 2, 4)
matmul_case("rank3_ones", (2, 1, 3), (1, 2, 1), 2, 3, 2)
matmul_case("b_shared", (4,), (), 5, 6, 7)

# ---------------------------------------------------------------- binary_f32
def elem_strides(shape, out_shape):
    R = len(out_shape)
    shape = (1,) * (R - len(shape)) + tuple(shape)
    strides, step = [0] * R, 1
    for i in range(R - 1, -1, -1):
        strides[i] = 0 if shape[i] == 1 else step
        step *= shape[i]
    return strides


def binary_case(case, op, a_shape, b_shape):
    a = rand(*a_shape)
    b = rand(*b_shape)
    if op == DIV:  # keep divisors away from zero
        b = (np.sign(b) * (0.5 + np.abs(b))).astype(np.float32)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    y = {ADD: np.add, SUB: np.subtract, MUL: np.multiply, DIV: np.divide}[op](a64, b64)
    y = to_f32(y)
    out = list(y.shape)
    ip = [op, len(out)] + out + elem_strides(a_shape, out) + elem_strides(b_shape, out)
    write_case(case, "binary_f32", ip, [],
               [binding(IN, a), binding(IN, b), binding(OUT, expected=y)])


binary_case("add_same", ADD, (2, 3, 4), (2, 3, 4))
binary_case("sub_row", SUB, (2, 3, 4), (4,))
binary_case("mul_channel", MUL, (2, 3, 4, 5), (1, 3, 1, 1))
binary_case("div_both_broadcast", DIV, (3, 1, 5), (1, 4, 1))
binary_case("add_scalars", ADD, (), ())
binary_case("sub_outer", SUB, (4, 1), (1, 6))
binary_case("mul_scalar_lhs", MUL, (1,), (3, 5))
binary_case("div_rank5", DIV, (2, 1, 3, 1, 2), (1, 2, 3, 2, 1))

# Transposed operand: A stored [5,3], read as its transpose [3,5].
a = rand(5, 3)
b = rand(3, 5)
y = to_f32(a.astype(np.float64).T + b.astype(np.float64))
write_case("add_transposed_lhs", "binary_f32", [ADD, 2, 3, 5, 1, 3, 5, 1],
           [], [binding(IN, a), binding(IN, b), binding(OUT, expected=y)])

# ----------------------------------------------------------------- unary_f32
for act, name, aa, ab in [(ACT_NONE, "identity", 0, 0), (ACT_RELU, "relu", 0, 0),
                          (ACT_CLIP, "clip", -0.5, 0.7), (ACT_SIGMOID, "sigmoid", 0, 0),
                          (ACT_TANH, "tanh", 0, 0)]:
    x = rand(37, lo=-6.0, hi=6.0)
    y = to_f32(activation(x, act, aa, ab))
    write_case(name, "unary_f32", [act, 37], [aa, ab],
               [binding(IN, x), binding(OUT, expected=y)])

# --------------------------------------------------------------- softmax_f32
def softmax_case(case, outer, n, inner, log, scale=1.0):
    x = rand(outer, n, inner) * np.float32(scale)
    t = f64(x)
    y = F.log_softmax(t, dim=1) if log else F.softmax(t, dim=1)
    write_case(case, "softmax_f32", [outer, n, inner, 1 if log else 0], [],
               [binding(IN, x), binding(OUT, expected=to_f32(y))])


softmax_case("last_axis", 3, 7, 1, False)
softmax_case("middle_axis", 2, 5, 6, False)
softmax_case("log_last_axis", 4, 9, 1, True)
softmax_case("log_middle_axis", 2, 3, 5, True)
softmax_case("inner_over_block", 1, 4, 70, False)
# exp(100) overflows float32: only a max-subtracting softmax survives this.
softmax_case("large_values", 2, 6, 1, False, scale=100.0)
softmax_case("log_large_values", 2, 6, 3, True, scale=100.0)

# ---------------------------------------------------------------- pool2d_f32
def pool_ip(kind, x, y, KH, KW, stride, pads, dil, cip):
    N, C, H, W = x.shape
    return [kind, N, C, H, W, y.shape[2], y.shape[3], KH, KW, stride[0], stride[1],
            pads[0], pads[1], pads[2], pads[3], dil[0], dil[1], cip]


def pool_case_torch(case, kind, shape, K, stride, pad, dil=1, ceil=False, cip=0):
    """Symmetric pads through torch's own pooling (ceil_mode included)."""
    x = rand(*shape)
    t = f64(x)
    if kind == POOL_MAX:
        y = F.max_pool2d(t, K, stride, pad, dilation=dil, ceil_mode=ceil)
    else:
        y = F.avg_pool2d(t, K, stride, pad, ceil_mode=ceil, count_include_pad=bool(cip))
    y = to_f32(y)
    ip = pool_ip(kind, x, y, K, K, (stride, stride), (pad,) * 4, (dil, dil), cip)
    write_case(case, "pool2d_f32", ip, [],
               [binding(IN, x), binding(OUT, expected=y)])


def pool_case_asym(case, kind, shape, KH, KW, stride, pads, cip=0):
    """Asymmetric pads (top, left, bottom, right): pad explicitly, then pool
    unpadded. Max pads with -inf; average divides a zero-padded sum by the
    count of real (or, with count_include_pad, of all padded) positions."""
    x = rand(*shape)
    pt, pl, pb, pr = pads
    t = f64(x)
    if kind == POOL_MAX:
        y = F.max_pool2d(F.pad(t, (pl, pr, pt, pb), value=float("-inf")), (KH, KW), stride)
    else:
        s = F.avg_pool2d(F.pad(t, (pl, pr, pt, pb)), (KH, KW), stride, divisor_override=1)
        if cip:
            y = s / (KH * KW)
        else:
            ones = F.pad(torch.ones_like(t), (pl, pr, pt, pb))
            y = s / F.avg_pool2d(ones, (KH, KW), stride, divisor_override=1)
    y = to_f32(y)
    ip = pool_ip(kind, x, y, KH, KW, stride, pads, (1, 1), cip)
    write_case(case, "pool2d_f32", ip, [],
               [binding(IN, x), binding(OUT, expected=y)])


pool_case_torch("max_k3_s2_p1", POOL_MAX, (2, 3, 9, 8), 3, 2, 1)
pool_case_torch("max_dilated_ceil", POOL_MAX, (1, 2, 10, 11), 3, 2, 1, dil=2, ceil=True)
pool_case_torch("avg_k3_s1_p1_cip", POOL_AVG, (1, 3, 6, 7), 3, 1, 1, cip=1)
pool_case_torch("avg_k3_s2_p1_nocip", POOL_AVG, (2, 2, 7, 7), 3, 2, 1, cip=0)
pool_case_torch("avg_ceil_cip", POOL_AVG, (1, 2, 8, 8), 3, 2, 1, ceil=True, cip=1)
pool_case_torch("avg_ceil_nocip", POOL_AVG, (1, 2, 8, 8), 3, 2, 1, ceil=True, cip=0)
pool_case_torch("max_k2_s2", POOL_MAX, (1, 4, 6, 6), 2, 2, 0)
pool_case_asym("max_asym_pads", POOL_MAX, (1, 2, 7, 6), 3, 2, (2, 1), (1, 0, 2, 1))
pool_case_asym("avg_asym_pads_cip", POOL_AVG, (1, 2, 6, 7), 2, 3, (1, 2), (0, 2, 1, 1), cip=1)
pool_case_asym("avg_asym_pads_nocip", POOL_AVG, (2, 1, 6, 7), 2, 3, (1, 2), (0, 2, 1, 1), cip=0)

# ----------------------------------------------------------- global_pool_f32
for kind, name in [(POOL_MAX, "max"), (POOL_AVG, "avg")]:
    x = rand(2, 3, 7, 7)
    t = f64(x)
    y = F.adaptive_max_pool2d(t, 1) if kind == POOL_MAX else F.adaptive_avg_pool2d(t, 1)
    write_case(name, "global_pool_f32", [kind, 6, 49], [],
               [binding(IN, x), binding(OUT, expected=to_f32(y))])

# -------------------------------------------------------- channel_affine_f32
for case, (N, C, S), act in [("relu", (2, 3, 10), ACT_RELU), ("none_s1", (3, 4, 1), ACT_NONE),
                             ("tanh", (1, 5, 9), ACT_TANH)]:
    x, scale, shift = rand(N, C, S), rand(C), rand(C)
    y = x.astype(np.float64) * scale.astype(np.float64)[None, :, None] + \
        shift.astype(np.float64)[None, :, None]
    y = to_f32(activation(y, act))
    write_case(case, "channel_affine_f32", [N, C, S, act], [0.0, 0.0],
               [binding(IN, x), binding(IN, scale), binding(IN, shift),
                binding(OUT, expected=y)])

# -------------------------------------------------------------- strided_copy
def strides_of(a):
    return [s // a.itemsize for s in a.strides]


# Transpose [2,3,4] by perm (2,0,1): iterate the output's dims, read X through
# the permuted strides, write Y densely.
x = rand(2, 3, 4)
y = np.ascontiguousarray(np.transpose(x, (2, 0, 1)))
write_case("transpose_201", "strided_copy",
           [4, 3, 0, 0] + list(y.shape) + strides_of(np.transpose(x, (2, 0, 1))) + strides_of(y),
           [], [binding(IN, x), binding(OUT, expected=y)], compare=1)

# Concat along axis 1: X [2,3] is the second part of Y [2,5] (columns 2..4).
x = rand(2, 3)
y0 = rand(2, 5)
y = y0.copy()
y[:, 2:] = x
write_case("concat_part", "strided_copy", [4, 2, 0, 2, 2, 3, 3, 1, 5, 1], [],
           [binding(IN, x), binding(INOUT, y0, y)], compare=1)

# ... and the first part (columns 0..1): Y's last bytes are not reached.
x = rand(2, 2)
y = y0.copy()
y[:, :2] = x
write_case("concat_first_part", "strided_copy", [4, 2, 0, 0, 2, 2, 2, 1, 5, 1], [],
           [binding(IN, x), binding(INOUT, y0, y, tight=False)], compare=1)

# Slice x[1:9:3] of a length-10 vector: X's last element is not reached.
x = rand(10)
y = np.ascontiguousarray(x[1:9:3])
write_case("slice_step", "strided_copy", [4, 1, 1, 0, 3, 3, 1], [],
           [binding(IN, x, tight=False), binding(OUT, expected=y)], compare=1)

# Expand [3,1] -> [3,4] through a zero stride.
x = rand(3, 1)
y = np.ascontiguousarray(np.broadcast_to(x, (3, 4)))
write_case("expand", "strided_copy", [4, 2, 0, 0, 3, 4, 1, 0, 4, 1], [],
           [binding(IN, x), binding(OUT, expected=y)], compare=1)

# Rank 0: one element from offset 5 of X to offset 2 of Y.
x = rand(6)
y0 = rand(3)
y = y0.copy()
y[2] = x[5]
write_case("scalar_offsets", "strided_copy", [4, 0, 5, 2], [],
           [binding(IN, x), binding(INOUT, y0, y)], compare=1)

# 8-byte elements (e.g. int64): transpose a [3,2] matrix of pairs of floats.
x = rng.integers(-2**62, 2**62, size=(3, 2), dtype=np.int64)
y = np.ascontiguousarray(x.T)
write_case("transpose_i64", "strided_copy", [8, 2, 0, 0, 2, 3, 1, 2, 3, 1], [],
           [binding(IN, x), binding(OUT, expected=y)], compare=1)

# 2-byte elements, odd count, reversed-free gather of every other element.
x = rng.integers(0, 2**16, size=(9,), dtype=np.uint16)
y = np.ascontiguousarray(x[0::2])
write_case("gather_u16", "strided_copy", [2, 1, 0, 0, 5, 2, 1], [],
           [binding(IN, x), binding(OUT, expected=y)], compare=1)

# 1-byte elements, contiguous rows (the memcpy path) inside a 2-D block.
x = rng.integers(0, 256, size=(3, 7), dtype=np.uint8)
y = np.ascontiguousarray(x[:, 2:6])
write_case("rows_u8", "strided_copy", [1, 2, 2, 0, 3, 4, 7, 1, 4, 1], [],
           [binding(IN, x, tight=False), binding(OUT, expected=y)], compare=1)

# ---------------------------------------------------------------------- copy
x = rng.integers(0, 256, size=(37,), dtype=np.uint8)
write_case("odd_bytes", "copy", [37], [], [binding(IN, x), binding(OUT, expected=x)],
           compare=1)

# Max pooling over rows wider than one 16-lane vector (the separable path's
# blocks and edge lanes), and a column stride it reads one output at a time.
pool_case_torch("max_wide_k3_s2_p1", POOL_MAX, (1, 3, 9, 70), 3, 2, 1)
pool_case_torch("max_wide_k3_s1_p1", POOL_MAX, (1, 2, 5, 40), 3, 1, 1)
pool_case_torch("max_wide_dilated_ceil", POOL_MAX, (1, 2, 7, 53), 3, 2, 1, dil=2, ceil=True)
pool_case_asym("max_wide_asym_pads", POOL_MAX, (1, 2, 6, 37), 2, 3, (1, 1), (0, 2, 1, 1))
pool_case_torch("max_wide_stride3", POOL_MAX, (1, 2, 8, 50), 4, 3, 1)


# Global average pooling over more rows than its eight-row blocks, with a
# remainder.
x = rand(1, 19, 5, 3)
write_case("avg_rows_19", "global_pool_f32", [POOL_AVG, 19, 15], [],
           [binding(IN, x), binding(OUT, expected=to_f32(F.adaptive_avg_pool2d(f64(x), 1)))])

# Average pooling over wide rows: the separable path's vector blocks and
# edge lanes on every path, its counts at both edges, and a stride it
# reads one output at a time.
pool_case_torch("avg_wide_k3_s1_p1_cip", POOL_AVG, (1, 2, 5, 41), 3, 1, 1, cip=1)
pool_case_torch("avg_wide_k3_s2_ceil_nocip", POOL_AVG, (1, 3, 7, 53), 3, 2, 1, ceil=True, cip=0)
pool_case_asym("avg_wide_asym_pads_nocip", POOL_AVG, (1, 2, 6, 37), 2, 3, (1, 1), (0, 2, 1, 1), cip=0)
pool_case_torch("avg_wide_stride3_cip", POOL_AVG, (1, 2, 8, 50), 4, 3, 1, cip=1)
# Rows longer than the separable path's buffer: the direct loop.
pool_case_torch("max_long_rows_direct", POOL_MAX, (1, 1, 3, 2100), 3, 2, 1)
pool_case_torch("avg_long_rows_direct", POOL_AVG, (1, 1, 3, 2100), 3, 2, 1, cip=0)

# Few input channels run direct (conv_small_c.h): a 7x7 stride-2 stem whose
# rows take more than one buffered block on every path, with Clip; a 3x3
# stride-1 layer dilated down the rows (DH 2, DW 1), 13 output channels
# (a partial register block), two images, Sigmoid after the store.
conv_case("smallc_stem_wide_clip", 1, 3, 9, 300, 10, 7, 7, stride=(2, 2),
          pads=(3, 3, 3, 3), act=ACT_CLIP, alpha=-0.3, beta=0.5)
conv_case("smallc_rows_dilated_sigmoid", 2, 2, 11, 37, 13, 3, 3, pads=(2, 1, 2, 1),
          dil=(2, 1), act=ACT_SIGMOID)
# More channels: im2col panels copied a vector at a time (stride 1 and 2).
conv_case("im2col_vector_s1", 1, 6, 9, 40, 10, 3, 3, pads=(1, 1, 1, 1), act=ACT_RELU)
conv_case("im2col_vector_s2", 1, 8, 11, 71, 9, 3, 3, stride=(2, 2), pads=(1, 1, 1, 1))

# Pooling whole planes as one run of vectors across row ends (pool.c): many
# small planes (two planes' window rows in the buffer at once), column taps
# in the padding masked off at both edges of every row, stride 2 read as
# even lanes when W = 2 OW (ceil mode's last window past the input), planes
# taller than one buffered block of rows, and window rows dilated.
pool_case_torch("max_flat_planes_k3_s1_p1", POOL_MAX, (2, 5, 7, 7), 3, 1, 1)
pool_case_torch("avg_flat_planes_k3_s1_p1_cip", POOL_AVG, (1, 6, 14, 14), 3, 1, 1, cip=1)
pool_case_torch("avg_flat_planes_k3_s1_p1_nocip", POOL_AVG, (1, 3, 9, 5), 3, 1, 1, cip=0)
pool_case_torch("max_flat_s2_ceil", POOL_MAX, (1, 4, 14, 14), 3, 2, 0, ceil=True)
pool_case_torch("max_blocks_k3_s1_p1", POOL_MAX, (1, 2, 12, 300), 3, 1, 1)
pool_case_torch("max_blocks_dilated", POOL_MAX, (1, 2, 10, 200), 3, 1, 1, dil=2)
pool_case_asym("max_flat_asym_pads", POOL_MAX, (1, 3, 6, 9), 3, 3, (1, 1), (2, 0, 0, 2))
# Infinities at the planes' edges: a masked tap must never win and +inf
# must survive (-inf + inf is NaN, which max never picks).
x = rand(1, 3, 7, 7)
x[0, 0, :, 0] = np.inf
x[0, 1, 0, :] = -np.inf
x[0, 2, :, 6] = np.inf
x[0, 2, 3, 3] = -np.inf
y = to_f32(F.max_pool2d(f64(x), 3, 1, 1))
write_case("max_flat_infinities", "pool2d_f32",
           pool_ip(POOL_MAX, x, y, 3, 3, (1, 1), (1, 1, 1, 1), (1, 1), 0), [],
           [binding(IN, x), binding(OUT, expected=y)])

total = sum(os.path.getsize(p) for p in written)
print("wrote %d cases, %d bytes, to %s" % (len(written), total, OUT_DIR))

