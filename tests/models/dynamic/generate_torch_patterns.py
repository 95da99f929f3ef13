#!/usr/bin/python3
"""Shape patterns PyTorch exports for dynamic axes (issue 8), each a small
module exported with dynamic_axes, with PyTorch references at several sizes.

  arange_dynseq   x [B,S,8] + torch.arange(S)[:, None]      (Range to S)
  arange_past_dynseq  x [B,S,8], past [B,P,8]: x + torch.arange(P, P + S)
                  (Range between two sums of symbols)
  causal_dynseq   softmax of x @ x^T masked by torch.triu(ones(S, S), 1)
                  (ConstantOfShape [S,S], Trilu, Where over [B,S,S])
  zeros_dynbatch  x [B,6]: x[:, :4] + torch.zeros(B, 4)     (ConstantOfShape [B,4])
  expand_cls_dynseq  x [B,S,4]: cat(cls.expand(B, -1, -1), x) (a ViT class
                  token: Equal/Where on the size values replace the -1s)
  length_mask_dynseq x [B,S,4]: x.sum(-1) * (arange(S)[None].expand(B, S) < 3)
  size_mean_dynseq x [B,S,4]: x.sum(1) / x.shape[1] + x.shape[0] (sizes read
                  as tensor data: kiln:SymbolicValue, int_values kernel)
  gpt_dynseq      ids [1,S] int64 -> logits [1,S,50]: a two-block GPT-style
                  decoder (token + arange(S) position embeddings, causal
                  MultiheadAttention masked by triu(ones(S, S), 1), GELU
                  MLP, pre-LayerNorm), at S = 1, 5, 13, 64

Writes into --out, per model NAME and size label K (S, or B):
  NAME.onnx (opset 14), NAME.K.input.npy or NAME.K.input0.npy, .input1.npy,
  NAME.K.output.npy (float32, PyTorch under torch.no_grad()).
Each model is compiled once by tests/e2e/dynamic_models_test.sh and run at
every size in the VM and as AOT C.

Run with Debian's interpreter: /usr/bin/python3 generate_torch_patterns.py --out DIR
Deterministic (fixed seed); the exported bytes depend on the torch version,
so the committed .onnx files are what the references were computed for.
"""
import argparse
import os

import numpy as np
import onnx
import torch


class Arange(torch.nn.Module):
    def forward(self, x):
        pos = torch.arange(x.shape[1], dtype=torch.long)
        return x + pos.to(x.dtype).unsqueeze(-1)


class ArangePast(torch.nn.Module):
    def forward(self, x, past):
        p, s = past.shape[1], x.shape[1]
        return x + torch.arange(p, p + s).to(x.dtype).unsqueeze(-1)


class Causal(torch.nn.Module):
    def forward(self, x):
        s = x.shape[1]
        mask = torch.triu(torch.ones(s, s), diagonal=1)
        att = x @ x.transpose(1, 2)
        return att.masked_fill(mask.bool(), float("-inf")).softmax(-1)


class Zeros(torch.nn.Module):
    def forward(self, x):
        return x[:, :4] + torch.zeros(x.shape[0], 4)


