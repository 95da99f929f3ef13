#!/usr/bin/python3
"""Exports Kiln's benchmark models to ONNX with PyTorch reference outputs.

Everything is generated locally with fixed seeds: no weights are downloaded.
The CNNs (ResNet-18, MobileNetV2, GoogLeNet, EfficientNet-B0 from torchvision,
a DS-CNN) get random BatchNorm affine parameters and running statistics
measured on seeded random inputs, so that their output depends on the input
(checked: input_sensitivity) and a reference checks every layer.
For each model NAME this writes, into --out:
  NAME.onnx         opset 13, batch 1, static shapes, no exporter constant folding
  NAME.input.npy    the fixed-seed float32 input
  NAME.output.npy   PyTorch's eval-mode output for that input (float32)
The sequence models (seq_models.py: BERT-style encoder, GRU, LSTM) may have
several inputs of other dtypes (int64 token ids); with more than one they are
written as NAME.input0.npy, NAME.input1.npy, ... in signature order. bert_op17
is exported at opset 17.

Run with Debian's interpreter (torch 1.13, torchvision 0.14):
  /usr/bin/python3 benchmarks/models/export.py --out benchmarks/models/out
"""
import argparse
import os
import sys

import numpy as np
import onnx
import torch
import torch.nn as nn
import torchvision

from seq_models import SEQ_MODELS

OPSET = 13
SEED = 1234
# input_sensitivity below this: the output is nearly the same for every input.
MIN_INPUT_SENSITIVITY = 0.02


def make_mlp():
    return nn.Sequential(
        nn.Linear(784, 512), nn.ReLU(),
        nn.Linear(512, 512), nn.ReLU(),
        nn.Linear(512, 10))


def make_resnet18():
    return torchvision.models.resnet18(weights=None)


def make_mobilenet_v2():
    return torchvision.models.mobilenet_v2(weights=None)


def make_googlenet():
    """GoogLeNet (Inception v1) without its training-only auxiliary heads."""
    return torchvision.models.googlenet(weights=None, aux_logits=False, init_weights=True)


def make_efficientnet_b0():
    return torchvision.models.efficientnet_b0(weights=None)


def make_ds_cnn():
    """Keyword-spotting DS-CNN (Hello Edge, "small"): a 10x4 stem over 49x10
    MFCC frames, four depthwise-separable blocks of 64 channels, 12 classes."""
    def bn_relu(c):
        return [nn.BatchNorm2d(c), nn.ReLU()]
    layers = [nn.Conv2d(1, 64, (10, 4), stride=(2, 2), padding=(5, 1))] + bn_relu(64)
    for _ in range(4):
        layers += [nn.Conv2d(64, 64, 3, padding=1, groups=64)] + bn_relu(64)
        layers += [nn.Conv2d(64, 64, 1)] + bn_relu(64)
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 12)]
    return nn.Sequential(*layers)


class TransformerEncoder(nn.Module):
    """Two post-norm encoder layers (d_model 128, 4 heads, FFN 256) over 32
    tokens, written out so the export is plain MatMul/Softmax/LayerNorm math."""

    def __init__(self, d=128, heads=4, ffn=256, layers=2):
        super().__init__()
        self.heads = heads
        self.blocks = nn.ModuleList()
        for _ in range(layers):
            self.blocks.append(nn.ModuleDict({
                "qkv": nn.Linear(d, 3 * d), "proj": nn.Linear(d, d),
                "ln1": nn.LayerNorm(d), "ff1": nn.Linear(d, ffn),
                "ff2": nn.Linear(ffn, d), "ln2": nn.LayerNorm(d)}))

    def forward(self, x):
        b, t, d = x.shape
        h, dh = self.heads, d // self.heads
        for blk in self.blocks:
            q, k, v = blk["qkv"](x).split(d, dim=-1)
            q = q.reshape(b, t, h, dh).transpose(1, 2)
            k = k.reshape(b, t, h, dh).transpose(1, 2)
            v = v.reshape(b, t, h, dh).transpose(1, 2)
            att = torch.softmax(q @ k.transpose(-1, -2) / dh ** 0.5, dim=-1)
            o = (att @ v).transpose(1, 2).reshape(b, t, d)
            x = blk["ln1"](x + blk["proj"](o))
            x = blk["ln2"](x + blk["ff2"](torch.relu(blk["ff1"](x))))
        return x


