"""A module's signature: its inputs and outputs with names, dtypes and
shapes. A symbolic dim is a string: the symbol ("N") or, for an output, the
expression of symbols it is ("S + T")."""

from typing import NamedTuple, Tuple, Union

import numpy as np

Dim = Union[int, str]


class TensorSpec(NamedTuple):
    name: str
    dtype: np.dtype
    shape: Tuple[Dim, ...]

    def __str__(self):
        dims = ",".join(str(d) for d in self.shape)
        dtype = "bfloat16" if self.dtype == np.dtype("V2") else self.dtype
        return f"{self.name}: {dtype}[{dims}]"


class Signature(NamedTuple):
    inputs: Tuple[TensorSpec, ...]
    outputs: Tuple[TensorSpec, ...]

    @property
    def input_names(self):
        return [t.name for t in self.inputs]

    @property
    def output_names(self):
        return [t.name for t in self.outputs]

    def __str__(self):
        ins = ", ".join(str(t) for t in self.inputs)
        outs = ", ".join(str(t) for t in self.outputs)
        return f"({ins}) -> ({outs})"


def numpy_dtype(name):
    """The NumPy dtype for a Kiln dtype name. bfloat16 has none in NumPy: its
    arrays are 2-byte void (raw bits; ml_dtypes' bfloat16 arrays pass as is,
    and `.view(ml_dtypes.bfloat16)` reads the results)."""
    return np.dtype("V2") if name == "bfloat16" else np.dtype(name)


def _spec(d):
    return TensorSpec(d["name"], numpy_dtype(d["dtype"]), tuple(d["shape"]))


def from_native(d):
    return Signature(tuple(_spec(t) for t in d["inputs"]), tuple(_spec(t) for t in d["outputs"]))
