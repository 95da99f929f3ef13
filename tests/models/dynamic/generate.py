#!/usr/bin/python3
"""Writes Kiln's dynamic-shape test models (symbolic batch / sequence axes).

Run with Debian's interpreter (torch 1.13, torchvision 0.14, onnx 1.12):
  /usr/bin/python3 tests/models/dynamic/generate.py --out DIR [--only A,B]

For every model NAME it writes into DIR:
  NAME.onnx            opset 13, do_constant_folding=True, one input "input" and
                       one output "output" whose dynamic axis is the dim_param
                       symbol "N" (batch) or "S" (sequence)
  NAME.<size>.input.npy   fixed-seed float32 input at that symbol value
  NAME.<size>.output.npy  PyTorch eval-mode output (float32, torch.no_grad())
Nothing is downloaded; running it twice gives identical .npy files.

Before writing, the script checks the PyTorch references for self-consistency
across sizes (see check_batch / check_seq) and that the exported graph really
carries the symbol on the input and output. tests/models/dynamic/onnx_eval.py
then runs the written .onnx files on the written inputs with NumPy.
"""
import argparse
import os
import sys
import warnings

import numpy as np
import onnx
import torch
import torch.nn as nn
import torchvision

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(ROOT, "benchmarks", "models"))
sys.dont_write_bytecode = True  # no __pycache__ in benchmarks/models
from export import TransformerEncoder, randomise_batchnorm  # noqa: E402

OPSET = 13
SEED = 1234
# Self-consistency tolerance: |a - b| <= TOL * max(1, max|b|).
TOL = 1e-5


def make_resnet18():
    model = torchvision.models.resnet18(weights=None)
    # Same non-trivial BatchNorm statistics as the static benchmark export.
    randomise_batchnorm(model, SEED + 1)
    return model


def make_cnn():
    model = nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(8, 16, 3, stride=2, padding=1), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 10))
    randomise_batchnorm(model, SEED + 1)
    return model


def make_mlp():
    return nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 5))


class Attention(nn.Module):
    """One self-attention block (2 heads of 8) with LayerNorm and a residual.

    The head split reshapes with -1 (a constant shape tensor in the export),
    the head merge with x.shape (a Shape->Gather->Concat chain), so the graph
    exercises both ways of keeping S symbolic.
    """

    def __init__(self, d=16, heads=2):
        super().__init__()
        self.d, self.heads, self.dh = d, heads, d // heads
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln = nn.LayerNorm(d)

    def forward(self, x):
        b, s, d = x.shape
        q, k, v = self.qkv(x).split(self.d, dim=-1)
        q = q.reshape(1, -1, self.heads, self.dh).transpose(1, 2)
        k = k.reshape(1, -1, self.heads, self.dh).transpose(1, 2)
        v = v.reshape(1, -1, self.heads, self.dh).transpose(1, 2)
        att = torch.softmax(q @ k.transpose(-1, -2) / self.dh ** 0.5, dim=-1)
        o = (att @ v).transpose(1, 2).reshape(b, s, d)
        return self.ln(self.proj(o)) + x


# name -> (constructor, input shape with None at the dynamic axis, axis,
#          symbol, sizes, size used when tracing the export)
# The trace size is deliberately not 1 (the exporter may treat size-1 dims as
# broadcastable) and not one of the reference sizes.
MODELS = {
    "resnet18_dynbatch": (make_resnet18, (None, 3, 224, 224), 0, "N", (1, 3, 8), 2),
    "transformer_dynseq": (TransformerEncoder, (1, None, 128), 1, "S", (1, 7, 64, 128), 5),
    "cnn_dynbatch": (make_cnn, (None, 3, 16, 16), 0, "N", (1, 2, 5), 3),
    "mlp_dynbatch": (make_mlp, (None, 20), 0, "N", (1, 4, 9), 3),
    "attention_dynseq": (Attention, (1, None, 16), 1, "S", (1, 3, 10), 5),
}


def shape_at(shape, size):
    return tuple(size if d is None else d for d in shape)


def make_inputs(name):
    """Batch models: one fixed-seed tensor at the largest batch, smaller batches
    are its leading rows (so the references at different N share rows).
    Sequence models: an independent fixed-seed tensor per S."""
    _, shape, axis, _, sizes, _ = MODELS[name]
    if axis == 0:
        gen = torch.Generator().manual_seed(SEED + 2)
        big = torch.randn(*shape_at(shape, max(sizes)), generator=gen)
        return {n: big[:n].clone() for n in sizes}
    out = {}
    for s in sizes:
        gen = torch.Generator().manual_seed(SEED + 2 + s)
        out[s] = torch.randn(*shape_at(shape, s), generator=gen)
    return out


def close(a, b):
    err = float((a - b).abs().max())
    return err <= TOL * max(1.0, float(b.abs().max())), err


