#!/usr/bin/python3
"""Writes the float-math end-to-end test models (unary math, activations and
their fusion into Conv/Gemm, Pow/PRelu/Mod/Max/Min/Mean/Sum, the Reduce*
family, ArgMax/ArgMin, LayerNormalization, InstanceNormalization,
LpNormalization, LRN, Hardmax, LogSoftmax, Dropout's mask, BatchNormalization in
training mode) into tests/models/
as NAME.onnx, NAME.input<i>.npy and NAME.output<i>.npy, for
tests/e2e/models_test.cc.

References are computed here in float64 with NumPy / PyTorch on the same
float32 inputs, independently of Kiln. Fixed seed: reruns are identical.

Run with Debian's interpreter: /usr/bin/python3 tests/models/generate_math.py
"""
import os

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
F32, I64, BOOL = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL
rng = np.random.default_rng(7)


def rand(*shape, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, size=shape).astype(np.float32)


def t64(a):
    return torch.from_numpy(np.asarray(a, dtype=np.float64))


def elem_type(a):
    return {np.float32: F32, np.float64: F32, np.int64: I64, np.bool_: BOOL}[a.dtype.type]


def save(name, opset, nodes, inputs, outputs, initializers=()):
    """inputs: [(name, array)], outputs: [(name, reference array)]."""
    graph = helper.make_graph(
        nodes, name,
        [helper.make_tensor_value_info(n, elem_type(a), a.shape) for n, a in inputs],
        [helper.make_tensor_value_info(n, elem_type(a), a.shape) for n, a in outputs],
        initializer=[numpy_helper.from_array(a, n) for n, a in initializers])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="kiln-generate-math")
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, os.path.join(HERE, name + ".onnx"))
    for i, (_, a) in enumerate(inputs):
        np.save(os.path.join(HERE, "%s.input%d.npy" % (name, i)), a)
    for i, (_, a) in enumerate(outputs):
        # np.array keeps 0-d shapes (ascontiguousarray would make them [1]).
        ref = np.array(a, dtype=np.float32 if a.dtype == np.float64 else a.dtype)
        np.save(os.path.join(HERE, "%s.output%d.npy" % (name, i)), ref)
    print("wrote", name)


def node(op, ins, outs, **attrs):
    return helper.make_node(op, ins, outs, name=outs[0] + "_node", **attrs)


# ------------------------------------------------------------ unary math ops
x = rand(3, 4, 5, lo=-0.9, hi=0.9)
x[0, 0, :4] = [0.125, -0.125, 0.375, -0.625]  # x*4 hits exact halves for Round
xd = t64(x)
cases = [  # (ops chain, torch reference)
    (["Abs"], torch.abs), (["Neg"], torch.neg), (["Exp"], torch.exp),
    (["Exp", "Log"], lambda v: v), (["Abs", "Sqrt"], lambda v: torch.sqrt(v.abs())),
    (["Exp", "Reciprocal"], lambda v: torch.exp(-v)), (["Sign"], torch.sign),
    (["Erf"], torch.erf), (["Sin"], torch.sin), (["Cos"], torch.cos), (["Tan"], torch.tan),
    (["Sinh"], torch.sinh), (["Cosh"], torch.cosh), (["Asin"], torch.asin),
    (["Acos"], torch.acos), (["Atan"], torch.atan), (["Asinh"], torch.asinh),
    (["Atanh"], torch.atanh), (["Exp", "Exp", "Acosh"], lambda v: torch.acosh(torch.exp(torch.exp(v)))),
]
nodes, outs = [], []
for k, (chain, ref) in enumerate(cases):
    src = "x"
    for j, op in enumerate(chain):
        dst = "y%d" % k if j + 1 == len(chain) else "t%d_%d" % (k, j)
        nodes.append(node(op, [src], [dst]))
        src = dst
    outs.append(("y%d" % k, ref(xd).numpy()))
# Floor/Ceil/Round on x * 4 so values cross integers and hit exact halves.
nodes.append(node("Constant", [], ["four"], value=numpy_helper.from_array(np.array(4.0, np.float32))))
nodes.append(node("Mul", ["x", "four"], ["x4"]))
x4 = t64(x * np.float32(4))
for op, ref in [("Floor", torch.floor), ("Ceil", torch.ceil), ("Round", torch.round)]:
    nodes.append(node(op, ["x4"], [op.lower()]))
    outs.append((op.lower(), ref(x4).numpy()))
