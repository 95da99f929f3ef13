#!/usr/bin/python3
"""Describes the exported dynamic-shape graphs: op counts, the symbols on the
graph inputs/outputs, and the nodes that compute shapes at run time.

  /usr/bin/python3 tests/models/dynamic/describe.py FILE.onnx [FILE.onnx ...]

A value is "shape-valued" when it comes from Shape/Size, or from a node whose
non-constant inputs are all shape-valued (constants: initializers and Constant
outputs). Each shape-valued value is printed with its symbolic value, derived
from the declared input dims and ONNX shape inference (folded where the dims
are static), so the output shows what a compiler should be able to fold and
what must stay a run-time expression of the symbols. "Consumers" are nodes
that take a shape-valued input but produce ordinary data (Reshape with a
computed shape, Expand, ConstantOfShape, or float math on a shape value).
"""
import collections
import sys

import onnx
from onnx import helper, numpy_helper

# Ops that typically mark run-time shape logic even when fed by constants.
SHAPEY = {"Shape", "Size", "ConstantOfShape", "Range", "Where", "Equal",
          "Expand", "Tile", "NonZero", "If", "Loop", "Scan"}


def dims(vi):
    return [d.dim_param if d.dim_param else d.dim_value
            for d in vi.type.tensor_type.shape.dim]


def sym_binary(op, a, b):
    """Elementwise on scalars that are ints or symbolic strings; folds ints."""
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if op == "Div":
            return int(a / b) if isinstance(a, int) and isinstance(b, int) else a / b
        return {"Add": a + b, "Sub": a - b, "Mul": a * b, "Pow": a ** b}[op]
    sign = {"Add": "+", "Sub": "-", "Mul": "*", "Div": "/", "Pow": "^"}[op]
    return f"({a}{sign}{b})"


def sym_eval(node, ins, a, shapes):
    """Symbolic value (list of int/str, or a scalar) of a shape-valued node, or None."""
    op = node.op_type
    if op == "Shape":
        return shapes.get(node.input[0])
    if op == "Size":
        s = shapes.get(node.input[0])
        return None if s is None else "*".join(map(str, s))
    if any(v is None for v in ins):
        return None
    if op == "Gather" and not isinstance(ins[1], list):
        return ins[0][int(ins[1])]
    if op == "Unsqueeze":
        return [ins[0]] if not isinstance(ins[0], list) else None
    if op == "Concat":
        return sum((v if isinstance(v, list) else [v] for v in ins), [])
    if op in ("Cast", "Identity", "Squeeze"):
        return ins[0]
    if op in ("Add", "Sub", "Mul", "Div", "Pow"):
        x, y = ins
        if isinstance(x, list) and isinstance(y, list):
            return [sym_binary(op, p, q) for p, q in zip(x, y)]
        if isinstance(x, list):
            return [sym_binary(op, p, y) for p in x]
        if isinstance(y, list):
            return [sym_binary(op, x, q) for q in y]
        return sym_binary(op, x, y)
    return None


def const_value(arr):
    vals = arr.tolist()
    if isinstance(vals, list):
        return [int(v) if float(v).is_integer() else v for v in vals]
    return int(vals) if float(vals).is_integer() else vals


def describe(path):
    model = onnx.load(path)
    graph = model.graph
    inferred = onnx.shape_inference.infer_shapes(model).graph
    shapes = {vi.name: dims(vi) for vi in list(inferred.value_info) +
              list(inferred.input) + list(inferred.output)}
    print(f"== {path}")
    for vi in graph.input:
        print(f"  input  {vi.name}: {dims(vi)}")
    for vi in graph.output:
        print(f"  output {vi.name}: {dims(vi)} (shape inference: {shapes.get(vi.name)})")
    counts = collections.Counter(n.op_type for n in graph.node)
    print("  ops: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))

    const = {i.name: const_value(numpy_helper.to_array(i)) for i in graph.initializer
             if numpy_helper.to_array(i).size <= 8}
    big_const = {i.name for i in graph.initializer}
    shape_vals = {}  # name -> symbolic value
    chain, consumers = [], []
    for node in graph.node:
        a = {x.name: helper.get_attribute_value(x) for x in node.attribute}
        if node.op_type == "Constant":
            const[node.output[0]] = const_value(numpy_helper.to_array(a["value"]))
            continue
        live = [n for n in node.input if n and n not in const and n not in big_const]
        is_shape = node.op_type in ("Shape", "Size") or (
            live and all(n in shape_vals for n in live))
        if is_shape:
            ins = [shape_vals.get(n, const.get(n)) for n in node.input]
            val = sym_eval(node, ins, a, shapes)
            for o in node.output:
                shape_vals[o] = val
            chain.append(f"{node.op_type}({', '.join(node.input)}) -> {val}")
        elif any(n in shape_vals for n in node.input):
            slots = [f"in{i}={shape_vals[n]}" for i, n in enumerate(node.input) if n in shape_vals]
            consumers.append(f"{node.name} [{node.op_type}] {' '.join(slots)}")
    print(f"  shape-valued nodes: {len(chain)}")
    for line in chain:
        print("    " + line)
    print(f"  consumers of shape values: {len(consumers)}")
    for line in consumers:
        print("    " + line)
    const_reshapes = [f"{n.name} shape={const.get(n.input[1])}" for n in graph.node
                      if n.op_type == "Reshape" and n.input[1] in const]
    if const_reshapes:
        print(f"  Reshape with a constant shape: {len(const_reshapes)}")
        for line in const_reshapes:
            print("    " + line)
    flagged = sorted(op for op in counts if op in SHAPEY)
    print("  shape/control ops present: " + (", ".join(flagged) if flagged else "none"))


def main(argv):
    for path in argv:
        describe(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
