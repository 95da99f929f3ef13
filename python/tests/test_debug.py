"""The development tools of Module.run: dump=True (every intermediate by ONNX
name), check_nan=True, profile=True and trace=PATH, each against an
independent reference or the command line's output."""

import json
import subprocess

import numpy as np
import pytest

import kiln
from conftest import EXAMPLE, MODELS, cli_error, numbered


def test_dump_intermediate_matches_numpy():
    onnx = pytest.importorskip("onnx")
    from onnx import numpy_helper

    model = onnx.load(str(MODELS / "tiny_mlp.onnx"))
    w = {i.name: numpy_helper.to_array(i).astype(np.float64) for i in model.graph.initializer}
    x = np.load(numbered("tiny_mlp", "input")[0])
    result = kiln.compile(MODELS / "tiny_mlp.onnx").run(x, dump=True)
    hidden = np.maximum(x @ w["fc1.weight"].T + w["fc1.bias"], 0)  # Gemm + Relu in float64
    np.testing.assert_allclose(result.dump["/Relu_output_0"], hidden, rtol=1e-5, atol=1e-5)
    # The graph output is among the values, equal to what run returned.
    np.testing.assert_array_equal(result.dump["output0"], result[0])
    assert list(result.dump)[-1] == "output0"  # run order


def test_dump_equals_kiln_run_dump(tmp_path, kiln_cli):
    """Same values, same names as `kiln run --dump DIR` (values.json), also
    inside a Loop body, where a value repeats as NAME__2, NAME__3, ..."""
    for name in ("control_loop_while", "small_cnn_opset13"):
        module = kiln.compile(MODELS / f"{name}.onnx")
        path = tmp_path / f"{name}.kiln"
        module.save(path)
        inputs = numbered(name, "input")
        dump_dir = tmp_path / f"{name}_dump"
        command = [kiln_cli, "run", path, "--dump", dump_dir]
        for f in inputs:
            command += ["--input", f]
        for k in range(len(module.signature.outputs)):
            command += ["--output", tmp_path / f"{name}_out{k}.npy"]
        subprocess.run(command, check=True, capture_output=True)
        entries = json.loads((dump_dir / "values.json").read_text())
        dumped = module.run(*[np.load(f) for f in inputs], dump=True).dump
        seen = {}
        keys = []
        for e in entries:
            seen[e["value"]] = seen.get(e["value"], 0) + 1
            keys.append(e["value"] if seen[e["value"]] == 1 else f"{e['value']}__{seen[e['value']]}")
        assert keys == list(dumped), name
        for key, e in zip(keys, entries):
            np.testing.assert_array_equal(dumped[key], np.load(dump_dir / e["file"]), err_msg=key)
        if name == "control_loop_while":
            assert any("__2" in k for k in keys)


def test_dump_is_in_onnx_layout():
    """Values the compiler stores channels last (around depthwise convs) come
    back in the ONNX layout: the same as with --layout nchw."""
    x = np.load(numbered("layout_ds_cnn", "input")[0])
    auto = kiln.compile(MODELS / "layout_ds_cnn.onnx").run(x, dump=True).dump
    nchw = kiln.compile(MODELS / "layout_ds_cnn.onnx", layout="nchw").run(x, dump=True).dump
    common = [k for k in auto if k in nchw]
    assert common
    for k in common:
        assert auto[k].shape == nchw[k].shape
        np.testing.assert_allclose(auto[k], nchw[k], rtol=1e-4, atol=1e-5, err_msg=k)


def test_check_nan_names_the_dispatch(tmp_path, kiln_cli):
    onnx = pytest.importorskip("onnx")
    from onnx import numpy_helper

    model = onnx.load(f"{EXAMPLE}.onnx")
    for init in model.graph.initializer:
        if init.name == "head.weight":
            w = numpy_helper.to_array(init).copy()
            w[0, 0] = np.nan
            init.CopyFrom(numpy_helper.from_array(w, init.name))
    module = kiln.compile(model.SerializeToString())
    x = np.load(f"{EXAMPLE}.input.npy")
    with pytest.raises(kiln.NumericsError, match=r"check_nan: dispatch \d+ .*/head/Gemm.*NaN") as info:
        module.run(x, check_nan=True)
    assert isinstance(info.value, ArithmeticError)
    path = tmp_path / "nan.kiln"
    module.save(path)
    message = cli_error(kiln_cli, "run", path, "--input", f"{EXAMPLE}.input.npy",
                        "--output", tmp_path / "y.npy", "--check-nan")
    assert message.startswith("--check-nan: ")
    assert str(info.value)[len("check_nan: "):] == message[len("--check-nan: "):]
    assert np.isnan(module(x)).any()  # without check_nan the run completes


def test_check_nan_passes_finite_runs_and_catches_inf_inputs(tiny_cnn):
    module, x, _ = tiny_cnn
    np.testing.assert_array_equal(module.run(x, check_nan=True)[0], module(x))
    bad = x.copy()
    bad[0, 0, 0, 0] = np.inf
    with pytest.raises(kiln.NumericsError, match="dispatch 0 .*Inf"):
        module.run(bad, check_nan=True)


def test_profile_rows(tiny_cnn):
    module, x, _ = tiny_cnn
    dispatches = module.inspect(json=True)["dispatches"]
    result = module.run(x, profile=True, repeat=4)
    rows = result.profile
    assert len(rows) == len(dispatches)
    assert [r["dispatch"] for r in rows] == list(range(len(rows)))
    for r, d in zip(rows, dispatches):
        assert r["calls"] == 4
        assert r["kernel"] == d["kernel"]
        assert r["total_ms"] > 0 and r["min_us"] <= r["mean_us"]
        assert 0 <= r["share"] <= 100
    assert sum(r["share"] for r in rows) <= 100.0 + 1e-9
    convs = [r for r in rows if r["op_types"] and r["op_types"][0] == "Conv"]
    assert convs and all(r["gflops"] is not None and r["gflops"] > 0 for r in convs)
    np.testing.assert_array_equal(result[0], module(x))


def test_trace_file(tiny_cnn, tmp_path):
    module, x, _ = tiny_cnn
    path = tmp_path / "trace.json"
    result = module.run(x, trace=path, repeat=3)
    assert result.trace == str(path)
    trace = json.loads(path.read_text())
    events = [e for e in trace["traceEvents"] if e.get("cat") == "dispatch"]
    runs = [e for e in trace["traceEvents"] if e.get("cat") == "run"]
    assert len(runs) == 3
    assert len(events) == 3 * len(module.inspect(json=True)["dispatches"])
    assert all(e["ph"] == "X" and e["dur"] >= 0 for e in events)


def test_trace_to_an_unwritable_path(tiny_cnn, tmp_path):
    module, x, _ = tiny_cnn
    with pytest.raises(kiln.Error, match="cannot write"):
        module.run(x, trace=tmp_path / "no" / "such" / "dir" / "t.json")