save("math_unary", 13, nodes, [("x", x)], outs)

# ------------------------------------------------------------ activations
x = rand(2, 3, 7, lo=-4, hi=4)
xd = t64(x)
acts = [
    ("LeakyRelu", dict(alpha=0.2), F.leaky_relu(xd, 0.2)),
    ("LeakyRelu", {}, F.leaky_relu(xd, 0.01)),
    ("Elu", dict(alpha=0.5), F.elu(xd, 0.5)),
    ("Selu", {}, F.selu(xd)),
    ("Selu", dict(alpha=2.0, gamma=3.0), 3.0 * torch.where(xd > 0, xd, 2.0 * (torch.exp(xd) - 1))),
    ("Celu", dict(alpha=2.0), F.celu(xd, 2.0)),
    ("HardSigmoid", {}, torch.clamp(0.2 * xd + 0.5, 0, 1)),
    ("HardSigmoid", dict(alpha=0.5, beta=0.6), torch.clamp(0.5 * xd + 0.6, 0, 1)),
    ("HardSwish", {}, F.hardswish(xd)),
    ("ThresholdedRelu", dict(alpha=1.5), torch.where(xd > 1.5, xd, torch.zeros_like(xd))),
    ("Softplus", {}, F.softplus(xd)),
    ("Softsign", {}, F.softsign(xd)),
]
nodes, outs = [], []
for k, (op, attrs, ref) in enumerate(acts):
    nodes.append(node(op, ["x"], ["a%d" % k], **attrs))
    outs.append(("a%d" % k, ref.numpy()))
save("math_activations", 14, nodes, [("x", x)], outs)

# --------------------------------- activations fused into Conv and Gemm epilogues
x = rand(1, 3, 6, 6)
w = rand(4, 3, 3, 3)
b = rand(4)
gw = rand(5, 144)
gb = rand(5)
conv = F.conv2d(t64(x), t64(w), t64(b), padding=1)
act = F.leaky_relu(conv, 0.1)
flat = F.hardswish(act).reshape(1, -1)  # HardSwish stays standalone (Conv has one act)
gemm = flat @ t64(gw).T + t64(gb)
y = F.elu(gemm, 0.8)
nodes = [node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
         node("LeakyRelu", ["c"], ["r"], alpha=0.1),
         node("HardSwish", ["r"], ["h"]),
         node("Flatten", ["h"], ["f"]),
         node("Gemm", ["f", "gw", "gb"], ["g"], transB=1),
         node("Elu", ["g"], ["y"], alpha=0.8)]
save("math_fused_epilogues", 14, nodes, [("x", x)], [("y", y.numpy())],
     [("w", w), ("b", b), ("gw", gw), ("gb", gb)])

# ------------------------------------------------------------ binary / variadic
a = rand(2, 3, 4, lo=0.2, hi=2.0)
e = rand(3, 1, lo=-2, hi=2)
s = rand(3, 1)
m1, m2, m3 = rand(2, 3, 4), rand(3, 1), rand(4)
ad, ed = t64(a), t64(e)
xm = rand(2, 3, 4, lo=-5, hi=5)
dv = rand(4, lo=0.5, hi=2.0) * np.array([1, -1, 1, -1], np.float32)
pr = rand(2, 3, 4)
nodes = [node("Pow", ["a", "e"], ["pow"]),
         node("Pow", ["pr", "two"], ["pow_int"]),
         node("PRelu", ["pr", "slope"], ["prelu"]),
         node("Mod", ["xm", "dv"], ["mod"], fmod=1),
         node("Max", ["m1", "m2", "m3"], ["max3"]),
         node("Min", ["m1", "m2"], ["min2"]),
         node("Mean", ["m1", "m2", "m3"], ["mean3"]),
         node("Sum", ["m1", "m3"], ["sum2"]),
         node("Sum", ["m2"], ["sum1"])]
M1, M2, M3 = t64(m1), t64(m2), t64(m3)
outs = [("pow", torch.pow(ad, ed).numpy()),
        ("pow_int", (t64(pr) ** 2).numpy()),
        ("prelu", torch.where(t64(pr) < 0, t64(pr) * t64(s), t64(pr)).numpy()),
        ("mod", np.fmod(xm.astype(np.float64), dv.astype(np.float64))),
        ("max3", torch.maximum(torch.maximum(M1, M2), M3).numpy()),
        ("min2", torch.minimum(M1, M2).numpy()),
        ("mean3", ((M1 + M2 + M3) / 3).numpy()),
        ("sum2", (M1 + M3).numpy()),
        ("sum1", M2.numpy())]
