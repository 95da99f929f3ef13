#!/usr/bin/python3
"""Compares .npy outputs:
  compare_npy.py [--tol REL | --bitwise] [--label L] REF GOT [REF GOT ...]
                 [[--tol REL | --bitwise] [--label L] REF GOT ...] ...

Passes when, for every pair, max|got - ref| <= REL * max(1, max|ref|)
(default REL = 1e-4); with --bitwise, when the two arrays hold the same bytes.
An option holds for the pairs after it until another replaces it (--tol and
--bitwise replace each other), so one run compares many pairs, each with its
own label and bound: a test that checks hundreds of outputs starts NumPy once.
Prints one line per pair and exits non-zero when any pair fails.
"""
import sys

import numpy as np

USAGE = __doc__.strip().splitlines()[1].strip()


def parse(argv):
    """[(tol or None for bitwise, label, ref, got), ...] from the command line."""
    tol, label, files, pairs = 1e-4, "", [], []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("--tol", "--label"):
            if i + 1 >= len(argv):
                sys.exit(f"compare_npy.py: {a} needs a value\nusage: {USAGE}")
            if a == "--tol":
                tol = float(argv[i + 1])
            else:
                label = argv[i + 1]
            i += 2
            continue
        if a == "--bitwise":
            tol = None
        elif a.startswith("--"):
            sys.exit(f"compare_npy.py: unknown option {a}\nusage: {USAGE}")
        else:
            files.append(a)
            if len(files) == 2:
                pairs.append((tol, label, files[0], files[1]))
                files = []
        i += 1
    if files or not pairs:
        sys.exit(f"compare_npy.py: files come in REF GOT pairs\nusage: {USAGE}")
    return pairs


def compare(tol, label, ref_path, got_path):
    ref = np.load(ref_path)
    got = np.load(got_path)
    if ref.shape != got.shape or ref.dtype != got.dtype:
        print(f"{label}{got_path}: shape/dtype {got.shape}/{got.dtype} "
              f"!= reference {ref.shape}/{ref.dtype}")
        return False
    diff = float(np.max(np.abs(got.astype(np.float64) - ref))) if ref.size else 0.0
    bitwise = ref.tobytes() == got.tobytes()
    if tol is None:
        good, bound_text = bitwise, "bitwise"
    else:
        bound = tol * max(1.0, float(np.max(np.abs(ref))) if ref.size else 1.0)
        good, bound_text = diff <= bound, f"{bound:.3g}"
    print(f"{label}max_abs_diff={diff:.3g} bound={bound_text} "
          f"bitwise={'yes' if bitwise else 'no'} {'ok' if good else 'MISMATCH'}")
    return good


def main():
    if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0
    results = [compare(*pair) for pair in parse(sys.argv[1:])]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
