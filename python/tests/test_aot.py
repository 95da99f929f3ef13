"""Module.aot (the bundle `kiln aot` writes), Module.build_c + kiln.load_c
(the shared library through ctypes) and kiln.bench (VM vs AOT)."""

import os
import re
import shutil
import subprocess

import numpy as np
import pytest

import kiln
from conftest import EXAMPLE, MODELS, cli_error, numbered, within_reference

SIZE_LINE = re.compile(r"^size target=host text=\d+ rodata=\d+ data=\d+ bss=\d+ workspace=\d+$")


@pytest.fixture(scope="module")
def mlp():
    """A model whose bundle builds in a few seconds."""
    return kiln.compile(MODELS / "tiny_mlp.onnx"), np.load(numbered("tiny_mlp", "input")[0])


@pytest.fixture(scope="module")
def tiny_c(tiny_cnn, tmp_path_factory):
    """tiny_cnn built as C once for the tests that call it."""
    return tiny_cnn[0].build_c(tmp_path_factory.mktemp("tiny_c"))


def test_bundle_like_kiln_aot(tiny_cnn, tmp_path, kiln_cli):
    module, x, _ = tiny_cnn
    # Loaded from the file the CLI reads: the bundle names its source.
    module.save(tmp_path / "tiny.kiln")
    bundle = kiln.load(tmp_path / "tiny.kiln").aot(tmp_path / "py", name="tiny")
    assert bundle.name == "tiny" and SIZE_LINE.match(bundle.size_line), bundle.size_line
    done = subprocess.run([kiln_cli, "aot", tmp_path / "tiny.kiln", "-o", tmp_path / "cli",
                           "--name", "tiny"], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == bundle.size_line
    py_files = sorted(str(p.relative_to(tmp_path / "py")) for p in (tmp_path / "py").rglob("*"))
    cli_files = sorted(str(p.relative_to(tmp_path / "cli")) for p in (tmp_path / "cli").rglob("*"))
    assert py_files == cli_files
    for f in ("tiny.c", "tiny.h", "tiny_weights.c", "Makefile", "README.md"):
        assert (tmp_path / "py" / f).read_bytes() == (tmp_path / "cli" / f).read_bytes(), f
    # The runner built from it agrees with the VM.
    subprocess.run(["make", "-s", "-C", tmp_path / "py", "-j2"], check=True)
    subprocess.run([tmp_path / "py" / "tiny_run", "--input", f"{EXAMPLE}.input.npy",
                    "--output", tmp_path / "y.npy"], check=True)
    np.testing.assert_allclose(np.load(tmp_path / "y.npy"), module(x), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("emit,library", [("static", "libm1.a"), ("shared", "libm1.so")])
def test_emit_libraries(mlp, tmp_path, emit, library):
    module, _ = mlp
    module.aot(tmp_path / emit, name="m1", emit=emit)
    assert (tmp_path / emit / library).is_file()


def test_external_weights_and_no_size_report(mlp, tmp_path):
    module, _ = mlp
    bundle = module.aot(tmp_path / "ext", weights="external", size_report=False)
    assert bundle.size_line is None
    assert (tmp_path / "ext" / "model_weights.bin").is_file()


def test_cortex_m_bundle(tiny_cnn, tmp_path):
    module, _, _ = tiny_cnn
    bundle = module.aot(tmp_path / "m4", name="kws", target="cortex-m4")
    assert (tmp_path / "m4" / "cortex_m.ld").is_file()
    if shutil.which("arm-none-eabi-gcc"):
        assert bundle.size_line.startswith("size target=cortex-m4 ")
    else:
        assert bundle.size_line is None and bundle.warning


@pytest.mark.parametrize("kwargs,cli_args", [
    ({"name": "9lives"}, ["--name", "9lives"]),
    ({"target": "riscv"}, ["--target", "riscv"]),
    ({"emit": "dll"}, ["--emit=dll"]),
    ({"weights": "flash"}, ["--weights=flash"]),
    ({"emit": "shared", "target": "cortex-m4"}, ["--emit=shared", "--target", "cortex-m4"]),
])
def test_aot_refusals_carry_the_cli_message(tiny_cnn, tmp_path, kiln_cli, kwargs, cli_args):
    module, _, _ = tiny_cnn
    with pytest.raises(kiln.InvalidArgumentError) as info:
        module.aot(tmp_path / "b", **kwargs)
    module.save(tmp_path / "m.kiln")
    assert str(info.value) == cli_error(kiln_cli, "aot", tmp_path / "m.kiln", "-o",
                                        tmp_path / "b", *cli_args)


def test_aot_refuses_a_foreign_directory(mlp, tmp_path):
    module, _ = mlp
    (tmp_path / "precious").mkdir()
    (tmp_path / "precious" / "notes.txt").write_text("keep")
    with pytest.raises(kiln.Error, match="not a kiln bundle"):
        module.aot(tmp_path / "precious", size_report=False)
    assert (tmp_path / "precious" / "notes.txt").read_text() == "keep"


@pytest.mark.parametrize("name", ["tiny_mlp", "two_in_two_out", "small_cnn_opset13",
                                  "typed_casts", "control_loop_while"])
def test_c_model_matches_vm_and_reference(name, tmp_path):
    module = kiln.compile(MODELS / f"{name}.onnx")
    inputs = [np.load(f) for f in numbered(name, "input")]
    refs = [np.load(f) for f in numbered(name, "output")]
    c_model = module.build_c(tmp_path / "c", name="net")
    assert c_model.signature == module.signature
    vm_out = module.run(*inputs)
    c_out = c_model.run(*inputs)
    for got, vm, ref in zip(c_out, vm_out, refs):
        assert got.dtype == ref.dtype and got.shape == ref.shape
        assert within_reference(got, ref)
        scale = max(1.0, float(np.max(np.abs(ref.astype(np.float64))))) if ref.size else 1.0
        assert float(np.max(np.abs(got.astype(np.float64) - vm)) if ref.size else 0) <= 1e-5 * scale


def test_c_model_input_errors(tiny_cnn, tiny_c):
    module, x, _ = tiny_cnn
    c_model = tiny_c
    np.testing.assert_allclose(c_model(x), module(x), rtol=1e-5, atol=1e-6)
    for bad, pattern in ((x.astype(np.float64), r"input 0 \('input'\) has dtype float64; "
                                                r"the module expects float32"),
                         (x[:, :2], r"input 0 \('input'\) has shape \[1,2,32,32\]; "
                                    r"the module expects \[1,3,32,32\]")):
        with pytest.raises(kiln.InvalidArgumentError, match=pattern):
            c_model(bad)
        with pytest.raises(kiln.InvalidArgumentError, match=pattern):
            module(bad)  # the VM says the same
    with pytest.raises(kiln.InvalidArgumentError, match="too many inputs"):
        c_model(x, x)


def test_load_c_refusals(mlp, tmp_path):
    module, _ = mlp
    with pytest.raises(kiln.NotFoundError, match="libmodel.so' does not exist"):
        kiln.load_c(tmp_path / "nothing")
    module.build_c(tmp_path / "c", name="alpha", cflags="-O1")
    with pytest.raises(kiln.InvalidArgumentError, match="does not export beta_run"):
        kiln.CModel(str(tmp_path / "c" / "libalpha.so"), "beta")
    dynamic = kiln.compile(MODELS / "dynamic" / "mlp_dynbatch.onnx")
    dynamic.aot(tmp_path / "dyn", name="dyn", emit="shared")
    with pytest.raises(kiln.UnsupportedError, match="symbolic dimensions"):
        kiln.load_c(tmp_path / "dyn", "dyn")
    module.aot(tmp_path / "ext", name="ext", emit="shared", weights="external")
    with pytest.raises(kiln.UnsupportedError, match="weights from the caller"):
        kiln.load_c(tmp_path / "ext", "ext")
    # Rebuilt in place after loading: refused rather than silently stale.
    kiln.load_c(tmp_path / "c", "alpha")
    os.utime(tmp_path / "c" / "libalpha.so", ns=(1, 1))
    with pytest.raises(kiln.InvalidArgumentError, match="rebuilt after this process loaded it"):
        kiln.load_c(tmp_path / "c", "alpha")


def test_build_c_reports_make_errors(mlp, tmp_path):
    module, _ = mlp
    with pytest.raises(kiln.BuildError, match="make exit"):
        module.build_c(tmp_path / "c", cflags="-O2 --no-such-flag")


def test_bench_builds_and_times_vm_and_aot(mlp, tmp_path):
    module, x = mlp
    result = kiln.bench(module, x, repeat=7, warmup=1, dir=tmp_path / "bench")
    assert (tmp_path / "bench" / "libmodel.so").is_file()
    for timing in (result.vm, result.aot):
        assert timing.runs == 7 and len(timing.samples) == 7
        assert 0 < timing.min_ms <= timing.median_ms <= timing.max_ms
    assert result.vm_over_aot == pytest.approx(result.vm.median_ms / result.aot.median_ms)
    assert result.max_abs_diff <= 1e-5
    assert "median latency: vm " in str(result)


def test_bench_with_a_built_c_model(tiny_cnn, tiny_c):
    module, x, _ = tiny_cnn
    result = kiln.bench(module, x, repeat=3, warmup=0, c_model=tiny_c, threads=2)
    assert result.c_model is tiny_c and result.vm.runs == 3 and result.aot.runs == 3
    assert result.max_abs_diff <= 1e-5
    with pytest.raises(kiln.InvalidArgumentError, match="repeat"):
        kiln.bench(module, x, repeat=0, c_model=tiny_c)
