"""kiln.compile, kiln.load and kiln.Module: a compiled model in memory that
runs in the VM, saves to a .kiln file and transpiles to C."""

import json as _json
import os
import subprocess

import numpy as np

from . import _kiln
from . import signature as _signature
from ._inputs import order_inputs
from .errors import BuildError, InvalidArgumentError

_LAYOUTS = ("auto", "nchw")


class RunResult(list):
    """The outputs of a run, in signature order (a list of NumPy arrays),
    with what the debugging options collected:

    - `dump`: {ONNX value name: array} for every intermediate the module
      keeps, in run order (dump=True; NAME__k for the k-th recording of a
      value inside a Loop/Scan body), in the ONNX layout;
    - `profile`: one dict per dispatch (profile=True): dispatch, nodes, op,
      kernel, onnx_nodes, op_types, calls, total_ms, mean_us, min_us, share
      (% of the run time), gflops (None when unknown);
    - `trace`: the Chrome trace file written (trace=PATH).
    """

    def __init__(self, outputs, dump=None, profile=None, trace=None):
        super().__init__(outputs)
        self.dump = dump
        self.profile = profile
        self.trace = trace


class AotBundle:
    """What Module.aot wrote: the bundle directory, its C name, and the size
    line `kiln aot` prints ("size target=host text=... workspace=...")."""

    def __init__(self, path, name, size_line, warning):
        self.path = path
        self.name = name
        self.size_line = size_line
        self.warning = warning

    def __repr__(self):
        return f"AotBundle(path={self.path!r}, name={self.name!r}, size_line={self.size_line!r})"


class Module:
    """A verified Kiln module. Make one with kiln.compile or kiln.load."""

    def __init__(self, native):
        self._native = native
        self._signature = _signature.from_native(native.signature())

    @property
    def signature(self):
        """Inputs and outputs: names, dtypes, shapes (symbolic dims as names)."""
        return self._signature

    @property
    def arena_bytes(self):
        """The planned workspace (for a module with symbols: its static part)."""
        return self._native.arena_bytes

    @property
    def origin(self):
        """The file or source this module came from, as messages name it."""
        return self._native.origin

    def to_bytes(self):
        """The .kiln bytes (schemas/module.fbs)."""
        return self._native.bytes()

    def save(self, path):
        """Writes the module to `path` (atomically, as `kiln compile -o` does)."""
        self._native.save(os.fspath(path))

    def inspect(self, json=False):
        """What `kiln inspect` prints: the text, or with json=True the
        document of `kiln inspect --json` as a dict."""
        text = self._native.inspect(bool(json))
        return _json.loads(text) if json else text

    def run(self, *arrays, threads=1, repeat=1, dump=False, check_nan=False, profile=False,
            trace=None, **named):
        """Runs the module in the VM and returns its outputs (a RunResult, a
        list of NumPy arrays in signature order).

        Inputs are positional in signature order, by name (keywords, or one
        dict), or both. Arrays of the module's dtype that are C-contiguous are
        read in place; dtypes are never converted. The GIL is released while
        the module runs.

        threads: kernels split work over this many threads (results do not
            depend on it). repeat: run this many times (profile and trace
            record every run). dump: also return every intermediate value.
        check_nan: raise kiln.NumericsError naming the first dispatch that
            produces a NaN or Inf. profile: also return per-dispatch times.
        trace: write a Chrome trace (ui.perfetto.dev) to this path.
        """
        # Inputs the compiler bound (input_values=...) may be passed only
        # with their bound value; they are not run inputs.
        named = {name: a for name, a in named.items()
                 if not _kiln.check_bound_input(self._native, name, np.asarray(a))}
        inputs = order_inputs(self._signature.inputs, arrays, named)
        trace_path = "" if trace is None else os.fspath(trace)
        outputs, dump_list, profile_rows = self._native.run(
            inputs, int(threads), int(repeat), bool(dump), bool(check_nan), bool(profile),
            trace_path)
        return RunResult(outputs, dict(dump_list) if dump_list is not None else None,
                         profile_rows, trace_path or None)

    def __call__(self, *arrays, **named):
        """module(x): the one output as an array, or a tuple of several."""
        outputs = self.run(*arrays, **named)
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    def aot(self, dir, *, name="model", emit="bundle", target="host", weights="embedded",
            size_report=True):
        """Transpiles the module into a C bundle in `dir`, as `kiln aot` does:
        emit = bundle | static (libNAME.a) | shared (libNAME.so);
        target = host | cortex-m4 | cortex-m7; weights = embedded | external.
        Returns an AotBundle."""
        result = self._native.aot(os.fspath(dir), name, emit, target, weights, bool(size_report))
        return AotBundle(os.fspath(dir), name, result["size_line"] or None,
                         result["warning"] or None)

    def build_c(self, dir, *, name="model", cflags="-O3 -march=native", cc=None):
        """Writes the C bundle to `dir`, builds libNAME.so with `make shared`
        (CFLAGS=cflags; the default picks this CPU's SIMD kernels, as the VM
        does at run time) and loads it: returns a kiln.CModel."""
        from .c_model import load_c

        self.aot(dir, name=name, size_report=False)
        command = ["make", "-s", "-C", os.fspath(dir), "-j2", "shared", f"CFLAGS={cflags}"]
        if cc is not None:
            command.append(f"CC={cc}")
        done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, check=False)
        if done.returncode != 0:
            raise BuildError(f"building lib{name}.so in '{os.fspath(dir)}' failed "
                             f"(make exit {done.returncode}):\n{done.stdout}")
        return load_c(dir, name)

    def __repr__(self):
        return f"<kiln.Module {self.origin!r} {self._signature}>"


