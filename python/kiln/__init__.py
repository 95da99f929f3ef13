"""Kiln from Python: compile ONNX models, run them in the VM, compare, and
build them as C.

    import kiln
    module = kiln.compile("model.onnx")          # or ONNX bytes, an onnx.ModelProto
    y = module(x)                                # NumPy in, NumPy out
    outs = module.run(x, dump=True)              # outs.dump: every intermediate by ONNX name
    kiln.compare(module, torch_model, [x])       # against PyTorch
    c = module.build_c("model_c")                # the AOT bundle, loaded with ctypes
    print(kiln.bench(module, x, c_model=c))      # VM vs AOT latency

See docs/python.md.
"""

from . import _kiln
from . import errors as _errors
from ._module import AotBundle, Module, RunResult, compile, load
from .bench import BenchResult, Timing, bench
from .c_model import CModel, load_c
from .compare import ModuleComparison, OutputComparison, compare
from .errors import (BuildError, Error, FailedPreconditionError, InvalidArgumentError,
                     NotFoundError, NumericsError, ResourceExhaustedError, UnsupportedError)
from .signature import Signature, TensorSpec

_errors._register(_kiln)

__all__ = [
    "AotBundle", "BenchResult", "BuildError", "CModel", "Error", "FailedPreconditionError",
    "InvalidArgumentError", "Module", "ModuleComparison", "NotFoundError", "NumericsError",
    "OutputComparison", "ResourceExhaustedError", "RunResult", "Signature", "TensorSpec",
    "Timing", "UnsupportedError", "bench", "compare", "compile", "load", "load_c",
]