save("math_binary", 13, nodes,
     [("a", a), ("e", e), ("pr", pr), ("xm", xm), ("dv", dv), ("m1", m1), ("m2", m2), ("m3", m3)],
     outs, [("slope", s), ("two", np.array([2], np.int64))])

# ------------------------------------------------------------ reductions
x = rand(3, 4, 5, lo=0.1, hi=1.5)
xd = x.astype(np.float64)
ones = np.ones((2, 5), np.float32)
red = [  # op, attrs, axes input (opset 13 ReduceSum) or None, reference
    ("ReduceSum", dict(keepdims=1), np.array([1], np.int64), xd.sum(axis=1, keepdims=True)),
    ("ReduceSum", dict(keepdims=0), np.array([0, -1], np.int64), xd.sum(axis=(0, 2))),
    ("ReduceSum", dict(keepdims=0), None, xd.sum()),
    ("ReduceMean", dict(axes=[0, 2], keepdims=0), None, xd.mean(axis=(0, 2))),
    ("ReduceMax", dict(axes=[-1]), None, xd.max(axis=2, keepdims=True)),
    ("ReduceMin", dict(axes=[0]), None, xd.min(axis=0, keepdims=True)),
    ("ReduceProd", dict(axes=[1], keepdims=0), None, xd.prod(axis=1)),
    ("ReduceL1", dict(axes=[2, 0]), None, np.abs(xd).sum(axis=(0, 2), keepdims=True)),
    ("ReduceL2", {}, None, np.sqrt((xd ** 2).sum()).reshape(1, 1, 1)),
    ("ReduceLogSum", dict(axes=[1]), None, np.log(xd.sum(axis=1, keepdims=True))),
    ("ReduceLogSumExp", dict(axes=[0, 1], keepdims=0),
     None, torch.logsumexp(t64(x), dim=(0, 1)).numpy()),
    ("ReduceSumSquare", dict(axes=[2]), None, (xd ** 2).sum(axis=2, keepdims=True)),
]
nodes, outs, inits = [], [], []
for k, (op, attrs, axes, ref) in enumerate(red):
    ins = ["x"]
    if axes is not None:
        inits.append(("axes%d" % k, axes))
        ins.append("axes%d" % k)
    nodes.append(node(op, ins, ["r%d" % k], **attrs))
    outs.append(("r%d" % k, np.asarray(ref)))
# ArgMax/ArgMin with ties: few distinct values.
q = rng.integers(0, 3, size=(3, 4, 5)).astype(np.float32)
qt = t64(q)
nodes.append(node("ArgMax", ["q"], ["amax"], axis=1))
outs.append(("amax", torch.argmax(qt, dim=1, keepdim=True).numpy().astype(np.int64)))
nodes.append(node("ArgMin", ["q"], ["amin_last"], axis=-1, keepdims=0, select_last_index=1))
outs.append(("amin_last", (4 - torch.argmin(torch.flip(qt, [2]), dim=2)).numpy().astype(np.int64)))
save("math_reduce", 13, nodes, [("x", x), ("q", q)], outs, inits)

# Opset 11: every axes an attribute; Hardmax/LogSoftmax coerce to 2-D at axis.
x = rand(2, 3, 4, lo=-2, hi=2)
xd = t64(x)
flat = xd.reshape(2, 12)
hard = torch.zeros(2, 12, dtype=torch.float64).scatter_(1, flat.argmax(1, keepdim=True), 1.0)
nodes = [node("ReduceSum", ["x"], ["rs"], axes=[1]),
         node("Hardmax", ["x"], ["hm"]),
         node("LogSoftmax", ["x"], ["ls"])]
outs = [("rs", xd.sum(1, keepdim=True).numpy()), ("hm", hard.reshape(2, 3, 4).numpy()),
        ("ls", F.log_softmax(flat, 1).reshape(2, 3, 4).numpy())]
save("math_opset11_axes", 11, nodes, [("x", x)], outs)

