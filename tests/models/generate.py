#!/usr/bin/python3
"""Writes Kiln's small end-to-end test models and their reference data.

Run with Debian's interpreter (torch 1.13, onnx 1.12, numpy 1.24):
  /usr/bin/python3 tests/models/generate.py

For every model NAME it writes tests/models/NAME.onnx, NAME.input<i>.npy (graph
input order) and NAME.output<i>.npy (graph output order), all float32, plus
tests/models/manifest.json. It also writes the README example model
(examples/models/tiny_cnn.*) and the bad-input fixtures in tests/models/bad/.

References are independent of Kiln: PyTorch (eval mode) for exported models,
and the NumPy implementations below (computed in float64, stored as float32)
for graphs built with onnx.helper. The NumPy ops are themselves checked
against torch.nn.functional before anything is written.
Fixed seeds throughout: running it twice gives identical files.
"""
import json
import os
import sys

import numpy as np
import onnx
import torch
import torch.nn as nn
import torch.nn.functional as F
from onnx import TensorProto, helper, numpy_helper

from control_flow_models import control_flow_models, loop_budget_models, loop_declared_length

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
EXAMPLES = os.path.join(ROOT, "examples", "models")
BAD = os.path.join(HERE, "bad")
F32 = TensorProto.FLOAT

MANIFEST = []


# --------------------------------------------------------------------------
# NumPy reference ops (float64 internally).

def conv_pads(in_hw, kernel, strides, dilations, pads, auto_pad):
    """Returns [top, left, bottom, right] as ONNX defines them."""
    if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        out = []
        for n, k, s, d in zip(in_hw, kernel, strides, dilations):
            o = -(-n // s)
            total = max((o - 1) * s + (k - 1) * d + 1 - n, 0)
            small, big = total // 2, total - total // 2
            out.append((small, big) if auto_pad == "SAME_UPPER" else (big, small))
        return [out[0][0], out[1][0], out[0][1], out[1][1]]
    return list(pads) if pads else [0, 0, 0, 0]


def np_conv2d(x, w, b=None, strides=(1, 1), pads=(0, 0, 0, 0),
              dilations=(1, 1), group=1, auto_pad="NOTSET"):
    x = x.astype(np.float64)
    w = w.astype(np.float64)
    n, c, h, wd = x.shape
    m, cg, kh, kw = w.shape
    assert c == cg * group and m % group == 0
    t, l, bt, r = conv_pads((h, wd), (kh, kw), strides, dilations, pads, auto_pad)
    xp = np.pad(x, ((0, 0), (0, 0), (t, bt), (l, r)))
    sh, sw = strides
    dh, dw = dilations
    oh = (h + t + bt - ((kh - 1) * dh + 1)) // sh + 1
    ow = (wd + l + r - ((kw - 1) * dw + 1)) // sw + 1
    y = np.zeros((n, m, oh, ow))
    mg = m // group
    for g in range(group):
        xg = xp[:, g * cg:(g + 1) * cg]
        wg = w[g * mg:(g + 1) * mg]
        for i in range(kh):
            for j in range(kw):
                patch = xg[:, :, i * dh:i * dh + (oh - 1) * sh + 1:sh,
                           j * dw:j * dw + (ow - 1) * sw + 1:sw]
                y[:, g * mg:(g + 1) * mg] += np.einsum("nchw,mc->nmhw", patch,
                                                       wg[:, :, i, j])
    if b is not None:
        y += b.astype(np.float64).reshape(1, -1, 1, 1)
    return y


def pool_out_len(n, k, s, pb, pe, ceil_mode):
    span = n + pb + pe - k
    o = (-(-span // s) if ceil_mode else span // s) + 1
    # A window that would start beyond the input and its leading pad is dropped.
    if ceil_mode and (o - 1) * s >= n + pb:
        o -= 1
    return o


def np_pool2d(x, kind, kernel, strides, pads=(0, 0, 0, 0), ceil_mode=0,
              count_include_pad=0):
    x = x.astype(np.float64)
    n, c, h, w = x.shape
    kh, kw = kernel
    sh, sw = strides
    t, l, b, r = pads
    oh = pool_out_len(h, kh, sh, t, b, ceil_mode)
    ow = pool_out_len(w, kw, sw, l, r, ceil_mode)
    y = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            # Window in padded coordinates, clipped to the explicit pads ...
            h0, w0 = i * sh - t, j * sw - l
            h1, w1 = min(h0 + kh, h + b), min(w0 + kw, w + r)
            padded_count = (h1 - h0) * (w1 - w0)
            # ... and to the real input.
            a0, a1 = max(h0, 0), min(h1, h)
            c0, c1 = max(w0, 0), min(w1, w)
            win = x[:, :, a0:a1, c0:c1]
            if kind == "max":
                y[:, :, i, j] = win.max(axis=(2, 3))
            else:
                div = padded_count if count_include_pad else (a1 - a0) * (c1 - c0)
                y[:, :, i, j] = win.sum(axis=(2, 3)) / div
    return y


def np_softmax(x, axis):
    x = x.astype(np.float64)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def np_softmax_coerced(x, axis):
    """Softmax before opset 13: the input is viewed as 2-D at `axis`."""
    rows = int(np.prod(x.shape[:axis]))
    return np_softmax(x.reshape(rows, -1), 1).reshape(x.shape)


def np_gemm(a, b, c=None, alpha=1.0, beta=1.0, trans_a=0, trans_b=0):
    a = a.astype(np.float64)
    b = b.astype(np.float64)
    y = alpha * ((a.T if trans_a else a) @ (b.T if trans_b else b))
    if c is not None:
        y = y + beta * c.astype(np.float64)
    return y


def np_batchnorm(x, scale, bias, mean, var, eps):
    shape = (1, -1) + (1,) * (x.ndim - 2)
    x = x.astype(np.float64)
    inv = 1.0 / np.sqrt(var.astype(np.float64) + eps)
    return ((x - mean.reshape(shape)) * (scale * inv).reshape(shape)
            + bias.reshape(shape))


def np_sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x.astype(np.float64)))


def self_check_references():
    """Cross-checks the NumPy ops against torch before trusting them."""
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, 6, 9, 8)).astype(np.float32)
    w = rng.standard_normal((4, 3, 3, 2)).astype(np.float32)
    b = rng.standard_normal(4).astype(np.float32)
    got = np_conv2d(x, w, b, strides=(2, 1), pads=(1, 0, 1, 0),
                    dilations=(2, 3), group=2)
    want = F.conv2d(torch.from_numpy(x), torch.from_numpy(w), torch.from_numpy(b),
                    stride=(2, 1), padding=(1, 0), dilation=(2, 3), groups=2)
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-4, atol=1e-4)
    for ceil in (0, 1):
        got = np_pool2d(x, "max", (3, 3), (2, 2), (1, 1, 1, 1), ceil_mode=ceil)
        want = F.max_pool2d(torch.from_numpy(x), 3, 2, 1, ceil_mode=bool(ceil))
        np.testing.assert_allclose(got, want.numpy(), rtol=0, atol=0)
    for cip in (0, 1):
        got = np_pool2d(x, "avg", (3, 3), (2, 2), (1, 1, 1, 1),
                        count_include_pad=cip)
        want = F.avg_pool2d(torch.from_numpy(x), 3, 2, 1,
                            count_include_pad=bool(cip))
        np.testing.assert_allclose(got, want.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np_softmax(x, 1),
                               torch.softmax(torch.from_numpy(x), 1).numpy(),
                               rtol=1e-5, atol=1e-7)