# name -> (constructor, input shape)
MODELS = {
    "mlp": (make_mlp, (1, 784)),
    "resnet18": (make_resnet18, (1, 3, 224, 224)),
    "mobilenet_v2": (make_mobilenet_v2, (1, 3, 224, 224)),
    "googlenet": (make_googlenet, (1, 3, 224, 224)),
    "efficientnet_b0": (make_efficientnet_b0, (1, 3, 224, 224)),
    "ds_cnn": (make_ds_cnn, (1, 1, 49, 10)),
    "transformer": (TransformerEncoder, (1, 32, 128)),
}


def randomise_batchnorm(model, seed):
    """Gives every BatchNorm random affine parameters (scale, shift).

    torchvision initialises them to 1 / 0; together with the running
    statistics set by calibrate_batchnorm this makes BatchNorm far from an
    identity, so a folding bug would not go unnoticed.
    """
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.modules.batchnorm._BatchNorm):
                c = m.num_features
                m.weight.copy_(torch.rand(c, generator=gen) * 0.5 + 0.75)
                m.bias.copy_((torch.rand(c, generator=gen) - 0.5) * 0.2)


def calibrate_batchnorm(model, shape, seed, batches=4, batch=8):
    """Sets every BatchNorm's running mean/variance to the statistics of its
    input over a few seeded random batches of `shape`'s sample size.

    With untrained weights, torchvision's default statistics (mean 0, var 1)
    or random ones let activations shrink layer after layer until the output
    is the classifier's bias alone, the same for every input (on MobileNetV2
    the outputs for different inputs differed by 1e-7 of their spread): a
    reference that checks nothing upstream. Statistics measured on the
    data, as training would leave them, keep every layer's signal at unit
    scale. Only BatchNorm runs in training mode here (Dropout stays off).
    """
    norms = [m for m in model.modules() if isinstance(m, nn.modules.batchnorm._BatchNorm)]
    if not norms:
        return
    model.eval()
    for m in norms:
        m.reset_running_stats()
        m.momentum = None  # cumulative average over all calibration batches
        m.train()
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for _ in range(batches):
            model(torch.randn(batch, *shape[1:], generator=gen, dtype=torch.float32))
    model.eval()


def input_sensitivity(model, shape, seed, samples=4):
    """Spread of the output across inputs over its spread across elements:
    near 0 when the output hardly depends on the input."""
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        y = model(torch.randn(samples, *shape[1:], generator=gen, dtype=torch.float32))
    return float(y.std(0).mean() / y.mean(0).std().clamp_min(1e-30))


ALL_MODELS = list(MODELS) + list(SEQ_MODELS)


def build(name):
    ctor, shape = MODELS[name]
    torch.manual_seed(SEED)
    model = ctor()
    randomise_batchnorm(model, SEED + 1)
    calibrate_batchnorm(model, shape, SEED + 3)
    model.eval()
    gen = torch.Generator().manual_seed(SEED + 2)
    x = torch.randn(*shape, generator=gen, dtype=torch.float32)
    return model, x


def build_seq(name):
    ctor, make_inputs, input_names, opset = SEQ_MODELS[name]
    torch.manual_seed(SEED)
    model = ctor()
    model.eval()
    inputs = make_inputs(torch.Generator().manual_seed(SEED + 2))
    return model, inputs, input_names, opset


def check_output(name, y):
    std = float(y.std())
    if not np.isfinite(y.numpy()).all():
        raise RuntimeError(f"{name}: non-finite reference output")
    if not 1e-2 <= std <= 1e3:
        raise RuntimeError(f"{name}: output std {std:.3g} outside [1e-2, 1e3]; "
                           "the reference would not test numerics meaningfully")
    return std


