#!/usr/bin/python3
"""Writes reference cases for the float math kernels to tests/runtime/data/:
unary_f32 with every math/activation kind, binary_f32 with Max/Min/Pow/Fmod/
PRelu, reduce_f32, arg_reduce_f32, layer_norm_f32, instance_norm_f32,
lp_norm_f32, lrn_f32 and hardmax_f32.

Expected outputs come from PyTorch / NumPy in float64 on the same float32
inputs, independently of the C kernels. Same file format as
make_reference.py (read by tests/runtime/kernel_case.h).

Run with Debian's interpreter: /usr/bin/python3 tests/runtime/make_reference_math.py
"""
import math
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference_case import (IN, OUT, OUT_DIR, UNUSED, binding, write_case, written)  # noqa: E402


rng = np.random.default_rng(20240611)


def rand(*shape, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, size=shape).astype(np.float32)


def t64(a):
    return torch.from_numpy(np.asarray(a, dtype=np.float64))


def f32(a):
    if isinstance(a, torch.Tensor):
        a = a.numpy()
    return np.ascontiguousarray(np.asarray(a), dtype=np.float32)


# ------------------------------------------------------------------ unary_f32
# kind, name, input range, alpha, beta, float64 reference on a torch tensor.
SELU_A, SELU_G = 1.67326319217681884765625, 1.05070102214813232421875
UNARY = [
    (5, "abs", (-3, 3), 0, 0, torch.abs),
    (6, "neg", (-3, 3), 0, 0, torch.neg),
    (7, "exp", (-5, 5), 0, 0, torch.exp),
    (8, "log", (0.01, 10), 0, 0, torch.log),
    (9, "sqrt", (0, 10), 0, 0, torch.sqrt),
    (10, "reciprocal", (0.5, 4), 0, 0, torch.reciprocal),
    (11, "floor", (-4, 4), 0, 0, torch.floor),
    (12, "ceil", (-4, 4), 0, 0, torch.ceil),
    (13, "round", None, 0, 0, torch.round),  # torch rounds halves to even
    (14, "sign", None, 0, 0, torch.sign),
    (15, "erf", (-3, 3), 0, 0, torch.erf),
    (16, "sin", (-6, 6), 0, 0, torch.sin),
    (17, "cos", (-6, 6), 0, 0, torch.cos),
    (18, "tan", (-1.4, 1.4), 0, 0, torch.tan),
    (19, "sinh", (-4, 4), 0, 0, torch.sinh),
    (20, "cosh", (-4, 4), 0, 0, torch.cosh),
    (21, "asin", (-0.99, 0.99), 0, 0, torch.asin),
    (22, "acos", (-0.99, 0.99), 0, 0, torch.acos),
    (23, "atan", (-5, 5), 0, 0, torch.atan),
    (24, "asinh", (-5, 5), 0, 0, torch.asinh),
    (25, "acosh", (1, 6), 0, 0, torch.acosh),
    (26, "atanh", (-0.95, 0.95), 0, 0, torch.atanh),
    (27, "hard_sigmoid", (-6, 6), 0.3, 0.4, lambda x: torch.clamp(0.3 * x + 0.4, 0, 1)),
    (28, "hard_swish", (-5, 5), 0, 0, F.hardswish),
    (29, "leaky_relu", (-3, 3), 0.1, 0, lambda x: F.leaky_relu(x, 0.1)),
    (30, "elu", (-3, 3), 0.7, 0, lambda x: F.elu(x, 0.7)),
    (31, "selu", (-3, 3), SELU_A, SELU_G, F.selu),
    (32, "celu", (-3, 3), 1.5, 0, lambda x: F.celu(x, 1.5)),
    (33, "softplus", (-30, 30), 0, 0, F.softplus),
    (34, "softsign", (-5, 5), 0, 0, F.softsign),
    (35, "thresholded_relu", (-3, 3), 0.5, 0, lambda x: torch.where(x > 0.5, x, torch.zeros_like(x))),
    (36, "mish", (-6, 6), 0, 0, F.mish),
]
for kind, name, rng_lohi, alpha, beta, fn in UNARY:
    if name == "round":
        x = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.49999997, -0.7, 1.2, 3.5, -3.5,
                      0.0, 7.51], dtype=np.float32)
    elif name == "sign":
        x = np.array([-2.0, -0.0, 0.0, 3.0, -1e-30, 1e-30, 5.5], dtype=np.float32)
    else:
        x = rand(41, lo=rng_lohi[0], hi=rng_lohi[1])
    y = f32(fn(t64(x)))
    write_case(name, "unary_f32", [kind, x.size], [alpha, beta],
               [binding(IN, x), binding(OUT, expected=y)])


