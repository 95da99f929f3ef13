"""kiln.load_c: an AOT-compiled model (libNAME.so from `kiln aot --emit=shared`
or Module.build_c) loaded with ctypes, run from Python on NumPy arrays.

The library describes itself through NAME_metadata() (runtime/include/kiln/
model_info.h); this module reads that struct, allocates the workspace once
and calls NAME_run(inputs, outputs, workspace). Models with symbolic dims
or external weights are refused: call their NAME_run from C.
"""

import ctypes
import os
import threading

import numpy as np

from . import _kiln
from ._inputs import order_inputs
from .errors import Error, InvalidArgumentError, NotFoundError, UnsupportedError
from .signature import Signature, TensorSpec, numpy_dtype

_MAX_RANK = 8  # KILN_MAX_RANK (runtime/include/kiln/kernel_abi.h)
_MODEL_INFO_VERSION = 3  # KILN_MODEL_INFO_VERSION (kiln/model_info.h)


class _TensorInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("dtype", ctypes.c_int32),
                ("dtype_name", ctypes.c_char_p), ("rank", ctypes.c_int32),
                ("shape", ctypes.c_int64 * _MAX_RANK), ("bytes", ctypes.c_uint64),
                ("dim_symbols", ctypes.c_int32 * _MAX_RANK)]


class _ModelInfo(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("name", ctypes.c_char_p),
                ("workspace_bytes", ctypes.c_uint64), ("workspace_alignment", ctypes.c_uint32),
                ("weights_bytes", ctypes.c_uint64), ("weights_alignment", ctypes.c_uint32),
                ("weights_external", ctypes.c_int32), ("input_count", ctypes.c_uint32),
                ("output_count", ctypes.c_uint32), ("inputs", ctypes.POINTER(_TensorInfo)),
                ("outputs", ctypes.POINTER(_TensorInfo)), ("symbol_count", ctypes.c_uint32),
                ("symbol_names", ctypes.POINTER(ctypes.c_char_p)), ("grows", ctypes.c_int32)]


# A process cannot load two libraries from one path: dlopen hands back the
# first. Remember what each path held when it was loaded.
_loaded = {}


def _spec(info, where):
    shape = tuple(info.shape[d] for d in range(info.rank))
    name = info.name.decode()
    if any(d < 0 for d in shape):
        raise UnsupportedError(
            f"{where} '{name}' has dims known only at run time {list(shape)}; kiln.load_c "
            "supports static shapes (call NAME_run(symbols, ...) from C)")
    spec = TensorSpec(name, numpy_dtype(info.dtype_name.decode()), shape)
    if spec.dtype.itemsize * int(np.prod(shape, dtype=np.int64)) != info.bytes:
        raise InvalidArgumentError(f"{where} '{name}': the library's metadata is inconsistent "
                                   f"({info.bytes} bytes for {spec})")
    return spec


