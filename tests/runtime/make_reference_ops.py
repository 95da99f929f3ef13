#!/usr/bin/python3
"""Writes reference cases for topk, maxpool_argmax_f32, qmatmul, qconv2d,
signal_window and mel_weight_matrix to tests/runtime/data/ (file format of
make_reference.py, read by tests/runtime/kernel_case.h).

References, independent of the C kernels: TopK from NumPy's stable argsort;
MaxPool indices from torch.nn.functional.max_pool2d(return_indices=True)
(per-plane indices, offset here to ONNX's whole-tensor flattening); integer
products from NumPy int64 matmul and torch conv2d in float64 (exact for these
small integers), requantized with np.rint (half to even) and clipping;
windows from torch.hann_window / hamming_window(alpha=25/46) /
blackman_window in float64; MelWeightMatrix from the ONNX operator
definition's formula written out in NumPy.

Run with Debian's interpreter: /usr/bin/python3 tests/runtime/make_reference_ops.py
"""
import os
import struct

import numpy as np
import torch
import torch.nn.functional as F

OUT_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
IN, OUT, UNUSED = 0, 1, 2
F32, I32, I64, U8, I8 = 1, 6, 7, 8, 4
rng = np.random.default_rng(20241201)


def binding(role, initial=None, expected=None):
    init = b"" if initial is None else np.ascontiguousarray(initial).tobytes()
    exp = b"" if expected is None else np.ascontiguousarray(expected).tobytes()
    nbytes = len(init) if role == IN else len(exp)
    return (role, 1, nbytes, init, exp)


def write_case(case, kernel, iparams, bindings, bitwise=True):
    out = bytearray(b"KILNCAS1")
    name = kernel.encode()
    out += struct.pack("<I", len(name)) + name
    out += struct.pack("<I", 1 if bitwise else 0)
    out += struct.pack("<I", len(iparams)) + struct.pack("<%dq" % len(iparams), *iparams)
    out += struct.pack("<I", 0)
    out += struct.pack("<I", len(bindings))
    for role, tight, nbytes, init, exp in bindings:
        out += struct.pack("<IIQ", role, tight, nbytes) + init + exp
    with open(os.path.join(OUT_DIR, "%s.%s.bin" % (kernel, case)), "wb") as f:
        f.write(out)


# ---------------------------------------------------------------- topk
def topk_case(case, x, axis, k, largest, code, runtime_k=False):
    outer = int(np.prod(x.shape[:axis])); length = x.shape[axis]
    inner = int(np.prod(x.shape[axis + 1:]))
    v = x.reshape(outer, length, inner)
    key = -v.astype(np.float64) if largest else v.astype(np.float64)
    order = np.argsort(key, axis=1, kind="stable")[:, :k, :]  # ties: lower index first
    vals = np.take_along_axis(v, order, axis=1)
    kb = binding(IN, np.array([k], np.int64)) if runtime_k else (UNUSED, 1, 0, b"", b"")
    write_case(case, "topk", [code, outer, length, inner, k, 1 if largest else 0,
                              I64 if runtime_k else 0],
               [binding(IN, x), kb, binding(OUT, expected=vals),
                binding(OUT, expected=order.astype(np.int64))])


topk_case("f32_mid_axis", rng.standard_normal((2, 7, 3)).astype(np.float32), 1, 4, True, F32)
topk_case("i32_smallest_ties", rng.integers(-3, 3, (3, 9)).astype(np.int32), 1, 5, False, I32)
topk_case("i64_runtime_k", rng.integers(-2**40, 2**40, (4, 6)).astype(np.int64), 0, 2, True,
          I64, runtime_k=True)
topk_case("u8_all", rng.integers(0, 255, (10,)).astype(np.uint8), 0, 10, True, U8)


# ---------------------------------------------------------------- maxpool_argmax_f32
def maxpool_case(case, N, C, H, W, k, s, p, d, storage):
    x = rng.standard_normal((N, C, H, W)).astype(np.float32)
    y, idx = F.max_pool2d(torch.from_numpy(x), k, s, p, d, return_indices=True)
    y, idx = y.numpy(), idx.numpy().astype(np.int64)
    h, w = idx // W, idx % W
    flat = h * W + w if storage == 0 else w * H + h
    plane = (np.arange(N)[:, None] * C + np.arange(C)[None, :]) * H * W
    flat = flat + plane[:, :, None, None]
    OH, OW = y.shape[2:]
    write_case(case, "maxpool_argmax_f32",
               [N, C, H, W, OH, OW, k[0], k[1], s[0], s[1], p[0], p[1], d[0], d[1], storage],
               [binding(IN, x), binding(OUT, expected=y), binding(OUT, expected=flat)])


