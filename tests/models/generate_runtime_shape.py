#!/usr/bin/python3
"""Writes an end-to-end model whose shape-like inputs are real graph inputs.

Run with Debian's interpreter (onnx 1.12, numpy):
  /usr/bin/python3 tests/models/generate_runtime_shape.py

rtshape_ops: Reshape (shape with 0 and -1), Unsqueeze (negative axes),
Expand, Tile, Split, ConstantOfShape and OneHot (float depth), each taking its
shape-like operand from a graph input while every output declares a static
shape. Kiln compiles the sizes from the declarations and checks the run-time
values (runtime/kernels/shape_check.c). References come from NumPy below;
Kiln's code is not involved. tests/models/bad/rtshape_ops.input1.wrong.npy
holds a Reshape shape that reshapes to a different shape: running with it
must fail (tests/e2e/runtime_values_test.sh).
"""
import os

import numpy as np
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))
from model_files import save_model  # noqa: E402  (beside this script)
F, I64 = TensorProto.FLOAT, TensorProto.INT64


def main():
    rng = np.random.default_rng(8)
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    ins = {
        "x": x,
        "shape": np.array([0, -1, 2], np.int64),      # -> [2, 6, 2]
        "axes": np.array([-1, 1], np.int64),          # -> [2, 1, 3, 4, 1]
        "eshape": np.array([2, 1, 3, 4], np.int64),   # x broadcast -> [2, 2, 3, 4]
        "repeats": np.array([1, 2, 3], np.int64),     # -> [2, 6, 12]
        "split": np.array([1, 3], np.int64),          # along axis 2 -> [2,3,1], [2,3,3]
        "fill": np.array([3, 5], np.int64),           # -> [3, 5] of 2.5
        "idx": np.array([0, 4, -1, 2], np.int64),
        "depth": np.array(5.9, np.float32),           # cast to 5
    }
    outs = {
        "reshaped": x.reshape(2, 6, 2),
        "unsqueezed": np.expand_dims(np.expand_dims(x, 1), -1),
        "expanded": np.broadcast_to(x, (2, 2, 3, 4)),
        "tiled": np.tile(x, (1, 2, 3)),
        "part0": x[:, :, :1],
        "part1": x[:, :, 1:],
        "filled": np.full((3, 5), 2.5, np.float32),
        # OneHot: negative indices count from the back; off = -1, on = 7.
        "onehot": np.where(np.eye(5)[np.array([0, 4, 4, 2])] > 0, 7.0, -1.0),
    }
    # Checks the hand-written forms against their definitions.
    assert outs["unsqueezed"].shape == (2, 1, 3, 4, 1)
    assert np.array_equal(np.concatenate([outs["part0"], outs["part1"]], 2), x)
    nodes = [
        helper.make_node("Reshape", ["x", "shape"], ["reshaped"], name="rt_reshape"),
        helper.make_node("Unsqueeze", ["x", "axes"], ["unsqueezed"], name="rt_unsqueeze"),
        helper.make_node("Expand", ["x", "eshape"], ["expanded"], name="rt_expand"),
        helper.make_node("Tile", ["x", "repeats"], ["tiled"], name="rt_tile"),
        helper.make_node("Split", ["x", "split"], ["part0", "part1"], axis=2, name="rt_split"),
        helper.make_node("ConstantOfShape", ["fill"], ["filled"], name="rt_fill",
                         value=helper.make_tensor("v", F, [1], [2.5])),
        helper.make_node("OneHot", ["idx", "depth", "values"], ["onehot"], axis=-1,
                         name="rt_onehot"),
    ]
    values = helper.make_tensor("values", F, [2], [-1.0, 7.0])
    save_model(HERE, "rtshape_ops", nodes, ins,
               {k: np.asarray(v, np.float32) for k, v in outs.items()}, [values])
    # [3, -1, 2] has the same element count but reshapes x to [3, 4, 2].
    np.save(os.path.join(HERE, "bad", "rtshape_ops.input1.wrong.npy"),
            np.array([3, -1, 2], np.int64))


if __name__ == "__main__":
    main()
