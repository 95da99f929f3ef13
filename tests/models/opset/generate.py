#!/usr/bin/env python3
"""Models in the forms that ONNX opsets 18 to 21 introduced, for the ops Kiln
supports, and bfloat16 models (which NumPy cannot compute), with reference
outputs from ONNX Runtime (npm onnxruntime-node, the version pinned in
benchmarks/models/ort/package.json).

Debian's onnx 1.12 knows opsets up to 17 only, so the models are written with
onnx.helper and an explicit opset import, without its checker; ONNX Runtime
validates them against its own schemas when it loads them.

Writes, per model NAME: NAME.onnx, NAME.input<i>.npy, NAME.output<i>.npy (ORT's
outputs), and refused/NAME.onnx for forms Kiln refuses, with the words the
refusal must contain in refused/expected.txt.

usage: /usr/bin/python3 tests/models/opset/generate.py   (after
       bash benchmarks/models/ort/install.sh)
"""
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
ORT_RUN = os.path.join(ROOT, "benchmarks", "models", "ort", "ort_run.js")
F = TensorProto.FLOAT
RNG = np.random.default_rng(18)


def rand(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def model(opset, nodes, inputs, outputs, initializers=()):
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(initializers))
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                          producer_name="kiln tests/models/opset/generate.py")
    m.ir_version = 8 if opset < 21 else 10
    return m


