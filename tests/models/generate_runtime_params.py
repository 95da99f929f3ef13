#!/usr/bin/python3
"""Writes an end-to-end model whose operator parameter VALUES are graph inputs.

Run with Debian's interpreter (onnx 1.12, numpy):
  /usr/bin/python3 tests/models/generate_runtime_params.py

rtparams_ops: Slice (starts/ends/axes/steps, a negative axis and a negative
step), Slice with int32 starts/ends only, Pad (reflect) with run-time pads,
Pad (constant) with run-time pads and constant_value, ReduceSum with
run-time axes (keepdims=0) and Range with run-time float start/limit/delta
(opset 13). Every output
declares a static shape; Kiln compiles the sizes from the declarations and
its kernels read the values at run time (runtime/kernels/slice_rt.c,
pad_rt.c, reduce_rt.c, range.c). References come from NumPy below; Kiln's
code is not involved. tests/models/bad/rtparams_ops.input1.wrong.npy holds
Slice starts that slice a different length: running with it must fail
(tests/e2e/runtime_values_test.sh).
"""
import os

import numpy as np
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))
from model_files import save_model  # noqa: E402  (beside this script)
F, I64, I32 = TensorProto.FLOAT, TensorProto.INT64, TensorProto.INT32


def main():
    rng = np.random.default_rng(18)
    x = rng.standard_normal((4, 6, 5)).astype(np.float32)
    ins = {
        "x": x,
        "starts": np.array([1, -1], np.int64),
        "ends": np.array([4, -100], np.int64),
        "axes": np.array([0, -2], np.int64),
        "steps": np.array([2, -2], np.int64),
        "starts32": np.array([0, 2], np.int32),
        "ends32": np.array([3, 1000], np.int32),
        "pads": np.array([0, 1, 2, 1, 2, 0], np.int64),
        "cpads": np.array([1, 0, -1, 0, 2, 3], np.int64),
        "cval": np.array(0.75, np.float32),
        "raxes": np.array([-1, 0], np.int64),
        "start": np.array(-1.5, np.float32),
        "limit": np.array(2.0, np.float32),
        "delta": np.array(0.5, np.float32),
    }
    # Pad with a negative begin crops: drop x[:, :, :1], then pad.
    cropped = np.pad(x[:, :, 1:], [(1, 0), (0, 2), (0, 3)], constant_values=0.75)
    outs = {
        "sliced": x[1:4:2, -1:-100:-2, :],
        "sliced32": x[0:3, 2:1000, :],
        "reflected": np.pad(x, [(0, 1), (1, 2), (2, 0)], mode="reflect"),
        "padded": cropped,
        "summed": x.astype(np.float64).sum(axis=(2, 0)),
        "ranged": -1.5 + 0.5 * np.arange(7, dtype=np.float64),
    }
    assert outs["sliced"].shape == (2, 3, 5)
    assert outs["padded"].shape == (5, 8, 7)
    nodes = [
        helper.make_node("Slice", ["x", "starts", "ends", "axes", "steps"], ["sliced"],
                         name="rt_slice"),
        helper.make_node("Slice", ["x", "starts32", "ends32"], ["sliced32"], name="rt_slice32"),
        helper.make_node("Pad", ["x", "pads"], ["reflected"], mode="reflect", name="rt_reflect"),
        helper.make_node("Pad", ["x", "cpads", "cval"], ["padded"], name="rt_pad"),
        helper.make_node("ReduceSum", ["x", "raxes"], ["summed"], keepdims=0, name="rt_sum"),
        helper.make_node("Range", ["start", "limit", "delta"], ["ranged"], name="rt_range"),
    ]
    save_model(HERE, "rtparams_ops", nodes, ins,
               {k: np.asarray(v, np.float32) for k, v in outs.items()})
    # Starts [3, -1] take 1 row of axis 0 (3:4:2), not the declared 2.
    np.save(os.path.join(HERE, "bad", "rtparams_ops.input1.wrong.npy"),
            np.array([3, -1], np.int64))


if __name__ == "__main__":
    main()
