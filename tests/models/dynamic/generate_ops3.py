#!/usr/bin/python3
"""Small ONNX models exercising Tile, Pad, Resize and Einsum on symbolic
dims, with NumPy references at three sizes each (the cls-token Tile whose
repeats come from Shape(x), a Tile with constant repeats of [S,3], constant
and reflect/edge Pad, nearest and linear Resize over a symbolic batch and
over symbolic H/W, and a batched Einsum).

Writes into --out, per model NAME and size label K:
  NAME.onnx                       opset 13, symbolic dims as dim_param
  NAME.K.input.npy | NAME.K.input0.npy, .input1.npy ...
  NAME.K.output.npy               the NumPy reference (float32)
Each model is compiled once by tests/e2e/dynamic_models_test.sh and run at
every size in the VM and as AOT C.

Run with Debian's interpreter: /usr/bin/python3 generate_ops3.py --out DIR
Deterministic (fixed seeds): a second run writes identical bytes.
"""
import argparse
import math
import os

import numpy as np
import onnx
from onnx import TensorProto, helper

from generate_ops import const, save_case  # the same helpers as the first op models

OPSET = 13
F = TensorProto.FLOAT


def value(name, dims, elem=F):
    return helper.make_tensor_value_info(name, elem, dims)


def save_model(out, name, nodes, inputs, output):
    graph = helper.make_graph(nodes, name, inputs, [output])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="kiln generate_ops3.py")
    model.ir_version = 7
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, name + ".onnx"))


def randn(rng, *shape):
    return rng.standard_normal(shape).astype(np.float32)


# ---- Tile -------------------------------------------------------------------

def tile_cls_model(out):
    # The ViT class token: cls [1,1,4] tiled by [B,1,1] (B from Shape(x)),
    # put before x [B,S,4] -> [B,S+1,4]; plus x tiled by constant [1,1,2]
    # and summed over halves, so a Tile of a symbolic input runs too.
    cls = (np.arange(4, dtype=np.float32) - 1.5) / 2
    nodes = [
        const("cls", cls.reshape(1, 1, 4)),
        const("zero", np.array([0], np.int64)),
        const("one", np.array([1], np.int64)),
        const("ones2", np.array([1, 1], np.int64)),
        const("rep_x", np.array([1, 1, 2], np.int64)),
        helper.make_node("Shape", ["x"], ["shape"], name="shape"),
        helper.make_node("Gather", ["shape", "zero"], ["b"], name="batch", axis=0),
        helper.make_node("Concat", ["b", "ones2"], ["reps"], name="reps", axis=0),
        helper.make_node("Tile", ["cls", "reps"], ["cls_b"], name="tile_cls"),
        helper.make_node("Tile", ["x", "rep_x"], ["xx"], name="tile_x"),  # [B,S,8]
        helper.make_node("Split", ["xx"], ["h0", "h1"], name="halves", axis=2),
        helper.make_node("Mul", ["h0", "h1"], ["sq"], name="square"),
        helper.make_node("Concat", ["cls_b", "sq"], ["y"], name="prepend", axis=1),
    ]
    save_model(out, "tile_cls_dynseq", nodes, [value("x", ["B", "S", 4])],
               value("y", ["B", "L", 4]))
    rng = np.random.default_rng(31)
    for label, (b, s) in {"1": (1, 1), "3": (3, 2), "7": (2, 7)}.items():
        x = randn(rng, b, s, 4)
        y = np.concatenate([np.broadcast_to(cls, (b, 1, 4)), x * x], 1)
        save_case(out, "tile_cls_dynseq", label, [x], y.astype(np.float32))


def tile_model(out):
    # x [S,3] tiled by constant [2,3] -> [2S,9]; and by [S,1] from its own
    # shape (repeats computed from the symbol) -> [S*S,3], reduced to [S,3]
    # by a Reshape to [S,S,3] and a ReduceSum over the middle axis.
    nodes = [
        const("rep", np.array([2, 3], np.int64)),
        const("zero", np.array([0], np.int64)),
        const("one", np.array([1], np.int64)),
        const("minus1", np.array([-1], np.int64)),
        const("three", np.array([3], np.int64)),
        helper.make_node("Tile", ["x", "rep"], ["t"], name="tile_const"),
        helper.make_node("Shape", ["x"], ["shape"], name="shape"),
        helper.make_node("Gather", ["shape", "zero"], ["s"], name="s"),
        helper.make_node("Concat", ["s", "one"], ["reps"], name="reps", axis=0),
        helper.make_node("Tile", ["x", "reps"], ["ts"], name="tile_sym"),  # [S*S,3]
        helper.make_node("Concat", ["s", "minus1", "three"], ["shp"], name="shp", axis=0),
        helper.make_node("Reshape", ["ts", "shp"], ["ts3"], name="to3"),
        helper.make_node("ReduceSum", ["ts3", "one"], ["rs"], name="sum", keepdims=0),
        helper.make_node("Tile", ["rs", "rep"], ["rs2"], name="tile_rs"),  # [2S,9]
        helper.make_node("Add", ["t", "rs2"], ["y"], name="add"),
    ]
    save_model(out, "tile_dynseq", nodes, [value("x", ["S", 3])], value("y", ["L", 9]))
    rng = np.random.default_rng(32)
    for s in (1, 4, 9):
        x = randn(rng, s, 3)
        y = np.tile(x, (2, 3)) + np.tile(np.tile(x, (s, 1)).reshape(s, s, 3).sum(1), (2, 3))
        save_case(out, "tile_dynseq", str(s), [x], y.astype(np.float32))


