#!/usr/bin/python3
"""Writes reference cases for the optimizer kernels (adagrad_f32, adam_f32,
momentum_f32), max_unpool and roi_align_f32 to tests/runtime/data/ (format
of reference_case.py, read by tests/runtime/kernel_case.h).

References, in float64 and independent of the C kernels:
- the optimizers follow the pseudo code of the ONNX operator documents of
  ai.onnx.preview.training (Adagrad, Adam, Momentum), vectorised in NumPy;
- max_unpool scatters X into a zero tensor of the inferred shape by flat
  index and places it at the origin of the output (ONNX MaxUnpool);
- roi_align samples each bin on a regular grid with bilinear interpolation
  as the ONNX RoiAlign reference does (samples beyond one pixel outside the
  map count 0; max mode takes per sample the largest weighted corner).

Run with Debian's interpreter: /usr/bin/python3 tests/runtime/make_reference_train_unpool_roi.py
"""
import math

import numpy as np

from reference_case import IN, OUT, binding, write_case

rng = np.random.default_rng(20251130)
F16, F32, F64 = 2, 1, 3


def f32(a):
    return np.asarray(a, dtype=np.float32)


def scalars(r, t):
    return [binding(IN, f32([r])), binding(IN, np.array([t], dtype=np.int64))]


# ---------------------------------------------------------------- optimizers

def adagrad_case(name, n, r, t, norm, eps, decay):
    x, g = f32(rng.standard_normal(n)), f32(rng.standard_normal(n))
    h = f32(rng.random(n) * 2.0)
    gr = norm * x.astype(np.float64) + g
    h_new = h + gr * gr
    lr = r / (1.0 + t * decay)
    x_new = x - lr * gr / (np.sqrt(h_new) + eps)
    write_case(name, "adagrad_f32", [n], [norm, eps, decay],
               scalars(r, t) + [binding(IN, x), binding(IN, g), binding(IN, h),
                                binding(OUT, expected=f32(x_new)),
                                binding(OUT, expected=f32(h_new))])


def adam_case(name, n, r, t, norm, post, alpha, beta, eps):
    x, g, v = (f32(rng.standard_normal(n)) for _ in range(3))
    h = f32(rng.random(n) * 2.0)
    gr = norm * x.astype(np.float64) + g
    v_new = alpha * v + (1.0 - alpha) * gr
    h_new = beta * h + (1.0 - beta) * gr * gr
    lr = r * math.sqrt(1.0 - beta ** t) / (1.0 - alpha ** t) if t > 0 else r
    x_new = (1.0 - post) * (x - lr * v_new / (np.sqrt(h_new) + eps))
    write_case(name, "adam_f32", [n], [norm, post, alpha, beta, eps],
               scalars(r, t) + [binding(IN, x), binding(IN, g), binding(IN, v), binding(IN, h),
                                binding(OUT, expected=f32(x_new)),
                                binding(OUT, expected=f32(v_new)),
                                binding(OUT, expected=f32(h_new))])


def momentum_case(name, n, r, t, norm, alpha, beta, nesterov):
    x, g, v = (f32(rng.standard_normal(n)) for _ in range(3))
    gr = norm * x.astype(np.float64) + g
    b = beta if t > 0 else 1.0
    v_new = alpha * v + b * gr
    x_new = x - r * (gr + alpha * v_new) if nesterov else x - r * v_new
    write_case(name, "momentum_f32", [n, 1 if nesterov else 0], [norm, alpha, beta],
               scalars(r, t) + [binding(IN, x), binding(IN, g), binding(IN, v),
                                binding(OUT, expected=f32(x_new)),
                                binding(OUT, expected=f32(v_new))])


