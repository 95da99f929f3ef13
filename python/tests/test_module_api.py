"""kiln.Module: signature, save/load, inputs by position or name, outputs,
threads, and the module file the command line writes."""

import subprocess
import threading
import time

import numpy as np
import onnx
import pytest

import kiln
from conftest import EXAMPLE, MODELS, numbered, within_reference


def test_signature_names_dtypes_shapes():
    module = kiln.compile(MODELS / "two_in_two_out.onnx")
    sig = module.signature
    assert [t.name for t in sig.inputs] == sig.input_names
    assert len(sig.inputs) == 2 and len(sig.outputs) == 2
    for spec, f in zip(sig.inputs, numbered("two_in_two_out", "input")):
        ref = np.load(f)
        assert spec.dtype == ref.dtype and spec.shape == ref.shape
    for spec, f in zip(sig.outputs, numbered("two_in_two_out", "output")):
        assert spec.shape == np.load(f).shape


def test_signature_keeps_symbols():
    module = kiln.compile(MODELS / "dynamic" / "cnn_dynbatch.onnx")
    shape = module.signature.inputs[0].shape
    assert isinstance(shape[0], str) and all(isinstance(d, int) for d in shape[1:])
    assert module.signature.outputs[0].shape[0] == shape[0]


def test_typed_signature_dtypes():
    module = kiln.compile(MODELS / "typed_casts.onnx")
    refs = [np.load(f) for f in numbered("typed_casts", "output")]
    assert [t.dtype for t in module.signature.outputs] == [r.dtype for r in refs]


def test_bfloat16_is_two_byte_void():
    # ONNX Runtime's outputs for this model: tests/models/opset/cast15_bfloat16_round_trip.
    x = np.load(MODELS / "opset" / "cast15_bfloat16_round_trip.input0.npy")
    ref = np.load(MODELS / "opset" / "cast15_bfloat16_round_trip.output1.npy")
    make_bf16 = kiln.compile(cast_model(onnx.TensorProto.FLOAT, onnx.TensorProto.BFLOAT16))
    assert str(make_bf16.signature) == "(x: float32[3,4]) -> (y: bfloat16[3,4])"
    bits = make_bf16(x)
    assert bits.dtype == np.dtype("V2")
    widen = kiln.compile(cast_model(onnx.TensorProto.BFLOAT16, onnx.TensorProto.FLOAT))
    np.testing.assert_array_equal(widen(bits), ref)  # widening is exact
    with pytest.raises(kiln.InvalidArgumentError,
                       match="has dtype uint16; the module expects bfloat16"):
        widen(np.zeros((3, 4), np.uint16))


