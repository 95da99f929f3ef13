#!/usr/bin/python3
"""Writes reference cases for einsum (float32) to tests/runtime/data/ (file
format of make_reference.py, read by tests/runtime/kernel_case.h).

Expected outputs come from numpy.einsum in float64 on the same float32
inputs, independently of the C kernel. The kernel's parameters are written
here as the compiler lays them out (compiler/ops/linear.cc): the output
letters in the output's order, then the summed letters in order of first
appearance; each operand's stride for a letter (0 when it lacks the letter,
the sum of its axes' strides when the letter repeats).

Run with Debian's interpreter: /usr/bin/python3 tests/runtime/make_reference_einsum.py
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference_case import IN, OUT, OUT_DIR, binding, write_case, written  # noqa: E402

rng = np.random.default_rng(20261207)


def rand(*shape):
    return rng.uniform(-1.0, 1.0, size=shape).astype(np.float32)


def strides_of(spec, shape, letters):
    """Element strides of a dense operand of `shape` for each letter."""
    dense = [int(np.prod(shape[i + 1:])) for i in range(len(shape))]
    return [sum(dense[i] for i, ch in enumerate(spec) if ch == letter) for letter in letters]


def einsum_case(case, equation, *shapes):
    inputs, out = equation.split("->")
    specs = inputs.split(",")
    ops = [rand(*s) for s in shapes]
    summed = []
    for spec in specs:
        for ch in spec:
            if ch not in out and ch not in summed:
                summed.append(ch)
    letters = list(out) + summed
    size = {}
    for spec, shape in zip(specs, shapes):
        for ch, extent in zip(spec, shape):
            size[ch] = extent
    y = np.einsum(equation, *[o.astype(np.float64) for o in ops]).astype(np.float32)
    sa = strides_of(specs[0], shapes[0], letters)
    sb = strides_of(specs[1], shapes[1], letters) if len(specs) == 2 else [0] * len(letters)
    ip = [len(letters), len(out), 1 if len(specs) == 2 else 0, 0,
          *[size[ch] for ch in letters], *sa, *sb]
    b = binding(IN, ops[1]) if len(specs) == 2 else binding(IN, np.zeros(1, np.float32))
    write_case(case, "einsum", ip, [],
               [binding(IN, ops[0]), b, binding(OUT, expected=np.ascontiguousarray(y))])


# Batches of matrix products (one GEMM per batch element): attention's
# scores (B transposed: its rows are the columns) and its weighted sum (33
# columns: two 16-wide panels and a partial one).
einsum_case("attention_scores", "bhid,bhjd->bhij", (1, 3, 5, 20), (1, 3, 7, 20))
einsum_case("attention_apply", "bhij,bhjd->bhid", (2, 2, 9, 7), (2, 2, 7, 33))
# Y's last letter a row of A: each product computed transposed.
einsum_case("transposed_output", "ik,kj->ji", (13, 40), (40, 6))
einsum_case("transposed_batched", "bik,bkj->bji", (3, 11, 9), (3, 9, 4))
# Two adjacent letters of A alone, one dense run: a single product of 15 rows.
einsum_case("merged_rows", "bij,jk->bik", (3, 5, 12), (12, 17))
# One column (a matrix times a vector) over K = 300 (two K blocks of the GEMM).
einsum_case("matrix_vector", "ij,j->i", (37, 300), (300,))
# A diagonal of A (its repeated letter's strides summed) as the summed letter.
einsum_case("diagonal_rows", "bii,bij->bj", (2, 6, 6), (2, 6, 5))
# Not one product per batch element (two summed letters; a batch letter
# last in Y; two separate letters of A alone): the loops, summing in double.
einsum_case("two_summed_letters", "ijk,jk->i", (4, 5, 6), (5, 6))
einsum_case("batch_letter_last", "ibj,jb->ib", (4, 3, 5), (5, 3))
einsum_case("separate_rows", "bhij,hjd->bhid", (2, 3, 4, 5), (3, 5, 6))

total = sum(os.path.getsize(p) for p in written)
print("wrote %d cases, %d bytes, to %s" % (len(written), total, OUT_DIR))
