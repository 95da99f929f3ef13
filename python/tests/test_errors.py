"""Bad input raises a kiln.Error subclass carrying the message the kiln
command line prints for the same input, and never crashes the interpreter."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import kiln
from conftest import MODELS, cli_error, numbered

BAD = MODELS / "bad"


@pytest.fixture(scope="module")
def mlp_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("mlp") / "good.kiln"
    kiln.compile(MODELS / "tiny_mlp.onnx").save(path)
    return path


def strip_file(message, path):
    """The CLI puts the .npy file in front of an input's message."""
    prefix = f"'{path}': "
    assert message.startswith(prefix), message
    return message[len(prefix):]


@pytest.mark.parametrize("bad_file,pattern", [
    ("tiny_mlp.input0.float64.npy", r"^input 0 \('input0'\) has dtype float64; the module expects float32$"),
    ("tiny_mlp.input0.wrong_shape.npy", r"^input 0 \('input0'\) has shape \[1,31\]; the module expects \[1,32\]$"),
])
def test_wrong_dtype_and_shape(mlp_file, kiln_cli, tmp_path, bad_file, pattern):
    module = kiln.load(mlp_file)
    with pytest.raises(kiln.InvalidArgumentError, match=pattern) as info:
        module(np.load(BAD / bad_file))
    assert isinstance(info.value, ValueError)
    message = cli_error(kiln_cli, "run", mlp_file, "--input", BAD / bad_file,
                        "--output", tmp_path / "y.npy")
    assert str(info.value) == strip_file(message, BAD / bad_file)


def test_dtypes_no_module_takes(mlp_file):
    module = kiln.load(mlp_file)
    x = np.load(numbered("tiny_mlp", "input")[0])
    for bad in (x.astype(np.complex64), np.array([[object()] * 32])):
        with pytest.raises(kiln.InvalidArgumentError,
                           match=rf"input 0 \('input0'\) has dtype {bad.dtype}; the module expects float32"):
            module(bad)
    with pytest.raises(kiln.InvalidArgumentError, match=r"has rank 0; the module expects 2"):
        module(np.float32(1.0))


def test_wrong_counts_and_names(mlp_file):
    module = kiln.load(mlp_file)
    x = np.load(numbered("tiny_mlp", "input")[0])
    with pytest.raises(kiln.InvalidArgumentError, match=r"^too many inputs: the module has 1 inputs, 2 were given$"):
        module(x, x)
    with pytest.raises(kiln.InvalidArgumentError, match=r"^missing input 0 \('input0'\)$"):
        module()
    with pytest.raises(kiln.InvalidArgumentError, match=r"^the module has no input 'x' \(its inputs: 'input0'\)$"):
        module(x=x)
    with pytest.raises(kiln.InvalidArgumentError, match=r"^input 0 \('input0'\) is given twice$"):
        module(x, input0=x)


def test_symbolic_input_refusals(tmp_path, kiln_cli):
    path = tmp_path / "dyn.kiln"
    kiln.compile(MODELS / "dynamic" / "cnn_dynbatch.onnx").save(path)
    module = kiln.load(path)
    bad = np.zeros((2, 3, 16), np.float32)
    np.save(tmp_path / "rank3.npy", bad)
    with pytest.raises(kiln.InvalidArgumentError, match=r"has rank 3; the module expects 4") as info:
        module(bad)
    message = cli_error(kiln_cli, "run", path, "--input", tmp_path / "rank3.npy",
                        "--output", tmp_path / "y.npy")
    assert str(info.value) == strip_file(message, tmp_path / "rank3.npy")


