#!/usr/bin/python3
"""Generates the small ONNX models used by tests/compiler/*_test.cc, plus
sidecar files holding the expected results computed independently here:

  expected_shapes.txt  "<model> <value> <dtype> <d0,d1,...>" per line, from
                       ONNX's own shape inference or from running PyTorch;
  expected_values.txt  "<model> <value> <v0,v1,...>" per line, from NumPy.

Run with Debian's interpreter:  /usr/bin/python3 tests/compiler/make_models.py
"""
import io
import os
import sys

import numpy as np
import onnx
import torch
from onnx import TensorProto, helper, numpy_helper, shape_inference

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "models")
DTYPES = {TensorProto.FLOAT: "float32", TensorProto.INT64: "int64", TensorProto.INT32: "int32",
          TensorProto.BOOL: "bool", TensorProto.DOUBLE: "float64", TensorProto.UINT8: "uint8",
          TensorProto.INT8: "int8", TensorProto.FLOAT16: "float16"}
shape_lines = []
value_lines = []


def save(model, name):
    path = os.path.join(OUT, name)
    onnx.save(model, path)
    assert os.path.getsize(path) < 100_000, name
    return path


def record_onnx_shapes(model, name, values):
    """Expected shapes of `values` from ONNX's shape inference (with data
    propagation, so Shape->...->Reshape chains resolve)."""
    inferred = shape_inference.infer_shapes(model, strict_mode=True, data_prop=True)
    infos = {v.name: v for v in list(inferred.graph.value_info) + list(inferred.graph.output)}
    for v in values:
        t = infos[v].type.tensor_type
        assert t.HasField("shape"), (name, v)
        dims = [d.dim_value for d in t.shape.dim]
        assert all(d.HasField("dim_value") for d in t.shape.dim), (name, v)
        shape_lines.append(f"{name} {v} {DTYPES[t.elem_type]} {','.join(map(str, dims))}")


def record_shape(name, value, dtype, dims):
    shape_lines.append(f"{name} {value} {dtype} {','.join(map(str, dims))}")


def make(nodes, inputs, outputs, inits=(), opset=13, name="g"):
    graph = helper.make_graph(nodes, name, inputs, outputs, list(inits))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                             producer_name="kiln-tests")


def vi(name, dims, t=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, t, dims)


def i64(name, vals):
    return numpy_helper.from_array(np.array(vals, dtype=np.int64), name)


# --- 1. PyTorch x.view(x.size(0), -1): a real exporter shape chain ---------
class ViewNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(48, 5)

    def forward(self, x):
        return self.fc(x.view(x.size(0), -1))


def torch_view():
    torch.manual_seed(0)
    net = ViewNet().eval()
    x = torch.randn(2, 3, 4, 4)
    buf = io.BytesIO()
    # A dynamic batch makes the exporter emit the Shape→Gather→Unsqueeze→
    # Concat→Reshape chain; then pin the batch to 2 as a user would before
    # compiling (Kiln needs static input shapes). The chain stays for Kiln.
    torch.onnx.export(net, x, buf, opset_version=13, input_names=["x"], output_names=["y"],
                      dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}})
    model = onnx.load_from_string(buf.getvalue())
    model.graph.input[0].type.tensor_type.shape.dim[0].dim_value = 2
    ops = [n.op_type for n in model.graph.node]
    for op in ("Shape", "Gather", "Unsqueeze", "Concat", "Reshape"):
        assert op in ops, (op, ops)
    save(model, "torch_view.onnx")
    with torch.no_grad():
        y = net(x)
    record_shape("torch_view.onnx", "y", "float32", list(y.shape))
    reshape = next(n for n in model.graph.node if n.op_type == "Reshape")
    record_shape("torch_view.onnx", reshape.output[0], "float32", [2, 48])


# --- 2. pools with ceil_mode, shapes from PyTorch --------------------------
def torch_pools():
    cases = [  # (name, module, input shape)
        ("pool_ceil.onnx", torch.nn.MaxPool2d(3, stride=2, ceil_mode=True), (1, 2, 8, 8)),
        # Last window would start in the end padding: PyTorch drops it.
        ("pool_ceil_edge.onnx", torch.nn.MaxPool2d(2, stride=2, padding=1, ceil_mode=True),
         (1, 1, 5, 5)),
        ("avgpool_ceil.onnx", torch.nn.AvgPool2d(3, stride=2, padding=1, ceil_mode=True,
                                                 count_include_pad=False), (1, 2, 10, 7)),
    ]
    for name, mod, shape in cases:
        x = torch.randn(*shape)
        buf = io.BytesIO()
        torch.onnx.export(mod, x, buf, opset_version=13, input_names=["x"], output_names=["y"])
        save(onnx.load_from_string(buf.getvalue()), name)
        record_shape(name, "y", "float32", list(mod(x).shape))


