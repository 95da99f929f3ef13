"""kiln.compare: module against module (as `kiln compare`, same report),
against ONNX Runtime running the ONNX model (as `kiln compare --reference
ort`), against a reference callable (PyTorch, a NumPy function) and against
stored reference outputs."""

import subprocess

import numpy as np
import pytest

import kiln
from conftest import EXAMPLE, MODELS, SOURCE_DIR, numbered

ORT_INSTALLED = (SOURCE_DIR / "benchmarks/models/ort/node_modules/onnxruntime-node").is_dir()


def perturbed(name, scale):
    """tiny_cnn's ONNX bytes with initializer `name` scaled."""
    onnx = pytest.importorskip("onnx")
    from onnx import numpy_helper

    model = onnx.load(f"{EXAMPLE}.onnx")
    for init in model.graph.initializer:
        if init.name == name:
            w = numpy_helper.to_array(init) * np.float32(scale)
            init.CopyFrom(numpy_helper.from_array(w.astype(np.float32), name))
    return model.SerializeToString()


def assert_cli_prints_the_report(result, a, b, inputs, folder, kiln_cli):
    """`kiln compare` on the two modules saved to files prints result.report
    and exits 0 when they agree, 1 when they differ."""
    a.save(folder / "a.kiln")
    b.save(folder / "b.kiln")
    command = [kiln_cli, "compare", folder / "a.kiln", folder / "b.kiln"]
    for f in inputs:
        command += ["--input", f]
    cli = subprocess.run(command, capture_output=True, text=True, check=False)
    assert cli.returncode == (0 if result.ok else 1)
    assert result.report == cli.stdout


def test_equal_modules_agree_like_the_cli(tiny_cnn, tmp_path, kiln_cli):
    module, x, _ = tiny_cnn
    nchw = kiln.compile(f"{EXAMPLE}.onnx", layout="nchw")
    result = kiln.compare(module, nchw, [x])
    assert result.ok and result.differing == 0 and result.first is None
    assert result.compared > 0
    assert_cli_prints_the_report(result, module, nchw, [f"{EXAMPLE}.input.npy"], tmp_path, kiln_cli)


def test_changed_weight_is_found_at_its_value(tiny_cnn, tmp_path, kiln_cli):
    module, x, _ = tiny_cnn
    changed = kiln.compile(perturbed("dw.0.weight", 1.01))
    result = kiln.compare(module, changed, {"input": x})
    assert not result.ok
    assert result.first["value"] == "/dw/dw.2/Relu_output_0"
    assert "/dw/dw.0/Conv" in result.first["dispatch_a"]
    assert result.first["outside"] > 0 and result.first["max_abs_diff"] > 0
    assert_cli_prints_the_report(result, module, changed, [f"{EXAMPLE}.input.npy"], tmp_path,
                                 kiln_cli)


def test_random_inputs_when_none_are_given(tiny_cnn, tmp_path, kiln_cli):
    module, _, _ = tiny_cnn
    changed = kiln.compile(perturbed("head.weight", 1.5))
    result = kiln.compare(module, changed)
    assert not result.ok and result.first["value"].startswith("/head")
    # The same report: both used the same fixed-seed inputs.
    assert_cli_prints_the_report(result, module, changed, [], tmp_path, kiln_cli)


def test_tolerances_apply(tiny_cnn):
    module, x, _ = tiny_cnn
    changed = kiln.compile(perturbed("head.weight", 1.0001))
    assert not kiln.compare(module, changed, [x], atol=0, rtol=0).ok
    assert kiln.compare(module, changed, [x], atol=1.0, rtol=0).ok
    with pytest.raises(kiln.InvalidArgumentError, match="non-negative"):
        kiln.compare(module, changed, [x], atol=-1)