# ----------------------------------------------------------------- binary_f32
def elem_strides(shape, out_shape):
    r = len(out_shape)
    full = (1,) * (r - len(shape)) + tuple(shape)
    st, acc = [0] * r, 1
    for d in range(r - 1, -1, -1):
        st[d] = 0 if full[d] == 1 else acc
        acc *= full[d]
    return st


def binary_case(case, op, a, b, ref):
    y = f32(ref(t64(a), t64(b)))
    out_shape = y.shape
    ip = [op, len(out_shape)] + list(out_shape) + elem_strides(a.shape, out_shape) + \
        elem_strides(b.shape, out_shape)
    write_case(case, "binary_f32", ip, [], [binding(IN, a), binding(IN, b), binding(OUT, expected=y)])


MAX, MIN, POW, FMOD, PRELU = 4, 5, 6, 7, 8
a = rand(3, 4, 5)
b = rand(4, 1)
a[0, 0, 0] = np.nan
binary_case("max_nan_broadcast", MAX, a, b, torch.maximum)
b2 = rand(1, 5)
b2[0, 2] = np.nan
binary_case("min_nan_broadcast", MIN, rand(3, 4, 5), b2, torch.minimum)
binary_case("pow_broadcast", POW, rand(2, 3, 4, lo=0.1, hi=3.0), rand(4, lo=-2, hi=3), torch.pow)
binary_case("pow_int_exponents", POW, rand(7, lo=-3, hi=3),
            np.array([2.0], dtype=np.float32), torch.pow)
binary_case("fmod_mixed_sign", FMOD, rand(4, 6, lo=-10, hi=10), rand(6, lo=-3, hi=3), torch.fmod)
binary_case("prelu_channel", PRELU, rand(2, 3, 4, 4), rand(3, 1, 1),
            lambda x, s: torch.where(x < 0, x * s, x))


# ----------------------------------------------------------------- reduce_f32
KINDS = {"sum": 0, "mean": 1, "max": 2, "min": 3, "prod": 4, "l1": 5, "l2": 6, "log_sum": 7,
         "log_sum_exp": 8, "sum_square": 9}


def np_reduce(kind, x, axes):
    x = x.astype(np.float64)
    ax = tuple(axes)
    if kind == "sum": return x.sum(axis=ax)
    if kind == "mean": return x.mean(axis=ax)
    if kind == "max": return x.max(axis=ax)
    if kind == "min": return x.min(axis=ax)
    if kind == "prod": return x.prod(axis=ax)
    if kind == "l1": return np.abs(x).sum(axis=ax)
    if kind == "l2": return np.sqrt((x * x).sum(axis=ax))
    if kind == "log_sum": return np.log(x.sum(axis=ax))
    if kind == "log_sum_exp": return torch.logsumexp(t64(x), dim=ax).numpy()
    if kind == "sum_square": return (x * x).sum(axis=ax)