# --- 3. Conv auto_pad / strides / dilations / groups (ONNX inference) ------
def conv_models():
    rng = np.random.default_rng(0)
    specs = [
        ("conv_same_upper.onnx", dict(auto_pad="SAME_UPPER", strides=[2, 2]), (1, 3, 7, 9), (4, 3, 3, 3)),
        ("conv_same_lower.onnx", dict(auto_pad="SAME_LOWER", strides=[1, 2]), (1, 2, 6, 6), (2, 2, 2, 4)),
        ("conv_valid.onnx", dict(auto_pad="VALID", strides=[3, 2]), (1, 2, 11, 8), (3, 2, 3, 3)),
        ("conv_pads_dil_group.onnx", dict(pads=[1, 2, 0, 1], dilations=[2, 1], group=2, strides=[1, 2]),
         (2, 4, 9, 10), (6, 2, 3, 3)),
    ]
    for name, attrs, xs, ws in specs:
        w = numpy_helper.from_array(rng.standard_normal(ws).astype(np.float32), "w")
        b = numpy_helper.from_array(rng.standard_normal(ws[0]).astype(np.float32), "b")
        node = helper.make_node("Conv", ["x", "w", "b"], ["y"], name="conv0", **attrs)
        model = make([node], [vi("x", list(xs))], [vi("y", None)], [w, b])
        save(model, name)
        record_onnx_shapes(model, name, ["y"])


# --- 4. many shape rules at once (ONNX inference) --------------------------
def shape_zoo():
    n = helper.make_node
    nodes = [
        n("MatMul", ["a", "v"], ["mm_vec"], name="mm_vec"),           # [2,3,4]x[4] -> [2,3]
        n("MatMul", ["a", "b4"], ["mm_batch"], name="mm_batch"),      # [2,3,4]x[5,1,4,6]
        n("Gemm", ["g_a", "g_b", "g_c"], ["gemm"], name="gemm", transA=1, transB=1),
        n("Add", ["a", "col"], ["add_bc"], name="add_bc"),            # [2,3,4]+[3,1]
        n("Flatten", ["a"], ["flat"], name="flat", axis=-1),
        n("Reshape", ["a", "rs"], ["reshaped"], name="reshape"),      # [0,-1,2]
        n("Transpose", ["a"], ["tr"], name="tr"),
        n("Concat", ["a", "a"], ["cat"], name="cat", axis=-2),
        n("Unsqueeze", ["a", "uaxes"], ["unsq"], name="unsq"),        # axes [0,-1]
        n("Squeeze", ["unsq", "sqaxes"], ["sq"], name="sq"),          # axes [0]
        n("Slice", ["a", "sl_s", "sl_e", "sl_ax", "sl_st"], ["sliced"], name="slice"),
        n("Gather", ["a", "gidx"], ["gath"], name="gather", axis=1),
        n("Shape", ["a"], ["shp"], name="shape"),
        n("Expand", ["col", "shp"], ["expd"], name="expand"),
        n("ReduceProd", ["a"], ["rprod"], name="rprod", axes=[1], keepdims=0),
        n("Equal", ["a", "col"], ["eq"], name="eq"),
        n("Where", ["eq", "a", "col"], ["wh"], name="where"),
        n("Cast", ["a"], ["cast"], name="cast", to=TensorProto.INT32),
        n("ConstantOfShape", ["shp"], ["cos"], name="cos",
          value=helper.make_tensor("v", TensorProto.INT64, [1], [7])),
        n("Softmax", ["a"], ["smax"], name="smax"),
        n("Clip", ["a", "cmin", "cmax"], ["clip"], name="clip"),
        n("Relu", ["flat"], ["out"], name="relu"),
    ]
    inits = [
        numpy_helper.from_array(np.ones(4, np.float32), "v"),
        numpy_helper.from_array(np.ones((5, 1, 4, 6), np.float32), "b4"),
        numpy_helper.from_array(np.ones((3, 1), np.float32), "col"),
        numpy_helper.from_array(np.ones((7, 5), np.float32), "g_b"),
        numpy_helper.from_array(np.ones((1, 7), np.float32), "g_c"),
        numpy_helper.from_array(np.array(0, np.float32), "cmin"),
        numpy_helper.from_array(np.array(6, np.float32), "cmax"),
        i64("rs", [0, -1, 2]), i64("uaxes", [0, -1]), i64("sqaxes", [0]),
        i64("sl_s", [-1, 0]), i64("sl_e", [-10**18, 100]), i64("sl_ax", [2, 1]), i64("sl_st", [-2, 2]),
        i64("gidx", [[0, 2], [1, 1]]),
    ]
    outs = ["mm_vec", "mm_batch", "gemm", "add_bc", "flat", "reshaped", "tr", "cat", "unsq", "sq",
            "sliced", "gath", "shp", "expd", "rprod", "eq", "wh", "cast", "cos", "smax", "clip"]
    # Outputs without a declared type: ONNX's inference fills them in.
    model = make(nodes, [vi("a", [2, 3, 4]), vi("g_a", [5, 3])],
                 [helper.make_empty_tensor_value_info(o) for o in ["out"] + outs], inits)
    save(model, "shape_zoo.onnx")
    record_onnx_shapes(model, "shape_zoo.onnx", outs + ["out"])


