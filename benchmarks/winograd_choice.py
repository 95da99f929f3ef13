#!/usr/bin/env python3
"""Why conv2d_winograd_f32 is F(4x4, 3x3): multiplies and float32 error of
F(2x2, 3x3), F(4x4, 3x3) and F(6x6, 3x3) on ResNet-18's 3x3 layers.

For each tile size m (outputs per tile side; a = m + 2 inputs):
  - multiplies per output in the per-frequency GEMMs on each plane size,
    whole tiles counted (a tile past the plane's edge is computed in full),
    against the direct convolution's 9;
  - weight bytes against the direct kernel's (the GEMM streams them: 7x7
    planes have few tiles to share each weight);
  - the float32 error of the whole algorithm (input transform in float32,
    weights transformed exactly and rounded once as the compiler does, the
    channel sums accumulated one channel at a time in float32 as the
    micro-kernel does, output transform in float32) against a float64 direct
    convolution, relative to each output's sum of |products|: max and RMS,
    for post-ReLU inputs (ResNet's) and signed ones.
The transform matrices are checked to be exact in float64 first.

usage: /usr/bin/python3 benchmarks/winograd_choice.py
"""
import numpy as np

# Toom-Cook matrices (points 0, +-1, +-2, [+-1/2], infinity): BT, G, AT.
MATS = {
    2: ([[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, 1, 0, -1]],
        [[1, 0, 0], [.5, .5, .5], [.5, -.5, .5], [0, 0, 1]],
        [[1, 1, 1, 0], [0, 1, -1, -1]]),
    4: ([[4, 0, -5, 0, 1, 0], [0, -4, -4, 1, 1, 0], [0, 4, -4, -1, 1, 0],
         [0, -2, -1, 2, 1, 0], [0, 2, -1, -2, 1, 0], [0, 4, 0, -5, 0, 1]],
        [[1 / 4, 0, 0], [-1 / 6, -1 / 6, -1 / 6], [-1 / 6, 1 / 6, -1 / 6],
         [1 / 24, 1 / 12, 1 / 6], [1 / 24, -1 / 12, 1 / 6], [0, 0, 1]],
        [[1, 1, 1, 1, 1, 0], [0, 1, -1, 2, -2, 0], [0, 1, 1, 4, 4, 0], [0, 1, -1, 8, -8, 1]]),
    6: ([[1, 0, -21 / 4, 0, 21 / 4, 0, -1, 0], [0, 1, 1, -17 / 4, -17 / 4, 1, 1, 0],
         [0, -1, 1, 17 / 4, -17 / 4, -1, 1, 0], [0, 1 / 2, 1 / 4, -5 / 2, -5 / 4, 2, 1, 0],
         [0, -1 / 2, 1 / 4, 5 / 2, -5 / 4, -2, 1, 0], [0, 2, 4, -5 / 2, -5, 1 / 2, 1, 0],
         [0, -2, 4, 5 / 2, -5, -1 / 2, 1, 0], [0, -1, 0, 21 / 4, 0, -21 / 4, 0, 1]],
        [[1, 0, 0], [-2 / 9, -2 / 9, -2 / 9], [-2 / 9, 2 / 9, -2 / 9],
         [1 / 90, 1 / 45, 2 / 45], [1 / 90, -1 / 45, 2 / 45],
         [32 / 45, 16 / 45, 8 / 45], [32 / 45, -16 / 45, 8 / 45], [0, 0, 1]],
        [[1, 1, 1, 1, 1, 1, 1, 0], [0, 1, -1, 2, -2, 1 / 2, -1 / 2, 0],
         [0, 1, 1, 4, 4, 1 / 4, 1 / 4, 0], [0, 1, -1, 8, -8, 1 / 8, -1 / 8, 0],
         [0, 1, 1, 16, 16, 1 / 16, 1 / 16, 0], [0, 1, -1, 32, -32, 1 / 32, -1 / 32, 1]]),
}


def mats(m):
    return [np.array(x, dtype=np.float64) for x in MATS[m]]


def check_exact(m, rng):
    bt, g, at = mats(m)
    d = rng.standard_normal((m + 2, m + 2))
    k = rng.standard_normal((3, 3))
    y = at @ ((g @ k @ g.T) * (bt @ d @ bt.T)) @ at.T
    ref = np.array([[np.sum(d[i:i + 3, j:j + 3] * k) for j in range(m)] for i in range(m)])
    assert np.abs(y - ref).max() < 1e-9, (m, np.abs(y - ref).max())


def error(m, c, signed, rng, tiles=48, oc=8):
    """Max and RMS of |winograd_f32 - direct_f64| / sum|products|."""
    bt, g, at = mats(m)
    a = m + 2
    x = rng.standard_normal((tiles, c, a, a))
    if not signed:
        x = np.maximum(x, 0)
    w = rng.standard_normal((oc, c, 3, 3)) * np.sqrt(2 / (9 * c))
    ref = np.zeros((tiles, oc, m, m))
    mag = np.zeros_like(ref)
    for i in range(m):
        for j in range(m):
            p = np.einsum('tcuv,ocuv->tocuv', x[:, :, i:i + 3, j:j + 3], w)
            ref[:, :, i, j] = p.sum(axis=(2, 3, 4))
            mag[:, :, i, j] = np.abs(p).sum(axis=(2, 3, 4))
    f32 = np.float32
    u = np.einsum('xu,ocuv,yv->ocxy', g, w, g).astype(f32)
    v = np.einsum('xu,tcuv,yv->tcxy', bt.astype(f32), x.astype(f32), bt.astype(f32))
    acc = np.zeros((tiles, oc, a, a), f32)
    for ch in range(c):  # one channel at a time, as the micro-kernel sums
        acc = (acc + v[:, None, ch] * u[None, :, ch]).astype(f32)
    y = np.einsum('ix,toxy,jy->toij', at.astype(f32), acc, at.astype(f32)).astype(np.float64)
    rel = np.abs(y - ref) / mag
    return rel.max(), np.sqrt((rel ** 2).mean())


def main():
    rng = np.random.default_rng(7)
    for m in MATS:
        check_exact(m, rng)
    print("multiplies per output (direct: 9), whole tiles, and weight bytes vs direct:")
    for m in MATS:
        a = m + 2
        per_plane = []
        for hw in (56, 28, 14, 7):
            t = -(-hw // m)
            per_plane.append(f"{hw}x{hw}: {a * a * t * t / (hw * hw):.2f}")
        print(f"  F({m}x{m},3x3): " + ", ".join(per_plane) + f"; weights x{a * a / 9:.2f}")
    print("float32 error / sum|products| (max, rms), C input channels:")
    for m in MATS:
        for signed in (False, True):
            cells = []
            for c in (64, 256, 512):
                mx, rms = error(m, c, signed, rng)
                cells.append(f"C={c}: {mx:.1e}, {rms:.1e}")
            kind = "signed   " if signed else "post-ReLU"
            print(f"  F({m}x{m},3x3) {kind}: " + "; ".join(cells))


if __name__ == "__main__":
    main()