def reduce_case(case, kind, shape, axes, lo=-1.0, hi=1.0):
    """Kernel parameters built the simple way (no dim merging) so the case is
    independent of the compiler's lowering."""
    x = rand(*shape, lo=lo, hi=hi)
    y = f32(np_reduce(kind, x, axes))
    st = [int(np.prod(shape[d + 1:])) for d in range(len(shape))]
    od = [shape[d] for d in range(len(shape)) if d not in axes]
    os_ = [st[d] for d in range(len(shape)) if d not in axes]
    rd = [shape[d] for d in axes]
    rs = [st[d] for d in axes]
    ip = [KINDS[kind], len(od), len(rd)] + od + os_ + rd + rs
    write_case(case, "reduce_f32", ip, [], [binding(IN, x), binding(OUT, expected=y)])


reduce_case("sum_last", "sum", (3, 4, 5), [2])
reduce_case("mean_middle", "mean", (3, 4, 5), [1])
reduce_case("max_outer_inner", "max", (3, 4, 5), [0, 2])
reduce_case("min_all", "min", (2, 3, 4), [0, 1, 2])
reduce_case("prod_first", "prod", (4, 3, 2), [0], lo=0.5, hi=1.5)
reduce_case("l1_two", "l1", (2, 3, 4, 5), [1, 3])
reduce_case("l2_last_two", "l2", (2, 3, 4, 5), [2, 3])
reduce_case("log_sum_middle", "log_sum", (3, 4, 5), [1], lo=0.1, hi=2.0)
reduce_case("log_sum_exp_large", "log_sum_exp", (3, 6, 2), [1], lo=80.0, hi=120.0)
reduce_case("sum_square_first_last", "sum_square", (3, 4, 5), [0, 2])
reduce_case("sum_none", "sum", (3, 4), [])
reduce_case("mean_long_row", "mean", (2, 300), [1])


# ------------------------------------------------------------- arg_reduce_f32
def arg_case(case, shape, axis, is_min, last):
    # Few distinct values so ties occur and select_last matters.
    x = rng.integers(0, 4, size=shape).astype(np.float32)
    outer = int(np.prod(shape[:axis]))
    n = shape[axis]
    inner = int(np.prod(shape[axis + 1:]))
    t = t64(x)
    if last:
        t = torch.flip(t, dims=[axis])
    idx = (torch.argmin if is_min else torch.argmax)(t, dim=axis).numpy()  # first occurrence
    if last:
        idx = n - 1 - idx
    y = np.ascontiguousarray(idx.astype(np.int64))
    write_case(case, "arg_reduce_f32", [outer, n, inner, is_min, last], [],
               [binding(IN, x), binding(OUT, expected=y)], compare=1)


arg_case("max_middle", (3, 5, 4), 1, 0, 0)
arg_case("max_middle_last", (3, 5, 4), 1, 0, 1)
arg_case("min_first", (6, 2, 3), 0, 1, 0)
arg_case("min_last_axis_last", (4, 7), 1, 1, 1)


# --------------------------------------------------------- normalisations
def layer_norm_case(case, outer, n, bias=True, stats=True, eps=1e-5):
    x = rand(outer, n, lo=-2, hi=3)
    s = rand(n)
    b = rand(n) if bias else None
    y = F.layer_norm(t64(x), (n,), t64(s), t64(b) if bias else None, eps)
    xd = x.astype(np.float64)
    mean = xd.mean(axis=1)
    inv = 1.0 / np.sqrt(xd.var(axis=1) + eps)
    bind = [binding(IN, x), binding(IN, s),
            binding(IN, b) if bias else binding(UNUSED), binding(OUT, expected=f32(y)),
            binding(OUT, expected=f32(mean)) if stats else binding(UNUSED),
            binding(OUT, expected=f32(inv)) if stats else binding(UNUSED)]
    write_case(case, "layer_norm_f32", [outer, n, 1 if bias else 0, 1 if stats else 0], [eps], bind)


layer_norm_case("bias_stats", 6, 10)
layer_norm_case("no_bias", 3, 17, bias=False, stats=False, eps=1e-3)
layer_norm_case("stats_only_one_row", 1, 64, bias=True, stats=True, eps=0.1)

