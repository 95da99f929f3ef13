"""Shared fixtures for the kiln Python tests. ctest runs each test_*.py with
PYTHONPATH set to the build tree's python/ folder and KILN_CLI to the kiln
command line (python/CMakeLists.txt); by hand:

    PYTHONPATH=build/release/python KILN_CLI=build/release/tools/kiln \
        /usr/bin/python3 -m pytest python/tests
"""

import os
import pathlib
import subprocess

import numpy as np
import pytest

SOURCE_DIR = pathlib.Path(__file__).resolve().parents[2]
MODELS = SOURCE_DIR / "tests" / "models"
EXAMPLE = SOURCE_DIR / "examples" / "models" / "tiny_cnn"


def numbered(name, kind, folder=MODELS):
    """NAME.<kind>0.npy, NAME.<kind>1.npy, ... while they exist."""
    files = []
    while (folder / f"{name}.{kind}{len(files)}.npy").exists():
        files.append(folder / f"{name}.{kind}{len(files)}.npy")
    return files


def reference_models():
    """tests/models/*.onnx that have reference inputs and outputs beside them."""
    return sorted(p.stem for p in MODELS.glob("*.onnx") if numbered(p.stem, "output"))


def within_reference(got, ref, tol=1e-4):
    """The tests/models rule: max|got - ref| <= tol * max(1, max|ref|)."""
    assert got.shape == ref.shape, (got.shape, ref.shape)
    if ref.size == 0:
        return True
    diff = float(np.max(np.abs(got.astype(np.float64) - ref.astype(np.float64))))
    return diff <= tol * max(1.0, float(np.max(np.abs(ref.astype(np.float64)))))


@pytest.fixture(scope="session")
def kiln_cli():
    cli = os.environ.get("KILN_CLI")
    if not cli or not os.path.exists(cli):
        pytest.skip("KILN_CLI (the kiln command line) is not set")
    return cli


def cli_error(cli, *args):
    """Runs `kiln ARGS...`, expects it to fail, returns its message: stderr
    after "kiln CMD: error: " (first line group)."""
    done = subprocess.run([cli, *map(str, args)], capture_output=True, text=True, check=False)
    assert done.returncode in (1, 2), (done.returncode, done.stderr)
    prefix = f"kiln {args[0]}: error: "
    assert done.stderr.startswith(prefix), done.stderr
    return done.stderr[len(prefix):].rstrip("\n")


@pytest.fixture(scope="session")
def tiny_cnn():
    """The README's example: module, input, PyTorch's output."""
    import kiln

    return (kiln.compile(str(EXAMPLE) + ".onnx"), np.load(str(EXAMPLE) + ".input.npy"),
            np.load(str(EXAMPLE) + ".output.npy"))
