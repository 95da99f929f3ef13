"""Checks a `kiln run --dump` of a module with symbolic dims (DYN) against
the dump of its static twin at the same size (STATIC, the model compiled with
the symbols fixed: fix_symbols.py), and optionally one dumped value against
an independent reference (PyTorch/NumPy output).

Every value of the static dump must be in the dynamic dump with the same
dtype and shape (the run-time shape) and the same contents: floats within
|a - b| <= atol + rtol * |b| (atol 1e-5, rtol 1e-4), other dtypes exactly.
In both dumps each .npy must have the shape values.json gives it.

usage: compare_dumps.py DYN_DIR STATIC_DIR [--ref VALUE=REF.npy] [--tol X]
Prints one summary line; exits 1 on any mismatch.
"""
import argparse
import json
import os
import sys

import numpy as np


def load(directory):
    with open(os.path.join(directory, "values.json")) as f:
        entries = json.load(f)
    values = {}
    for e in entries:
        data = np.load(os.path.join(directory, e["file"]))
        if list(data.shape) != e["shape"]:
            sys.exit(f"{directory}/{e['file']}: .npy shape {list(data.shape)}, "
                     f"values.json says {e['shape']}")
        values[e["value"]] = (e, data)
    return values


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dyn")
    ap.add_argument("static")
    ap.add_argument("--ref", action="append", default=[])
    ap.add_argument("--tol", type=float, default=1e-4)
    args = ap.parse_args()
    dyn, static = load(args.dyn), load(args.static)
    if not static:
        sys.exit(f"{args.static}: no values dumped")
    bad = []
    for name, (e, want) in static.items():
        if name not in dyn:
            bad.append(f"'{name}' {e['shape']}: not in the dynamic dump")
            continue
        got = dyn[name][1]
        if got.dtype != want.dtype or got.shape != want.shape:
            bad.append(f"'{name}': dynamic {got.dtype}{list(got.shape)}, "
                       f"static {want.dtype}{list(want.shape)}")
        elif got.dtype.kind == "f":
            excess = np.abs(got.astype(np.float64) - want) - (1e-5 + 1e-4 * np.abs(want))
            if got.size and not (excess <= 0).all():
                bad.append(f"'{name}' {list(got.shape)}: max|diff| "
                           f"{np.abs(got.astype(np.float64) - want).max():.3g}")
        elif not np.array_equal(got, want):
            bad.append(f"'{name}' {list(got.shape)}: contents differ")
    for spec in args.ref:
        name, path = spec.split("=", 1)
        ref = np.load(path)
        if name not in dyn:
            bad.append(f"'{name}': not in the dynamic dump (reference {path})")
            continue
        got = dyn[name][1]
        limit = args.tol * max(1.0, float(np.abs(ref).max()) if ref.size else 1.0)
        if got.shape != ref.shape:
            bad.append(f"'{name}': shape {list(got.shape)}, reference {list(ref.shape)}")
        elif ref.size and np.abs(got - ref).max() > limit:
            bad.append(f"'{name}': max|diff| {np.abs(got - ref).max():.3g} > {limit:.3g} "
                       f"against {path}")
    for b in bad:
        print("  " + b)
    print(f"{len(static)} values of the static dump checked in the dynamic dump "
          f"({len(dyn)} values), {len(args.ref)} against references, {len(bad)} mismatches")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