def test_against_stored_reference_outputs(tiny_cnn):
    module, x, ref = tiny_cnn
    result = kiln.compare(module, [ref], [x])
    assert result.ok
    row = result.outputs[0]
    assert row["name"] == "output" and row["max_abs_diff"] <= row["bound"] == pytest.approx(1e-4)
    assert "output 0 'output': max_abs_diff=" in str(result) and str(result).endswith(" ok")
    wrong = kiln.compare(module, [ref + 0.01], [x])
    assert not wrong.ok and str(wrong).endswith("MISMATCH")
    shape = kiln.compare(module, [ref[:, :5]], [x])
    assert not shape.ok and "shape" in str(shape)
    with pytest.raises(kiln.InvalidArgumentError, match="reference gives 2 outputs"):
        kiln.compare(module, [ref, ref], [x])


def test_against_a_numpy_callable():
    onnx = pytest.importorskip("onnx")
    from onnx import numpy_helper

    model = onnx.load(str(MODELS / "tiny_mlp.onnx"))
    w = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}

    def reference(x):
        h = np.maximum(x @ w["fc1.weight"].T + w["fc1.bias"], 0)
        return h @ w["fc2.weight"].T + w["fc2.bias"]

    module = kiln.compile(MODELS / "tiny_mlp.onnx")
    x = np.load(numbered("tiny_mlp", "input")[0])
    assert kiln.compare(module, reference, [x]).ok
    assert not kiln.compare(module, lambda x: reference(x) * 1.01, [x]).ok


def test_against_pytorch_module():
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(),
                              torch.nn.Linear(64, 10)).eval()
    import io
    buffer = io.BytesIO()
    torch.onnx.export(net, torch.zeros(1, 32), buffer, opset_version=13)
    module = kiln.compile(buffer.getvalue())
    x = np.random.default_rng(6).standard_normal((1, 32)).astype(np.float32)
    assert kiln.compare(module, net, [x]).ok
    with torch.no_grad():
        net[0].bias += 0.1
    assert not kiln.compare(module, net, [x]).ok


@pytest.mark.skipif(not ORT_INSTALLED, reason="bash benchmarks/models/ort/install.sh first")
def test_against_onnx_runtime_like_the_cli(tiny_cnn, tmp_path, kiln_cli):
    module, x, _ = tiny_cnn
    result = kiln.compare(module, f"{EXAMPLE}.onnx", [x], reference="ort")
    assert result.ok and result.compared > 0 and (result.atol, result.rtol) == (1e-4, 1e-3)
    (tmp_path / "changed.onnx").write_bytes(perturbed("dw.0.weight", 1.01))
    changed = kiln.compare(module, tmp_path / "changed.onnx", [x], reference="ort")
    assert not changed.ok
    assert changed.first["value"] == "/dw/dw.2/Relu_output_0"
    assert changed.first["dispatch_b"] == "ONNX Runtime, node '/dw/dw.2/Relu' (Relu)"
    module.save(tmp_path / "a.kiln")
    cli = subprocess.run([kiln_cli, "compare", tmp_path / "a.kiln", tmp_path / "changed.onnx",
                          "--reference", "ort", "--input", f"{EXAMPLE}.input.npy"],
                         capture_output=True, text=True, check=False)
    assert cli.returncode == 1 and cli.stdout == changed.report
    with pytest.raises(kiln.FailedPreconditionError, match="ONNX Runtime did not run"):
        kiln.compare(module, f"{EXAMPLE}.onnx", [x], reference="ort", ort_cmd="false")


def test_argument_errors(tiny_cnn):
    module, x, ref = tiny_cnn
    with pytest.raises(TypeError):
        kiln.compare("a.kiln", module, [x])
    with pytest.raises(kiln.InvalidArgumentError, match="needs the inputs"):
        kiln.compare(module, [ref])
    with pytest.raises(kiln.InvalidArgumentError, match="has dtype float64"):
        kiln.compare(module, module, [x.astype(np.float64)])
    with pytest.raises(kiln.InvalidArgumentError, match="reference must be"):
        kiln.compare(module, f"{EXAMPLE}.onnx", [x], reference="onnx")
    with pytest.raises(TypeError, match="ONNX model's path"):
        kiln.compare(module, module, [x], reference="ort")
