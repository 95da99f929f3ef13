#!/usr/bin/python3
"""Expected outputs of tests/runtime/tfidf_test.cc (pasted there by hand).

Independent of the C kernel: for every row it enumerates all n-grams the ONNX
TfIdfVectorizer document describes (positions i, i+d, ..., i+(n-1)d with
gap d = skip + 1, skip in 0..max_skip; a 1-gram once per position) into a
Counter keyed by the token tuple, then looks each pool n-gram up and applies
the mode (TF: count, IDF: weight if count > 0, TFIDF: count * weight).

Run with Debian's interpreter: /usr/bin/python3 tests/runtime/make_reference_tfidf.py
"""
from collections import Counter

import numpy as np

ROWS = [[4, 7, 9, 4, 7, 7, 9], [9, -3, 4, 9, 9, -3, 7]]
NGRAM_COUNTS = [0, 3, 7]
POOL = [4, -3, 9, 4, 7, 7, 9, 4, 7, 9, 9, -3, 7]
INDEXES = [5, 0, 3, 1, 4, 2, 6]
WEIGHTS = [0.5, 1.5, 2.0, 0.25, 3.0, 1.25, 0.75]
MAX_SKIP = 1


def grams(row, n, max_skip):
    found = Counter()
    gaps = [1] if n == 1 else range(1, max_skip + 2)
    for d in gaps:
        for i in range(len(row)):
            pos = [i + k * d for k in range(n)]
            if pos[-1] < len(row):
                found[tuple(row[p] for p in pos)] += 1
    return found


def pool_ngrams():
    out = []
    bounds = NGRAM_COUNTS + [len(POOL)]
    for g in range(len(NGRAM_COUNTS)):
        n = g + 1
        for off in range(bounds[g], bounds[g + 1], n):
            out.append(tuple(POOL[off:off + n]))
    return out


def vectorize(row, mode, min_n=1, max_n=3):
    y = np.zeros(max(INDEXES) + 1, dtype=np.float64)
    for k, gram in enumerate(pool_ngrams()):
        if not min_n <= len(gram) <= max_n:
            continue
        c = grams(row, len(gram), MAX_SKIP)[gram]
        y[INDEXES[k]] += {"TF": c, "IDF": WEIGHTS[k] if c else 0.0,
                          "TFIDF": c * WEIGHTS[k]}[mode]
    return y.astype(np.float32)


for mode in ("TF", "IDF", "TFIDF"):
    for r, row in enumerate(ROWS):
        print(mode, r, ", ".join(f"{v:g}f" for v in vectorize(row, mode)))
