"""Input shapes bound at compile time: kiln.compile(input_shapes=...) and
`kiln compile --input-shape NAME=D0,D1,...` replace an input's declared dims
before shape inference; the rank must stay, every name must be an input."""

import io
import subprocess

import numpy as np
import pytest

import kiln
from conftest import MODELS, cli_error, within_reference

DYNAMIC = MODELS / "dynamic"


@pytest.mark.parametrize("name,size", [("cnn_dynbatch", 5), ("resize_dynhw", 4),
                                       ("pad_reflect_dynhw", 3)])
def test_bound_module_is_static_and_matches_reference(name, size):
    x = np.load(DYNAMIC / f"{name}.{size}.input.npy")
    ref = np.load(DYNAMIC / f"{name}.{size}.output.npy")
    dynamic = kiln.compile(DYNAMIC / f"{name}.onnx")
    input_name = dynamic.signature.inputs[0].name
    bound = kiln.compile(DYNAMIC / f"{name}.onnx", input_shapes={input_name: x.shape})
    assert bound.signature.inputs[0].shape == x.shape
    assert bound.signature.outputs[0].shape == ref.shape
    assert all(isinstance(d, int) for d in bound.signature.outputs[0].shape)
    assert within_reference(bound(x), ref)
    np.testing.assert_array_equal(bound(x), dynamic(x))
    # The bound module takes only that shape.
    other = np.concatenate([x, x])
    with pytest.raises(kiln.InvalidArgumentError, match="the module expects"):
        bound(other)


def test_cli_input_shape_writes_the_same_module(tmp_path, kiln_cli):
    onnx = DYNAMIC / "cnn_dynbatch.onnx"
    out = tmp_path / "bound.kiln"
    subprocess.run([kiln_cli, "compile", onnx, "-o", out, "--input-shape", "input=2,3,16,16"],
                   check=True)
    module = kiln.compile(onnx, input_shapes={"input": (2, 3, 16, 16)})
    assert out.read_bytes() == module.to_bytes()
    assert kiln.load(out).signature.inputs[0].shape == (2, 3, 16, 16)


@pytest.mark.parametrize("shapes,cli_arg,pattern", [
    ({"input": [2, 3, 16]}, "input=2,3,16", r"has rank 4 \(\[N,3,16,16\]\); the input shape given, "
                                            r"\[2,3,16\], has rank 3"),
    ({"nope": [1]}, "nope=1", r"an input shape is given for 'nope', which is not an input of "
                              r"the model \(its inputs: 'input'\)"),
    ({"input": [0, 3, 16, 16]}, "input=0,3,16,16", None),
])
def test_refusals_carry_the_cli_message(shapes, cli_arg, pattern, kiln_cli, tmp_path):
    onnx = DYNAMIC / "cnn_dynbatch.onnx"
    if pattern is None:  # the CLI refuses it while parsing; the importer refuses it for Python
        with pytest.raises(kiln.InvalidArgumentError, match=r"has a dim below 1"):
            kiln.compile(onnx, input_shapes=shapes)
        message = cli_error(kiln_cli, "compile", onnx, "-o", tmp_path / "x.kiln",
                            "--input-shape", cli_arg)
        assert "whole numbers >= 1" in message
        return
    with pytest.raises(kiln.InvalidArgumentError, match=pattern) as info:
        kiln.compile(onnx, input_shapes=shapes)
    message = cli_error(kiln_cli, "compile", onnx, "-o", tmp_path / "x.kiln",
                        "--input-shape", cli_arg)
    assert str(info.value) == message


def test_malformed_cli_specs(kiln_cli, tmp_path):
    onnx = DYNAMIC / "cnn_dynbatch.onnx"
    for spec in ("input", "=1,2", "input=1,,3", "input=a,b"):
        message = cli_error(kiln_cli, "compile", onnx, "-o", tmp_path / "x.kiln",
                            "--input-shape", spec)
        assert message.startswith(f"--input-shape '{spec}': expected NAME=D0,D1,...")
    message = cli_error(kiln_cli, "compile", onnx, "-o", tmp_path / "x.kiln",
                        "--input-shape", "input=1,3,16,16", "--input-shape", "input=2,3,16,16")
    assert message == "--input-shape gives input 'input' twice"


def test_python_input_shapes_must_be_numbers():
    with pytest.raises(kiln.InvalidArgumentError, match="sequence of whole numbers"):
        kiln.compile(DYNAMIC / "cnn_dynbatch.onnx", input_shapes={"input": "N,3"})


def test_binding_spatial_dims_makes_a_dynamic_hw_export_compile():
    """A PyTorch export with dynamic height and width: Kiln's Conv needs
    static spatial dims, so the model compiles once they are bound."""
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.ReLU(),
                              torch.nn.Conv2d(8, 4, 3, stride=2)).eval()
    buffer = io.BytesIO()
    example = torch.zeros(1, 3, 24, 24)
    torch.onnx.export(net, example, buffer, input_names=["image"], output_names=["y"],
                      dynamic_axes={"image": {2: "H", 3: "W"}, "y": {2: "h", 3: "w"}},
                      opset_version=13)
    model = buffer.getvalue()
    try:
        kiln.compile(model)
        dynamic_hw_compiles = True
    except kiln.Error:
        dynamic_hw_compiles = False
    x = np.random.default_rng(5).standard_normal((1, 3, 20, 28)).astype(np.float32)
    module = kiln.compile(model, input_shapes={"image": x.shape})
    with torch.no_grad():
        ref = net(torch.from_numpy(x)).numpy()
    assert within_reference(module(x), ref)
    if dynamic_hw_compiles:  # once Kiln supports symbolic H/W (issue 19), both agree
        np.testing.assert_allclose(kiln.compile(model)(x), module(x), rtol=1e-5, atol=1e-6)