# --------------------------------------------------------------------------
# Writing models, data and the manifest.

def tolerance(outputs):
    peak = max(float(np.abs(o).max()) for o in outputs)
    return {"rtol": 1e-4, "atol": float("%.3g" % (1e-4 * max(1.0, peak)))}


def save(name, model, inputs, outputs, covers, reference, out_dir=HERE):
    """Checks `model`, writes it with its data, and records it in the manifest."""
    onnx.checker.check_model(model, full_check=True)
    graph_inputs = [i for i in model.graph.input
                    if i.name not in {t.name for t in model.graph.initializer}]
    assert len(graph_inputs) == len(inputs), name
    assert len(model.graph.output) == len(outputs), name
    path = os.path.join(out_dir, name + ".onnx")
    onnx.save(model, path)
    entry = {"name": name, "file": os.path.relpath(path, ROOT),
             "opset": next(o.version for o in model.opset_import
                           if o.domain in ("", "ai.onnx")),
             "inputs": [], "outputs": [], "covers": covers,
             "reference": reference}
    for kind, vis, arrays in (("input", graph_inputs, inputs),
                              ("output", model.graph.output, outputs)):
        for k, (vi, arr) in enumerate(zip(vis, arrays)):
            arr = np.ascontiguousarray(arr, dtype=np.float32)
            if not np.isfinite(arr).all():
                raise RuntimeError(f"{name}: non-finite {kind} {k}")
            declared = [d.dim_value for d in vi.type.tensor_type.shape.dim]
            if declared != list(arr.shape):
                raise RuntimeError(f"{name}: {kind} {vi.name} declared "
                                   f"{declared}, data {list(arr.shape)}")
            fname = f"{name}.{kind}{k}.npy"
            np.save(os.path.join(out_dir, fname), arr)
            entry[kind + "s"].append({"name": vi.name, "file": fname,
                                      "shape": list(arr.shape),
                                      "dtype": "float32"})
    entry["tolerance"] = tolerance(outputs)
    if out_dir == HERE:
        MANIFEST.append(entry)
    return path


def vi(name, shape):
    return helper.make_tensor_value_info(name, F32, list(shape))


def init(name, arr):
    return numpy_helper.from_array(np.asarray(arr), name)


def helper_model(name, nodes, inputs, outputs, inits, opset=13):
    graph = helper.make_graph(nodes, name, inputs, outputs, initializer=inits)
    model = helper.make_model(graph, producer_name="kiln-tests",
                              opset_imports=[helper.make_opsetid("", opset)])
    # Shape inference both checks our declared output shapes and must agree.
    inferred = onnx.shape_inference.infer_shapes(model, strict_mode=True)
    for want, got in zip(outputs, inferred.graph.output):
        assert want.type == got.type, (name, want, got)
    return model