x = rand(2, 3, 5, 4, lo=-2, hi=2)
s, b = rand(3), rand(3)
y = F.instance_norm(t64(x), weight=t64(s), bias=t64(b), eps=1e-4)
write_case("basic", "instance_norm_f32", [2, 3, 20], [1e-4],
           [binding(IN, x), binding(IN, s), binding(IN, b), binding(OUT, expected=f32(y))])

for p in (1, 2):
    x = rand(2, 4, 3)
    y = F.normalize(t64(x), p=p, dim=1, eps=0.0)
    write_case("p%d_middle" % p, "lp_norm_f32", [2, 4, 3, p], [],
               [binding(IN, x), binding(OUT, expected=f32(y))])

for size in (3, 4):
    x = rand(2, 6, 3, 3, lo=-2, hi=2)
    alpha, beta, bias = 2e-2, 0.75, 1.5
    # torch's local_response_norm pads (size-1)/2 below and size/2... use an
    # explicit float64 sum to follow ONNX's window exactly.
    xd = x.astype(np.float64)
    y = np.empty_like(xd)
    lo, hi = (size - 1) // 2, int(math.ceil((size - 1) / 2))
    for c in range(6):
        sq = (xd[:, max(0, c - lo):min(5, c + hi) + 1] ** 2).sum(axis=1)
        y[:, c] = xd[:, c] / (bias + alpha / size * sq) ** beta
    write_case("size%d" % size, "lrn_f32", [2, 6, 9, size], [alpha, beta, bias],
               [binding(IN, x), binding(OUT, expected=f32(y))])
# Cross-check the explicit LRN against torch for the odd size, where the
# windows coincide.
xt = t64(rand(1, 5, 2, 2))
ref = F.local_response_norm(xt, 3, alpha=0.1, beta=0.75, k=1.0).numpy()
xd = xt.numpy()
mine = np.empty_like(xd)
for c in range(5):
    sq = (xd[:, max(0, c - 1):min(4, c + 1) + 1] ** 2).sum(axis=1)
    mine[:, c] = xd[:, c] / (1.0 + 0.1 / 3 * sq) ** 0.75
assert np.allclose(ref, mine, rtol=1e-12, atol=1e-12), "LRN reference disagrees with torch"

x = rng.integers(0, 3, size=(2, 4, 3)).astype(np.float32)  # ties: first index wins
idx = torch.argmax(t64(x), dim=1, keepdim=True)
y = torch.zeros(2, 4, 3, dtype=torch.float64).scatter_(1, idx, 1.0)
write_case("middle_ties", "hardmax_f32", [2, 4, 3], [],
           [binding(IN, x), binding(OUT, expected=f32(y))])

# GELU (kind 38), added after the cases above with its own generator so
# their inputs stay as they were: 0.5 x (1 + erf(x / sqrt 2)), with enough
# values to cover full vectors and a partial one on every path.
gelu_rng = np.random.default_rng(20250301)
x = gelu_rng.uniform(-6, 6, size=45).astype(np.float32)
write_case("gelu", "unary_f32", [38, x.size], [0, 0],
           [binding(IN, x), binding(OUT, expected=f32(F.gelu(t64(x))))])

# SiLU (kind 39), its own generator likewise: x * sigmoid(x).
silu_rng = np.random.default_rng(20261201)
x = silu_rng.uniform(-12, 12, size=45).astype(np.float32)
write_case("silu", "unary_f32", [39, x.size], [0, 0],
           [binding(IN, x), binding(OUT, expected=f32(F.silu(t64(x))))])

# GELU's tanh approximation (kind 40, ONNX Gelu-20 approximate="tanh"), its own
# generator likewise.
gelu_tanh_rng = np.random.default_rng(20261202)
x = gelu_tanh_rng.uniform(-6, 6, size=45).astype(np.float32)
write_case("gelu_tanh", "unary_f32", [40, x.size], [0, 0],
           [binding(IN, x), binding(OUT, expected=f32(F.gelu(t64(x), approximate="tanh")))])

total = sum(os.path.getsize(p) for p in written)
print("wrote %d cases, %d bytes, to %s" % (len(written), total, OUT_DIR))