def vinfo(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def const(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def save(name, m, inputs, out_dir=HERE):
    """Writes NAME.onnx and its inputs; references come from ORT."""
    path = os.path.join(out_dir, name + ".onnx")
    with open(path, "wb") as f:
        f.write(m.SerializeToString())
    if os.path.basename(out_dir) == "refused":
        return
    args = ["node", ORT_RUN, path]
    for i, x in enumerate(inputs):
        p = os.path.join(out_dir, f"{name}.input{i}.npy")
        np.save(p, x)
        args += ["--input", p]
    for i in range(len(m.graph.output)):
        args += ["--output", os.path.join(out_dir, f"{name}.output{i}.npy")]
    subprocess.run(args, check=True)


def reduce_models():
    x = rand(2, 3, 4)
    for op in ["ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
               "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"]:
        xin = np.abs(x) + 0.5 if op == "ReduceLogSum" else x
        # Axes as an input (opset 18), keepdims 0.
        m = model(18, [helper.make_node(op, ["x", "axes"], ["y"], keepdims=0)],
                  [vinfo("x", F, [2, 3, 4])], [vinfo("y", F, None)],
                  [const("axes", np.array([0, -1], np.int64))])
        save(f"reduce18_{op[6:].lower()}_axes_input", m, [xin])
    # No axes: every axis; with noop_with_empty_axes=1: the identity.
    m = model(18, [helper.make_node("ReduceMean", ["x"], ["y"])],
              [vinfo("x", F, [2, 3, 4])], [vinfo("y", F, None)])
    save("reduce18_mean_no_axes", m, [x])
    m = model(18, [helper.make_node("ReduceMax", ["x"], ["y"], noop_with_empty_axes=1)],
              [vinfo("x", F, [2, 3, 4])], [vinfo("y", F, None)])
    save("reduce18_max_noop_empty_axes", m, [x])
    # ReduceMax/ReduceMin over bool (opset 20).
    b = RNG.random((3, 5)) > 0.5
    m = model(20, [helper.make_node("ReduceMax", ["x", "axes"], ["y"]),
                   helper.make_node("ReduceMin", ["x", "axes"], ["z"])],
              [vinfo("x", TensorProto.BOOL, [3, 5])],
              [vinfo("y", TensorProto.BOOL, None), vinfo("z", TensorProto.BOOL, None)],
              [const("axes", np.array([1], np.int64))])
    save("reduce20_max_min_bool", m, [b])


def movement_models():
    x = rand(2, 7)
    m = model(18, [helper.make_node("Split", ["x"], ["a", "b", "c"], axis=1, num_outputs=3)],
              [vinfo("x", F, [2, 7])], [vinfo(n, F, None) for n in "abc"])
    save("split18_num_outputs", m, [x])
    x = rand(1, 2, 4, 5)
    for mode in ["constant", "reflect", "edge"]:
        nodes = [helper.make_node("Pad", ["x", "pads", "value", "axes"], ["y"], mode=mode)]
        m = model(18, nodes, [vinfo("x", F, [1, 2, 4, 5])], [vinfo("y", F, None)],
                  [const("pads", np.array([1, 2, 2, 1], np.int64)),
                   const("value", np.array(0.5, np.float32)),
                   const("axes", np.array([-2, 3], np.int64))])
        save(f"pad18_axes_{mode}", m, [x])
    m = model(19, [helper.make_node("Pad", ["x", "pads"], ["y"], mode="wrap")],
              [vinfo("x", F, [1, 2, 4, 5])], [vinfo("y", F, None)],
              [const("pads", np.array([0, 0, 1, 2, 0, 0, 2, 3], np.int64))])
    save("pad19_wrap", m, [x])


def resize_models():
    x = rand(1, 2, 4, 6)
    empty = const("roi", np.array([], np.float32))
    m = model(18, [helper.make_node("Resize", ["x", "roi", "", "sizes"], ["y"], mode="linear",
                                    keep_aspect_ratio_policy="not_larger", axes=[2, 3])],
              [vinfo("x", F, [1, 2, 4, 6])], [vinfo("y", F, None)],
              [empty, const("sizes", np.array([7, 7], np.int64))])
    save("resize18_keep_aspect_not_larger", m, [x])
    m = model(18, [helper.make_node("Resize", ["x", "roi", "", "sizes"], ["y"], mode="nearest",
                                    keep_aspect_ratio_policy="not_smaller", axes=[2, 3])],
              [vinfo("x", F, [1, 2, 4, 6])], [vinfo("y", F, None)],
              [empty, const("sizes", np.array([7, 7], np.int64))])
    save("resize18_keep_aspect_not_smaller", m, [x])
    m = model(18, [helper.make_node("Resize", ["x", "roi", "scales"], ["y"], mode="linear",
                                    axes=[2, 3])],
              [vinfo("x", F, [1, 2, 4, 6])], [vinfo("y", F, None)],
              [empty, const("scales", np.array([2.0, 1.5], np.float32))])
    save("resize18_axes", m, [x])
    m = model(19, [helper.make_node("Resize", ["x", "roi", "scales"], ["y"], mode="linear",
                                    coordinate_transformation_mode="half_pixel_symmetric")],
              [vinfo("x", F, [1, 2, 4, 6])], [vinfo("y", F, None)],
              [empty, const("scales", np.array([1, 1, 1.5, 0.75], np.float32))])
    save("resize19_half_pixel_symmetric", m, [x])
    m = model(18, [helper.make_node("Resize", ["x", "roi", "scales"], ["y"], mode="linear",
                                    antialias=1)],
              [vinfo("x", F, [1, 2, 4, 6])], [vinfo("y", F, None)],
              [empty, const("scales", np.array([1, 1, 2.0, 2.0], np.float32))])
    save("resize18_antialias_upscale", m, [x])


def scatter_pool_models():
    data = rand(3, 4)
    idx = np.array([[1, 0, 2, 0], [1, 1, 0, 2]], np.int64)
    upd = rand(2, 4)
    for red in ["max", "min"]:
        m = model(18, [helper.make_node("ScatterElements", ["x", "i", "u"], ["y"], axis=0,
                                        reduction=red)],
                  [vinfo("x", F, [3, 4]), vinfo("u", F, [2, 4])], [vinfo("y", F, None)],
                  [const("i", idx)])
        save(f"scatter_elements18_{red}", m, [data, upd])
        m = model(18, [helper.make_node("ScatterND", ["x", "i", "u"], ["y"], reduction=red)],
                  [vinfo("x", F, [3, 4]), vinfo("u", F, [3, 4])], [vinfo("y", F, None)],
                  [const("i", np.array([[1], [0], [1]], np.int64))])
        save(f"scatter_nd18_{red}", m, [data, rand(3, 4)])
    x = rand(1, 2, 7, 7)
    m = model(18, [helper.make_node("LpPool", ["x"], ["y"], kernel_shape=[3, 3], strides=[2, 2],
                                    p=2, ceil_mode=1)],
              [vinfo("x", F, [1, 2, 7, 7])], [vinfo("y", F, None)])
    save("lppool18_ceil_mode", m, [x])
    m = model(19, [helper.make_node("AveragePool", ["x"], ["y"], kernel_shape=[2, 2],
                                    dilations=[2, 2], strides=[1, 1])],
              [vinfo("x", F, [1, 2, 7, 7])], [vinfo("y", F, None)])
    save("averagepool19_dilations", m, [x])


def math_models():
    x = rand(2, 3, 5)
    m = model(18, [helper.make_node("Mish", ["x"], ["y"])],
              [vinfo("x", F, [2, 3, 5])], [vinfo("y", F, None)])
    save("mish18", m, [x])
    for approx in ["none", "tanh"]:
        m = model(20, [helper.make_node("Gelu", ["x"], ["y"], approximate=approx)],
                  [vinfo("x", F, [2, 3, 5])], [vinfo("y", F, None)])
        save(f"gelu20_{approx}", m, [x])
    m = model(19, [helper.make_node("Cast", ["x"], ["y"], to=TensorProto.INT32, saturate=1)],
              [vinfo("x", F, [2, 3, 5])], [vinfo("y", TensorProto.INT32, None)])
    save("cast19_saturate_attr", m, [x * 10])
    x = rand(2, 6, 3, 3)
    m = model(18, [helper.make_node("GroupNormalization", ["x", "s", "b"], ["y"], num_groups=3,
                                    epsilon=1e-3)],
              [vinfo("x", F, [2, 6, 3, 3])], [vinfo("y", F, None)],
              [const("s", rand(3)), const("b", rand(3))])
    save("group_norm18", m, [x])
    m = model(21, [helper.make_node("GroupNormalization", ["x", "s", "b"], ["y"], num_groups=3,
                                    epsilon=1e-3)],
              [vinfo("x", F, [2, 6, 3, 3])], [vinfo("y", F, None)],
              [const("s", rand(6)), const("b", rand(6))])
    save("group_norm21", m, [x])
    # Opset 21 forms whose change is new element types only.
    m = model(21, [helper.make_node("Transpose", ["x"], ["t"], perm=[0, 2, 1, 3]),
                   helper.make_node("Flatten", ["t"], ["f"], axis=2),
                   helper.make_node("Unsqueeze", ["f", "ax"], ["u"]),
                   helper.make_node("Squeeze", ["u", "ax"], ["s"]),
                   helper.make_node("Shape", ["s"], ["sh"]),
                   helper.make_node("Reshape", ["s", "sh"], ["y"])],
              [vinfo("x", F, [2, 6, 3, 3])], [vinfo("y", F, None)],
              [const("ax", np.array([0], np.int64))])
    save("movement21", m, [x])


def grid_dft_models():
    x = rand(1, 2, 4, 5)
    grid = (RNG.random((1, 3, 4, 2)) * 2.2 - 1.1).astype(np.float32)
    for mode in ["linear", "nearest", "cubic"]:
        m = model(20, [helper.make_node("GridSample", ["x", "g"], ["y"], mode=mode,
                                        align_corners=0)],
                  [vinfo("x", F, [1, 2, 4, 5]), vinfo("g", F, [1, 3, 4, 2])],
                  [vinfo("y", F, None)])
        save(f"grid_sample20_{mode}", m, [x, grid])
    sig = rand(2, 8, 1)
    m = model(20, [helper.make_node("DFT", ["x", "", "axis"], ["y"])],
              [vinfo("x", F, [2, 8, 1])], [vinfo("y", F, None)],
              [const("axis", np.array(1, np.int64))])
    save("dft20_axis_input", m, [sig])
    m = model(20, [helper.make_node("DFT", ["x", "len", "axis"], ["y"], onesided=1)],
              [vinfo("x", F, [2, 8, 1])], [vinfo("y", F, None)],
              [const("len", np.array(6, np.int64)), const("axis", np.array(-2, np.int64))])
    save("dft20_length_onesided", m, [sig])


def bitwise_models():
    """BitwiseAnd/Or/Xor/Not (opset 18) on every integer width, signed and
    unsigned, with broadcasting; values span each dtype's whole range (the
    sign bit and the top bit of uint64 included). Its own generator, so the
    models above keep their inputs."""
    rng = np.random.default_rng(1818)
    cases = [(np.int8, TensorProto.INT8), (np.uint16, TensorProto.UINT16),
             (np.int32, TensorProto.INT32), (np.uint64, TensorProto.UINT64),
             (np.int64, TensorProto.INT64), (np.uint8, TensorProto.UINT8)]
    for np_type, elem in cases:
        info = np.iinfo(np_type)
        a = rng.integers(info.min, info.max, size=(2, 3, 4), dtype=np_type, endpoint=True)
        b = rng.integers(info.min, info.max, size=(3, 1), dtype=np_type, endpoint=True)
        name = np.dtype(np_type).name
        for op in ["BitwiseAnd", "BitwiseOr", "BitwiseXor"]:
            m = model(18, [helper.make_node(op, ["a", "b"], ["y"])],
                      [vinfo("a", elem, [2, 3, 4]), vinfo("b", elem, [3, 1])],
                      [vinfo("y", elem, None)])
            save(f"{op.lower()}18_{name}_broadcast", m, [a, b])
        m = model(18, [helper.make_node("BitwiseNot", ["a"], ["y"])],
                  [vinfo("a", elem, [2, 3, 4])], [vinfo("y", elem, None)])
        save(f"bitwisenot18_{name}", m, [a])
    # A symbolic batch: the ops broadcast as Add does (docs/dynamic-shapes.md).
    a = rng.integers(0, 255, size=(5, 3), dtype=np.uint8, endpoint=True)
    b = rng.integers(0, 9, size=(3,), dtype=np.uint8)
    m = model(18, [helper.make_node("BitwiseXor", ["a", "b"], ["x"]),
                   helper.make_node("BitShift", ["x", "b"], ["s"], direction="LEFT"),
                   helper.make_node("BitwiseNot", ["s"], ["y"])],
              [vinfo("a", TensorProto.UINT8, ["N", 3]), vinfo("b", TensorProto.UINT8, [3])],
              [vinfo("y", TensorProto.UINT8, ["N", 3])])
    save("bitwise18_symbolic_batch", m, [a, b])


def runtime_dims_models():
    """Slice and Reduce* whose parameters are graph inputs and whose outputs
    declare no shape: the kernels report the dims they find (data symbols),
    also feeding an op after them. Its own generator, so the models above
    keep their inputs."""
    rng = np.random.default_rng(1819)
    i64 = TensorProto.INT64
    x = rng.standard_normal((4, 6, 5)).astype(np.float32)
    params = [np.array(v, np.int64) for v in ([-1, 1], [-5, 6], [0, 2], [-2, 2])]
    m = model(18, [helper.make_node("Slice", ["x", "s", "e", "a", "t"], ["y"])],
              [vinfo("x", F, [4, 6, 5])] + [vinfo(n, i64, [2]) for n in "seat"],
              [vinfo("y", F, None)])
    save("slice18_runtime_params_undeclared", m, [x] + params)
    # A slice taken whole on one axis, then an op over the reported dims.
    m = model(18, [helper.make_node("Slice", ["x", "s", "e"], ["z"]),
                   helper.make_node("Relu", ["z"], ["y"])],
              [vinfo("x", F, [4, 6, 5]), vinfo("s", i64, [3]), vinfo("e", i64, [3])],
              [vinfo("y", F, None)])
    save("slice18_runtime_then_relu", m,
         [x, np.array([1, 0, -3], np.int64), np.array([3, 100, 5], np.int64)])
    m = model(18, [helper.make_node("ReduceSum", ["x", "a"], ["y"], keepdims=1)],
              [vinfo("x", F, [4, 6, 5]), vinfo("a", i64, [1])], [vinfo("y", F, None)])
    save("reducesum18_runtime_axes_keepdims_undeclared", m, [x, np.array([1], np.int64)])
    m = model(18, [helper.make_node("ReduceMax", ["x", "a"], ["y"], keepdims=0)],
              [vinfo("x", F, [4, 6, 5]), vinfo("a", i64, [2])], [vinfo("y", F, None)])
    save("reducemax18_runtime_axes_undeclared", m, [x, np.array([0, -1], np.int64)])
    # Reshape/Squeeze/Unsqueeze: shape_resolve reports the dims, the data is
    # the input's; an Add after the Squeeze broadcasts a reported dim
    # against a constant (a run-time requirement).
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    m = model(18, [helper.make_node("Reshape", ["x", "s"], ["y"])],
              [vinfo("x", F, [2, 3, 4]), vinfo("s", i64, [3])], [vinfo("y", F, None)])
    save("reshape18_runtime_shape_undeclared", m, [x, np.array([0, -1, 2], np.int64)])
    x = rng.standard_normal((1, 3, 1, 5)).astype(np.float32)
    bias = rng.standard_normal((5,)).astype(np.float32)
    m = model(18, [helper.make_node("Squeeze", ["x", "a"], ["z"]),
                   helper.make_node("Add", ["z", "b"], ["y"])],
              [vinfo("x", F, [1, 3, 1, 5]), vinfo("a", i64, [2])], [vinfo("y", F, None)],
              [const("b", bias)])
    save("squeeze18_runtime_axes_then_add", m, [x, np.array([0, -2], np.int64)])
    x = rng.standard_normal((3, 4, 5)).astype(np.float32)
    m = model(18, [helper.make_node("Unsqueeze", ["x", "a"], ["y"])],
              [vinfo("x", F, [3, 4, 5]), vinfo("a", i64, [2])], [vinfo("y", F, None)])
    save("unsqueeze18_runtime_axes_undeclared", m, [x, np.array([-1, 1], np.int64)])
    # TopK with a run-time k: topk_bounded reports k for both outputs.
    x = rng.standard_normal((3, 7, 2)).astype(np.float32)
    m = model(18, [helper.make_node("TopK", ["x", "k"], ["v", "i"], axis=1, largest=0)],
              [vinfo("x", F, [3, 7, 2]), vinfo("k", i64, [1])],
              [vinfo("v", F, None), vinfo("i", i64, None)])
    save("topk18_runtime_k_undeclared", m, [x, np.array([4], np.int64)])
    # Split by run-time sizes (one of them 0), then an op on a part.
    x = rng.standard_normal((2, 7, 3)).astype(np.float32)
    m = model(18, [helper.make_node("Split", ["x", "s"], ["a", "b", "z"], axis=1),
                   helper.make_node("Neg", ["b"], ["nb"])],
              [vinfo("x", F, [2, 7, 3]), vinfo("s", i64, [3])],
              [vinfo("a", F, None), vinfo("nb", F, None), vinfo("z", F, None)])
    save("split18_runtime_sizes_undeclared", m, [x, np.array([2, 5, 0], np.int64)])


def unbounded_models():
    """Outputs sized by run-time data with no bound the compiler can give
    (ConstantOfShape, Expand, Resize by run-time scales or sizes, no declared
    output shape): the tensors go to the workspace's tail and the run grows
    what it needs, in the VM and in AOT bundles (unbounded/)."""
    out = os.path.join(HERE, "unbounded")
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(1820)
    i64 = TensorProto.INT64
    # An intermediate of run-time dims (the tail), then an output broadcast
    # against a static input.
    value = helper.make_tensor("v", F, [1], [1.5])
    x = rng.standard_normal((4,)).astype(np.float32)
    m = model(18, [helper.make_node("ConstantOfShape", ["s"], ["c"], value=value),
                   helper.make_node("Add", ["c", "x"], ["y"])],
              [vinfo("s", i64, [3]), vinfo("x", F, [4])], [vinfo("y", F, None)])
    save("constantofshape18_runtime_then_add", m, [np.array([2, 3, 4], np.int64), x], out)
    value = helper.make_tensor("v", i64, [1], [7])
    m = model(18, [helper.make_node("ConstantOfShape", ["s"], ["y"], value=value)],
              [vinfo("s", i64, [2])], [vinfo("y", i64, None)])
    save("constantofshape18_runtime_int64", m, [np.array([2, 5], np.int64)], out)
    x = rng.standard_normal((3, 1)).astype(np.float32)
    m = model(18, [helper.make_node("Expand", ["x", "s"], ["e"]),
                   helper.make_node("Mul", ["e", "two"], ["y"])],
              [vinfo("x", F, [3, 1]), vinfo("s", i64, [3])], [vinfo("y", F, None)],
              [const("two", np.array(2.0, np.float32))])
    save("expand18_runtime_then_mul", m, [x, np.array([2, 1, 4], np.int64)], out)
    x = rng.standard_normal((1, 2, 4, 6)).astype(np.float32)
    m = model(18, [helper.make_node("Resize", ["x", "", "sc"], ["r"], mode="linear"),
                   helper.make_node("Relu", ["r"], ["y"])],
              [vinfo("x", F, [1, 2, 4, 6]), vinfo("sc", F, [4])], [vinfo("y", F, None)])
    save("resize18_runtime_scales_then_relu", m,
         [x, np.array([1, 1, 0.5, 1.5], np.float32)], out)
    x = rng.standard_normal((1, 2, 3, 4)).astype(np.float32)
    m = model(18, [helper.make_node("Resize", ["x", "", "", "sz"], ["y"], mode="nearest")],
              [vinfo("x", F, [1, 2, 3, 4]), vinfo("sz", i64, [4])], [vinfo("y", F, None)])
    save("resize18_runtime_sizes_nearest", m, [x, np.array([1, 2, 7, 5], np.int64)], out)
    tail_reuse_model(out)
    loop_scan_count_model(out)
    spectral_runtime_models(out)


def tail_reuse_model(out):
    """A small backbone over an image resized by run-time scales: every
    activation lives in the tail, two resolutions of them, a residual and a
    branch keeping several alive at once (the tail reuses dead tensors'
    bytes). A second run at other scales with the same module."""
    rng = np.random.default_rng(1822)
    shapes = [(6, 3, 3, 3), (6, 6, 3, 3), (6, 6, 1, 1), (8, 6, 3, 3), (8, 8, 3, 3)]
    weights = [const("w%d" % k, (rng.standard_normal(s) * 0.3).astype(np.float32))
               for k, s in enumerate(shapes)]
    conv = lambda x, k, y, **kw: helper.make_node("Conv", [x, "w%d" % k], [y], **kw)
    # The batch and channel scales are constants (as exporters write them),
    # so only height and width are found during the run.
    nodes = [helper.make_node("Concat", ["ones", "hw"], ["sc"], axis=0),
             helper.make_node("Resize", ["x", "", "sc"], ["r"], mode="linear"),
             conv("r", 0, "c0", pads=[1, 1, 1, 1]), helper.make_node("Relu", ["c0"], ["a0"]),
             conv("a0", 1, "c1", pads=[1, 1, 1, 1]), helper.make_node("Relu", ["c1"], ["a1"]),
             conv("a0", 2, "b1"),
             helper.make_node("Add", ["a1", "b1"], ["s1"]),
             helper.make_node("Add", ["s1", "a0"], ["s2"]),
             helper.make_node("MaxPool", ["s2"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
             conv("p", 3, "c3", pads=[1, 1, 1, 1]), helper.make_node("Relu", ["c3"], ["a3"]),
             conv("a3", 4, "c4", pads=[1, 1, 1, 1]),
             helper.make_node("Add", ["c4", "a3"], ["y"])]
    m = model(18, nodes, [vinfo("x", F, [1, 3, 8, 10]), vinfo("hw", F, [2])],
              [vinfo("y", F, None)], weights + [const("ones", np.ones(2, np.float32))])
    x = rng.standard_normal((1, 3, 8, 10)).astype(np.float32)
    save("resize18_runtime_scales_backbone", m, [x, np.array([2, 1.5], np.float32)], out)
    save_second_run("resize18_runtime_scales_backbone", m,
                    [x, np.array([3.5, 2.5], np.float32)], out)


def loop_body(extra_nodes=()):
    """Loop body: carries a [3] float through `+ step`, scans its square; the
    condition passes through (as ONNX's Range expands)."""
    i64 = TensorProto.INT64
    return helper.make_graph(
        [helper.make_node("Identity", ["cond"], ["cond_out"]),
         helper.make_node("Add", ["prev", "step"], ["cur"]),
         helper.make_node("Mul", ["prev", "prev"], ["sq"])] + list(extra_nodes),
        "body",
        [vinfo("i", i64, []), vinfo("cond", TensorProto.BOOL, []), vinfo("prev", F, [3])],
        [vinfo("cond_out", TensorProto.BOOL, []), vinfo("cur", F, [3]), vinfo("sq", F, [3])])


def loop_scan_count_model(out):
    """A Loop whose trip count and condition are run-time values (n, n > 0)
    with a scan output and no declared shapes: the scan length is found
    before the loop. Second run: no iterations at all."""
    i64 = TensorProto.INT64
    nodes = [helper.make_node("Greater", ["n", "zero"], ["go"]),
             helper.make_node("Loop", ["n", "go", "x"], ["last", "rows"], body=loop_body())]
    m = model(17, nodes, [vinfo("n", i64, []), vinfo("x", F, [3]), vinfo("step", F, [3])],
              [vinfo("rows", F, None), vinfo("last", F, None)],
              [const("zero", np.array(0, np.int64))])
    x = np.array([1, 2, 3], np.float32)
    step = np.array([0.5, -1, 2], np.float32)
    save("loop17_runtime_trip_scan", m, [np.array(5, np.int64), x, step], out)
    save_second_run("loop17_runtime_trip_scan", m, [np.array(0, np.int64), x, step], out)


def save_second_run(name, m, inputs, out):
    """NAME.second.input<i>.npy / .output<i>.npy: another run of NAME's model
    (one module, other run-time sizes), references from ORT."""
    save(name + ".second", m, inputs, out)
    os.remove(os.path.join(out, name + ".second.onnx"))


def spectral_runtime_models(out):
    """The audio front end with run-time sizes and no declared output shape:
    STFT's frame count and bin count, MelWeightMatrix's both dims come from
    scalar inputs (reported by stft_dims / mel_weight_matrix_dims)."""
    rng = np.random.default_rng(1721)
    i64, i32 = TensorProto.INT64, TensorProto.INT32
    # frame_step and frame_length at run time; the spectrum squared after.
    m = model(17, [helper.make_node("STFT", ["x", "step", "", "fl"], ["s"]),
                   helper.make_node("Mul", ["s", "s"], ["y"])],
              [vinfo("x", F, [1, 64, 1]), vinfo("step", i64, []), vinfo("fl", i64, [])],
              [vinfo("y", F, None)])
    x = rng.standard_normal((1, 64, 1)).astype(np.float32)
    save("stft17_runtime_step_length", m, [x, np.array(6, np.int64), np.array(16, np.int64)], out)
    save_second_run("stft17_runtime_step_length", m,
                    [x, np.array(5, np.int64), np.array(21, np.int64)], out)
    # A window fixes the bins; the frame count follows an int32 step.
    m = model(17, [helper.make_node("STFT", ["x", "step", "w"], ["y"], onesided=0)],
              [vinfo("x", F, [2, 50, 1]), vinfo("step", i32, []), vinfo("w", F, [12])],
              [vinfo("y", F, None)])
    x = rng.standard_normal((2, 50, 1)).astype(np.float32)
    w = np.hanning(12).astype(np.float32)
    save("stft17_window_runtime_step", m, [x, np.array(4, np.int32), w], out)
    save_second_run("stft17_window_runtime_step", m, [x, np.array(7, np.int32), w], out)
    m = model(17, [helper.make_node("MelWeightMatrix", ["n", "dft", "rate", "lo", "hi"], ["y"])],
              [vinfo("n", i64, []), vinfo("dft", i64, []), vinfo("rate", i64, []),
               vinfo("lo", F, []), vinfo("hi", F, [])], [vinfo("y", F, None)])
    save("melweightmatrix17_runtime_sizes", m,
         [np.array(8, np.int64), np.array(32, np.int64), np.array(16000, np.int64),
          np.array(0.0, np.float32), np.array(8000.0, np.float32)], out)
    save_second_run("melweightmatrix17_runtime_sizes", m,
                    [np.array(12, np.int64), np.array(63, np.int64), np.array(16000, np.int64),
                     np.array(100.0, np.float32), np.array(7000.0, np.float32)], out)


def refused_models():
    out = os.path.join(HERE, "refused")
    os.makedirs(out, exist_ok=True)
    expected = []
    x = [vinfo("x", F, [1, 2, 4, 6])]
    y = [vinfo("y", F, None)]
    empty = const("roi", np.array([], np.float32))
    m = model(18, [helper.make_node("Resize", ["x", "roi", "scales"], ["y"], mode="linear",
                                    antialias=1)], x, y,
              [empty, const("scales", np.array([1, 1, 0.5, 0.5], np.float32))])
    save("resize18_antialias_downscale", m, [], out)
    expected.append(("resize18_antialias_downscale", "antialias"))
    m = model(21, [helper.make_node("QuantizeLinear", ["x", "s"], ["y"], block_size=2, axis=3)],
              x, [vinfo("y", TensorProto.UINT8, None)], [const("s", np.ones((1, 2, 4, 3), np.float32))])
    save("quantize21_block_size", m, [], out)
    expected.append(("quantize21_block_size", "block_size"))
    m = model(22, [helper.make_node("Relu", ["x"], ["y"])], x, y)
    save("opset22", m, [], out)
    expected.append(("opset22", "opsets 1 to 21"))
    m = model(18, [helper.make_node("Col2Im", ["x", "i", "b"], ["y"])],
              [vinfo("x", F, [1, 4, 6])], y,
              [const("i", np.array([3, 4], np.int64)), const("b", np.array([2, 2], np.int64))])
    save("col2im18", m, [], out)
    expected.append(("col2im18", "Col2Im"))
    # ONNX types BitwiseAnd for integers only; a float one is refused, not bit-cast.
    m = model(18, [helper.make_node("BitwiseAnd", ["x", "x"], ["y"])], x, y)
    save("bitwiseand18_float", m, [], out)
    expected.append(("bitwiseand18_float", "dtype float32 is not supported by this op"))
    # A scan output counted during the run and read again lies in the
    # workspace's tail, which the Loop's body cannot reach yet.
    i64 = TensorProto.INT64
    m = model(17, [helper.make_node("Greater", ["n", "zero"], ["go"]),
                   helper.make_node("Loop", ["n", "go", "x"], ["last", "rows"], body=loop_body()),
                   helper.make_node("Mul", ["rows", "rows"], ["y"])],
              [vinfo("n", i64, []), vinfo("x", F, [3]), vinfo("step", F, [3])], y,
              [const("zero", np.array(0, np.int64))])
    save("loop17_runtime_scan_read_again", m, [], out)
    expected.append(("loop17_runtime_scan_read_again", "'rows' is sized by a length found during the run"))
    with open(os.path.join(out, "expected.txt"), "w") as f:
        f.write("# model  words the refusal must contain (tests/models/opset/generate.py)\n")
        for name, words in expected:
            f.write(f"{name}\t{words}\n")


def bfloat16_models():
    """float32 -> bfloat16 (round to nearest even) -> data movement -> float32."""
    rng = np.random.default_rng(16)
    x = rng.standard_normal((3, 4)).astype(np.float32)
    # Ties between two bfloat16 neighbours (1 + 2^-8 rounds down to even, 1 + 3*2^-8 up),
    # a value just past a tie, and one whose rounding carries into the exponent.
    x[0] = [1 + 2.0 ** -8, 1 + 3 * 2.0 ** -8, -(1 + 2.0 ** -8 + 2.0 ** -20), 1.9999999]
    bf = TensorProto.BFLOAT16
    nodes = [helper.make_node("Cast", ["x"], ["b"], to=bf),
             helper.make_node("Transpose", ["b"], ["t"], perm=[1, 0]),
             helper.make_node("Concat", ["t", "t"], ["c"], axis=1),
             helper.make_node("Reshape", ["c", "shape"], ["r"]),
             helper.make_node("Cast", ["r"], ["y"], to=F),
             helper.make_node("CastLike", ["x", "b"], ["l"]),
             helper.make_node("Cast", ["l"], ["z"], to=F)]
    m = model(15, nodes, [vinfo("x", F, [3, 4])], [vinfo("y", F, None), vinfo("z", F, None)],
              [const("shape", np.array([2, 12], np.int64))])
    save("cast15_bfloat16_round_trip", m, [x])


def main():
    if not os.path.exists(os.path.join(ROOT, "benchmarks/models/ort/node_modules/onnxruntime-node")):
        sys.exit("ONNX Runtime is missing: bash benchmarks/models/ort/install.sh")
    reduce_models()
    movement_models()
    resize_models()
    scatter_pool_models()
    math_models()
    grid_dft_models()
    refused_models()
    bitwise_models()
    runtime_dims_models()
    unbounded_models()
    bfloat16_models()


if __name__ == "__main__":
    main()
