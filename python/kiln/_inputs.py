"""Turning what a caller passes (NumPy arrays, array-likes, PyTorch tensors;
positional or by name) into the arrays a run reads, in signature order.

Arrays that are already C-contiguous, aligned and in native byte order are
passed through untouched, so the VM reads them in place; others are copied
once into that form. Dtypes are never converted: a wrong dtype is an error.
"""

from collections.abc import Mapping

import numpy as np

from .errors import InvalidArgumentError


def as_array(x):
    """`x` as a NumPy array the VM can read in place (no dtype conversion)."""
    if hasattr(x, "detach") and hasattr(x, "numpy"):  # a PyTorch tensor
        x = x.detach().cpu().numpy()
    a = np.asarray(x)
    if not a.dtype.isnative:
        a = a.astype(a.dtype.newbyteorder("="))
    return np.require(a, requirements=("C_CONTIGUOUS", "ALIGNED"))


def order_inputs(specs, arrays, named):
    """Places positional `arrays` and `named` ones (a mapping name -> array)
    at their signature positions; errors say what is missing or extra."""
    if len(arrays) == 1 and isinstance(arrays[0], Mapping) and not named:
        named, arrays = dict(arrays[0]), ()
    placed = [None] * len(specs)
    if len(arrays) > len(specs):
        raise InvalidArgumentError(
            f"too many inputs: the module has {len(specs)} inputs, {len(arrays)} were given")
    for i, a in enumerate(arrays):
        placed[i] = a
    index = {t.name: i for i, t in enumerate(specs)}
    for name, a in named.items():
        if name not in index:
            known = ", ".join(f"'{t.name}'" for t in specs) or "none"
            raise InvalidArgumentError(f"the module has no input '{name}' (its inputs: {known})")
        i = index[name]
        if placed[i] is not None:
            raise InvalidArgumentError(f"input {i} ('{name}') is given twice")
        placed[i] = a
    for i, a in enumerate(placed):
        if a is None:
            raise InvalidArgumentError(f"missing input {i} ('{specs[i].name}')")
    return [as_array(a) for a in placed]