# ---- Pad --------------------------------------------------------------------

def pad_model(out):
    # x [B,S,4]: constant pads (0 before/after on B, 1/2 on S, 1/0 on the
    # last axis) with value 0.5 -> [B,S+3,5].
    nodes = [
        const("pads", np.array([0, 1, 1, 0, 2, 0], np.int64)),
        const("fill", np.array(0.5, np.float32)),
        helper.make_node("Pad", ["x", "pads", "fill"], ["y"], name="pad", mode="constant"),
    ]
    save_model(out, "pad_dynseq", nodes, [value("x", ["B", "S", 4])],
               value("y", ["B", "L", 5]))
    rng = np.random.default_rng(33)
    for label, (b, s) in {"1": (1, 1), "4": (2, 4), "9": (3, 9)}.items():
        x = randn(rng, b, s, 4)
        y = np.pad(x, ((0, 0), (1, 2), (1, 0)), constant_values=0.5)
        save_case(out, "pad_dynseq", label, [x], y.astype(np.float32))


def pad_reflect_model(out):
    # x [N,2,H,W]: reflect and edge pads (1/2 on H, 2/1 on W), summed.
    nodes = [
        const("pads", np.array([0, 0, 1, 2, 0, 0, 2, 1], np.int64)),
        helper.make_node("Pad", ["x", "pads"], ["r"], name="reflect", mode="reflect"),
        helper.make_node("Pad", ["x", "pads"], ["e"], name="edge", mode="edge"),
        helper.make_node("Sub", ["r", "e"], ["y"], name="sub"),
    ]
    save_model(out, "pad_reflect_dynhw", nodes, [value("x", ["N", 2, "H", "W"])],
               value("y", ["N", 2, "Hp", "Wp"]))
    rng = np.random.default_rng(34)
    for label, (n, h, w) in {"3": (1, 3, 3), "5": (2, 5, 4), "8": (1, 8, 11)}.items():
        x = randn(rng, n, 2, h, w)
        p = ((0, 0), (0, 0), (1, 2), (2, 1))
        y = np.pad(x, p, mode="reflect") - np.pad(x, p, mode="edge")
        save_case(out, "pad_reflect_dynhw", label, [x], y.astype(np.float32))


# ---- Resize -----------------------------------------------------------------

def nearest_axis(x, axis, scale, out_len):
    # asymmetric coordinates, floor rounding (what PyTorch exports for
    # F.interpolate(mode="nearest")): source index floor(o / scale).
    src = np.minimum(np.floor(np.arange(out_len) / scale).astype(np.int64), x.shape[axis] - 1)
    return np.take(x, src, axis=axis)


def linear_axis(x, axis, scale, out_len):
    # half_pixel coordinates, clamped to [0, in - 1] at the edges.
    n = x.shape[axis]
    src = np.clip((np.arange(out_len) + 0.5) / scale - 0.5, 0, n - 1)
    i0 = np.floor(src).astype(np.int64)
    i1 = np.minimum(i0 + 1, n - 1)
    lam = (src - i0).reshape([-1 if d == axis else 1 for d in range(x.ndim)])
    return np.take(x, i0, axis=axis) * (1 - lam) + np.take(x, i1, axis=axis) * lam


def resize_nodes(scales, linear=True):
    nodes = [const("scales", np.array(scales, np.float32)),
             helper.make_node("Resize", ["x", "", "scales"], ["near"], name="nearest",
                              mode="nearest", coordinate_transformation_mode="asymmetric",
                              nearest_mode="floor")]
    if linear:
        nodes += [helper.make_node("Resize", ["x", "", "scales"], ["lin"], name="linear",
                                   mode="linear", coordinate_transformation_mode="half_pixel"),
                  helper.make_node("Add", ["near", "lin"], ["y"], name="add")]
    return nodes


