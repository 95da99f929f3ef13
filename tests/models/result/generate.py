"""Models whose output length is known only after the run, returned as graph
outputs without a declared shape (dim_param): NonZero (beside a Relu;
references by numpy.nonzero; three inputs give 2, 9 and 0 non-zeros) and
Compress along axis 1 with a run-time condition (references by
numpy.compress; conditions selecting 2, 4 and 0 columns).
usage: /usr/bin/python3 tests/models/result/generate.py"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 4])
    y = helper.make_tensor_value_info("y", TensorProto.INT64, [2, "n"])
    r = helper.make_tensor_value_info("r", TensorProto.FLOAT, [3, 4])
    graph = helper.make_graph([helper.make_node("NonZero", ["x"], ["y"], name="nz"),
                               helper.make_node("Relu", ["x"], ["r"], name="relu")],
                              "nonzero_after_run", [x], [y, r])
    model = helper.make_model(graph, producer_name="kiln-tests",
                              opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, os.path.join(HERE, "nonzero_after_run.onnx"))
    rng = np.random.default_rng(1)
    for k, density in enumerate([0.3, 0.8, 0.0]):
        a = (rng.random((3, 4)) < density).astype(np.float32)
        a *= rng.standard_normal((3, 4)).astype(np.float32)
        np.save(os.path.join(HERE, f"nonzero_after_run.in{k}.npy"), a)
        np.save(os.path.join(HERE, f"nonzero_after_run.ref{k}.npy"),
                np.array(np.nonzero(a), dtype=np.int64))
        print(k, int(np.count_nonzero(a)), "non-zeros")

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 4])
    cond = helper.make_tensor_value_info("cond", TensorProto.BOOL, [4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, "k"])
    graph = helper.make_graph([helper.make_node("Compress", ["x", "cond"], ["y"], name="cp", axis=1)],
                              "compress_after_run", [x, cond], [y])
    model = helper.make_model(graph, producer_name="kiln-tests",
                              opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, os.path.join(HERE, "compress_after_run.onnx"))
    data = rng.standard_normal((3, 4)).astype(np.float32)
    for k, c in enumerate([[1, 0, 0, 1], [1, 1, 1, 1], [0, 0, 0, 0]]):
        c = np.array(c, dtype=bool)
        np.save(os.path.join(HERE, f"compress_after_run.x{k}.npy"), data)
        np.save(os.path.join(HERE, f"compress_after_run.cond{k}.npy"), c)
        np.save(os.path.join(HERE, f"compress_after_run.ref{k}.npy"), np.compress(c, data, axis=1))


if __name__ == "__main__":
    main()
