#!/usr/bin/python3
"""Writes ONNX fuzz seeds with symbolic dims that reach the dynamic-shape
paths of the compiler (shape subgraphs folded over symbolic shape values,
Slice bounds from Shape, broadcasting two different symbols, unnamed
unknown dims). They are starting points for the onnx fuzzer, not tests.

usage: /usr/bin/python3 tests/fuzz/make_dynamic_seeds.py OUT_DIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def vi(name, shape, dtype=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, dtype, shape)


def unnamed(name, dims, dtype=TensorProto.FLOAT):
    """A value whose None dims carry neither dim_value nor dim_param."""
    v = helper.make_tensor_value_info(name, dtype, [1] * len(dims))
    for d, dim in enumerate(dims):
        entry = v.type.tensor_type.shape.dim[d]
        entry.Clear()
        if dim is not None:
            entry.dim_value = dim
    return v


def i64(name, values):
    return numpy_helper.from_array(np.array(values, np.int64), name)


def save(out, name, nodes, inputs, outputs, inits=(), opset=13):
    graph = helper.make_graph(nodes, name, inputs, outputs, initializer=list(inits))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="kiln-fuzz-seed")
    onnx.save(model, os.path.join(out, "dyn_seed_" + name + ".onnx"))


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    N = helper.make_node
    # Shape -> Gather -> Unsqueeze -> Concat -> Reshape (exporters' flatten).
    save(out, "shape_chain_reshape", [
        N("Shape", ["x"], ["s"], name="shape"),
        N("Gather", ["s", "zero"], ["n"], name="gather", axis=0),
        N("Unsqueeze", ["n", "ax0"], ["n1"], name="unsq"),
        N("Concat", ["n1", "minus1"], ["target"], name="concat", axis=0),
        N("Reshape", ["x", "target"], ["y"], name="reshape"),
        N("Relu", ["y"], ["z"], name="relu"),
    ], [vi("x", ["N", 4, 6])], [vi("z", ["N", 24])],
        [i64("zero", 0), i64("ax0", [0]), i64("minus1", [-1])])
    # The same with two symbols and the second dim gathered by a negative index.
    save(out, "shape_chain_two_symbols", [
        N("Shape", ["x"], ["s"], name="shape"),
        N("Gather", ["s", "idx"], ["ns"], name="gather", axis=0),
        N("Concat", ["ns", "eight"], ["target"], name="concat", axis=0),
        N("Reshape", ["x", "target"], ["y"], name="reshape"),
        N("Softmax", ["y"], ["z"], name="softmax", axis=-1),
    ], [vi("x", ["B", "S", 2, 4])], [vi("z", ["B", "S", 8])],
        [i64("idx", [0, -3]), i64("eight", [8])])
    # Slice of a constant table with an end taken from the input's shape
    # (position embeddings: min(S, 64) rows).
    table = numpy_helper.from_array(np.arange(64 * 8, dtype=np.float32).reshape(64, 8), "table")
    save(out, "slice_shape_end", [
        N("Shape", ["x"], ["s"], name="shape"),
        N("Gather", ["s", "one"], ["len"], name="gather", axis=0),
        N("Unsqueeze", ["len", "ax0"], ["end"], name="unsq"),
        N("Slice", ["table", "zero1", "end", "ax0"], ["pos"], name="slice"),
        N("Add", ["x", "pos"], ["y"], name="add"),
    ], [vi("x", [1, "S", 8])], [vi("y", [1, "S", 8])],
        [table, i64("one", 1), i64("ax0", [0]), i64("zero1", [0])])
    # Slice of the input itself with a Shape-derived end minus one and a step.
    save(out, "slice_shape_end_step", [
        N("Shape", ["x"], ["s"], name="shape"),
        N("Slice", ["s", "one1", "two1"], ["s1"], name="slice_s"),
        N("Slice", ["x", "one1", "s1", "ax1", "two1"], ["y"], name="slice_x"),
    ], [vi("x", [2, "S"])], [vi("y", [2, None])],
        [i64("one1", [1]), i64("two1", [2]), i64("ax1", [1])])
    # Broadcasting two different symbols: ONNX requires them equal at run time.
    save(out, "broadcast_two_symbols", [
        N("Add", ["a", "b"], ["c"], name="add"),
        N("Mul", ["c", "a"], ["d"], name="mul"),
    ], [vi("a", ["N", 4]), vi("b", ["M", 4])], [vi("d", ["N", 4])])
    save(out, "broadcast_symbol_static", [
        N("Sub", ["a", "b"], ["c"], name="sub"),
    ], [vi("a", ["N", 1, 4]), vi("b", [1, "K", 4])], [vi("c", ["N", "K", 4])])
    # Unknown dims without a name.
    save(out, "unnamed_dims", [
        N("MatMul", ["x", "w"], ["y"], name="matmul"),
        N("Sigmoid", ["y"], ["z"], name="sig"),
    ], [unnamed("x", [None, 4])], [unnamed("z", [None, 3])],
        [numpy_helper.from_array(np.ones((4, 3), np.float32), "w")])
    save(out, "unnamed_two_dims", [
        N("Transpose", ["x"], ["t"], name="transpose", perm=[1, 0, 2]),
        N("ReduceMean", ["t"], ["y"], name="mean", axes=[2], keepdims=1),
    ], [unnamed("x", [None, None, 5])], [unnamed("y", [None, None, 1])])
    # Attention: S x S scores from MatMul of two symbolic operands.
    save(out, "attention_scores", [
        N("Transpose", ["q"], ["kt"], name="kt", perm=[0, 2, 1]),
        N("MatMul", ["q", "kt"], ["s"], name="scores"),
        N("Softmax", ["s"], ["p"], name="softmax", axis=-1),
        N("MatMul", ["p", "q"], ["o"], name="context"),
    ], [vi("q", ["B", "S", 8])], [vi("o", ["B", "S", 8])])
    # Flatten, Split and Squeeze/Unsqueeze over a symbolic batch.
    save(out, "flatten_split", [
        N("Flatten", ["x"], ["f"], name="flatten", axis=1),
        N("Split", ["f", "sizes"], ["a", "b"], name="split", axis=1),
        N("Unsqueeze", ["a", "ax0"], ["u"], name="unsq"),
        N("Squeeze", ["u", "ax0"], ["y"], name="sq"),
    ], [vi("x", ["N", 2, 3])], [vi("y", ["N", 2]), vi("b", ["N", 4])],
        [i64("sizes", [2, 4]), i64("ax0", [0])])
    # Shape arithmetic (Mul of a shape element): refused with a message today.
    save(out, "shape_arith", [
        N("Shape", ["x"], ["s"], name="shape"),
        N("Gather", ["s", "zero"], ["n"], name="gather", axis=0),
        N("Mul", ["n", "two"], ["n2"], name="double"),
        N("Unsqueeze", ["n2", "ax0"], ["t"], name="unsq"),
        N("Concat", ["t", "minus1"], ["target"], name="concat", axis=0),
        N("Reshape", ["x", "target"], ["y"], name="reshape"),
    ], [vi("x", ["N", 4])], [vi("y", [None, 2])],
        [i64("zero", 0), i64("two", 2), i64("ax0", [0]), i64("minus1", [-1])])
    # Conv and pooling with a symbolic batch, then Gemm.
    save(out, "conv_pool_gemm", [
        N("Conv", ["x", "w"], ["c"], name="conv", pads=[1, 1, 1, 1]),
        N("MaxPool", ["c"], ["p"], name="pool", kernel_shape=[2, 2], strides=[2, 2]),
        N("GlobalAveragePool", ["p"], ["g"], name="gap"),
        N("Flatten", ["g"], ["f"], name="flatten"),
        N("Gemm", ["f", "fc"], ["y"], name="fc", transB=1),
    ], [vi("x", ["N", 2, 6, 6])], [vi("y", ["N", 3])],
        [numpy_helper.from_array(np.ones((4, 2, 3, 3), np.float32), "w"),
         numpy_helper.from_array(np.ones((3, 4), np.float32), "fc")])


if __name__ == "__main__":
    main()