def _value_text(input_name, value):
    """A bound input's value as `kiln compile --input-value` spells it."""
    flat = np.asarray(value).reshape(-1)
    if flat.size == 0:
        raise InvalidArgumentError(f"input_values['{input_name}'] is empty")
    if flat.dtype == np.bool_:
        return ",".join("true" if v else "false" for v in flat)
    if not (np.issubdtype(flat.dtype, np.integer) or np.issubdtype(flat.dtype, np.floating)):
        raise InvalidArgumentError(
            f"input_values['{input_name}'] must be numbers or bools, not {value!r}")
    return ",".join(repr(v.item()) for v in flat)


def compile(model, *, input_shapes=None, dims=None, input_values=None, layout="auto"):
    """Compiles an ONNX model into a kiln.Module, in memory (no files).

    model: a path, the bytes of an ONNX model, or an onnx.ModelProto.
    input_shapes: {input name: dims} fixing those inputs' dims at compile
        time (e.g. a symbolic batch), as `kiln compile --input-shape`; the
        rank must be the declared one.
    dims: {dim name: value} fixing every input dim of that name (a symbolic
        batch, height, ...), as `kiln compile --dim`.
    input_values: {input name: value (a number, a sequence, an array)}
        binding configuration inputs (a sample rate, a flag) to a value, as
        `kiln compile --input-value`: they fold, an If on them disappears,
        and a run may pass them only with that value.
    layout: "auto" lets the compiler store tensors channels last where its
        kernels gain; "nchw" keeps the ONNX layout (`kiln compile --layout`).
    """
    if layout not in _LAYOUTS:
        raise InvalidArgumentError(f"layout must be auto or nchw, not '{layout}'")
    shapes = {}
    for input_name, shape in (input_shapes or {}).items():
        try:
            shapes[str(input_name)] = [int(d) for d in shape]
        except (TypeError, ValueError):
            raise InvalidArgumentError(
                f"input_shapes['{input_name}'] must be a sequence of whole numbers, "
                f"not {shape!r}") from None
    fixed = {}
    for dim_name, value in (dims or {}).items():
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise InvalidArgumentError(f"dims['{dim_name}'] must be a whole number >= 1, "
                                       f"not {value!r}")
        fixed[str(dim_name)] = int(value)
    values = {str(k): _value_text(k, v) for k, v in (input_values or {}).items()}
    choose_layouts = layout == "auto"
    if isinstance(model, (str, os.PathLike)):
        native = _kiln.compile_file(os.fspath(model), shapes, fixed, values, choose_layouts)
    elif isinstance(model, (bytes, bytearray, memoryview)):
        native = _kiln.compile_bytes(bytes(model), "<onnx bytes>", shapes, fixed, values,
                                     choose_layouts)
    elif hasattr(model, "SerializeToString"):
        native = _kiln.compile_bytes(model.SerializeToString(), "<onnx.ModelProto>", shapes,
                                     fixed, values, choose_layouts)
    else:
        raise TypeError("kiln.compile takes a path, bytes or an onnx.ModelProto, "
                        f"not {type(model).__name__}")
    return Module(native)


def load(module):
    """Loads and verifies a .kiln module: a path, or the module's bytes."""
    if isinstance(module, (bytes, bytearray, memoryview)):
        return Module(_kiln.Module.from_bytes(bytes(module), "<module bytes>"))
    if isinstance(module, (str, os.PathLike)):
        return Module(_kiln.Module.load(os.fspath(module)))
    raise TypeError(f"kiln.load takes a path or bytes, not {type(module).__name__}")
