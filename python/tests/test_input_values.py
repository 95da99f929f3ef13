"""Dims and input values bound at compile time: kiln.compile(dims=...,
input_values=...), as `kiln compile --dim` and `--input-value`. A bound
input folds (an If on it disappears), leaves the signature, and a run may
pass it only with the bound value."""

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import kiln


def vad_like():
    """If(sr == 16000) choosing x * 2 or x * 3, over x [batch, samples]."""
    def branch(name, factor):
        return helper.make_graph(
            [helper.make_node("Mul", ["x", name + "_k"], [name + "_y"])], name, [],
            [helper.make_tensor_value_info(name + "_y", TensorProto.FLOAT, ["batch", "samples"])],
            [helper.make_tensor(name + "_k", TensorProto.FLOAT, [], [factor])])
    graph = helper.make_graph(
        [helper.make_node("Equal", ["sr", "rate16k"], ["is16k"]),
         helper.make_node("If", ["is16k"], ["y"], then_branch=branch("then", 2.0),
                          else_branch=branch("else", 3.0))],
        "vad_like",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "samples"]),
         helper.make_tensor_value_info("sr", TensorProto.INT64, [])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", "samples"])],
        [helper.make_tensor("rate16k", TensorProto.INT64, [], [16000])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


X = np.random.default_rng(3).standard_normal((2, 5)).astype(np.float32)


@pytest.mark.parametrize("rate,factor", [(16000, 2), (8000, 3)])
def test_bound_value_folds_and_matches_numpy(rate, factor):
    module = kiln.compile(vad_like(), input_values={"sr": rate})
    assert [t.name for t in module.signature.inputs] == ["x"]
    assert "bound     sr int64[] = %d" % rate in module.inspect()
    np.testing.assert_allclose(module(X), X * np.float32(factor), rtol=0, atol=1e-6)
    # Passing the bound value by name is accepted; another is refused.
    np.testing.assert_allclose(module(x=X, sr=np.array(rate, np.int64)), X * np.float32(factor),
                               rtol=0, atol=1e-6)
    with pytest.raises(kiln.InvalidArgumentError, match="was bound at compile time"):
        module(x=X, sr=np.array(rate + 1, np.int64))


def test_dims_fix_symbolic_dims_by_name():
    module = kiln.compile(vad_like(), dims={"batch": 2, "samples": 5}, input_values={"sr": 8000})
    assert module.signature.inputs[0].shape == (2, 5)
    with pytest.raises(kiln.InvalidArgumentError, match="which no input of the model declares"):
        kiln.compile(vad_like(), dims={"time": 3})
    with pytest.raises(kiln.InvalidArgumentError, match="must be a whole number"):
        kiln.compile(vad_like(), dims={"batch": 0})


def test_bad_values_are_refused_by_name():
    with pytest.raises(kiln.InvalidArgumentError, match="'1.5' is not a int64 value"):
        kiln.compile(vad_like(), input_values={"sr": 1.5})
    with pytest.raises(kiln.InvalidArgumentError, match="which is not an input of the model"):
        kiln.compile(vad_like(), input_values={"rate": 1})