adagrad_case("t0", 7, 0.1, 0, 0.001, 1e-5, 0.1)
adagrad_case("t5_decay", 33, 0.5, 5, 0.01, 1e-6, 0.25)
adam_case("t0", 9, 0.1, 0, 0.001, 0.0, 0.95, 0.1, 1e-7)
adam_case("t3_post", 20, 0.05, 3, 0.01, 0.02, 0.9, 0.999, 1e-6)
adam_case("t1_large_beta", 5, 1.0, 1, 0.0, 0.0, 0.5, 0.75, 1e-3)
momentum_case("standard_t0", 8, 0.01, 0, 0.001, 0.95, 0.1, False)
momentum_case("standard_t4", 17, 0.1, 4, 0.002, 0.9, 0.5, False)
momentum_case("nesterov_t0", 6, 0.1, 0, 0.01, 0.95, 1.0, True)
momentum_case("nesterov_t2", 12, 0.2, 2, 0.0, 0.8, 0.3, True)


# ---------------------------------------------------------------- MaxUnpool

DT = {F16: np.float16, F32: np.float32, F64: np.float64}


def unpool_case(name, x_shape, inferred, out, t=F32, duplicates=False):
    x = rng.standard_normal(x_shape).astype(DT[t])
    total = int(np.prod(inferred))
    if duplicates:  # later elements overwrite earlier ones at a shared index
        idx = rng.integers(0, total, x.size)
        idx[-1] = idx[0]
    else:
        idx = rng.choice(total, x.size, replace=False)
    idx = idx.astype(np.int64).reshape(x_shape)
    flat = np.zeros(total, dtype=DT[t])
    for k in range(x.size):
        flat[idx.flat[k]] = x.flat[k]
    y = np.zeros(out, dtype=DT[t])
    y[tuple(slice(0, d) for d in inferred)] = flat.reshape(inferred)
    ip = [x.itemsize, x.size, len(out)] + list(inferred) + list(out)
    write_case(name, "max_unpool", ip, [],
               [binding(IN, x), binding(IN, idx), binding(OUT, expected=y)], compare=1)


unpool_case("f32_2d_same", [1, 2, 2, 3], [1, 2, 4, 6], [1, 2, 4, 6])
unpool_case("f32_2d_larger", [2, 1, 2, 2], [2, 1, 4, 4], [2, 1, 5, 7])
unpool_case("f64_1d_larger", [1, 3, 4], [1, 3, 9], [1, 3, 11], t=F64)
unpool_case("f16_3d_same", [1, 1, 2, 2, 2], [1, 1, 3, 3, 3], [1, 1, 3, 3, 3], t=F16)
unpool_case("f32_duplicates", [1, 1, 3, 3], [1, 1, 5, 5], [1, 1, 6, 5], duplicates=True)


# ---------------------------------------------------------------- RoiAlign

def bilinear(y, x, h, w):
    """(positions, weights) of the four corners of sample (y, x)."""
    if y < -1.0 or y > h or x < -1.0 or x > w:
        return [(0, 0)] * 4, [0.0] * 4
    y, x = max(y, 0.0), max(x, 0.0)
    y0, x0 = int(y), int(x)
    if y0 >= h - 1:
        y0 = y1 = h - 1
        y = float(y0)
    else:
        y1 = y0 + 1
    if x0 >= w - 1:
        x0 = x1 = w - 1
        x = float(x0)
    else:
        x1 = x0 + 1
    ly, lx = y - y0, x - x0
    hy, hx = 1.0 - ly, 1.0 - lx
    return [(y0, x0), (y0, x1), (y1, x0), (y1, x1)], [hy * hx, hy * lx, ly * hx, ly * lx]


