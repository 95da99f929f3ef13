#!/usr/bin/python3
"""Models in old ONNX opsets (< 11) for legacy_opset_test.cc, written into
tests/compiler/models/legacy_*.onnx, plus opset22.onnx (beyond the range
Kiln imports). Run with Debian's /usr/bin/python3 (onnx 1.12)."""
import os

import numpy as np
from onnx import TensorProto, helper, numpy_helper

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "models")
n = helper.make_node


def vi(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def save(nodes, inputs, outputs, name, opset, inits=()):
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(inits))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="kiln-tests")
    model.ir_version = 7
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(model.SerializeToString())


def main():
    # Opset-6 broadcast with an axis: B [3] lines up with A's axis 1.
    save([n("Add", ["a", "b"], ["y"], name="add", broadcast=1, axis=1),
          n("Mul", ["a", "w"], ["z"], name="mul", broadcast=1, axis=0)],
         [vi("a", [2, 3, 4]), vi("b", [3])], [vi("y", None), vi("z", None)],
         "legacy_add_axis.onnx", 6,
         [numpy_helper.from_array(np.array([1.0, 2.0], np.float32), "w")])
    # Opset-9 Slice and Pad with attributes, Upsample with a constant scales input.
    save([n("Slice", ["x"], ["s"], name="slice", starts=[1], ends=[3], axes=[2]),
          n("Pad", ["s"], ["p"], name="pad", pads=[0, 0, 1, 0, 0, 0, 1, 0], value=1.5),
          n("Upsample", ["p", "scales"], ["u"], name="up", mode="nearest")],
         [vi("x", [1, 1, 4, 4])], [vi("u", None)], "legacy_slice_pad_upsample.onnx", 9,
         [numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), "scales")])
    # Opset-6 BatchNormalization in training mode (is_test defaults to 0).
    inits = [numpy_helper.from_array(np.ones(2, np.float32), k) for k in ("s", "b", "m", "v")]
    save([n("BatchNormalization", ["x", "s", "b", "m", "v"], ["y"], name="bn")],
         [vi("x", [1, 2, 3, 3])], [vi("y", None)], "legacy_bn_training.onnx", 6, inits)
    # Broadcast along an axis of a tensor whose rank is unknown at import.
    save([n("Relu", ["a"], ["r"], name="relu"),
          n("Add", ["r", "b"], ["y"], name="add", broadcast=1, axis=0)],
         [vi("a", [2, 3]), vi("b", [2])], [vi("y", None)], "legacy_axis_unknown_rank.onnx", 6)
    save([n("Relu", ["x"], ["y"], name="r")], [vi("x", [2, 3])], [vi("y", None)],
         "opset22.onnx", 22)


if __name__ == "__main__":
    main()