def cast_model(src, dst):
    from onnx import helper
    graph = helper.make_graph([helper.make_node("Cast", ["x"], ["y"], to=dst)], "cast",
                              [helper.make_tensor_value_info("x", src, [3, 4])],
                              [helper.make_tensor_value_info("y", dst, [3, 4])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString()


def test_save_load_round_trip(tmp_path, tiny_cnn):
    module, x, ref = tiny_cnn
    path = tmp_path / "tiny.kiln"
    module.save(path)
    assert path.read_bytes() == module.to_bytes()
    for loaded in (kiln.load(path), kiln.load(str(path)), kiln.load(path.read_bytes())):
        assert loaded.signature == module.signature
        np.testing.assert_array_equal(loaded(x), module(x))
    assert within_reference(kiln.load(path)(x), ref)


def test_compiled_in_python_equals_kiln_compile(tmp_path, kiln_cli):
    for layout in ("auto", "nchw"):
        out = tmp_path / f"cli_{layout}.kiln"
        subprocess.run([kiln_cli, "compile", f"{EXAMPLE}.onnx", "-o", out, "--layout", layout],
                       check=True)
        module = kiln.compile(f"{EXAMPLE}.onnx", layout=layout)
        assert module.to_bytes() == out.read_bytes(), layout


def test_inputs_by_position_name_and_dict():
    module = kiln.compile(MODELS / "two_in_two_out.onnx")
    a, b = (np.load(f) for f in numbered("two_in_two_out", "input"))
    names = module.signature.input_names
    by_position = module.run(a, b)
    by_name = module.run(**{names[1]: b, names[0]: a})
    by_dict = module.run({names[0]: a, names[1]: b})
    mixed = module.run(a, **{names[1]: b})
    for outputs in (by_name, by_dict, mixed):
        for x, y in zip(by_position, outputs):
            np.testing.assert_array_equal(x, y)
    assert isinstance(by_position, list) and isinstance(by_position, kiln.RunResult)
    assert by_position.dump is None and by_position.profile is None
    both = module(a, b)
    assert isinstance(both, tuple) and len(both) == 2


def test_single_output_call_returns_array(tiny_cnn):
    module, x, ref = tiny_cnn
    y = module(x)
    assert isinstance(y, np.ndarray) and y.shape == ref.shape
    assert within_reference(y, ref)


def test_non_contiguous_and_byte_swapped_inputs(tiny_cnn):
    module, x, _ = tiny_cnn
    expected = module(x)
    strided = np.asfortranarray(x)
    assert not strided.flags.c_contiguous
    np.testing.assert_array_equal(module(strided), expected)
    swapped = x.astype(x.dtype.newbyteorder(">"))
    np.testing.assert_array_equal(module(swapped), expected)
    torch = pytest.importorskip("torch")
    np.testing.assert_array_equal(module(torch.from_numpy(x)), expected)


def test_inputs_are_not_modified_and_outputs_are_fresh(tiny_cnn):
    module, x, _ = tiny_cnn
    before = x.copy()
    first = module(x)
    second = module(x)
    np.testing.assert_array_equal(x, before)
    assert first is not second and not np.shares_memory(first, second)
    np.testing.assert_array_equal(first, second)


def test_threads_give_bitwise_equal_results(tiny_cnn):
    module, x, _ = tiny_cnn
    serial = module(x)
    for threads in (2, 3):
        np.testing.assert_array_equal(module.run(x, threads=threads)[0], serial)


def test_concurrent_runs_from_python_threads(tiny_cnn):
    module, x, _ = tiny_cnn
    rng = np.random.default_rng(4)
    inputs = [rng.standard_normal(x.shape).astype(np.float32) for _ in range(4)]
    expected = [module(i) for i in inputs]
    results = [None] * len(inputs)

    def work(k):
        for _ in range(20):
            results[k] = module(inputs[k])

    workers = [threading.Thread(target=work, args=(k,)) for k in range(len(inputs))]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    for got, want in zip(results, expected):
        np.testing.assert_array_equal(got, want)


def test_data_dependent_output_has_its_run_length():
    module = kiln.compile(MODELS / "rtdata_ops.onnx")
    inputs = [np.load(f) for f in numbered("rtdata_ops", "input")]
    refs = [np.load(f) for f in numbered("rtdata_ops", "output")]
    for got, ref in zip(module.run(*inputs), refs):
        assert got.shape == ref.shape
        assert within_reference(got, ref)


def test_inspect_text_and_json(tiny_cnn, kiln_cli, tmp_path):
    module, _, _ = tiny_cnn
    path = tmp_path / "tiny.kiln"
    module.save(path)
    cli = subprocess.run([kiln_cli, "inspect", path], capture_output=True, text=True, check=True)
    assert kiln.load(path).inspect() == cli.stdout
    # The first line names where the module came from; the rest is the same.
    assert module.inspect().splitlines()[1:] == cli.stdout.splitlines()[1:]
    info = module.inspect(json=True)
    assert info["memory"]["arena_bytes"] == module.arena_bytes
    assert len(info["dispatches"]) > 0


def test_other_threads_run_python_while_a_module_runs(tiny_cnn):
    """The GIL is released during a run: the main thread keeps executing
    Python in the middle half of a long run on another thread (with the GIL
    held throughout, it could not execute a single line there)."""
    module, x, _ = tiny_cnn
    span = {}

    def work():
        span["start"] = time.perf_counter()
        module.run(x, repeat=300)
        span["end"] = time.perf_counter()

    worker = threading.Thread(target=work)
    ticks = []
    worker.start()
    while worker.is_alive():
        ticks.append(time.perf_counter())
    worker.join()
    quarter = (span["end"] - span["start"]) / 4
    inside = [t for t in ticks if span["start"] + quarter < t < span["end"] - quarter]
    assert inside, "no Python ran in the main thread during the run"
