"""A model whose output length is known only after the run: NonZero without a
declared shape (dim_param "n"), returned as a graph output, beside a Relu.
References by numpy.nonzero; three inputs give 2, 9 and 0 non-zeros.
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


if __name__ == "__main__":
    main()
