#!/usr/bin/python3
"""A one-head attention step with a key/value cache, as decoder exports have
it (issue 8): x [S, 8] holds S new positions, past_k and past_v [P, 8] the
cached ones; the outputs are the attention result [S, 8] and the updated
caches present_k, present_v [P + S, 8], whose length is an expression of two
symbols (Concat of the cache and the new keys). NumPy (float64) references at
several (P, S), written into --out:
  kvcache_dynseq.onnx
  kvcache_dynseq.P_S.{x,past_k,past_v}.npy, .{y,present_k,present_v}.npy
Run with Debian's interpreter: /usr/bin/python3 generate_kvcache.py --out DIR
Deterministic (fixed seed)."""
import argparse
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

SIZES = [(1, 1), (3, 2), (7, 5), (2, 9)]
D = 8


def model(out, w):
    def value(name, dims):
        return helper.make_tensor_value_info(name, TensorProto.FLOAT, dims)

    nodes = [
        helper.make_node("MatMul", ["x", "wq"], ["q"], name="q"),
        helper.make_node("MatMul", ["x", "wk"], ["k"], name="k"),
        helper.make_node("MatMul", ["x", "wv"], ["v"], name="v"),
        helper.make_node("Concat", ["past_k", "k"], ["present_k"], name="cache_k", axis=0),
        helper.make_node("Concat", ["past_v", "v"], ["present_v"], name="cache_v", axis=0),
        helper.make_node("Transpose", ["present_k"], ["kt"], name="kt", perm=[1, 0]),
        helper.make_node("MatMul", ["q", "kt"], ["scores"], name="scores"),
        helper.make_node("Mul", ["scores", "scale"], ["scaled"], name="scale"),
        helper.make_node("Softmax", ["scaled"], ["weights"], name="softmax", axis=1),
        helper.make_node("MatMul", ["weights", "present_v"], ["y"], name="attend"),
    ]
    inits = [numpy_helper.from_array(w[n], n) for n in ("wq", "wk", "wv")]
    inits.append(numpy_helper.from_array(np.array([1 / np.sqrt(D)], np.float32), "scale"))
    graph = helper.make_graph(
        nodes, "kvcache_dynseq",
        [value("x", ["S", D]), value("past_k", ["P", D]), value("past_v", ["P", D])],
        [value("y", ["S", D]), value("present_k", ["L", D]), value("present_v", ["L", D])],
        initializer=inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                          producer_name="kiln generate_kvcache.py")
    m.ir_version = 7
    onnx.checker.check_model(m)
    onnx.save(m, os.path.join(out, "kvcache_dynseq.onnx"))


def reference(x, past_k, past_v, w):
    f = {n: a.astype(np.float64) for n, a in w.items()}
    x, past_k, past_v = (a.astype(np.float64) for a in (x, past_k, past_v))
    k = np.concatenate([past_k, x @ f["wk"]])
    v = np.concatenate([past_v, x @ f["wv"]])
    s = (x @ f["wq"]) @ k.T / np.sqrt(D)
    e = np.exp(s - s.max(axis=1, keepdims=True))
    y = (e / e.sum(axis=1, keepdims=True)) @ v
    return [a.astype(np.float32) for a in (y, k, v)]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)))
    out = p.parse_args().out
    rng = np.random.default_rng(20261130)
    w = {n: (rng.standard_normal((D, D)) / np.sqrt(D)).astype(np.float32) for n in ("wq", "wk", "wv")}
    model(out, w)
    for past, new in SIZES:
        x = rng.standard_normal((new, D)).astype(np.float32)
        past_k = rng.standard_normal((past, D)).astype(np.float32)
        past_v = rng.standard_normal((past, D)).astype(np.float32)
        base = os.path.join(out, f"kvcache_dynseq.{past}_{new}")
        for name, a in zip(("x", "past_k", "past_v"), (x, past_k, past_v)):
            np.save(f"{base}.{name}.npy", a)
        for name, a in zip(("y", "present_k", "present_v"), reference(x, past_k, past_v, w)):
            np.save(f"{base}.{name}.npy", a)


if __name__ == "__main__":
    main()