def corrupted_modules(good, folder):
    data = good.read_bytes()
    files = {
        "truncated": data[:len(data) // 2],
        "random": (BAD / "random.bin").read_bytes(),
        "wrong_id": data[:4] + b"XXXX" + data[8:],
        "empty": b"",
    }
    for name, content in files.items():
        (folder / f"{name}.kiln").write_bytes(content)
    return [folder / f"{name}.kiln" for name in files]


def test_corrupt_modules_are_refused_like_the_cli(mlp_file, tmp_path, kiln_cli):
    for path in corrupted_modules(mlp_file, tmp_path):
        with pytest.raises(kiln.InvalidArgumentError) as info:
            kiln.load(path)
        assert str(path) in str(info.value)
        assert str(info.value) == cli_error(kiln_cli, "inspect", path)
        with pytest.raises(kiln.InvalidArgumentError):
            kiln.load(path.read_bytes())


def test_corrupted_bytes_never_crash():
    """Thousands of one- to four-byte corruptions of small modules, each
    loaded and, when it verifies, run on the model's inputs: every outcome
    is a result or a kiln.Error. Runs in a child interpreter, so a crash is a
    failure here rather than the end of the test session. (No model with a
    Loop: a corrupted trip count may legitimately run for very long.)"""
    script = textwrap.dedent(f"""
        import glob, numpy as np, kiln
        for name in ("tiny_mlp", "activations", "shape_ops", "small_cnn_opset13"):
            data = kiln.compile("{MODELS}/" + name + ".onnx").to_bytes()
            inputs = [np.load(f) for f in sorted(glob.glob("{MODELS}/" + name + ".input*.npy"))]
            rng = np.random.default_rng(7)
            ran = refused = 0
            for trial in range(1500):
                bad = bytearray(data)
                for _ in range(1 + trial % 4):
                    bad[rng.integers(len(bad))] = rng.integers(256)
                try:
                    kiln.load(bytes(bad)).run(*inputs)
                    ran += 1
                except kiln.Error:
                    refused += 1
            print(name, ran, refused)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=False, timeout=600)
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    for line in done.stdout.splitlines():
        name, ran, refused = line.split()
        assert int(ran) + int(refused) == 1500 and int(refused) > 0, line


def test_missing_files(tmp_path, kiln_cli):
    with pytest.raises(kiln.NotFoundError) as info:
        kiln.compile(tmp_path / "no" / "such" / "model.onnx")
    assert isinstance(info.value, FileNotFoundError)
    assert str(info.value) == cli_error(kiln_cli, "compile", tmp_path / "no" / "such" / "model.onnx",
                                        "-o", tmp_path / "x.kiln")
    with pytest.raises(kiln.Error) as info:
        kiln.load(tmp_path / "no" / "such" / "module.kiln")
    assert str(info.value) == cli_error(kiln_cli, "inspect", tmp_path / "no" / "such" / "module.kiln")


def test_bad_onnx(tmp_path, kiln_cli):
    with pytest.raises(kiln.UnsupportedError) as info:
        kiln.compile(BAD / "unsupported_ops.onnx")
    assert isinstance(info.value, NotImplementedError)
    assert "node 'random_unsupported' (RandomNormalLike)" in str(info.value)
    assert "node 'sample_unsupported' (Multinomial)" in str(info.value)
    assert str(info.value) == cli_error(kiln_cli, "compile", BAD / "unsupported_ops.onnx",
                                        "-o", tmp_path / "x.kiln")
    with pytest.raises(kiln.InvalidArgumentError) as info:
        kiln.compile(BAD / "truncated.onnx")
    assert str(info.value) == cli_error(kiln_cli, "compile", BAD / "truncated.onnx",
                                        "-o", tmp_path / "x.kiln")
    with pytest.raises(kiln.InvalidArgumentError,
                       match=r"^'<onnx bytes>' is not a valid ONNX model \(protobuf parsing failed\)$"):
        kiln.compile((BAD / "random.bin").read_bytes())
    with pytest.raises(kiln.UnsupportedError, match="2 unsupported ops"):
        kiln.compile((BAD / "unsupported_ops.onnx").read_bytes())


def test_argument_errors(mlp_file, tmp_path):
    module = kiln.load(mlp_file)
    x = np.load(numbered("tiny_mlp", "input")[0])
    with pytest.raises(TypeError):
        kiln.compile(42)
    with pytest.raises(TypeError):
        kiln.load(42)
    with pytest.raises(kiln.InvalidArgumentError, match="^layout must be auto or nchw, not 'nhwc'$"):
        kiln.compile(MODELS / "tiny_mlp.onnx", layout="nhwc")
    with pytest.raises(kiln.InvalidArgumentError, match="threads must be a whole number in 1..256"):
        module.run(x, threads=0)
    with pytest.raises(kiln.InvalidArgumentError, match="repeat must be a whole number"):
        module.run(x, repeat=0)
    with pytest.raises(kiln.Error, match="cannot write"):
        module.save(tmp_path / "no" / "such" / "dir" / "m.kiln")
    # After all of these the module still runs.
    np.testing.assert_allclose(module(x), np.load(numbered("tiny_mlp", "output")[0]),
                               rtol=1e-4, atol=1e-4)


def test_names_that_are_not_utf8():
    """A module that verifies may name tensors with bytes that are not UTF-8:
    they reach Python escaped, in signatures, messages, dumps and inspect."""
    data = kiln.compile(MODELS / "tiny_mlp.onnx").to_bytes()
    module = kiln.load(data.replace(b"input0", b"\xffnput0").replace(b"output0", b"\xfe\xfftput0"))
    assert module.signature.input_names == ["\\xffnput0"]
    assert module.signature.output_names == ["\\xfe\\xfftput0"]
    with pytest.raises(kiln.InvalidArgumentError, match=r"input 0 \('\\xffnput0'\) has shape"):
        module(np.ones((1, 31), np.float32))
    result = module.run(np.ones((1, 32), np.float32), dump=True, profile=True)
    assert "\\xfe\\xfftput0" in result.dump
    assert "\\xffnput0" in module.inspect()