def export_seq(name, out_dir):
    model, inputs, input_names, opset = build_seq(name)
    with torch.no_grad():
        y = model(*inputs)
    std = check_output(name, y)
    path = os.path.join(out_dir, name + ".onnx")
    torch.onnx.export(model, inputs, path, opset_version=opset,
                      input_names=input_names, output_names=["output"],
                      do_constant_folding=False,
                      training=torch.onnx.TrainingMode.PRESERVE)
    onnx.checker.check_model(onnx.load(path), full_check=True)
    if len(inputs) == 1:
        np.save(os.path.join(out_dir, name + ".input.npy"), inputs[0].numpy())
    else:
        for i, x in enumerate(inputs):
            np.save(os.path.join(out_dir, f"{name}.input{i}.npy"), x.numpy())
    np.save(os.path.join(out_dir, name + ".output.npy"),
            y.numpy().astype(np.float32))
    params = sum(p.numel() for p in model.parameters())
    size = os.path.getsize(path)
    ops = sorted({n.op_type for n in onnx.load(path).graph.node})
    print(f"{name:16s} params={params:>10,d} output={tuple(y.shape)} "
          f"std={std:.4g} onnx={size / 1e6:.2f} MB opset={opset} ops={','.join(ops)}")


def export_one(name, out_dir):
    if name in SEQ_MODELS:
        return export_seq(name, out_dir)
    model, x = build(name)
    with torch.no_grad():
        y = model(x)
    std = check_output(name, y)
    sensitivity = input_sensitivity(model, MODELS[name][1], SEED + 4)
    if sensitivity < MIN_INPUT_SENSITIVITY:
        raise RuntimeError(f"{name}: the output hardly depends on the input (spread across "
                           f"inputs / across elements = {sensitivity:.3g} < "
                           f"{MIN_INPUT_SENSITIVITY}); the reference would check only the "
                           "last layer")

    path = os.path.join(out_dir, name + ".onnx")
    # TrainingMode.PRESERVE (with the model in eval mode) skips the exporter's
    # eval-only peephole that fuses Conv+BatchNorm: Kiln must do that itself.
    torch.onnx.export(model, x, path, opset_version=OPSET,
                      input_names=["input"], output_names=["output"],
                      do_constant_folding=False,
                      training=torch.onnx.TrainingMode.PRESERVE)
    onnx.checker.check_model(onnx.load(path), full_check=True)
    np.save(os.path.join(out_dir, name + ".input.npy"),
            x.numpy().astype(np.float32))
    np.save(os.path.join(out_dir, name + ".output.npy"),
            y.numpy().astype(np.float32))

    params = sum(p.numel() for p in model.parameters())
    size = os.path.getsize(path)
    ops = sorted({n.op_type for n in onnx.load(path).graph.node})
    print(f"{name:16s} params={params:>10,d} output={tuple(y.shape)} "
          f"std={std:.4g} input-sensitivity={sensitivity:.3g} onnx={size / 1e6:.2f} MB "
          f"ops={','.join(ops)}")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(os.path.dirname(
        os.path.abspath(__file__)), "out"), help="output directory")
    ap.add_argument("--models", default=",".join(ALL_MODELS),
                    help="comma-separated subset of: " + ",".join(ALL_MODELS))
    ap.add_argument("--list", action="store_true",
                    help="list the available models and exit")
    args = ap.parse_args(argv)

    if args.list:
        for name, (_, shape) in MODELS.items():
            print(f"{name:16s} input={shape}")
        for name in SEQ_MODELS:
            print(f"{name:16s} inputs={','.join(SEQ_MODELS[name][2])}")
        return 0
    names = [n for n in args.models.split(",") if n]
    unknown = [n for n in names if n not in ALL_MODELS]
    if unknown:
        ap.error(f"unknown model(s): {', '.join(unknown)}; "
                 f"choose from {', '.join(ALL_MODELS)}")
    os.makedirs(args.out, exist_ok=True)
    for name in names:
        export_one(name, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