def resize_reference(x, scales, linear=True):
    y = x.astype(np.float64)
    near = y
    for axis, s in enumerate(scales):
        near = nearest_axis(near, axis, s, int(math.floor(x.shape[axis] * s)))
    if not linear:
        return near
    lin = y
    for axis, s in enumerate(scales):
        lin = linear_axis(lin, axis, s, int(math.floor(x.shape[axis] * s)))
    return near + lin


def resize_batch_model(out):
    # x [N,3,8,8] upsampled 2x (nearest + bilinear): a dynamic-batch CNN's upsample.
    scales = [1.0, 1.0, 2.0, 2.0]
    save_model(out, "resize_dynbatch", resize_nodes(scales), [value("x", ["N", 3, 8, 8])],
               value("y", ["N", 3, 16, 16]))
    rng = np.random.default_rng(35)
    for n in (1, 2, 5):
        x = randn(rng, n, 3, 8, 8)
        save_case(out, "resize_dynbatch", str(n), [x],
                  resize_reference(x, scales).astype(np.float32))


def resize_hw_model(out):
    # x [N,2,H,W] scaled by [1,1,2,2]: 2H x 2W (nearest + linear).
    scales = [1.0, 1.0, 2.0, 2.0]
    save_model(out, "resize_dynhw", resize_nodes(scales), [value("x", ["N", 2, "H", "W"])],
               value("y", ["N", 2, "Ho", "Wo"]))
    rng = np.random.default_rng(36)
    for label, (n, h, w) in {"1": (1, 1, 1), "4": (2, 4, 3), "9": (1, 9, 6)}.items():
        x = randn(rng, n, 2, h, w)
        save_case(out, "resize_dynhw", label, [x],
                  resize_reference(x, scales).astype(np.float32))


def resize_frac_model(out):
    # x [N,2,H,W] scaled by [1,1,0.5,1.5]: floor(H/2) x floor(1.5W) (nearest + linear).
    scales = [1.0, 1.0, 0.5, 1.5]
    save_model(out, "resize_frac_dynhw", resize_nodes(scales), [value("x", ["N", 2, "H", "W"])],
               value("y", ["N", 2, "Ho", "Wo"]))
    rng = np.random.default_rng(37)
    for label, (n, h, w) in {"2": (1, 2, 1), "5": (2, 5, 3), "9": (1, 9, 7)}.items():
        x = randn(rng, n, 2, h, w)
        save_case(out, "resize_frac_dynhw", label, [x],
                  resize_reference(x, scales).astype(np.float32))


# ---- Einsum -----------------------------------------------------------------

def einsum_model(out):
    # a [B,S,4], b [B,T,4]: "bsd,btd->bst" (attention scores), then "bst->bs"
    # (one operand, summed) added back as a column.
    nodes = [
        helper.make_node("Einsum", ["a", "b"], ["st"], name="scores", equation="bsd,btd->bst"),
        helper.make_node("Einsum", ["st"], ["rows"], name="rows", equation="bst->bs"),
        const("axes", np.array([2], np.int64)),
        helper.make_node("Unsqueeze", ["rows", "axes"], ["col"], name="col"),
        helper.make_node("Add", ["st", "col"], ["y"], name="add"),
    ]
    save_model(out, "einsum_dynseq", nodes,
               [value("a", ["B", "S", 4]), value("b", ["B", "T", 4])], value("y", ["B", "S", "T"]))
    rng = np.random.default_rng(38)
    for label, (b, s, t) in {"1": (1, 1, 1), "3": (2, 3, 5), "8": (3, 8, 2)}.items():
        a = randn(rng, b, s, 4)
        c = randn(rng, b, t, 4)
        st = np.einsum("bsd,btd->bst", a.astype(np.float64), c.astype(np.float64))
        y = st + st.sum(2, keepdims=True)
        save_case(out, "einsum_dynseq", label, [a, c], y.astype(np.float32))


MODELS = {"tile_cls_dynseq": tile_cls_model, "tile_dynseq": tile_model,
          "pad_dynseq": pad_model, "pad_reflect_dynhw": pad_reflect_model,
          "resize_dynbatch": resize_batch_model, "resize_dynhw": resize_hw_model,
          "resize_frac_dynhw": resize_frac_model, "einsum_dynseq": einsum_model}


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", required=True)
    ap.add_argument("--only", default="", help="comma-separated model names")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    names = [n for n in args.only.split(",") if n] or list(MODELS)
    for name in names:
        MODELS[name](args.out)
        print(f"{name}: written")


if __name__ == "__main__":
    main()