def roi_align(x, rois, batch, oh, ow, sampling, scale, half_pixel, mode):
    n_rois, c = rois.shape[0], x.shape[1]
    h, w = x.shape[2], x.shape[3]
    y = np.zeros((n_rois, c, oh, ow))
    off = 0.5 if half_pixel else 0.0
    for n in range(n_rois):
        x0, y0, x1, y1 = (float(v) * scale - off for v in rois[n])
        rw, rh = x1 - x0, y1 - y0
        if not half_pixel:
            rw, rh = max(rw, 1.0), max(rh, 1.0)
        bh, bw = rh / oh, rw / ow
        gh = sampling if sampling > 0 else max(math.ceil(rh / oh), 0)
        gw = sampling if sampling > 0 else max(math.ceil(rw / ow), 0)
        count = max(gh * gw, 1)
        img = x[batch[n]].astype(np.float64)
        for ph in range(oh):
            for pw in range(ow):
                vals = []
                for iy in range(gh):
                    sy = y0 + ph * bh + (iy + 0.5) * bh / gh
                    for ix in range(gw):
                        sx = x0 + pw * bw + (ix + 0.5) * bw / gw
                        pos, wts = bilinear(sy, sx, h, w)
                        vals.append([wt * img[:, p[0], p[1]] for p, wt in zip(pos, wts)])
                if not vals:
                    continue
                v = np.array(vals)  # [samples, 4, C]
                if mode == "max":
                    y[n, :, ph, pw] = v.max(axis=1).max(axis=0)
                else:
                    y[n, :, ph, pw] = v.sum(axis=1).sum(axis=0) / count
    return y


def roi_case(name, x_shape, rois, batch, oh, ow, sampling, scale, half_pixel, mode):
    x = f32(rng.random(x_shape))
    rois, batch = f32(rois), np.array(batch, dtype=np.int64)
    y = roi_align(x, rois, batch, oh, ow, sampling, scale, half_pixel, mode)
    n, c, h, w = x_shape
    ip = [n, c, h, w, rois.shape[0], oh, ow, sampling, 1 if mode == "max" else 0,
          1 if half_pixel else 0]
    write_case(name, "roi_align_f32", ip, [scale],
               [binding(IN, x), binding(IN, rois), binding(IN, batch),
                binding(OUT, expected=f32(y))])


# Regions inside, partly outside, reversed and smaller than a pixel; region
# sides whose ratio to the bins is not near an integer (the adaptive grid).
ROIS = [[0.0, 0.0, 9.0, 9.0], [0.5, 5.2, 4.3, 9.9], [5.1, 5.3, 13.7, 12.9],
        [-3.1, -2.2, 2.6, 3.7], [6.0, 2.0, 3.0, 1.0], [2.2, 2.4, 2.5, 2.6]]
roi_case("avg_half_pixel_adaptive", [2, 3, 10, 11], ROIS, [0, 1, 1, 0, 1, 0], 3, 2, 0, 1.0,
         True, "avg")
roi_case("avg_output_half_pixel_fixed", [2, 2, 8, 8], ROIS, [1, 0, 1, 1, 0, 0], 4, 4, 2, 0.75,
         False, "avg")
roi_case("max_half_pixel_fixed", [1, 3, 10, 10], ROIS, [0] * 6, 5, 5, 2, 1.0, True, "max")
roi_case("max_output_half_pixel_adaptive", [3, 2, 7, 9], ROIS, [2, 1, 0, 2, 1, 0], 2, 3, 0,
         1.1, False, "max")
roi_case("avg_one_by_one_map", [1, 1, 1, 1], [[0.0, 0.0, 1.0, 1.0], [-0.2, 0.1, 0.9, 1.3]],
         [0, 0], 2, 2, 1, 1.0, True, "avg")


def check_against_onnx_data():
    """The RoiAlign reference reproduces the ONNX node test data (Debian's
    libonnx-testdata), when installed: a check of the reference itself."""
    import os
    from onnx import TensorProto, numpy_helper
    root = "/usr/share/libonnx-testdata/data/node"
    for test, half_pixel in (("test_roialign_aligned_false", False),
                             ("test_roialign_aligned_true", True)):
        d = os.path.join(root, test, "test_data_set_0")
        if not os.path.isdir(d):
            continue

        def load(f):
            t = TensorProto()
            with open(os.path.join(d, f), "rb") as fh:
                t.ParseFromString(fh.read())
            return numpy_helper.to_array(t)
        x, rois, batch, want = (load(f) for f in
                                ("input_0.pb", "input_1.pb", "input_2.pb", "output_0.pb"))
        got = roi_align(x, rois, batch, 5, 5, 2, 1.0, half_pixel, "avg")
        # The data are printed to 4 decimals.
        assert np.allclose(got, want, rtol=1e-3, atol=1e-4), test


check_against_onnx_data()