def opset11_axes():
    n = helper.make_node
    nodes = [n("Unsqueeze", ["x"], ["u"], name="u", axes=[1, -1]),
             n("Squeeze", ["u"], ["s"], name="s", axes=[-1]),
             n("Squeeze", ["u"], ["s_all"], name="s_all")]
    model = make(nodes, [vi("x", [3, 1, 4])], [vi("s", None), vi("s_all", None)], opset=11)
    save(model, "opset11_axes.onnx")
    record_onnx_shapes(model, "opset11_axes.onnx", ["s", "u"])
    # ONNX 1.12 leaves axis-less Squeeze uninferred; NumPy's squeeze is the reference.
    record_shape("opset11_axes.onnx", "s_all", "float32", np.zeros((3, 1, 4))[:, None, :, :, None].squeeze().shape)


def folding_values():
    """Constant-only arithmetic that folds to a graph output; values by NumPy."""
    n = helper.make_node
    nodes = [
        n("Range", ["r0", "r1", "r2"], ["rng"], name="range"),
        n("Cast", ["rng"], ["rngf"], name="cast", to=TensorProto.FLOAT),
        n("Mul", ["rngf", "half"], ["scaled"], name="mul"),
        n("Sqrt", ["scaled"], ["root"], name="sqrt"),
        n("Neg", ["root"], ["negr"], name="neg"),
        n("Floor", ["negr"], ["fl"], name="floor"),
        n("Pow", ["fl", "two"], ["folded"], name="pow"),
        n("Transpose", ["w"], ["wt"], name="wt", perm=[1, 0]),
        n("MatMul", ["x", "wt"], ["y"], name="mm"),
    ]
    w = np.arange(6, dtype=np.float32).reshape(2, 3)
    inits = [numpy_helper.from_array(np.array(1, np.int64), "r0"),
             numpy_helper.from_array(np.array(12, np.int64), "r1"),
             numpy_helper.from_array(np.array(3, np.int64), "r2"),
             numpy_helper.from_array(np.array(0.5, np.float32), "half"),
             numpy_helper.from_array(np.array(2, np.float32), "two"),
             numpy_helper.from_array(w, "w")]
    model = make(nodes, [vi("x", [1, 3])], [vi("folded", None), vi("y", None)], inits)
    save(model, "folding_values.onnx")
    r = np.arange(1, 12, 3).astype(np.float32)
    folded = np.floor(-np.sqrt(r * np.float32(0.5))) ** 2
    value_lines.append("folding_values.onnx folded " + ",".join(repr(float(v)) for v in folded))
    value_lines.append("folding_values.onnx wt " + ",".join(repr(float(v)) for v in w.T.ravel()))
    record_onnx_shapes(model, "folding_values.onnx", ["folded", "y"])