def export_torch(name, module, args, covers, opset=13, input_names=None,
                 output_names=None, out_dir=HERE):
    module.eval()
    with torch.no_grad():
        outs = module(*args)
    outs = list(outs) if isinstance(outs, (tuple, list)) else [outs]
    input_names = input_names or [f"input{i}" for i in range(len(args))]
    output_names = output_names or [f"output{i}" for i in range(len(outs))]
    path = os.path.join(out_dir, name + ".onnx")
    # PRESERVE with an eval-mode module exports inference-mode ops but skips
    # the exporter's Conv+BatchNorm fusion: the compiler must fold it itself.
    torch.onnx.export(module, tuple(args), path, opset_version=opset,
                      input_names=input_names, output_names=output_names,
                      do_constant_folding=False,
                      training=torch.onnx.TrainingMode.PRESERVE)
    model = onnx.load(path)
    return save(name, model, [a.numpy() for a in args],
                [o.numpy() for o in outs], covers, "torch", out_dir)


def randomise_bn(module, gen):
    with torch.no_grad():
        for m in module.modules():
            if isinstance(m, nn.modules.batchnorm._BatchNorm):
                c = m.num_features
                m.running_mean.copy_((torch.rand(c, generator=gen) - 0.5) * 0.4)
                m.running_var.copy_(torch.rand(c, generator=gen) + 0.5)
                m.weight.copy_(torch.rand(c, generator=gen) + 0.5)
                m.bias.copy_((torch.rand(c, generator=gen) - 0.5) * 0.4)


# --------------------------------------------------------------------------
# Models built with onnx.helper (NumPy references).

def rng_for(name):
    return np.random.default_rng(abs(hash_name(name)))


def hash_name(name):
    # Python's hash() is salted per process; this one is stable.
    h = 2166136261
    for ch in name.encode():
        h = ((h ^ ch) * 16777619) & 0xFFFFFFFF
    return h