maxpool_case("padded", 2, 3, 6, 5, (3, 3), (1, 1), (1, 1), (1, 1), 0)
maxpool_case("strided_col_major", 1, 2, 7, 6, (2, 3), (2, 2), (0, 1), (1, 1), 1)
maxpool_case("dilated", 1, 1, 8, 8, (2, 2), (1, 2), (1, 0), (2, 3), 0)


# ---------------------------------------------------------------- qmatmul
def requant(acc, scale, zp, code):
    lo, hi = (0, 255) if code == U8 else (-128, 127)
    return np.clip(np.rint(acc * scale) + zp, lo, hi).astype(np.uint8 if code == U8 else np.int8)


def qmatmul_case(case, a, b, azp, bzp, scales=None, ycode=I32):
    """azp/bzp: None, a 0-d array (per tensor) or 1-D (per row of A / column of B).
    scales: (a_scale, b_scale, y_scale, y_zp) for requantizing."""
    M, K = a.shape[-2:]; N = b.shape[-1]
    za = np.zeros(1, np.int64) if azp is None else azp.astype(np.int64).reshape(-1)
    zb = np.zeros(1, np.int64) if bzp is None else bzp.astype(np.int64).reshape(-1)
    acc = np.matmul(a.astype(np.int64) - za.reshape(-1, 1), b.astype(np.int64) - zb.reshape(1, -1))
    mode = lambda z: 0 if z is None else (1 if z.size == 1 else 2)
    def param(z):
        return binding(IN, z) if z is not None else (UNUSED, 1, 0, b"", b"")
    if scales is None:
        y = acc.astype(np.int32)
        extra = [(UNUSED, 1, 0, b"", b"")] * 4
        smodes = [0, 0]
    else:
        sa, sb, sy, zy = scales
        s = (sa.astype(np.float64).reshape(-1, 1) * sb.astype(np.float64).reshape(1, -1)) / np.float64(sy[0])
        y = requant(acc.astype(np.float64) * s, 1.0, np.float64(zy[0]), ycode)
        extra = [binding(IN, sa), binding(IN, sb), binding(IN, sy), binding(IN, zy)]
        smodes = [mode(sa), mode(sb)]
    batch = y.shape[:-2]; R = len(batch)
    def strides(shape):
        st, acc_s = [], shape[-2] * shape[-1]
        bs = list(shape[:-2]); bs = [1] * (R - len(bs)) + bs
        out = [0] * R
        for i in range(R - 1, -1, -1):
            out[i] = 0 if bs[i] == 1 else acc_s
            acc_s *= bs[i]
        return out
    ip = [a.dtype == np.int8 and I8 or U8, b.dtype == np.int8 and I8 or U8, ycode, M, N, K,
          mode(azp), mode(bzp)] + smodes + [R] + list(batch) + strides(a.shape) + strides(b.shape)
    write_case(case, "qmatmul", ip,
               [binding(IN, a), binding(IN, b), param(azp), param(bzp)] + extra +
               [binding(OUT, expected=y)])


u8 = lambda *s: rng.integers(0, 256, s).astype(np.uint8)
i8 = lambda *s: rng.integers(-128, 128, s).astype(np.int8)
f = lambda *v: np.array(v, np.float32)
qmatmul_case("integer_rowzp_batch", u8(2, 3, 5, 7), u8(7, 4), u8(5), np.array(17, np.uint8))
qmatmul_case("integer_i8_colzp", i8(6, 9), i8(9, 5), None, i8(5))
qmatmul_case("qlinear_u8", u8(3, 8), u8(2, 8, 6), np.array(113, np.uint8),
             np.array(114, np.uint8), (f(0.0066), f(0.00705), f(0.0107), np.array([118], np.uint8)), U8)
qmatmul_case("qlinear_i8_per_col", i8(4, 16), i8(16, 3), np.array(-3, np.int8), None,
             (f(0.02), f(0.01, 0.03, 0.005), f(0.05), np.array([7], np.int8)), I8)