def check_batch(name, model, inputs, outputs):
    """Each row of every batched output equals the model run on that row alone,
    and the outputs at a smaller N are the leading rows of those at a larger N."""
    worst = 0.0
    sizes = sorted(inputs)
    for n in sizes:
        for i in range(n):
            ok, err = close(outputs[n][i:i + 1], model(inputs[n][i:i + 1]))
            worst = max(worst, err)
            if not ok:
                raise RuntimeError(f"{name}: N={n} row {i} differs from batch-1 run by {err:.3g}")
        for m in sizes:
            if m < n:
                ok, err = close(outputs[n][:m], outputs[m])
                worst = max(worst, err)
                if not ok:
                    raise RuntimeError(f"{name}: N={n} rows :{m} differ from N={m} by {err:.3g}")
    return f"rows vs batch-1 runs and across N: max |diff| {worst:.2e}"


def check_seq(name, model, inputs, outputs):
    """Without positional encoding or masks, self-attention is permutation
    equivariant over tokens, and duplicating every key/value leaves each
    softmax-weighted sum unchanged. So model(x[:, perm]) == y[:, perm] and
    model([x, x]) == [y, y] at every S: sizes 2S and permuted orders must agree
    with the reference at S."""
    worst = 0.0
    for s in sorted(inputs):
        x, y = inputs[s], outputs[s]
        perm = torch.randperm(s, generator=torch.Generator().manual_seed(SEED + s))
        ok, err = close(model(x[:, perm]), y[:, perm])
        worst = max(worst, err)
        if not ok:
            raise RuntimeError(f"{name}: S={s} not permutation equivariant ({err:.3g})")
        ok, err = close(model(torch.cat([x, x], 1)), torch.cat([y, y], 1))
        worst = max(worst, err)
        if not ok:
            raise RuntimeError(f"{name}: S={s} doubled sequence differs ({err:.3g})")
    return f"permuted tokens and doubled sequence (S->2S): max |diff| {worst:.2e}"


def dim_params(value_info):
    return [d.dim_param if d.dim_param else d.dim_value
            for d in value_info.type.tensor_type.shape.dim]


def check_symbols(name, path):
    """The dynamic axis must be the named dim_param on the input and output."""
    _, _, axis, sym, _, _ = MODELS[name]
    graph = onnx.load(path).graph
    for vi in (graph.input[0], graph.output[0]):
        dims = dim_params(vi)
        if dims[axis] != sym or any(isinstance(d, str) for i, d in enumerate(dims) if i != axis):
            raise RuntimeError(f"{name}: {vi.name} has dims {dims}, want {sym} only at axis {axis}")


def generate(name, out_dir):
    ctor, shape, axis, sym, sizes, trace = MODELS[name]
    torch.manual_seed(SEED)
    model = ctor()
    model.eval()
    inputs = make_inputs(name)
    with torch.no_grad():
        outputs = {s: model(x) for s, x in inputs.items()}
        for s, y in outputs.items():
            if y.dtype != torch.float32 or not torch.isfinite(y).all():
                raise RuntimeError(f"{name}: bad reference at {sym}={s}")
        check = (check_batch if axis == 0 else check_seq)(name, model, inputs, outputs)

        path = os.path.join(out_dir, name + ".onnx")
        gen = torch.Generator().manual_seed(SEED + 3)
        example = torch.randn(*shape_at(shape, trace), generator=gen)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # tracer warnings about x.shape
            torch.onnx.export(model, (example,), path, opset_version=OPSET,
                              input_names=["input"], output_names=["output"],
                              dynamic_axes={"input": {axis: sym}, "output": {axis: sym}},
                              do_constant_folding=True)
    onnx.checker.check_model(onnx.load(path), full_check=True)
    check_symbols(name, path)
    for s in sizes:
        np.save(os.path.join(out_dir, f"{name}.{s}.input.npy"), inputs[s].numpy())
        np.save(os.path.join(out_dir, f"{name}.{s}.output.npy"),
                outputs[s].numpy().astype(np.float32))
    print(f"{name}: {os.path.getsize(path) / 1e3:.1f} KB, {sym} in {sizes}, "
          f"output std {float(outputs[sizes[-1]].std()):.3g}; {check}")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="output directory")
    ap.add_argument("--only", default=",".join(MODELS),
                    help="comma-separated subset of: " + ",".join(MODELS))
    args = ap.parse_args(argv)
    names = [n for n in args.only.split(",") if n]
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        ap.error(f"unknown model(s) {','.join(unknown)}; choose from {','.join(MODELS)}")
    os.makedirs(args.out, exist_ok=True)
    torch.set_num_threads(1)  # reproducible float sums; the machine is shared
    for name in names:
        generate(name, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
