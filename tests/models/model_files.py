"""Writes a generated test model and its data the way the tests read them:
NAME.onnx (opset 13, IR version 7, checked by onnx.checker) beside
NAME.input<i>.npy and NAME.output<i>.npy, in the order of the dicts."""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper

ONNX_TYPE = {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.int64): TensorProto.INT64,
             np.dtype(np.int32): TensorProto.INT32, np.dtype(np.bool_): TensorProto.BOOL}


def save_model(folder, name, nodes, ins, outs, initializer=()):
    """ins and outs map graph input/output names to arrays (their dtype and
    shape are the declared ones); initializer is a list of TensorProtos."""
    def info(k, v):
        return helper.make_tensor_value_info(k, ONNX_TYPE[v.dtype], list(v.shape))
    graph = helper.make_graph(nodes, name, [info(k, v) for k, v in ins.items()],
                              [info(k, v) for k, v in outs.items()],
                              initializer=list(initializer))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 7
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(folder, name + ".onnx"))
    for i, a in enumerate(ins.values()):
        np.save(os.path.join(folder, f"{name}.input{i}.npy"), a)
    for i, a in enumerate(outs.values()):
        np.save(os.path.join(folder, f"{name}.output{i}.npy"), np.ascontiguousarray(a))
