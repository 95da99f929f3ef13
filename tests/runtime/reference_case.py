"""The reference-case file format shared by the make_reference*.py generators
(read by tests/runtime/kernel_case.h): binding roles, the activation codes
with their float64 reference, and the writer. Each generator keeps its own
random generator so its cases stay reproducible on their own."""
import os
import struct

import numpy as np

OUT_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
IN, OUT, UNUSED, INOUT, SCRATCH = 0, 1, 2, 3, 4
ACT_NONE, ACT_RELU, ACT_CLIP, ACT_SIGMOID, ACT_TANH = range(5)

written = []


def activation(y, act, alpha=0.0, beta=0.0):
    y = np.asarray(y, dtype=np.float64)
    if act == ACT_RELU:
        return np.maximum(y, 0.0)
    if act == ACT_CLIP:
        return np.minimum(np.maximum(y, alpha), beta)
    if act == ACT_SIGMOID:
        return 1.0 / (1.0 + np.exp(-y))
    if act == ACT_TANH:
        return np.tanh(y)
    return y


def binding(role, initial=None, expected=None, tight=True):
    init = b"" if initial is None else np.ascontiguousarray(initial).tobytes()
    exp = b"" if expected is None else np.ascontiguousarray(expected).tobytes()
    nbytes = len(init) if role in (IN, INOUT) else len(exp)
    return (role, 1 if tight else 0, nbytes, init, exp)


def scratch(nbytes):
    """A binding the kernel uses as working memory: sized, never compared."""
    return (SCRATCH, 1, nbytes, b"", b"")


def write_case(case, kernel, iparams, fparams, bindings, compare=0):
    out = bytearray(b"KILNCAS1")
    name = kernel.encode()
    out += struct.pack("<I", len(name)) + name
    out += struct.pack("<I", compare)  # 0: float within tolerance
    out += struct.pack("<I", len(iparams)) + struct.pack("<%dq" % len(iparams), *iparams)
    out += struct.pack("<I", len(fparams)) + struct.pack("<%df" % len(fparams), *fparams)
    out += struct.pack("<I", len(bindings))
    for role, tight, nbytes, init, exp in bindings:
        out += struct.pack("<IIQ", role, tight, nbytes) + init + exp
    path = os.path.join(OUT_DIR, "%s.%s.bin" % (kernel, case))
    with open(path, "wb") as f:
        f.write(out)
    written.append(path)
