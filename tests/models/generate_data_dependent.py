#!/usr/bin/python3
"""Writes an end-to-end model of ops whose results depend on run-time data.

Run with Debian's interpreter (onnx 1.12, numpy):
  /usr/bin/python3 tests/models/generate_data_dependent.py

rtdata_ops (opset 13): Unique (sorted=0, all four outputs) of a float
vector, Unique of int64 rows (axis 0, Y and inverse_indices only),
NonMaxSuppression with constant max_output_boxes_per_class/iou_threshold
and a run-time score_threshold, Dropout with run-time ratio and
training_mode (true) and a seed, and Dropout with a constant true
training_mode and the default ratio and seed. Every output declares a
static shape; Kiln compiles the lengths from the declarations and its
kernels compute the results (runtime/kernels/unique.c,
non_max_suppression.c, dropout.c).
References: tests/runtime/data_dependent_reference.py (np.unique, a NumPy
transcription of NonMaxSuppression) and, for training Dropout, the mask
generator kiln/kernels.h documents (splitmix64 of the seed and the element
index, kept when u >= ratio), written here in Python. Kiln's code is not
involved. tests/models/bad/rtdata_ops.input1.wrong.npy holds a vector with
another number of distinct values: running with it must fail
(tests/e2e/runtime_values_test.sh).
"""
import os
import sys

import numpy as np
from onnx import helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
from model_files import save_model  # noqa: E402  (beside this script)
sys.path.insert(0, os.path.join(HERE, "..", "runtime"))
from data_dependent_reference import nms_reference, unique_reference  # noqa: E402

MASK64 = (1 << 64) - 1
DEFAULT_SEED = 0x4B494C4E44524F50  # Kiln's seed for Dropout without one ("KILNDROP")


def splitmix64(seed, k):
    z = (seed + (k + 1) * 0x9E3779B97F4A7C15) & MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def training_dropout(x, ratio, seed):
    u = np.array([(splitmix64(seed & MASK64, k) >> 11) * 2.0**-53 for k in range(x.size)])
    mask = (u >= float(ratio)).reshape(x.shape)
    y = np.where(mask, x.astype(np.float64) * (1.0 / (1.0 - float(ratio))), 0.0)
    return y.astype(np.float32), mask


def main():
    rng = np.random.default_rng(8)
    xy = rng.uniform(0, 1, [1, 8, 2]).astype(np.float32)  # overlapping boxes
    ins = {
        "boxes": np.concatenate([xy, xy + rng.uniform(2, 3, [1, 8, 2])], axis=-1)
                   .astype(np.float32),
        "u": np.array([3, 1, 1, 2.5, -0.0, 3, 0.0, 7, 1, 2.5, -4, 7], np.float32),
        "scores": rng.random([1, 2, 8]).astype(np.float32),
        "score_thr": np.array([0.1], np.float32),
        "x": rng.standard_normal([3, 50]).astype(np.float32),
        "training": np.array(True),
        "ratio": np.array(0.25, np.float32),
        "rows": rng.integers(0, 2, [8, 2]).astype(np.int64),  # repeats
    }
    consts = {"max_out": np.array([4], np.int64), "iou": np.array([0.4], np.float32),
              "always": np.array(True)}
    uy, uidx, uinv, ucnt = unique_reference(ins["u"], None, is_sorted=False)
    ry, _, rinv, _ = unique_reference(ins["rows"], 0, is_sorted=True)
    sel = nms_reference(ins["boxes"], ins["scores"], 4, np.float32(0.4), np.float32(0.1), 0)
    dy, dmask = training_dropout(ins["x"], ins["ratio"], 5)
    dy2, _ = training_dropout(ins["x"], 0.5, DEFAULT_SEED)
    outs = {"uy": uy, "uidx": uidx, "uinv": uinv, "ucnt": ucnt, "ry": ry, "rinv": rinv,
            "sel": sel, "dy": dy, "dmask": dmask, "dy2": dy2}
    # Suppression, not max_out, decides the count; about 3/4 of x kept.
    assert 0 < sel.shape[0] < 8 and 0.6 < dmask.mean() < 0.9, (sel.shape, dmask.mean())
    nodes = [
        helper.make_node("Unique", ["u"], ["uy", "uidx", "uinv", "ucnt"], sorted=0,
                         name="rt_unique"),
        helper.make_node("Unique", ["rows"], ["ry", "", "rinv"], axis=0, name="rt_unique_rows"),
        helper.make_node("NonMaxSuppression", ["boxes", "scores", "max_out", "iou", "score_thr"],
                         ["sel"], name="rt_nms"),
        helper.make_node("Dropout", ["x", "ratio", "training"], ["dy", "dmask"], seed=5,
                         name="rt_dropout"),
        helper.make_node("Dropout", ["x", "", "always"], ["dy2"], name="const_dropout"),
    ]
    save_model(HERE, "rtdata_ops", nodes, ins, {k: np.asarray(v) for k, v in outs.items()},
               [numpy_helper.from_array(v, k) for k, v in consts.items()])
    # 8 distinct values, not the declared 6.
    np.save(os.path.join(HERE, "bad", "rtdata_ops.input1.wrong.npy"),
            np.array([3, 1, 1, 2.5, -0.0, 3, 0.0, 7, 1, 2.5, -4, 8], np.float32) * 2 + 1)


if __name__ == "__main__":
    main()
