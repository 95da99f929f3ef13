"""Every test model (tests/models/*.onnx with reference outputs beside it)
compiled by kiln.compile and run by kiln.Module, against the reference its
generator computed (PyTorch or NumPy; tests/models/README.md), plus models
exported from PyTorch here and compared with PyTorch itself."""

import io

import numpy as np
import pytest

import kiln
from conftest import MODELS, numbered, reference_models, within_reference


def run_against_references(folder, name):
    """Compiles folder/NAME.onnx, runs it on NAME.input*.npy and checks each
    output against NAME.output*.npy; returns (module, inputs, outputs, refs)."""
    inputs = [np.load(f) for f in numbered(name, "input", folder)]
    refs = [np.load(f) for f in numbered(name, "output", folder)]
    module = kiln.compile(folder / f"{name}.onnx")
    outputs = module.run(*inputs)
    assert len(outputs) == len(refs)
    for k, (got, ref) in enumerate(zip(outputs, refs)):
        assert got.dtype == ref.dtype, f"output {k}"
        assert within_reference(got, ref), f"output {k} of {name}"
    return module, inputs, outputs, refs


@pytest.mark.parametrize("name", reference_models())
def test_model_matches_reference(name):
    _, inputs, outputs, _ = run_against_references(MODELS, name)
    # From the bytes of the same file (the module then names no source
    # file, so its bytes differ): the same outputs, bit for bit.
    from_bytes = kiln.compile((MODELS / f"{name}.onnx").read_bytes())
    for got, again in zip(outputs, from_bytes.run(*inputs)):
        np.testing.assert_array_equal(got, again)


torch = pytest.importorskip("torch")


class SmallNet(torch.nn.Module):
    """Conv-BN-ReLU, depthwise conv, residual add, pooling, linear: the
    patterns the compiler fuses and lays out."""

    def __init__(self):
        super().__init__()
        self.stem = torch.nn.Sequential(torch.nn.Conv2d(3, 16, 3, padding=1),
                                        torch.nn.BatchNorm2d(16), torch.nn.ReLU())
        self.dw = torch.nn.Sequential(torch.nn.Conv2d(16, 16, 3, padding=1, groups=16),
                                      torch.nn.BatchNorm2d(16), torch.nn.ReLU6())
        self.head = torch.nn.Linear(16, 5)

    def forward(self, x):
        y = self.stem(x)
        y = y + self.dw(y)
        return self.head(torch.flatten(torch.nn.functional.adaptive_avg_pool2d(y, 1), 1))


def exported(model, example, **kwargs):
    buffer = io.BytesIO()
    torch.onnx.export(model, example, buffer, opset_version=13, **kwargs)
    return buffer.getvalue()


@pytest.fixture(scope="module")
def small_net():
    torch.manual_seed(0)
    net = SmallNet().eval()
    # Non-trivial BatchNorm statistics, so folding it into the conv matters.
    with torch.no_grad():
        for m in net.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.uniform_(-0.5, 0.5)
                m.running_var.uniform_(0.5, 1.5)
    return net


def test_pytorch_export_from_bytes_matches_pytorch(small_net):
    x = np.random.default_rng(1).standard_normal((2, 3, 20, 20)).astype(np.float32)
    module = kiln.compile(exported(small_net, torch.from_numpy(x)))
    with torch.no_grad():
        ref = small_net(torch.from_numpy(x)).numpy()
    assert within_reference(module(x), ref)
    # The same through kiln.compare with the model as the reference callable.
    result = kiln.compare(module, small_net, [x])
    assert result.ok, str(result)
    assert result.outputs[0]["max_abs_diff"] <= 1e-4


def test_onnx_model_proto_compiles(small_net):
    onnx = pytest.importorskip("onnx")
    x = np.ones((1, 3, 8, 8), np.float32)
    proto = onnx.load_from_string(exported(small_net, torch.from_numpy(x)))
    module = kiln.compile(proto)
    with torch.no_grad():
        ref = small_net(torch.from_numpy(x)).numpy()
    assert within_reference(module(x), ref)


def test_torchvision_model_matches_pytorch():
    torchvision = pytest.importorskip("torchvision")
    torch.manual_seed(0)
    net = torchvision.models.mobilenet_v3_small(num_classes=10).eval()
    x = np.random.default_rng(2).standard_normal((1, 3, 96, 96)).astype(np.float32)
    module = kiln.compile(exported(net, torch.from_numpy(x)))
    result = kiln.compare(module, net, [x])
    assert result.ok, str(result)


def test_dynamic_batch_export_runs_at_several_sizes(small_net):
    x = np.zeros((1, 3, 12, 12), np.float32)
    model = exported(small_net, torch.from_numpy(x), input_names=["x"], output_names=["y"],
                     dynamic_axes={"x": {0: "N"}, "y": {0: "N"}})
    module = kiln.compile(model)
    assert module.signature.inputs[0].shape == ("N", 3, 12, 12)
    rng = np.random.default_rng(3)
    for n in (1, 3, 5):
        x = rng.standard_normal((n, 3, 12, 12)).astype(np.float32)
        with torch.no_grad():
            ref = small_net(torch.from_numpy(x)).numpy()
        assert module(x).shape == (n, 5)
        assert within_reference(module(x), ref)


UNBOUNDED = MODELS / "opset" / "unbounded"


@pytest.mark.parametrize("name", sorted(p.stem for p in UNBOUNDED.glob("*.onnx")))
def test_sizes_found_during_the_run(name):
    """Outputs sized by run-time data with no bound (a ConstantOfShape's
    shape, Resize's scales): run() grows the buffers the run asks for and
    returns ONNX Runtime's outputs (tests/models/opset/generate.py), here
    and for a second, larger shape of the same module."""
    module, inputs, _, refs = run_against_references(UNBOUNDED, name)
    if name == "constantofshape18_runtime_then_add":
        # y = 1.5 + x broadcast over s: the reference's rows, four times as many.
        y = module.run(np.array([8, 3, 4], np.int64), inputs[1])[0]
        np.testing.assert_array_equal(y, np.broadcast_to(refs[0][0], (8, 3, 4)))
