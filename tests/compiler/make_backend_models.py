#!/usr/bin/python3
"""Generates the small ONNX models the back-end compiler tests read.

Run with Debian's interpreter: /usr/bin/python3 tests/compiler/make_backend_models.py
Outputs go to tests/compiler/models_backend/ (deterministic: fixed seeds).
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "models_backend")


def const(name, array):
    return numpy_helper.from_array(np.asarray(array, dtype=np.float32), name)


def small_cnn():
    """Conv→BN→Relu→MaxPool→Flatten→MatMul→Add→Softmax, plus a Transpose and
    Concat side branch, so every back-end stage has work to do."""
    rng = np.random.default_rng(7)
    inits = [
        const("conv.w", rng.standard_normal((4, 3, 3, 3)) * 0.3),
        const("conv.b", rng.standard_normal(4) * 0.1),
        const("bn.scale", rng.uniform(0.5, 1.5, 4)),
        const("bn.bias", rng.standard_normal(4) * 0.1),
        const("bn.mean", rng.standard_normal(4) * 0.1),
        const("bn.var", rng.uniform(0.5, 1.5, 4)),
        const("fc.w", rng.standard_normal((64, 10)) * 0.1),
        const("fc.b", rng.standard_normal(10) * 0.1),
    ]
    nodes = [
        helper.make_node("Conv", ["input", "conv.w", "conv.b"], ["conv_out"], name="conv1",
                         pads=[1, 1, 1, 1]),
        helper.make_node("BatchNormalization",
                         ["conv_out", "bn.scale", "bn.bias", "bn.mean", "bn.var"], ["bn_out"],
                         name="bn1", epsilon=1e-5),
        helper.make_node("Relu", ["bn_out"], ["relu_out"], name="relu1"),
        helper.make_node("MaxPool", ["relu_out"], ["pool_out"], name="pool1",
                         kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Flatten", ["pool_out"], ["flat"], name="flatten1", axis=1),
        helper.make_node("MatMul", ["flat", "fc.w"], ["mm_out"], name="fc_matmul"),
        helper.make_node("Add", ["mm_out", "fc.b"], ["logits"], name="fc_add"),
        helper.make_node("Softmax", ["logits"], ["probs"], name="softmax1", axis=-1),
        helper.make_node("Transpose", ["pool_out"], ["pool_t"], name="transpose1",
                         perm=[0, 1, 3, 2]),
        helper.make_node("Concat", ["pool_out", "pool_t"], ["both"], name="concat1", axis=1),
    ]
    graph = helper.make_graph(
        nodes, "small_cnn",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 8, 8])],
        [helper.make_tensor_value_info("probs", TensorProto.FLOAT, [1, 10]),
         helper.make_tensor_value_info("both", TensorProto.FLOAT, [1, 8, 4, 4])],
        inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                              producer_name="kiln-tests")
    onnx.checker.check_model(model)
    return model


def export_tiny_resnet(path):
    """A PyTorch-exported residual block: the graph shapes exporters produce
    (Conv+BN pairs, Add skip, GlobalAveragePool, Flatten, Gemm transB=1)."""
    import torch
    from torch import nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2, padding=1, bias=False),
                                      nn.BatchNorm2d(8), nn.ReLU())
            self.body = nn.Sequential(nn.Conv2d(8, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8),
                                      nn.ReLU6(), nn.Conv2d(8, 8, 3, padding=1, groups=2),
                                      nn.BatchNorm2d(8))
            self.head = nn.Linear(8, 5)

        def forward(self, x):
            x = self.stem(x)
            x = torch.relu(x + self.body(x))
            x = nn.functional.adaptive_avg_pool2d(x, 1).flatten(1)
            return torch.sigmoid(self.head(x))

    torch.manual_seed(3)
    model = Block()
    for m in model.modules():  # non-trivial running statistics
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.uniform_(-0.5, 0.5)
            m.running_var.uniform_(0.5, 2.0)
    model.eval()
    torch.onnx.export(model, torch.randn(2, 3, 16, 16), path, input_names=["image"],
                      output_names=["score"], opset_version=13)


def main():
    os.makedirs(OUT, exist_ok=True)
    onnx.save(small_cnn(), os.path.join(OUT, "small_cnn.onnx"))
    export_tiny_resnet(os.path.join(OUT, "tiny_resnet.onnx"))


if __name__ == "__main__":
    main()
