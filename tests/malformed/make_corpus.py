#!/usr/bin/python3
"""Writes the malformed ONNX corpus: each file breaks one rule the compiler
must report with a specific error (tests/malformed/malformed_test.cc).

Run with Debian's interpreter: /usr/bin/python3 tests/malformed/make_corpus.py
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))


def save(name, graph, opset=13, check=False):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="kiln-malformed")
    if check:
        onnx.checker.check_model(model)
    onnx.save(model, os.path.join(HERE, name))


def vi(name, shape, dtype=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, dtype, shape)


def main():
    x = vi("x", [1, 4])
    y = vi("y", [1, 4])
    # Two nodes reading each other's outputs: a cycle.
    save("cyclic.onnx", helper.make_graph(
        [helper.make_node("Add", ["x", "b"], ["a"], name="add_a"),
         helper.make_node("Relu", ["a"], ["b"], name="relu_b"),
         helper.make_node("Identity", ["b"], ["y"], name="out")],
        "cyclic", [x], [y]))
    # Valid nodes in the wrong order.
    save("unsorted.onnx", helper.make_graph(
        [helper.make_node("Relu", ["t"], ["y"], name="second"),
         helper.make_node("Neg", ["x"], ["t"], name="first")],
        "unsorted", [x], [y]))
    # A weight no initializer or input provides.
    save("missing_initializer.onnx", helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"], name="uses_w")],
        "missing_init", [x], [y]))
    # Shapes that cannot broadcast.
    save("shape_mismatch.onnx", helper.make_graph(
        [helper.make_node("Add", ["x", "c"], ["y"], name="bad_add")],
        "shape_mismatch", [x], [y],
        initializer=[numpy_helper.from_array(np.ones((3, 5), np.float32), "c")]))
    # Conv weights whose input channels do not match the input.
    save("conv_channels.onnx", helper.make_graph(
        [helper.make_node("Conv", ["img", "w"], ["out"], name="bad_conv")],
        "conv_channels", [vi("img", [1, 3, 8, 8])], [vi("out", [1, 2, 6, 6])],
        initializer=[numpy_helper.from_array(np.ones((2, 5, 3, 3), np.float32), "w")]))
    # Attributes that would overflow shape arithmetic: a stride of 2^62 and
    # pads of 2^62 (window rules refuse them before multiplying).
    save("conv_huge_stride.onnx", helper.make_graph(
        [helper.make_node("Conv", ["img", "w"], ["out"], name="strided", strides=[1 << 62, 1])],
        "conv_huge_stride", [vi("img", [1, 1, 8, 8])], [vi("out", [1, 1, 1, 6])],
        initializer=[numpy_helper.from_array(np.ones((1, 1, 3, 3), np.float32), "w")]))
    save("pool_huge_pads.onnx", helper.make_graph(
        [helper.make_node("MaxPool", ["img"], ["out"], name="padded", kernel_shape=[2, 2],
                          pads=[1 << 62, 0, 1 << 62, 0])],
        "pool_huge_pads", [vi("img", [1, 1, 8, 8])], [vi("out", [1, 1, 7, 7])]))
    # Dimensions whose product overflows 64 bits.
    save("huge_dims.onnx", helper.make_graph(
        [helper.make_node("Relu", ["big"], ["out"], name="relu_big")],
        "huge", [vi("big", [1 << 40, 1 << 40])], [vi("out", [1 << 40, 1 << 40])]))
    # A symbolic batch dimension reaching an op without symbolic support.
    save("symbolic_dim.onnx", helper.make_graph(
        [helper.make_node("Hardmax", ["x"], ["y"], name="hardmax")],
        "symbolic", [vi("x", ["N", 4])], [vi("y", ["N", 4])]))
    # Reproducer (onnx fuzzer): ReduceMean over two unnamed dims multiplied
    # encoded symbolic dims as plain int64 for its strides (signed overflow).
    xr = vi("x", [1, 1, 5])
    yr = vi("y", [1, 1, 1])
    for v in (xr, yr):
        for d in range(2):
            v.type.tensor_type.shape.dim[d].Clear()  # neither dim_value nor dim_param
    save("reduce_symbolic_strides.onnx", helper.make_graph(
        [helper.make_node("ReduceMean", ["x"], ["y"], name="mean", axes=[2], keepdims=1)],
        "reduce_symbolic", [xr], [yr]))
    # An opset this compiler does not read.
    save("opset_too_new.onnx", helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"], name="relu")], "new", [x], [y]), opset=22)
    # Weights stored in an external file.
    w = numpy_helper.from_array(np.ones((4, 4), np.float32), "w_ext")
    w.data_location = TensorProto.EXTERNAL
    w.ClearField("raw_data")
    w.external_data.add(key="location", value="weights.bin")
    save("external_data.onnx", helper.make_graph(
        [helper.make_node("MatMul", ["x", "w_ext"], ["y"], name="uses_ext")],
        "external", [x], [y], initializer=[w]))
    # A graph output nothing produces.
    save("undefined_output.onnx", helper.make_graph(
        [helper.make_node("Relu", ["x"], ["t"], name="relu")], "undef_out", [x], [y]))
    # Zero bytes.
    open(os.path.join(HERE, "empty.onnx"), "wb").close()
    # NaN and Inf inputs are valid data: they must flow through, not crash.
    v = np.array([[np.nan, np.inf, -np.inf, 1.0]], np.float32)
    np.save(os.path.join(HERE, "nan_inf.npy"), v)
    save("relu.onnx", helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"], name="relu")], "relu", [x], [y]), check=True)


if __name__ == "__main__":
    main()