def folding_shape_math():
    """The float and integer shape arithmetic detection transforms export
    (torchvision's padding to a multiple, its scale = min(a / h, b / w)):
    Ceil, Round (halves to even), Abs, Reciprocal, Min, Max, the orderings and
    the Reduce family, all on constants; values by NumPy."""
    n = helper.make_node
    f = np.array([[2.5, -1.5, 0.5, 3.2], [-0.4, 7.0, -2.5, 1.5]], np.float32)
    g = np.array([[1.0, -1.5, 4.0, 3.0], [0.25, 8.0, -3.0, 1.0]], np.float32)
    a = np.array([[5, -7, 3], [-2, 9, 0]], np.int64)
    nodes = [n("Ceil", ["f"], ["ceil"], name="ceil"), n("Round", ["f"], ["round"], name="round"),
             n("Abs", ["f"], ["abs"], name="abs"), n("Reciprocal", ["g"], ["recip"], name="recip"),
             n("Min", ["f", "g"], ["minf"], name="minf"),
             n("Max", ["a", "b"], ["maxi"], name="maxi"),
             n("Less", ["f", "g"], ["less"], name="less"),
             n("GreaterOrEqual", ["a", "b"], ["ge"], name="ge"),
             n("ReduceSum", ["a", "ax1"], ["rsum"], name="rsum", keepdims=0),
             n("ReduceMean", ["f"], ["rmean"], name="rmean", axes=[0], keepdims=1),
             n("ReduceMax", ["f"], ["rmax"], name="rmax", keepdims=0),
             n("ReduceMin", ["a"], ["rmin"], name="rmin", axes=[-1], keepdims=0)]
    b = np.array([[4, -9, 3], [1, 2, -5]], np.int64)
    inits = [numpy_helper.from_array(f, "f"), numpy_helper.from_array(g, "g"),
             numpy_helper.from_array(a, "a"), numpy_helper.from_array(b, "b"), i64("ax1", [1])]
    outs = [vi(v, None) for v in ("ceil", "round", "abs", "recip", "minf", "rmean", "rmax")]
    outs += [vi(v, None, TensorProto.INT64) for v in ("maxi", "rsum", "rmin")]
    outs += [vi(v, None, TensorProto.BOOL) for v in ("less", "ge")]
    save(make(nodes, [vi("x", [1])], outs, inits), "folding_shape_math.onnx")
    want = {"ceil": np.ceil(f), "round": np.round(f), "abs": np.abs(f),
            "recip": np.float32(1) / g, "minf": np.minimum(f, g), "rmean": f.mean(0, keepdims=True),
            "rmax": f.max(), "maxi": np.maximum(a, b), "rsum": a.sum(1), "rmin": a.min(-1),
            "less": f < g, "ge": a >= b}
    for k, v in want.items():
        value_lines.append(f"folding_shape_math.onnx {k} " +
                           ",".join(repr(float(x)) for x in np.ravel(v).astype(np.float64)))