# ---------------------------------------------------------------- qconv2d
def qconv_case(case, x, w, xzp, wzp, stride, pads, dil, groups, q=None, bias=None):
    N, C, H, W = x.shape; OC, _, KH, KW = w.shape
    xs = x.astype(np.float64) - (0 if xzp is None else float(xzp))
    wz = np.zeros(OC) if wzp is None else np.broadcast_to(wzp.astype(np.float64).reshape(-1), (OC,))
    ws = w.astype(np.float64) - wz.reshape(-1, 1, 1, 1)
    xp = F.pad(torch.from_numpy(xs), (pads[1], pads[3], pads[0], pads[2]))
    acc = F.conv2d(xp, torch.from_numpy(ws), None, stride, 0, dil, groups).numpy()
    acc = np.rint(acc).astype(np.int64)
    if bias is not None:
        acc += bias.astype(np.int64).reshape(1, -1, 1, 1)
    OH, OW = acc.shape[2:]
    unused = (UNUSED, 1, 0, b"", b"")
    def param(z):
        return binding(IN, z) if z is not None else unused
    mode = lambda z: 0 if z is None else (1 if z.size == 1 else 2)
    if q is None:
        y, ycode, extra, wsm = acc.astype(np.int32), I32, [unused] * 4, 0
    else:
        sx, sw, sy, zy, ycode = q
        s = np.float64(sx[0]) * np.broadcast_to(sw.astype(np.float64).reshape(-1), (OC,)) / np.float64(sy[0])
        y = requant(acc * s.reshape(1, -1, 1, 1), 1.0, np.float64(zy[0]), ycode)
        extra, wsm = [binding(IN, sx), binding(IN, sw), binding(IN, sy), binding(IN, zy)], mode(sw)
    ip = [x.dtype == np.int8 and I8 or U8, w.dtype == np.int8 and I8 or U8, ycode, N, C, H, W,
          OC, OH, OW, KH, KW, stride[0], stride[1], pads[0], pads[1], dil[0], dil[1], groups,
          mode(xzp), mode(wzp), wsm, 0 if bias is None else 1]
    write_case(case, "qconv2d", ip,
               [binding(IN, x), binding(IN, w), param(xzp), param(wzp)] + extra +
               [param(bias), binding(OUT, expected=y)])


qconv_case("integer_padded_grouped", u8(2, 4, 6, 7), u8(6, 2, 3, 2), np.array(9, np.uint8),
           np.array(200, np.uint8), (2, 1), (1, 0, 2, 1), (1, 2), 2)
qconv_case("integer_i8_per_channel_zp", i8(1, 3, 5, 5), i8(4, 3, 3, 3), None, i8(4),
           (1, 1), (1, 1, 1, 1), (1, 1), 1)
qconv_case("qlinear_u8", u8(1, 1, 7, 7), u8(1, 1, 1, 1), np.array(132, np.uint8),
           np.array([255], np.uint8), (1, 1), (0, 0, 0, 0), (1, 1), 1,
           (f(0.00369205), f(0.00172795), f(0.00162681), np.array([123], np.uint8), U8))
qconv_case("qlinear_i8_bias_per_channel", i8(2, 2, 6, 5), i8(3, 2, 2, 3), np.array(-5, np.int8),
           None, (1, 2), (1, 1, 0, 1), (2, 1), 1,
           (f(0.1), f(0.01, 0.02, 0.003), f(0.4), np.array([-4], np.int8), I8),
           bias=rng.integers(-500, 500, 3).astype(np.int32))


# ---------------------------------------------------------------- signal_window
for kind, fn in ((0, lambda n, p: torch.hann_window(n, p, dtype=torch.float64)),
                 (1, lambda n, p: torch.hamming_window(n, p, alpha=25 / 46, beta=21 / 46,
                                                       dtype=torch.float64)),
                 (2, lambda n, p: torch.blackman_window(n, p, dtype=torch.float64))):
    for n, periodic, code in ((10, 1, I32), (17, 0, I64)):
        y = fn(n, bool(periodic)).numpy().astype(np.float32)
        size = np.array(n, np.int32 if code == I32 else np.int64)
        write_case("%s_%d_%s" % (("hann", "hamming", "blackman")[kind], n,
                                 "periodic" if periodic else "symmetric"),
                   "signal_window", [kind, n, periodic, code, F32],
                   [binding(IN, size), binding(OUT, expected=y)], bitwise=False)


# ---------------------------------------------------------------- mel_weight_matrix
def mel_case(case, bins, dft, rate, lo, hi):
    spec = dft // 2 + 1
    mel = lambda hz: 2595.0 * np.log10(1.0 + hz / 700.0)
    step = (mel(hi) - mel(lo)) / (bins + 2)
    hz = 700.0 * (10.0 ** ((np.arange(bins + 2) * step + mel(lo)) / 2595.0) - 1.0)
    edges = np.floor((dft + 1) * hz / rate).astype(np.int64)
    y = np.zeros((spec, bins))
    for i in range(bins):
        l, c, r = edges[i:i + 3]
        if c == l:
            y[c, i] = 1.0
        else:
            y[l:c + 1, i] = (np.arange(l, c + 1) - l) / (c - l)
        if r > c:
            y[c:r, i] = (r - np.arange(c, r)) / (r - c)
    ints = [np.array(v, np.int32) for v in (bins, dft, rate)]
    write_case(case, "mel_weight_matrix", [bins, spec, I32, F32, F32],
               [binding(IN, v) for v in ints] +
               [binding(IN, np.array(lo, np.float32)), binding(IN, np.array(hi, np.float32)),
                binding(OUT, expected=y.astype(np.float32))], bitwise=False)


mel_case("small", 8, 16, 8192, 0.0, 4096.0)
mel_case("speech", 20, 256, 16000, 100.0, 7000.0)
