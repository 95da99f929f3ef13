#!/usr/bin/python3
"""Compares .npy outputs: compare_npy.py [--tol REL | --bitwise] [--label L] REF GOT [REF GOT ...]

Passes when, for every pair, max|got - ref| <= REL * max(1, max|ref|)
(default REL = 1e-4); with --bitwise, when the two arrays hold the same bytes.
Prints one line per pair and exits non-zero on failure.
"""
import argparse
import sys

import numpy as np


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tol", type=float, default=1e-4)
    parser.add_argument("--bitwise", action="store_true",
                        help="pass only when the arrays are bitwise identical")
    parser.add_argument("--label", default="")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    if len(args.files) % 2:
        parser.error("files come in REF GOT pairs")
    ok = True
    for ref_path, got_path in zip(args.files[::2], args.files[1::2]):
        ref = np.load(ref_path)
        got = np.load(got_path)
        if ref.shape != got.shape or ref.dtype != got.dtype:
            print(f"{args.label}{got_path}: shape/dtype {got.shape}/{got.dtype} "
                  f"!= reference {ref.shape}/{ref.dtype}")
            ok = False
            continue
        diff = float(np.max(np.abs(got.astype(np.float64) - ref))) if ref.size else 0.0
        bound = args.tol * max(1.0, float(np.max(np.abs(ref))) if ref.size else 1.0)
        bitwise = ref.tobytes() == got.tobytes()
        good = bitwise if args.bitwise else diff <= bound
        verdict = "ok" if good else "MISMATCH"
        print(f"{args.label}max_abs_diff={diff:.3g} "
              f"bound={'bitwise' if args.bitwise else f'{bound:.3g}'} "
              f"bitwise={'yes' if bitwise else 'no'} {verdict}")
        ok = ok and good
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
