#!/usr/bin/python3
"""Exports the BERT-style encoder of benchmarks/models/seq_models.py with a
dynamic sequence axis S, with PyTorch references.

Writes into --out:
  bert_dynseq.onnx                   opset 13, inputs input_ids/attention_mask [1,S]
  bert_dynseq.S.input0.npy, .input1.npy, .output.npy   for S in 7, 33, 64
  bert_dynseq.70.input0.npy, .input1.npy               S = 70: more tokens than the
                                     64 position embeddings, which the model refuses
Run with Debian's interpreter: /usr/bin/python3 generate_bert.py --out DIR
"""
import argparse
import os
import sys

import numpy as np
import onnx
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "benchmarks", "models"))
from seq_models import BERT_SEQ, make_bert, make_inputs_bert  # noqa: E402

SIZES = (7, 33, 64)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", required=True)
    out = ap.parse_args().out
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(1234)
    model = make_bert().eval()
    ids, mask = make_inputs_bert(torch.Generator().manual_seed(5))
    path = os.path.join(out, "bert_dynseq.onnx")
    # Traced at S = 40 (not a reference size) so a baked-in length would show.
    torch.onnx.export(model, (ids[:, :40], mask[:, :40]), path, opset_version=13,
                      input_names=["input_ids", "attention_mask"], output_names=["hidden"],
                      dynamic_axes={"input_ids": {1: "S"}, "attention_mask": {1: "S"},
                                    "hidden": {1: "S"}},
                      do_constant_folding=True)
    graph = onnx.load(path).graph
    for v in list(graph.input) + list(graph.output):
        assert v.type.tensor_type.shape.dim[1].dim_param == "S", v.name
    full = {}
    for s in SIZES:
        a, m = ids[:, :s].clone(), mask[:, :s].clone()
        with torch.no_grad():
            y = model(a, m)
        full[s] = y
        base = os.path.join(out, f"bert_dynseq.{s}")
        np.save(base + ".input0.npy", a.numpy())
        np.save(base + ".input1.npy", m.numpy())
        np.save(base + ".output.npy", y.numpy().astype(np.float32))
    too_long = BERT_SEQ + 6
    np.save(os.path.join(out, f"bert_dynseq.{too_long}.input0.npy"),
            np.ones((1, too_long), np.int64))
    np.save(os.path.join(out, f"bert_dynseq.{too_long}.input1.npy"),
            np.ones((1, too_long), np.int64))
    print(f"bert_dynseq: {os.path.getsize(path) / 1e3:.1f} KB, S in {SIZES}, "
          f"output std {float(full[SIZES[-1]].std()):.3g}")


if __name__ == "__main__":
    main()
