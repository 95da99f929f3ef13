#!/usr/bin/python3
"""Writes the small ONNX models of the ai.onnx.preview.training optimizers,
MaxUnpool and RoiAlign tests (tests/compiler/train_unpool_roi_test.cc,
tests/vm/train_unpool_roi_run_test.cc) to tests/compiler/models/: models
that compile, and one model per refusal (domain imports, attributes,
groups, shapes, dtypes).

Run with Debian's interpreter: /usr/bin/python3 tests/compiler/make_models_train_unpool_roi.py
"""
import os

import onnx
from onnx import TensorProto, helper

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "models")
TRAIN = "ai.onnx.preview.training"
F, I64, I32 = TensorProto.FLOAT, TensorProto.INT64, TensorProto.INT32


def vi(name, dims, t=F):
    return helper.make_tensor_value_info(name, t, dims)


def save(name, nodes, inputs, outputs, imports, inits=()):
    graph = helper.make_graph(nodes, name.replace(".onnx", ""), inputs, outputs,
                              initializer=list(inits))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid(d, v) for d, v in imports])
    model.ir_version = 8
    onnx.save(model, os.path.join(OUT, name))


def train_node(op, groups, group_size, name="opt", **attrs):
    tags = {3: ["X", "G", "S"], 4: ["X", "G", "V", "H"]}[group_size]
    ins = ["R", "T"] + ["%s%d" % (t, i) for t in tags for i in range(groups)]
    outs = ["%s%d_new" % (t, i) for t in tags if t != "G" for i in range(groups)]
    return helper.make_node(op, ins, outs, name=name, domain=TRAIN, **attrs), ins, outs


def train_model(name, op, groups, group_size, imports=((TRAIN, 1),), shapes=None, r_type=F,
                extra_nodes=(), **attrs):
    node, ins, outs = train_node(op, groups, group_size, **attrs)
    shapes = shapes or {}
    inputs = [vi("R", [], r_type), vi("T", [], I64)]
    inputs += [vi(n, shapes.get(n, [2 + int(n[-1])])) for n in ins[2:]]
    outputs = [vi(n, [2 + int(n[-5])]) for n in outs]
    save(name, [node] + list(extra_nodes), inputs, outputs, imports)


MOMENTUM = dict(alpha=0.9, beta=0.5, norm_coefficient=0.01)

# Compiles: two tensors optimized by Adam; Momentum (Nesterov) alone.
train_model("training_adam2.onnx", "Adam", 2, 4, alpha=0.9, beta=0.99, epsilon=1e-6)
train_model("training_nesterov.onnx", "Momentum", 1, 3, mode="nesterov", **MOMENTUM)
# Refused at import.
train_model("training_version2.onnx", "Momentum", 1, 3, imports=((TRAIN, 2),), mode="standard",
            **MOMENTUM)
train_model("training_not_imported.onnx", "Momentum", 1, 3, imports=(("", 13),),
            mode="standard", **MOMENTUM)
relu = helper.make_node("Relu", ["X0"], ["relu_out"], name="relu")
train_model("training_default_node.onnx", "Adagrad", 1, 3, extra_nodes=[relu])
save("training_gradient.onnx",
     [helper.make_node("Gradient", ["x"], ["dy_dx"], name="grad", domain=TRAIN, xs=["x"], y="x")],
     [vi("x", [2])], [vi("dy_dx", [2])], [(TRAIN, 1)])
# Refused by shape inference.
train_model("training_bad_mode.onnx", "Momentum", 1, 3, mode="bogus", **MOMENTUM)
train_model("training_missing_alpha.onnx", "Momentum", 1, 3, mode="standard", beta=0.5,
            norm_coefficient=0.0)
train_model("training_shape_mismatch.onnx", "Adagrad", 2, 3, shapes={"G1": [4]})
train_model("training_r_int.onnx", "Adagrad", 1, 3, r_type=I64)
node, ins, outs = train_node("Adagrad", 1, 3)
save("training_bad_groups.onnx", [helper.make_node("Adagrad", ins + ["X0"], outs, name="opt",
                                                   domain=TRAIN)],
     [vi("R", [], F), vi("T", [], I64)] + [vi(n, [2]) for n in ins[2:]],
     [vi(n, [2]) for n in outs], [(TRAIN, 1)])

# MaxUnpool: output_shape at run time (declared or not), a constant too small.
unpool = dict(kernel_shape=[2, 2], strides=[2, 2])
save("maxunpool_runtime_shape.onnx",
     [helper.make_node("MaxUnpool", ["x", "i", "s"], ["y"], name="unpool", **unpool)],
     [vi("x", [1, 1, 2, 2]), vi("i", [1, 1, 2, 2], I64), vi("s", [4], I64)],
     [vi("y", [1, 1, 5, 5])], [("", 11)])
save("maxunpool_runtime_undeclared.onnx",
     [helper.make_node("MaxUnpool", ["x", "i", "s"], ["y"], name="unpool", **unpool)],
     [vi("x", [1, 1, 2, 2]), vi("i", [1, 1, 2, 2], I64), vi("s", [4], I64)],
     [vi("y", None)], [("", 11)])
save("maxunpool_small_output.onnx",
     [helper.make_node("MaxUnpool", ["x", "i", "s"], ["y"], name="unpool", **unpool)],
     [vi("x", [1, 1, 2, 2]), vi("i", [1, 1, 2, 2], I64)], [vi("y", None)], [("", 11)],
     inits=[helper.make_tensor("s", I64, [4], [1, 1, 3, 5])])

# RoiAlign: compiles in avg mode; refused with int32 batch indices or an unknown mode.
def roi_model(name, batch_type=I64, **attrs):
    save(name, [helper.make_node("RoiAlign", ["x", "rois", "b"], ["y"], name="roi", **attrs)],
         [vi("x", [2, 1, 6, 6]), vi("rois", [3, 4]), vi("b", [3], batch_type)],
         [vi("y", None)], [("", 16)])


roi_model("roialign_avg.onnx", output_height=2, output_width=3, sampling_ratio=0)
roi_model("roialign_int32_batch.onnx", batch_type=I32)
roi_model("roialign_bad_mode.onnx", mode="median")