class ExpandCls(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.cls = torch.nn.Parameter(torch.randn(1, 1, 4))

    def forward(self, x):
        return torch.cat([self.cls.expand(x.shape[0], -1, -1), x], 1)


class LengthMask(torch.nn.Module):
    def forward(self, x):
        s = x.shape[1]
        idx = torch.arange(s)[None, :].expand(x.shape[0], s)
        return x.sum(-1) * (idx < 3).float()


class SizeMean(torch.nn.Module):
    def forward(self, x):
        return x.sum(1) / x.shape[1] + x.shape[0]


class Block(torch.nn.Module):
    def __init__(self, d=32, heads=4):
        super().__init__()
        self.ln1, self.ln2 = torch.nn.LayerNorm(d), torch.nn.LayerNorm(d)
        self.attn = torch.nn.MultiheadAttention(d, heads, batch_first=True)
        self.mlp = torch.nn.Sequential(torch.nn.Linear(d, 4 * d), torch.nn.GELU(),
                                       torch.nn.Linear(4 * d, d))

    def forward(self, x):
        s = x.shape[1]
        mask = torch.triu(torch.ones(s, s, dtype=torch.bool), diagonal=1)
        a = self.ln1(x)
        x = x + self.attn(a, a, a, attn_mask=mask, need_weights=False)[0]
        return x + self.mlp(self.ln2(x))


class Gpt(torch.nn.Module):
    def __init__(self, vocab=50, d=32, max_len=64):
        super().__init__()
        self.tok, self.pos = torch.nn.Embedding(vocab, d), torch.nn.Embedding(max_len, d)
        self.blocks = torch.nn.Sequential(Block(d), Block(d))
        self.ln, self.head = torch.nn.LayerNorm(d), torch.nn.Linear(d, vocab)

    def forward(self, ids):
        x = self.tok(ids) + self.pos(torch.arange(ids.shape[1]))[None]
        return self.head(self.ln(self.blocks(x)))


def export(out, name, module, example, names, dynamic_axes):
    path = os.path.join(out, name + ".onnx")
    torch.onnx.export(module, example, path, opset_version=14, input_names=names,
                      output_names=["output"], dynamic_axes=dynamic_axes)
    model = onnx.load(path)
    model.producer_version = ""  # keep the bytes independent of the torch build
    onnx.checker.check_model(model)
    onnx.save(model, path)


def save_case(out, name, label, inputs, output):
    base = os.path.join(out, f"{name}.{label}")
    if len(inputs) == 1:
        np.save(base + ".input.npy", inputs[0].numpy())
    else:
        for k, x in enumerate(inputs):
            np.save(base + f".input{k}.npy", x.numpy())
    np.save(base + ".output.npy", output.numpy().astype(np.float32))


def export_with_cases(out, models):
    """Each (name, module, make_inputs, input_names, dynamic_axes): exported at
    size 5, with inputs and PyTorch outputs at sizes 1, 3 and 7."""
    for name, module, make, names, axes in models:
        export(out, name, module, make(5), names, axes)
        for size in (1, 3, 7):
            inputs = make(size)
            save_case(out, name, size, inputs, module(*inputs))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.manual_seed(14)
    models = [
        ("arange_dynseq", Arange(), lambda s: (torch.randn(2, s, 8),), ["input"],
         {"input": {0: "B", 1: "S"}}),
        ("arange_past_dynseq", ArangePast(), lambda s: (torch.randn(2, s, 8), torch.randn(2, 2 * s + 1, 8)),
         ["input", "past"], {"input": {0: "B", 1: "S"}, "past": {0: "B", 1: "P"}}),
        ("causal_dynseq", Causal(), lambda s: (torch.randn(2, s, 8),), ["input"],
         {"input": {0: "B", 1: "S"}}),
        ("zeros_dynbatch", Zeros(), lambda s: (torch.randn(s, 6),), ["input"], {"input": {0: "B"}}),
    ]
    with torch.no_grad():
        export_with_cases(args.out, models)
        torch.manual_seed(16)
        more = [
            ("expand_cls_dynseq", ExpandCls(), lambda s: (torch.randn(s, s + 1, 4),), ["input"],
             {"input": {0: "B", 1: "S"}}),
            ("length_mask_dynseq", LengthMask(), lambda s: (torch.randn(2, s, 4),), ["input"],
             {"input": {0: "B", 1: "S"}}),
            ("size_mean_dynseq", SizeMean(), lambda s: (torch.randn(s + 1, s, 4),), ["input"],
             {"input": {0: "B", 1: "S"}}),
        ]
        export_with_cases(args.out, more)
        torch.manual_seed(15)
        gpt = Gpt().eval()
        export(args.out, "gpt_dynseq", gpt, (torch.randint(0, 50, (1, 7)),), ["input"],
               {"input": {1: "S"}, "output": {1: "S"}})
        for size in (1, 5, 13, 64):
            ids = torch.randint(0, 50, (1, size))
            save_case(args.out, "gpt_dynseq", size, (ids,), gpt(ids))

if __name__ == "__main__":
    main()
