"""kiln.compare: a module against another module or against ONNX Runtime
running the ONNX model (every intermediate, as `kiln compare` does), or
against a reference (a callable such as a PyTorch model, or its outputs)."""

import os
import sys
from collections.abc import Mapping

import numpy as np

from . import _kiln
from ._inputs import as_array, order_inputs
from .errors import InvalidArgumentError


class ModuleComparison:
    """Two modules (or a module and ONNX Runtime) run on the same inputs;
    every ONNX value both keep is compared in A's dispatch order. `report` is
    what `kiln compare` prints.

    A value differs when |a - b| > atol + rtol * |a| for some element.
    `first` describes the first differing value (dict: value, shape,
    max_abs_diff, outside, elements, worst_at, a, b, dispatch_a,
    dispatch_b) or is None.
    """

    def __init__(self, d):
        self.compared = d["compared"]
        self.only_a = d["only_a"]
        self.only_b = d["only_b"]
        self.skipped = d["skipped"]
        self.differing = d["differing"]
        self.atol = d["atol"]
        self.rtol = d["rtol"]
        self.first = d["first"]
        self.report = d["report"]

    @property
    def ok(self):
        return self.differing == 0

    def __str__(self):
        return self.report

    def __repr__(self):
        return f"<kiln.ModuleComparison ok={self.ok} differing={self.differing}>"


class OutputComparison:
    """A module's outputs against reference outputs. Output k passes when
    max|got - ref| <= tol * max(1, max|ref|) (the rule of scripts/demo.sh);
    `outputs` holds one dict per output: index, name, max_abs_diff, bound,
    bitwise, ok (and why, when shapes or dtypes differ)."""

    def __init__(self, rows, tol):
        self.outputs = rows
        self.tol = tol

    @property
    def ok(self):
        return all(r["ok"] for r in self.outputs)

    def __str__(self):
        lines = []
        for r in self.outputs:
            head = f"output {r['index']} '{r['name']}': "
            if "why" in r:
                lines.append(head + r["why"] + " MISMATCH")
            else:
                lines.append(head + f"max_abs_diff={r['max_abs_diff']:.3g} bound={r['bound']:.3g} "
                             f"bitwise={'yes' if r['bitwise'] else 'no'} "
                             f"{'ok' if r['ok'] else 'MISMATCH'}")
        return "\n".join(lines)

    def __repr__(self):
        return f"<kiln.OutputComparison ok={self.ok}>\n{self}"


def _numpy(x):
    if hasattr(x, "detach") and hasattr(x, "numpy"):
        return x.detach().cpu().numpy()
    return np.asarray(x)


def _call_reference(reference, inputs):
    """Calls `reference` on the inputs; a torch.nn.Module gets tensors and
    runs under torch.no_grad()."""
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(reference, torch.nn.Module):
        with torch.no_grad():
            result = reference(*[torch.from_numpy(np.array(a)) for a in inputs])
    else:
        result = reference(*inputs)
    if isinstance(result, (list, tuple)):
        return [_numpy(r) for r in result]
    return [_numpy(result)]


def _compare_outputs(module, got, refs, tol):
    if len(refs) != len(got):
        raise InvalidArgumentError(
            f"the reference gives {len(refs)} outputs; the module has {len(got)}")
    rows = []
    for k, (g, r) in enumerate(zip(got, refs)):
        row = {"index": k, "name": module.signature.outputs[k].name}
        if g.shape != r.shape:
            row.update(ok=False, why=f"shape {list(g.shape)} != reference {list(r.shape)}")
        elif g.dtype.kind in "fc" or r.dtype.kind in "fc":
            diff = float(np.max(np.abs(g.astype(np.float64) - r.astype(np.float64)))) if r.size else 0.0
            bound = tol * max(1.0, float(np.max(np.abs(r))) if r.size else 1.0)
            row.update(max_abs_diff=diff, bound=bound, bitwise=bool(np.array_equal(g, r)),
                       ok=bool(diff <= bound))
        else:
            same = bool(np.array_equal(g, r))
            row.update(max_abs_diff=0.0 if same else float("inf"), bound=0.0, bitwise=same, ok=same)
        rows.append(row)
    return OutputComparison(rows, tol)


def compare(a, b, inputs=None, *, atol=None, rtol=None, tol=1e-4, reference=None,
            ort_cmd=None):
    """Compares kiln.Module `a` with `b` on the same inputs.

    b a kiln.Module: both run in the VM with every intermediate recorded
        (fixed-seed random inputs when `inputs` is None, as `kiln compare`);
        returns a ModuleComparison (atol, rtol apply; defaults 1e-5, 1e-4).
    b the ONNX model's path, reference="ort": ONNX Runtime runs it with every
        intermediate exposed (`kiln compare A.kiln B.onnx --reference ort`;
        ort_cmd as its --ort-cmd); returns a ModuleComparison (defaults
        atol 1e-4, rtol 1e-3).
    b a callable (a PyTorch model, a function of NumPy arrays) or a list of
        reference outputs: `a` runs on `inputs`, its outputs are compared;
        returns an OutputComparison (tol applies).

    inputs: a list of arrays in signature order, or a dict by name.
    """
    from ._module import Module

    if not isinstance(a, Module):
        raise TypeError(f"kiln.compare's first argument is a kiln.Module, not {type(a).__name__}")
    specs = a.signature.inputs
    arrays = None
    if inputs is not None:
        if isinstance(inputs, Mapping):
            arrays = order_inputs(specs, (), dict(inputs))
        else:
            if not isinstance(inputs, (list, tuple)):
                inputs = [inputs]
            arrays = order_inputs(specs, tuple(inputs), {})
    if reference not in (None, "ort"):
        raise InvalidArgumentError(f"reference must be None or 'ort', not {reference!r}")
    if reference == "ort":
        if not isinstance(b, (str, os.PathLike)):
            raise TypeError("with reference='ort', b is the ONNX model's path, "
                            f"not {type(b).__name__}")
        return ModuleComparison(_kiln.compare_ort(
            a._native, os.fspath(b), arrays, float(1e-4 if atol is None else atol),
            float(1e-3 if rtol is None else rtol), ort_cmd or ""))
    if isinstance(b, Module):
        return ModuleComparison(_kiln.compare(
            a._native, b._native, arrays, float(1e-5 if atol is None else atol),
            float(1e-4 if rtol is None else rtol)))
    if arrays is None:
        raise InvalidArgumentError("comparing against a reference needs the inputs")
    got = a.run(*arrays)
    if callable(b):
        refs = _call_reference(b, arrays)
    else:
        refs = [as_array(r) for r in (b if isinstance(b, (list, tuple)) else [b])]
    return _compare_outputs(a, list(got), refs, tol)