class CModel:
    """An AOT-compiled model in this process. run()/__call__ as kiln.Module."""

    def __init__(self, path, name):
        self.path = path
        self.name = name
        try:
            self._lib = ctypes.CDLL(path, mode=ctypes.RTLD_LOCAL)
        except OSError as e:
            raise InvalidArgumentError(f"cannot load '{path}': {e}") from None
        try:
            metadata = getattr(self._lib, f"{name}_metadata")
            self._run = getattr(self._lib, f"{name}_run")
        except AttributeError:
            raise InvalidArgumentError(
                f"'{path}' does not export {name}_run and {name}_metadata "
                "(is `name` the one given to kiln aot?)") from None
        metadata.restype = ctypes.POINTER(_ModelInfo)
        metadata.argtypes = []
        info = metadata().contents
        if info.version != _MODEL_INFO_VERSION:
            raise UnsupportedError(f"'{path}' describes itself with model_info version "
                                   f"{info.version}; this kiln reads {_MODEL_INFO_VERSION}")
        if info.symbol_count > 0:
            raise UnsupportedError(
                f"'{path}' has symbolic dimensions; kiln.load_c supports static shapes "
                "(call NAME_run(symbols, ...) from C)")
        if info.grows:
            raise UnsupportedError(
                f"'{path}' finds sizes during the run without a bound; kiln.load_c supports "
                "static shapes (call NAME_run with output_bytes and a kiln_shortfall from C)")
        if info.weights_external:
            raise UnsupportedError(f"'{path}' takes its weights from the caller "
                                   "(--weights=external); kiln.load_c needs embedded weights")
        self.signature = Signature(
            tuple(_spec(info.inputs[i], "input") for i in range(info.input_count)),
            tuple(_spec(info.outputs[i], "output") for i in range(info.output_count)))
        self._run.restype = ctypes.c_int
        self._run.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
        align = max(1, info.workspace_alignment)
        self._workspace_buffer = np.zeros(info.workspace_bytes + align, dtype=np.uint8)
        offset = (-self._workspace_buffer.ctypes.data) % align
        self._workspace = self._workspace_buffer[offset:offset + info.workspace_bytes]
        self.workspace_bytes = int(info.workspace_bytes)
        self._lock = threading.Lock()  # the workspace serves one run at a time

    def _checked_inputs(self, arrays, named):
        inputs = order_inputs(self.signature.inputs, arrays, named)
        for i, (a, spec) in enumerate(zip(inputs, self.signature.inputs)):
            if a.dtype != spec.dtype:
                raise InvalidArgumentError(f"input {i} ('{spec.name}') has dtype {a.dtype}; "
                                           f"the module expects {spec.dtype}")
            if a.shape != spec.shape:
                raise InvalidArgumentError(
                    f"input {i} ('{spec.name}') has shape [{','.join(map(str, a.shape))}]; "
                    f"the module expects [{','.join(map(str, spec.shape))}]")
        return inputs

    def _new_outputs(self):
        return [np.empty(t.shape, dtype=t.dtype) for t in self.signature.outputs]

    @staticmethod
    def _pointers(arrays):
        return (ctypes.c_void_p * max(1, len(arrays)))(*[a.ctypes.data for a in arrays])

    def run(self, *arrays, **named):
        """Calls NAME_run on the inputs; returns the outputs (list of arrays)."""
        inputs = self._checked_inputs(arrays, named)
        outputs = self._new_outputs()
        with self._lock:
            rc = self._run(self._pointers(inputs), self._pointers(outputs),
                           self._workspace.ctypes.data)
        if rc != 0:
            raise Error(f"{self.name}_run returned error code {rc}")
        return outputs

    def __call__(self, *arrays, **named):
        outputs = self.run(*arrays, **named)
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    def time(self, *arrays, warmup=5, repeat=100, **named):
        """Milliseconds of `repeat` calls of NAME_run after `warmup` untimed
        ones, timed in C++ by the same loop that times the VM (kiln.bench)."""
        inputs = self._checked_inputs(arrays, named)
        outputs = self._new_outputs()
        with self._lock:
            return _kiln.time_c_function(
                ctypes.cast(self._run, ctypes.c_void_p).value,
                [a.ctypes.data for a in inputs], [a.ctypes.data for a in outputs],
                self._workspace.ctypes.data, int(warmup), int(repeat))

    def __repr__(self):
        return f"<kiln.CModel {self.path!r} {self.signature}>"


def load_c(dir, name="model"):
    """Loads DIR/libNAME.so (built by Module.build_c, `kiln aot --emit=shared`
    or `make -C DIR shared`) as a kiln.CModel."""
    path = os.path.abspath(os.path.join(os.fspath(dir), f"lib{name}.so"))
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise NotFoundError(f"'{path}' does not exist (Module.build_c or "
                            f"`make -C {os.fspath(dir)} shared` builds it)") from None
    identity = (st.st_ino, st.st_mtime_ns, st.st_size)
    if _loaded.setdefault(path, identity) != identity:
        raise InvalidArgumentError(
            f"'{path}' was rebuilt after this process loaded it, and a process keeps the "
            "library it loaded first from a path: build into another directory")
    return CModel(path, name)