# ------------------------------------------------------------ normalisations
x = rand(2, 3, 4, 5, lo=-2, hi=3)
xd = t64(x)
lw, lb = rand(4, 5), rand(4, 5)
ln = F.layer_norm(xd, (4, 5), t64(lw), t64(lb), 1e-3)
flatx = xd.reshape(6, 20)
mean = flatx.mean(1).reshape(2, 3, 1, 1)
inv = (1.0 / torch.sqrt(flatx.var(1, unbiased=False) + 1e-3)).reshape(2, 3, 1, 1)
lw1 = rand(5)  # a [5] scale broadcast over the normalised [4, 5]
ln1 = F.layer_norm(xd, (4, 5), t64(np.broadcast_to(lw1, (4, 5)).copy()), None, 1e-5)
iscale, ibias = rand(3), rand(3)
inorm = F.instance_norm(xd, weight=t64(iscale), bias=t64(ibias), eps=1e-5)
lp = F.normalize(xd, p=1, dim=2, eps=0.0)
lrn_ref = np.empty_like(x, dtype=np.float64)
xx = x.astype(np.float64)
for c in range(3):  # size 3: channels c-1 .. c+1
    sq = (xx[:, max(0, c - 1):min(2, c + 1) + 1] ** 2).sum(axis=1)
    lrn_ref[:, c] = xx[:, c] / (2.0 + 1e-2 / 3 * sq) ** 0.5
hm = torch.zeros_like(xd).scatter_(1, xd.argmax(1, keepdim=True), 1.0)
nodes = [node("LayerNormalization", ["x", "lw", "lb"], ["ln", "ln_mean", "ln_inv"], axis=2,
              epsilon=1e-3),
         node("LayerNormalization", ["x", "lw1"], ["ln1"], axis=-2),
         node("InstanceNormalization", ["x", "iscale", "ibias"], ["in"]),
         node("LpNormalization", ["x"], ["lp"], axis=2, p=1),
         node("LRN", ["x"], ["lrn"], size=3, alpha=1e-2, beta=0.5, bias=2.0),
         node("Hardmax", ["x"], ["hm"], axis=1),
         node("LogSoftmax", ["x"], ["ls"], axis=1)]
outs = [("ln", ln.numpy()), ("ln_mean", mean.numpy()), ("ln_inv", inv.numpy()),
        ("ln1", ln1.numpy()), ("in", inorm.numpy()), ("lp", lp.numpy()), ("lrn", lrn_ref),
        ("hm", hm.numpy()), ("ls", F.log_softmax(xd, 1).numpy())]
save("math_norms", 17, nodes, [("x", x)], outs,
     [("lw", lw), ("lb", lb), ("lw1", lw1), ("iscale", iscale), ("ibias", ibias)])

# ------------------------------------------------------------ Dropout mask
x = rand(3, 4)
nodes = [node("Dropout", ["x"], ["y", "mask"]), node("Abs", ["y"], ["z"])]
save("math_dropout_mask", 13, nodes, [("x", x)],
     [("z", np.abs(x.astype(np.float64))), ("mask", np.ones((3, 4), np.bool_))])

# ------------------------------------------------------------ BatchNormalization, training mode
# y normalises by the batch's own statistics (torch's training-mode batch_norm,
# whose momentum weighs the batch: torch 1 - m is ONNX's m). ONNX's running
# variance blends the population variance, torch's the unbiased one: NumPy here.
x3, x4 = rand(4, 3, 6), rand(2, 3, 4, 5)
scale, bias, rmean, rvar = rand(3), rand(3), rand(3), rand(3, lo=0.5, hi=1.5)
momentum = 0.8
y3 = F.batch_norm(t64(x3), t64(rmean).clone(), t64(rvar).clone(), t64(scale), t64(bias),
                  training=True, momentum=1 - momentum, eps=1e-3)
y4 = F.batch_norm(t64(x4), None, None, t64(scale), t64(bias), training=True, eps=1e-5)
x3d = x3.astype(np.float64)
out_mean = rmean * momentum + x3d.mean(axis=(0, 2)) * (1 - momentum)
out_var = rvar * momentum + x3d.var(axis=(0, 2)) * (1 - momentum)
nodes = [node("BatchNormalization", ["x3", "scale", "bias", "mean", "var"],
              ["y3", "running_mean", "running_var"], epsilon=1e-3, momentum=momentum,
              training_mode=1),
         node("BatchNormalization", ["x4", "scale", "bias", "mean", "var"], ["y4", "", ""],
              training_mode=1)]
save("math_batchnorm_training", 15, nodes, [("x3", x3), ("x4", x4), ("mean", rmean),
                                            ("var", rvar)],
     [("y3", y3.numpy()), ("running_mean", out_mean), ("running_var", out_var),
      ("y4", y4.numpy())], [("scale", scale), ("bias", bias)])
