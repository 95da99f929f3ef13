"""Writes a copy of an ONNX model whose symbolic input dims are fixed to the
shapes of the given .npy inputs (in graph input order), with each output's
symbols fixed to the same values (others left unknown): the static twin of
a dynamic model at one size, for checking what a symbolic module reports
against a static build.

usage: fix_symbols.py IN.onnx OUT.onnx INPUT0.npy [INPUT1.npy ...]
"""
import sys

import numpy as np
import onnx


def main():
    src, dst, inputs = sys.argv[1], sys.argv[2], sys.argv[3:]
    model = onnx.load(src)
    graph = model.graph
    initializers = {t.name for t in graph.initializer}
    real_inputs = [v for v in graph.input if v.name not in initializers]
    if len(real_inputs) != len(inputs):
        sys.exit(f"{src} has {len(real_inputs)} inputs; {len(inputs)} files given")
    values = {}
    for v, path in zip(real_inputs, inputs):
        shape = np.load(path).shape
        dims = v.type.tensor_type.shape.dim
        if len(dims) != len(shape):
            sys.exit(f"{path}: rank {len(shape)}, input '{v.name}' has rank {len(dims)}")
        for d, n in zip(dims, shape):
            if d.dim_param:
                if values.setdefault(d.dim_param, n) != n:
                    sys.exit(f"symbol {d.dim_param} is both {values[d.dim_param]} and {n}")
            elif d.dim_value != n:
                sys.exit(f"{path}: dim {n} where '{v.name}' has {d.dim_value}")
            d.Clear()
            d.dim_value = n
    for v in graph.output:
        for d in v.type.tensor_type.shape.dim:
            if d.dim_param:
                n = values.get(d.dim_param)
                d.Clear()  # a symbol no input has: left for shape inference
                if n is not None:
                    d.dim_value = n
    # Intermediate shapes are inferred again from the fixed inputs.
    del graph.value_info[:]
    onnx.save(model, dst)


if __name__ == "__main__":
    main()