def folding_wraps():
    """Integer folding at the edges of int64: NumPy's int64 arithmetic wraps
    modulo 2^64 as the kernels do; the float->int Cast is compared with the
    cast kernel by the test itself."""
    n = helper.make_node
    big = np.array([2**62, 2**63 - 1, 3, -2**63], np.int64)
    other = np.array([4, 1, 41, -1], np.int64)
    nodes = [n("Mul", ["big", "other"], ["mul"], name="mul"),
             n("Add", ["big", "other"], ["add"], name="add"),
             n("Pow", ["big", "other"], ["pow"], name="pow"),
             n("Div", ["big", "other"], ["div"], name="div"),
             n("Neg", ["big"], ["neg"], name="neg"),
             n("Cast", ["f"], ["u8"], name="cast_u8", to=TensorProto.UINT8),
             n("Cast", ["f"], ["i64"], name="cast_i64", to=TensorProto.INT64)]
    f = np.array([300.0, -5.0, np.nan, 1e30, -1e30, 2.9], np.float32)
    inits = [numpy_helper.from_array(big, "big"), numpy_helper.from_array(other, "other"),
             numpy_helper.from_array(f, "f")]
    outs = [vi(v, None, TensorProto.INT64) for v in ("mul", "add", "pow", "div", "neg")]
    outs += [vi("u8", None, TensorProto.UINT8), vi("i64", None, TensorProto.INT64)]
    save(make(nodes, [vi("x", [1])], outs, inits), "folding_wraps.onnx")
    with np.errstate(over="ignore"):
        want = {"mul": big * other, "add": big + other,
                # A negative exponent: only 1 and -1 have integer reciprocals.
                "pow": np.array([(pow(b, e, 2**64) if e >= 0 else
                                  (1 if b == 1 else (b if b == -1 and e % 2 else 0))) % 2**64
                                 for b, e in zip(big.tolist(), other.tolist())],
                                dtype=object).astype(np.uint64).view(np.int64),
                # ONNX integer Div truncates toward zero; INT64_MIN / -1 wraps.
                "div": np.array([((abs(b) // abs(e)) * (1 if (b < 0) == (e < 0) else -1)) % 2**64
                                 for b, e in zip(big.tolist(), other.tolist())],
                                dtype=object).astype(np.uint64).view(np.int64),
                "neg": -big}
    for k, v in want.items():
        value_lines.append(f"folding_wraps.onnx {k} " + ",".join(str(int(x)) for x in v))


def folding_mod():
    """Mod on constants (a window's padding from fixed sizes): the integer
    remainder takes the divisor's sign (fmod=0, NumPy's mod) or the dividend's
    (fmod=1, NumPy's fmod); a zero divisor gives 0, as the kernels define it
    (ONNX leaves it undefined; NumPy's mod and fmod give 0 too); float32 takes
    fmod=1, as ONNX requires."""
    n = helper.make_node
    a = np.array([7, -7, 7, -7, 0, 5, -2**63, 2**63 - 1], np.int64)
    b = np.array([3, 3, -3, -3, 4, 0, -1, 10], np.int64)
    fa = np.array([5.5, -5.5, 5.5, -5.5, 1e30, 0.75], np.float32)
    fb = np.array([2.0, 2.0, -2.0, -2.0, 3.0, 0.25], np.float32)
    nodes = [n("Mod", ["a", "b"], ["mod"], name="mod", fmod=0),
             n("Mod", ["a", "b"], ["fmod"], name="fmod", fmod=1),
             n("Mod", ["fa", "fb"], ["float_fmod"], name="float_fmod", fmod=1)]
    inits = [numpy_helper.from_array(v, k) for k, v in
             [("a", a), ("b", b), ("fa", fa), ("fb", fb)]]
    outs = [vi("mod", None, TensorProto.INT64), vi("fmod", None, TensorProto.INT64),
            vi("float_fmod", None)]
    save(make(nodes, [vi("x", [1])], outs, inits), "folding_mod.onnx")
    with np.errstate(divide="ignore", invalid="ignore"):
        want = {"mod": np.mod(a, b), "fmod": np.fmod(a, b)}
        float_fmod = np.fmod(fa, fb)
    for k, v in want.items():
        value_lines.append(f"folding_mod.onnx {k} " + ",".join(str(int(x)) for x in v))
    value_lines.append("folding_mod.onnx float_fmod " +
                       ",".join(repr(float(x)) for x in float_fmod))


def error_models():
    n = helper.make_node
    # Two different unsupported ops (plus a supported one in between).
    model = make([n("RandomNormalLike", ["x"], ["nz"], name="random_like"),
                  n("Relu", ["x"], ["r"], name="relu0"),
                  n("Multinomial", ["r"], ["e"], name="sample")],
                 [vi("x", [3, 4])], [vi("nz", None), vi("e", None, TensorProto.INT32)])
    save(model, "unsupported_ops.onnx")

    # Initializer whose bytes live in a side file.
    t = helper.make_tensor("big_weight", TensorProto.FLOAT, [4], [0.0] * 4)
    t.ClearField("float_data")
    t.data_location = TensorProto.EXTERNAL
    for k, v in (("location", "weights.bin"), ("offset", "0"), ("length", "16")):
        e = t.external_data.add()
        e.key, e.value = k, v
    save(make([n("Add", ["x", "big_weight"], ["y"], name="add0")], [vi("x", [4])],
              [vi("y", None)], [t]), "external_data.onnx")

    # Nodes out of order: relu_b reads what relu_a (listed later) defines.
    model = make([n("Relu", ["h"], ["y"], name="relu_b"), n("Relu", ["x"], ["h"], name="relu_a")],
                 [vi("x", [2])], [vi("y", None)])
    save(model, "non_topological.onnx")

    save(make([n("Relu", ["x"], ["y"], name="r")], [vi("x", ["N", 3])], [vi("y", None)]),
         "symbolic_dim.onnx")
    save(make([n("Relu", ["x"], ["y"], name="r")], [vi("x", [2, 3])], [vi("y", None)], opset=9),
         "opset9.onnx")
    save(make([n("Conv", ["x", "w"], ["y"], name="bad_conv")], [vi("x", [1, 3, 8, 8])],
              [vi("y", None)], [numpy_helper.from_array(np.ones((4, 2, 3, 3), np.float32), "w")]),
         "conv_channel_mismatch.onnx")
    m = make([n("Relu", ["x"], ["y"], name="r")], [vi("x", [2, 3])], [vi("y", None)])
    m.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    m.graph.node.append(n("FusedGemm", ["y", "y"], ["z"], name="ms_op", domain="com.microsoft"))
    m.graph.output.append(vi("z", None))
    save(m, "custom_domain.onnx")

    # Attributes of another kind than the op's schema declares: a FLOAT
    # where Conv takes INTS, an INT where Transpose takes INTS, and an
    # attribute with no type at all.
    conv = n("Conv", ["x", "w"], ["y"], name="float_strides")
    conv.attribute.append(helper.make_attribute("strides", 2.0))
    save(make([conv], [vi("x", [1, 1, 5, 5])], [vi("y", None)],
              [numpy_helper.from_array(np.ones((1, 1, 3, 3), np.float32), "w")]),
         "attr_wrong_kind.onnx")
    save(make([n("Transpose", ["x"], ["y"], name="int_perm", perm=1)], [vi("x", [2, 3])],
              [vi("y", None)]), "attr_int_for_ints.onnx")
    untyped = n("Softmax", ["x"], ["y"], name="untyped_axis", axis=0)
    untyped.attribute[0].type = onnx.AttributeProto.UNDEFINED
    save(make([untyped], [vi("x", [2, 3])], [vi("y", None)]), "attr_untyped.onnx")

    valid = make([n("Relu", ["x"], ["y"], name="r")], [vi("x", [2, 3])], [vi("y", None)],
                 [numpy_helper.from_array(np.ones((64, 64), np.float32), "unused_w")])
    data = valid.SerializeToString()
    with open(os.path.join(OUT, "truncated.onnx"), "wb") as f:
        f.write(data[: len(data) // 2])
    with open(os.path.join(OUT, "garbage.onnx"), "wb") as f:
        f.write(b"\xff\xfe this is not a protobuf \x00\x01\x02" * 4)


def initializer_formats():
    """Initializers in raw and typed fields, and one also listed as input."""
    n = helper.make_node
    inits = [
        helper.make_tensor("f_typed", TensorProto.FLOAT, [2], [1.5, -2.0]),
        helper.make_tensor("f_raw", TensorProto.FLOAT, [2], np.array([3.25, 4.0], np.float32).tobytes(), raw=True),
        helper.make_tensor("i64_typed", TensorProto.INT64, [3], [-1, 0, 7]),
        helper.make_tensor("i32_typed", TensorProto.INT32, [2], [-5, 9]),
        helper.make_tensor("d_typed", TensorProto.DOUBLE, [1], [0.125]),
        helper.make_tensor("b_typed", TensorProto.BOOL, [3], [True, False, True]),
        helper.make_tensor("u8_raw", TensorProto.UINT8, [2], bytes([200, 3]), raw=True),
        helper.make_tensor("i8_typed", TensorProto.INT8, [2], [-7, 8]),
        # onnx.helper stores float16 values as their bit patterns in int32_data.
        helper.make_tensor("h_typed", TensorProto.FLOAT16, [2], [1.5, -2.0]),
    ]
    nodes = [n("Add", ["x", "f_typed"], ["y"], name="add0"),
             n("Constant", [], ["c_float"], name="cf", value_float=2.5),
             n("Constant", [], ["c_ints"], name="ci", value_ints=[4, 5, 6]),
             n("Constant", [], ["c_tensor"], name="ct",
               value=helper.make_tensor("t", TensorProto.INT64, [2, 1], [8, 9])),
             n("Add", ["y", "c_float"], ["z"], name="add1")]
    model = make(nodes, [vi("x", [2]), vi("f_typed", [2])], [vi("z", None)], inits, opset=17)
    save(model, "initializers.onnx")


def main():
    os.makedirs(OUT, exist_ok=True)
    torch_view()
    torch_pools()
    conv_models()
    shape_zoo()
    opset11_axes()
    folding_values()
    folding_shape_math()
    folding_wraps()
    folding_mod()
    error_models()
    initializer_formats()
    with open(os.path.join(OUT, "expected_shapes.txt"), "w") as f:
        f.write("\n".join(shape_lines) + "\n")
    with open(os.path.join(OUT, "expected_values.txt"), "w") as f:
        f.write("\n".join(value_lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())