def randn(rng, *shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def conv_models():
    # Grouped conv, stride 2, asymmetric explicit pads, with bias.
    name = "conv_grouped_strided"
    rng = rng_for(name)
    x = randn(rng, 1, 4, 9, 9)
    w = randn(rng, 6, 2, 3, 3, scale=0.3)
    b = randn(rng, 6)
    attrs = dict(group=2, strides=[2, 2], pads=[1, 0, 2, 1], kernel_shape=[3, 3])
    y = np_conv2d(x, w, b, strides=(2, 2), pads=(1, 0, 2, 1), group=2)
    node = helper.make_node("Conv", ["x", "w", "b"], ["y"], name="conv_grouped",
                            **attrs)
    m = helper_model(name, [node], [vi("x", x.shape)], [vi("y", y.shape)],
                     [init("w", w), init("b", b)])
    save(name, m, [x], [y], ["Conv group=2", "Conv strides=2",
                             "Conv asymmetric pads", "Conv bias"], "numpy")

    # Depthwise conv with dilation and no bias, then a 1x1 pointwise conv.
    name = "conv_depthwise_dilated"
    rng = rng_for(name)
    x = randn(rng, 1, 5, 10, 10)
    wd = randn(rng, 5, 1, 3, 3, scale=0.4)
    wp = randn(rng, 7, 5, 1, 1, scale=0.4)
    h = np_conv2d(x, wd, None, pads=(2, 2, 2, 2), dilations=(2, 2), group=5)
    y = np_conv2d(h.astype(np.float32), wp, None)
    nodes = [helper.make_node("Conv", ["x", "wd"], ["h"], name="conv_depthwise",
                              group=5, dilations=[2, 2], pads=[2, 2, 2, 2],
                              kernel_shape=[3, 3]),
             helper.make_node("Conv", ["h", "wp"], ["y"], name="conv_pointwise")]
    m = helper_model(name, nodes, [vi("x", x.shape)], [vi("y", y.shape)],
                     [init("wd", wd), init("wp", wp)])
    save(name, m, [x], [y], ["Conv depthwise (group=C)", "Conv dilations=2",
                             "Conv no bias", "Conv 1x1 without attributes"],
         "numpy")

    # auto_pad SAME_UPPER with stride 2 pads more at the end; non-square kernel.
    name = "conv_same_upper"
    rng = rng_for(name)
    x = randn(rng, 1, 3, 8, 7)
    w = randn(rng, 4, 3, 3, 2, scale=0.4)
    b = randn(rng, 4)
    y = np_conv2d(x, w, b, strides=(2, 2), auto_pad="SAME_UPPER")
    node = helper.make_node("Conv", ["x", "w", "b"], ["y"], name="conv_same",
                            auto_pad="SAME_UPPER", strides=[2, 2],
                            kernel_shape=[3, 2])
    m = helper_model(name, [node], [vi("x", x.shape)], [vi("y", y.shape)],
                     [init("w", w), init("b", b)])
    save(name, m, [x], [y], ["Conv auto_pad=SAME_UPPER", "Conv strides=2",
                             "Conv non-square kernel"], "numpy")


def gemm_matmul_models():
    name = "gemm_transb_alpha_beta"
    rng = rng_for(name)
    a = randn(rng, 3, 8)
    b = randn(rng, 5, 8)
    c = randn(rng, 5)
    y = np_gemm(a, b, c, alpha=0.5, beta=2.0, trans_b=1)
    node = helper.make_node("Gemm", ["a", "b", "c"], ["y"], name="gemm",
                            transB=1, alpha=0.5, beta=2.0)
    m = helper_model(name, [node], [vi("a", a.shape)], [vi("y", y.shape)],
                     [init("b", b), init("c", c)])
    save(name, m, [a], [y], ["Gemm transB=1", "Gemm alpha/beta",
                             "Gemm C broadcast [N]"], "numpy")

    name = "gemm_bias_row_no_c"
    rng = rng_for(name)
    a = randn(rng, 2, 6)
    b1 = randn(rng, 6, 4)
    c1 = randn(rng, 1, 4)
    b2 = randn(rng, 4, 3)
    h = np_gemm(a, b1, c1)
    y = np_gemm(h.astype(np.float32), b2)
    nodes = [helper.make_node("Gemm", ["a", "b1", "c1"], ["h"], name="gemm_row_c"),
             helper.make_node("Gemm", ["h", "b2"], ["y"], name="gemm_no_c")]
    m = helper_model(name, nodes, [vi("a", a.shape)], [vi("y", y.shape)],
                     [init("b1", b1), init("c1", c1), init("b2", b2)])
    save(name, m, [a], [y], ["Gemm transB=0", "Gemm C broadcast [1,N]",
                             "Gemm without C"], "numpy")

    name = "matmul_2d"
    rng = rng_for(name)
    a = randn(rng, 4, 6)
    w = randn(rng, 6, 5)
    y = a.astype(np.float64) @ w
    m = helper_model(name, [helper.make_node("MatMul", ["a", "w"], ["y"],
                                             name="matmul")],
                     [vi("a", a.shape)], [vi("y", y.shape)], [init("w", w)])
    save(name, m, [a], [y], ["MatMul 2-D x 2-D constant"], "numpy")

    name = "matmul_batched_broadcast"
    rng = rng_for(name)
    a = randn(rng, 2, 1, 3, 4)
    b = randn(rng, 3, 4, 5)
    y = np.matmul(a.astype(np.float64), b)
    m = helper_model(name, [helper.make_node("MatMul", ["a", "b"], ["y"],
                                             name="matmul_batched")],
                     [vi("a", a.shape), vi("b", b.shape)], [vi("y", y.shape)], [])
    save(name, m, [a, b], [y], ["MatMul batched", "MatMul batch broadcasting",
                                "MatMul two runtime operands"], "numpy")

    name = "matmul_1d"
    rng = rng_for(name)
    x = randn(rng, 6)
    w = randn(rng, 6, 5)
    v = randn(rng, 3, 5)
    h = x.astype(np.float64) @ w
    y = v.astype(np.float64) @ h.astype(np.float32)
    nodes = [helper.make_node("MatMul", ["x", "w"], ["h"], name="matmul_vec_mat"),
             helper.make_node("MatMul", ["v", "h"], ["y"], name="matmul_mat_vec")]
    m = helper_model(name, nodes, [vi("x", x.shape)], [vi("y", y.shape)],
                     [init("w", w), init("v", v)])
    save(name, m, [x], [y], ["MatMul 1-D first operand",
                             "MatMul 1-D second operand"], "numpy")


def elementwise_models():
    name = "elementwise_broadcast"
    rng = rng_for(name)
    a = randn(rng, 2, 3, 4, 5)
    b = randn(rng, 1, 3, 1, 5)
    c_add = randn(rng, 5)
    c_sub = randn(rng, 3, 1, 1)
    # Divisors kept away from zero so the reference is well conditioned.
    c_div = (rng.uniform(0.5, 2.0, (4, 1)) * rng.choice([-1, 1], (4, 1))
             ).astype(np.float32)
    s = np.array(1.5, dtype=np.float32)
    a64 = a.astype(np.float64)
    t1 = (a64 + c_add).astype(np.float32)           # [2,3,4,5] + [5]
    t2 = (c_sub - t1.astype(np.float64)).astype(np.float32)  # [3,1,1] - ...
    t3 = (t2.astype(np.float64) * b).astype(np.float32)      # runtime * runtime
    t4 = (t3.astype(np.float64) / c_div).astype(np.float32)  # / [4,1]
    y0 = t4.astype(np.float64) / s                           # / scalar
    y1 = b.astype(np.float64) - a64                          # [1,3,1,5] - full
    nodes = [
        helper.make_node("Add", ["a", "c_add"], ["t1"], name="add_bcast"),
        helper.make_node("Sub", ["c_sub", "t1"], ["t2"], name="sub_const_lhs"),
        helper.make_node("Mul", ["t2", "b"], ["t3"], name="mul_inputs"),
        helper.make_node("Div", ["t3", "c_div"], ["t4"], name="div_bcast"),
        helper.make_node("Div", ["t4", "s"], ["y0"], name="div_scalar"),
        helper.make_node("Sub", ["b", "a"], ["y1"], name="sub_bcast_lhs"),
    ]
    m = helper_model(name, nodes, [vi("a", a.shape), vi("b", b.shape)],
                     [vi("y0", y0.shape), vi("y1", y1.shape)],
                     [init("c_add", c_add), init("c_sub", c_sub),
                      init("c_div", c_div), init("s", s)])
    save(name, m, [a, b], [y0, y1],
         ["Add broadcast [5]", "Sub constant LHS broadcast [3,1,1]",
          "Mul two runtime inputs with broadcast", "Div broadcast [4,1]",
          "Div by 0-D scalar", "Sub with broadcast LHS"], "numpy")

    name = "activations"
    rng = rng_for(name)
    x = randn(rng, 2, 16, scale=4.0)
    lo = np.array(0.0, dtype=np.float32)
    hi = np.array(6.0, dtype=np.float32)
    x64 = x.astype(np.float64)
    nodes = [helper.make_node("Relu", ["x"], ["relu"], name="relu"),
             helper.make_node("Clip", ["x", "lo", "hi"], ["relu6"], name="clip"),
             helper.make_node("Sigmoid", ["x"], ["sigmoid"], name="sigmoid"),
             helper.make_node("Tanh", ["x"], ["tanh"], name="tanh")]
    outs = [np.maximum(x64, 0), np.clip(x64, 0, 6), np_sigmoid(x), np.tanh(x64)]
    m = helper_model(name, nodes, [vi("x", x.shape)],
                     [vi(n, x.shape) for n in ("relu", "relu6", "sigmoid", "tanh")],
                     [init("lo", lo), init("hi", hi)])
    save(name, m, [x], outs, ["Relu", "Clip min/max inputs (ReLU6)", "Sigmoid",
                              "Tanh", "four graph outputs"], "numpy")

    name = "softmax_axis_last"
    rng = rng_for(name)
    x = randn(rng, 2, 3, 7, scale=3.0)
    y = np_softmax(x, -1)
    m = helper_model(name, [helper.make_node("Softmax", ["x"], ["y"],
                                             name="softmax", axis=-1)],
                     [vi("x", x.shape)], [vi("y", y.shape)], [], opset=13)
    save(name, m, [x], [y], ["Softmax opset 13 axis=-1 on 3-D"], "numpy")

    name = "softmax_opset11_axis1"
    rng = rng_for(name)
    x = randn(rng, 2, 3, 4, scale=3.0)
    y = np_softmax_coerced(x, 1)
    m = helper_model(name, [helper.make_node("Softmax", ["x"], ["y"],
                                             name="softmax_coerced", axis=1)],
                     [vi("x", x.shape)], [vi("y", y.shape)], [], opset=11)
    save(name, m, [x], [y], ["Softmax opset 11 axis=1 on 3-D "
                             "(coerced to 2-D [2,12])"], "numpy")


def pool_models():
    name = "maxpool_pads_ceil"
    rng = rng_for(name)
    x = randn(rng, 1, 2, 8, 8)
    y0 = np_pool2d(x, "max", (3, 3), (2, 2), (1, 1, 1, 1), ceil_mode=1)
    y1 = np_pool2d(x, "max", (2, 3), (2, 1), (0, 1, 0, 1))
    nodes = [helper.make_node("MaxPool", ["x"], ["y0"], name="maxpool_ceil",
                              kernel_shape=[3, 3], strides=[2, 2],
                              pads=[1, 1, 1, 1], ceil_mode=1),
             helper.make_node("MaxPool", ["x"], ["y1"], name="maxpool_rect",
                              kernel_shape=[2, 3], strides=[2, 1],
                              pads=[0, 1, 0, 1])]
    m = helper_model(name, nodes, [vi("x", x.shape)],
                     [vi("y0", y0.shape), vi("y1", y1.shape)], [])
    assert y0.shape == (1, 2, 5, 5)  # ceil_mode adds a row and a column
    save(name, m, [x], [y0, y1], ["MaxPool pads", "MaxPool ceil_mode=1",
                                  "MaxPool non-square kernel/strides"], "numpy")

    name = "avgpool_pads"
    rng = rng_for(name)
    x = randn(rng, 1, 3, 7, 7)
    y0 = np_pool2d(x, "avg", (3, 3), (2, 2), (1, 1, 1, 1), count_include_pad=0)
    y1 = np_pool2d(x, "avg", (3, 3), (2, 2), (1, 1, 1, 1), count_include_pad=1)
    y2 = x.astype(np.float64).mean(axis=(2, 3), keepdims=True)
    nodes = [helper.make_node("AveragePool", ["x"], ["y0"], name="avgpool_excl",
                              kernel_shape=[3, 3], strides=[2, 2],
                              pads=[1, 1, 1, 1], count_include_pad=0),
             helper.make_node("AveragePool", ["x"], ["y1"], name="avgpool_incl",
                              kernel_shape=[3, 3], strides=[2, 2],
                              pads=[1, 1, 1, 1], count_include_pad=1),
             helper.make_node("GlobalAveragePool", ["x"], ["y2"], name="gap")]
    m = helper_model(name, nodes, [vi("x", x.shape)],
                     [vi("y0", y0.shape), vi("y1", y1.shape), vi("y2", y2.shape)],
                     [])
    save(name, m, [x], [y0, y1, y2],
         ["AveragePool count_include_pad=0 with pads",
          "AveragePool count_include_pad=1 with pads", "GlobalAveragePool"],
         "numpy")


def layout_models():
    name = "shape_ops"
    rng = rng_for(name)
    x = randn(rng, 2, 3, 4, 5)
    z = randn(rng, 2, 2, 4, 5)
    shape = np.array([2, 0, -1], dtype=np.int64)
    t = x.transpose(0, 2, 3, 1)                        # [2,4,5,3]
    f = t.reshape(2 * 4, 5 * 3)                        # Flatten axis=2 -> [8,15]
    r = f.reshape(2, 15, -1)                           # Reshape [2,0,-1] -> [2,15,4]
    c = np.concatenate([x, z], axis=1)                 # [2,5,4,5]
    nodes = [helper.make_node("Transpose", ["x"], ["t"], name="transpose",
                              perm=[0, 2, 3, 1]),
             helper.make_node("Flatten", ["t"], ["f"], name="flatten_axis2", axis=2),
             helper.make_node("Reshape", ["f", "shape"], ["r"], name="reshape"),
             helper.make_node("Concat", ["x", "z"], ["c"], name="concat", axis=1)]
    m = helper_model(name, nodes, [vi("x", x.shape), vi("z", z.shape)],
                     [vi("r", r.shape), vi("c", c.shape)],
                     [init("shape", shape)])
    save(name, m, [x, z], [r, c],
         ["Transpose perm=[0,2,3,1]", "Flatten axis=2",
          "Reshape with 0 (copy dim) and -1", "Concat axis=1"], "numpy")

    # The chain torch emits for x.view(x.size(0), -1) with dynamic tracing:
    # everything up to Reshape's shape input is foldable at compile time.
    name = "reshape_shape_chain"
    rng = rng_for(name)
    x = randn(rng, 2, 3, 4)
    w = randn(rng, 12, 5)
    y = x.reshape(2, -1).astype(np.float64) @ w
    nodes = [helper.make_node("Shape", ["x"], ["shp"], name="shape"),
             helper.make_node("Gather", ["shp", "idx0"], ["n"], name="gather",
                              axis=0),
             helper.make_node("Unsqueeze", ["n", "axes0"], ["n1"],
                              name="unsqueeze"),
             helper.make_node("Concat", ["n1", "minus1"], ["target"],
                              name="concat_shape", axis=0),
             helper.make_node("Reshape", ["x", "target"], ["flat"],
                              name="reshape"),
             helper.make_node("MatMul", ["flat", "w"], ["y"], name="matmul")]
    m = helper_model(name, nodes, [vi("x", x.shape)], [vi("y", y.shape)],
                     [init("idx0", np.array(0, dtype=np.int64)),
                      init("axes0", np.array([0], dtype=np.int64)),
                      init("minus1", np.array([-1], dtype=np.int64)),
                      init("w", w)])
    save(name, m, [x], [y], ["Shape -> Gather -> Unsqueeze -> Concat -> "
                             "Reshape chain (compile-time foldable)",
                             "MatMul after Reshape"], "numpy")

    name = "identity_constant_dropout"
    rng = rng_for(name)
    x = randn(rng, 1, 4, 3, 3)
    scale = randn(rng, 1, 4, 1, 1)
    shift = np.array([0.25], dtype=np.float32)
    y = (x.astype(np.float64) * scale + shift)
    nodes = [helper.make_node("Identity", ["x"], ["i"], name="identity"),
             # Opset-13 Dropout without training_mode: inference, an identity.
             helper.make_node("Dropout", ["i"], ["d"], name="dropout_eval"),
             helper.make_node("Constant", [], ["scale"], name="const_scale",
                              value=numpy_helper.from_array(scale)),
             helper.make_node("Constant", [], ["shift"], name="const_shift",
                              value=numpy_helper.from_array(shift)),
             helper.make_node("Mul", ["d", "scale"], ["m"], name="mul_const"),
             helper.make_node("Add", ["m", "shift"], ["y"], name="add_const")]
    m = helper_model(name, nodes, [vi("x", x.shape)], [vi("y", y.shape)], [])
    save(name, m, [x], [y], ["Identity", "Dropout (inference)",
                             "Constant nodes", "Mul/Add with Constant operands"],
         "numpy")

    name = "output_is_input_identity"
    rng = rng_for(name)
    x = randn(rng, 2, 5)
    w = randn(rng, 2, 5)
    nodes = [helper.make_node("Identity", ["x"], ["x_copy"], name="passthrough"),
             helper.make_node("Add", ["x", "w"], ["y"], name="add")]
    m = helper_model(name, nodes, [vi("x", x.shape), vi("w", w.shape)],
                     [vi("x_copy", x.shape), vi("y", x.shape)], [])
    save(name, m, [x, w], [x, x.astype(np.float64) + w],
         ["graph output = Identity(graph input)", "two inputs, two outputs"],
         "numpy")

    name = "batchnorm_standalone"
    rng = rng_for(name)
    a = randn(rng, 1, 4, 5, 5)
    b = randn(rng, 1, 4, 5, 5)
    scale = rng.uniform(0.5, 1.5, 4).astype(np.float32)
    bias = randn(rng, 4, scale=0.3)
    mean = randn(rng, 4, scale=0.3)
    var = rng.uniform(0.5, 1.5, 4).astype(np.float32)
    s = a.astype(np.float32) + b
    y = np_batchnorm(s, scale, bias, mean, var, 1e-3)
    nodes = [helper.make_node("Add", ["a", "b"], ["s"], name="add"),
             helper.make_node("BatchNormalization",
                              ["s", "scale", "bias", "mean", "var"], ["y"],
                              name="bn_after_add", epsilon=1e-3)]
    m = helper_model(name, nodes, [vi("a", a.shape), vi("b", b.shape)],
                     [vi("y", y.shape)],
                     [init("scale", scale), init("bias", bias),
                      init("mean", mean), init("var", var)])
    save(name, m, [a, b], [y], ["BatchNormalization not after a Conv "
                                "(not foldable)", "BatchNormalization epsilon"],
         "numpy")


# --------------------------------------------------------------------------
# Models exported from PyTorch (PyTorch references).

class ConvBnRelu(nn.Sequential):
    def __init__(self, cin, cout, stride=1, groups=1):
        super().__init__(nn.Conv2d(cin, cout, 3, stride, 1, groups=groups,
                                   bias=False),
                         nn.BatchNorm2d(cout), nn.ReLU())


def spread_logits(linear, factor):
    """Scales a classifier head so softmax is far from uniform.

    With default init the logits barely differ, the probabilities all sit
    near 1/10, and an upstream error would hardly move them past tolerance.
    """
    with torch.no_grad():
        linear.weight.mul_(factor)


class SmallCnn(nn.Module):
    """conv-bn-relu x2, maxpool, residual add, global avgpool, gemm, softmax."""

    def __init__(self):
        super().__init__()
        self.block1 = ConvBnRelu(3, 8)
        self.block2 = ConvBnRelu(8, 8)
        self.pool = nn.MaxPool2d(2)
        self.head = nn.Linear(8, 10)
        spread_logits(self.head, 4.0)

    def forward(self, x):
        h = self.block1(x)
        h = self.pool(self.block2(h) + h)
        h = F.adaptive_avg_pool2d(h, 1).flatten(1)
        return torch.softmax(self.head(h), dim=1)


class TinyMlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(32, 64)
        self.fc2 = nn.Linear(64, 10)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


class ViewChain(nn.Module):
    """x.view(x.size(0), -1) traces to Shape-Gather-Unsqueeze-Concat-Reshape."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 4, 3, padding=1)
        self.fc = nn.Linear(4 * 6 * 6, 5)

    def forward(self, x):
        h = torch.relu(self.conv(x))
        h = h.view(h.size(0), -1)
        return self.fc(h)


class TwoInTwoOut(nn.Module):
    def __init__(self):
        super().__init__()
        self.fa = nn.Linear(8, 6)
        self.fb = nn.Linear(4, 6)
        self.fc = nn.Linear(8, 6)

    def forward(self, a, b):
        h = torch.relu(self.fa(a)) + self.fb(b)
        return torch.sigmoid(h), torch.tanh(h) * self.fc(a)


class ConvBnChain(nn.Module):
    """Conv+BN pairs of every Conv flavour, each foldable."""

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(4, 8, 3, stride=2, padding=1)            # bias
        self.b1 = nn.BatchNorm2d(8)
        self.c2 = nn.Conv2d(8, 8, 3, padding=2, dilation=2, groups=8,  # depthwise
                            bias=False)
        self.b2 = nn.BatchNorm2d(8)
        self.c3 = nn.Conv2d(8, 6, 1, groups=2)                       # grouped 1x1
        self.b3 = nn.BatchNorm2d(6)
        self.relu6 = nn.ReLU6()

    def forward(self, x):
        h = torch.relu(self.b1(self.c1(x)))
        h = self.relu6(self.b2(self.c2(h)))
        return self.b3(self.c3(h))


class TinyCnnExample(nn.Module):
    """The README's example: ~30k parameters, 1x3x32x32 -> 10 class scores."""

    def __init__(self):
        super().__init__()
        self.stem = ConvBnRelu(3, 32)
        self.down = ConvBnRelu(32, 64, stride=2)
        self.dw = ConvBnRelu(64, 64, groups=64)
        self.pw = nn.Sequential(nn.Conv2d(64, 64, 1, bias=False),
                                nn.BatchNorm2d(64))
        self.expand = ConvBnRelu(64, 64, stride=2)
        self.head = nn.Linear(64, 10)
        spread_logits(self.head, 15.0)

    def forward(self, x):
        h = self.down(self.stem(x))
        h = torch.relu(self.pw(self.dw(h)) + h)
        h = self.expand(h)
        h = F.adaptive_avg_pool2d(h, 1).flatten(1)
        return torch.softmax(self.head(h), dim=1)


def torch_model(cls, seed):
    torch.manual_seed(seed)
    module = cls()
    randomise_bn(module, torch.Generator().manual_seed(seed + 1))
    return module.eval()


def torch_input(seed, *shape):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def torch_models():
    for opset in (13, 11):
        export_torch(f"small_cnn_opset{opset}", torch_model(SmallCnn, 11),
                     [torch_input(12, 1, 3, 16, 16)],
                     ["Conv+BatchNormalization (foldable)", "Relu", "MaxPool",
                      "residual Add", "GlobalAveragePool", "Flatten", "Gemm",
                      f"Softmax opset {opset} axis=1 on 2-D"], opset=opset)
    export_torch("tiny_mlp", torch_model(TinyMlp, 21), [torch_input(22, 1, 32)],
                 ["Gemm transB=1 (torch Linear)", "Relu"])
    export_torch("reshape_view_chain", torch_model(ViewChain, 31),
                 [torch_input(32, 1, 2, 6, 6)],
                 ["Reshape from view(size(0), -1): Shape, Gather, Unsqueeze, "
                  "Concat, Reshape chain to fold", "Constant nodes"])
    export_torch("two_in_two_out", torch_model(TwoInTwoOut, 41),
                 [torch_input(42, 1, 8), torch_input(43, 1, 4)],
                 ["two inputs, two outputs", "Sigmoid", "Tanh",
                  "one input feeding two Gemms"], input_names=["a", "b"],
                 output_names=["gate", "mixed"])
    export_torch("conv_bn_chain", torch_model(ConvBnChain, 51),
                 [torch_input(52, 1, 4, 12, 12)],
                 ["Conv+BatchNormalization fold with bias, depthwise+dilated, "
                  "grouped 1x1", "Clip (relu6)"])


def example_model():
    os.makedirs(EXAMPLES, exist_ok=True)
    module = torch_model(TinyCnnExample, 61)
    x = torch_input(62, 1, 3, 32, 32)
    with torch.no_grad():
        y = module(x)
    path = os.path.join(EXAMPLES, "tiny_cnn.onnx")
    torch.onnx.export(module, (x,), path, opset_version=13,
                      input_names=["input"], output_names=["output"],
                      do_constant_folding=False,
                      training=torch.onnx.TrainingMode.PRESERVE)
    onnx.checker.check_model(onnx.load(path), full_check=True)
    np.save(os.path.join(EXAMPLES, "tiny_cnn.input.npy"), x.numpy())
    np.save(os.path.join(EXAMPLES, "tiny_cnn.output.npy"), y.numpy())


# --------------------------------------------------------------------------
# Inputs Kiln must reject with a clear error.

def bad_fixtures():
    os.makedirs(BAD, exist_ok=True)
    rng = np.random.default_rng(99)
    w = randn(rng, 6, 4)
    k = np.array([3], dtype=np.int64)
    nodes = [helper.make_node("Relu", ["x"], ["r"], name="relu_supported"),
             helper.make_node("RandomNormalLike", ["r"], ["coin"], name="random_unsupported"),
             helper.make_node("Multinomial", ["r"], ["e"], name="sample_unsupported")]
    graph = helper.make_graph(
        nodes, "unsupported_ops", [vi("x", (2, 6))],
        [vi("coin", (2, 6)), helper.make_tensor_value_info("e", TensorProto.INT32, [2, 1])],
        initializer=[init("w", w), init("k", k)])
    model = helper.make_model(graph, producer_name="kiln-tests",
                              opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, os.path.join(BAD, "unsupported_ops.onnx"))

    with open(os.path.join(HERE, "tiny_mlp.onnx"), "rb") as f:
        data = f.read()
    with open(os.path.join(BAD, "truncated.onnx"), "wb") as f:
        f.write(data[:len(data) // 2])
    with open(os.path.join(BAD, "random.bin"), "wb") as f:
        f.write(rng.integers(0, 256, 4096, dtype=np.uint8).tobytes())

    good = np.load(os.path.join(HERE, "tiny_mlp.input0.npy"))
    np.save(os.path.join(BAD, "tiny_mlp.input0.float64.npy"),
            good.astype(np.float64))
    np.save(os.path.join(BAD, "tiny_mlp.input0.wrong_shape.npy"),
            randn(rng, 1, 31))


def main():
    torch.manual_seed(0)
    self_check_references()
    conv_models()
    gemm_matmul_models()
    elementwise_models()
    pool_models()
    layout_models()
    torch_models()
    example_model()
    control_flow_models(save)
    loop_declared_length(os.path.join(HERE, "control", "loop_declared_length.onnx"))
    loop_budget_models(os.path.join(HERE, "control"))
    bad_fixtures()
    MANIFEST.sort(key=lambda e: e["name"])
    with open(os.path.join(HERE, "manifest.json"), "w") as f:
        json.dump({"generator": "tests/models/generate.py",
                   "models": MANIFEST}, f, indent=1)
        f.write("\n")
    for e in MANIFEST:
        size = os.path.getsize(os.path.join(ROOT, e["file"]))
        print(f"{e['name']:28s} opset {e['opset']:2d} {e['reference']:5s} "
              f"{size / 1024:7.1f} KB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
